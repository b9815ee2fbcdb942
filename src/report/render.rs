//! Rendering [`ReportData`](super::model::ReportData) with minijinja. The default template
//! (`templates/report.md.j2`) is compiled into the binary; `--template FILE` overrides it.
//! Undefined variables are an error (minijinja's strict undefined behaviour).

use super::model::ReportData;
use crate::error::{Error, Result};
use minijinja::{Environment, UndefinedBehavior};

/// The default template, compiled in.
pub const DEFAULT_TEMPLATE: &str = include_str!("../../templates/report.md.j2");

/// Renders `data` with `template` (the default when `None`); `name` names the template in errors.
///
/// Errors (exit 2): a template syntax error or an undefined variable, with the template's name,
/// line and the minijinja message.
pub fn render(data: &ReportData, template: Option<(&str, &str)>) -> Result<String> {
    let (name, source) = template.unwrap_or(("report.md.j2 (built in)", DEFAULT_TEMPLATE));
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(true);
    env.add_template(name, source).map_err(|e| template_error(name, e))?;
    let tmpl = env.get_template(name).map_err(|e| template_error(name, e))?;
    tmpl.render(data).map_err(|e| template_error(name, e))
}

fn template_error(name: &str, e: minijinja::Error) -> Error {
    let line = e.line().map(|l| format!(":{}", l)).unwrap_or_default();
    let detail = e.detail().map(|d| format!(" ({})", d)).unwrap_or_default();
    Error::input(format!("{}{}: {}{}", name, line, e.kind(), detail))
        .with_hint("every variable a template uses must exist in the report data; see `pledge report --help`")
}
