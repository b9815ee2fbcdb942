//! The one seam for output formats: every command result is `Serialize` (for `--format json`)
//! and implements [`Human`] (for the default text form). Commands call [`render`].

use serde::Serialize;

/// Output format chosen with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Text for people (the default).
    #[default]
    Human,
    /// Pretty-printed JSON, stable key order, for programs and for the report.
    Json,
}

/// A result that can be written as text for people.
pub trait Human {
    /// The text form, ending with a newline.
    fn human(&self) -> String;
}

/// Renders `value` in `format`: JSON is pretty-printed with a trailing newline.
pub fn render<T: Serialize + Human>(value: &T, format: Format) -> String {
    match format {
        Format::Human => value.human(),
        Format::Json => to_json(value),
    }
}

/// Pretty JSON with a trailing newline; serialization of pledge's own types cannot fail, but a
/// failure would be reported inside the JSON rather than panicking.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    match serde_json::to_string_pretty(value) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        Err(e) => format!("{{\"error\": \"serialization failed: {}\"}}\n", e),
    }
}
