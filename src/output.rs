//! Output formats: every command result is `Serialize` (for `--format json`); the CLI renders
//! the default text form (`cli/human/`).

crate::named_enum! {
    /// Output format chosen with `--format`.
    #[derive(Default)]
    pub enum Format {
        /// Text for people (the default).
        #[default]
        Human = "human",
        /// Pretty-printed JSON, stable key order, for programs and for the report.
        Json = "json",
    }
}

/// Pretty JSON with a trailing newline; serialization of pledge's own types cannot fail, but a
/// failure would be reported inside the JSON rather than panicking.
pub fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    match serde_json::to_string_pretty(value) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(e) => format!("{{\"error\": \"serialization failed: {}\"}}\n", e),
    }
}
