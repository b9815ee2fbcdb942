//! Value parsers for the library's named enums: the command line accepts exactly the names the
//! enums serialize as (one list of names, see [`crate::named`]).

use crate::error::Error;
use crate::named::Named;
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// A clap value parser for any [`Named`] enum: its names are the possible values.
pub fn named<T: Named + Send + Sync + Clone>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::NAMES)
        .try_map(|s: String| T::from_name(&s).ok_or_else(|| format!("unknown value `{}`", s)))
}

/// Parses `--label LABEL=VALUE` arguments (shared with `pledge power --pilot`).
pub fn label_args(args: &[String]) -> crate::Result<Vec<(String, f64)>> {
    let mut labels = Vec::new();
    for l in args {
        let (k, v) = l
            .split_once('=')
            .ok_or_else(|| Error::input(format!("--label `{}`: expected LABEL=VALUE, e.g. HALTED=0", l)))?;
        let x: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| Error::input(format!("--label `{}`: the value must be a finite number", l)))?;
        labels.push((k.trim().to_string(), x));
    }
    Ok(labels)
}
