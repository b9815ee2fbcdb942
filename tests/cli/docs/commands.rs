//! The command reference, from clap's definition of the command line (`pledge::cli::Cli`): the
//! same text as `pledge COMMAND --help`, as Markdown.

use super::text;
use clap::{Arg, Command, CommandFactory};

/// Every command: its description, usage, arguments and options.
pub fn generate() -> String {
    let mut cli = pledge::cli::Cli::command();
    cli.build();
    let mut out = String::from("## Options of every command\n\n");
    for arg in cli.get_arguments().filter(|a| a.is_global_set() && !a.is_hide_set()) {
        out.push_str(&arg_line(arg));
    }
    out.push('\n');
    for sub in cli
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        out.push_str(&command_section(sub));
    }
    out
}

/// One command's section.
fn command_section(cmd: &Command) -> String {
    let name = cmd.get_name();
    let about = cmd
        .get_long_about()
        .or(cmd.get_about())
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut usage = cmd.clone().render_usage().to_string();
    usage = usage.trim_start_matches("Usage: ").to_string();
    let mut out = format!(
        "## `pledge {}`\n\n{}\n\n```text\n{}\n```\n\n",
        name,
        text(&sentence(about.trim())),
        usage.trim()
    );
    let args: Vec<&Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_global_set() && a.get_id() != "help")
        .collect();
    let (pos, opts): (Vec<&Arg>, Vec<&Arg>) = args.into_iter().partition(|a| a.is_positional());
    if !pos.is_empty() {
        out.push_str("Arguments:\n\n");
        pos.iter().for_each(|a| out.push_str(&arg_line(a)));
        out.push('\n');
    }
    if !opts.is_empty() {
        out.push_str("Options:\n\n");
        opts.iter().for_each(|a| out.push_str(&arg_line(a)));
        out.push('\n');
    }
    if let Some(after) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        out.push_str(&format!("```text\n{}\n```\n\n", after.to_string().trim_end()));
    }
    out
}

/// One argument as a list item: its spelling, then its help, default and possible values.
fn arg_line(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut text = sentence(&help.split_whitespace().collect::<Vec<_>>().join(" "));
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        text.push_str(&format!(" Default: `{}`.", defaults.join(",")));
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    if !values.is_empty() && !text.contains("possible values") {
        text.push_str(&format!(" Values: {}.", values.join(", ")));
    }
    format!("- `{}`: {}\n", spelling(arg), super::text(text.trim()))
}

/// `s` ending with a full stop (clap drops the last one of a one-line help).
fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.is_empty() || s.ends_with(['.', '?', '!']) {
        s.to_string()
    } else {
        format!("{}.", s)
    }
}

/// How an argument is written: `PROTOCOL`, `-C <DIR>`, `--scores <FILE>...`, `--dry-run`.
fn spelling(arg: &Arg) -> String {
    let values: Vec<String> = arg
        .get_value_names()
        .map(|v| v.iter().map(|n| n.to_string()).collect())
        .unwrap_or_else(|| vec![arg.get_id().to_string().to_uppercase()]);
    let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let dots = if many { "..." } else { "" };
    if arg.is_positional() {
        return format!("{}{}", values.join(" "), dots);
    }
    let mut names = Vec::new();
    if let Some(s) = arg.get_short() {
        names.push(format!("-{}", s));
    }
    if let Some(l) = arg.get_long() {
        names.push(format!("--{}", l));
    }
    let mut s = names.join(", ");
    if arg.get_action().takes_values() {
        let vals: Vec<String> = values.iter().map(|v| format!("<{}>", v)).collect();
        s.push_str(&format!(" {}{}", vals.join(" "), dots));
    }
    s
}
