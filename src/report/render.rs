//! Rendering [`ReportData`](super::model::ReportData) with minijinja. The default template
//! (`templates/report.md.j2`) is compiled into the binary; `--template FILE` overrides it.
//! Undefined variables are an error (minijinja's strict undefined behaviour).
//!
//! Every value a Markdown template prints is escaped for Markdown
//! ([`super::markdown::escape_inline`]), so a name renders as the text it is; a template marks
//! what it wants verbatim with `| safe` (the Mermaid chart and the commands, inside fences).
//! The filters `code` (a code span, safe in a table cell) and `block` (multi-line text, line
//! breaks kept) escape for those places. A template whose name ends in `.html` or `.htm` is
//! HTML-escaped instead.

use super::markdown;
use super::model::ReportData;
use crate::error::{Error, Result};
use minijinja::value::Value;
use minijinja::{AutoEscape, Environment, Output, State, UndefinedBehavior};

/// The default template, compiled in.
pub const DEFAULT_TEMPLATE: &str = include_str!("../../templates/report.md.j2");

const MARKDOWN: AutoEscape = AutoEscape::Custom("markdown");

/// Renders `data` with `template` (the default when `None`); `name` names the template in errors.
///
/// Errors (exit 2): a template syntax error or an undefined variable, with the template's name,
/// line and the minijinja message.
pub fn render(data: &ReportData, template: Option<(&str, &str)>) -> Result<String> {
    let (name, source) = template.unwrap_or(("report.md.j2 (built in)", DEFAULT_TEMPLATE));
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    env.set_auto_escape_callback(|name| {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".html") || lower.ends_with(".htm") {
            AutoEscape::Html
        } else {
            MARKDOWN
        }
    });
    env.set_formatter(format_value);
    env.add_filter("code", |v: Value| {
        Value::from_safe_string(markdown::code_span(&v.to_string()))
    });
    env.add_filter("block", |v: Value| {
        Value::from_safe_string(markdown::escape_block(&v.to_string()))
    });
    env.add_template(name, source).map_err(|e| template_error(name, e))?;
    let tmpl = env.get_template(name).map_err(|e| template_error(name, e))?;
    tmpl.render(data).map_err(|e| template_error(name, e))
}

/// minijinja's default formatter, plus Markdown escaping for the `markdown` auto-escape mode.
fn format_value(out: &mut Output, state: &State, value: &Value) -> std::result::Result<(), minijinja::Error> {
    if state.auto_escape() == MARKDOWN && !value.is_safe() {
        let text = if value.is_none() || value.is_undefined() {
            String::new()
        } else {
            value.to_string()
        };
        out.write_str(&markdown::escape_inline(&text))
            .map_err(|e| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, e.to_string()))
    } else {
        minijinja::escape_formatter(out, state, value)
    }
}

fn template_error(name: &str, e: minijinja::Error) -> Error {
    let line = e.line().map(|l| format!(":{}", l)).unwrap_or_default();
    let detail = e.detail().map(|d| format!(" ({})", d)).unwrap_or_default();
    Error::input(format!("{}{}: {}{}", name, line, e.kind(), detail))
        .with_hint("every variable a template uses must exist in the report data; see `pledge report --help`")
}
