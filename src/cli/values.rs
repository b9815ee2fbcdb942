//! Value parsers for the library's named enums: the command line accepts exactly the names the
//! enums serialize as (one list of names, see [`crate::named`]).

use crate::named::Named;
use clap::builder::{PossibleValuesParser, TypedValueParser};

/// A clap value parser for any [`Named`] enum: its names are the possible values.
pub fn named<T: Named + Send + Sync + Clone>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::NAMES)
        .try_map(|s: String| T::from_name(&s).ok_or_else(|| format!("unknown value `{}`", s)))
}
