//! Enums whose values have one name each, written once: the name used in JSON, TOML, on the
//! command line and in messages.
//!
//! [`named_enum!`](crate::named_enum) defines a fieldless enum from `Variant = "name"` pairs and
//! implements, from that single list, `as_str`, [`std::fmt::Display`], [`std::str::FromStr`],
//! serde's `Serialize` / `Deserialize` (a string; an unknown one is serde's "unknown variant `x`,
//! expected one of …" error) and the [`Named`] trait (all values and names, for the CLI's value
//! parsers and for listings). No second list of names can drift from the first. A name that is
//! none of them gets the closest one as a hint ([`closest`], [`UnknownName::hint`]; the protocol
//! loader does the same for serde's "unknown variant" errors).

/// A fieldless enum whose values each have one name.
pub trait Named: Sized + Copy + 'static {
    /// Every value, in declaration order.
    const ALL: &'static [Self];
    /// Every name, in declaration order.
    const NAMES: &'static [&'static str];
    /// The value's name.
    fn name(self) -> &'static str;
    /// The value named `s`, if any (exact match).
    fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == s)
    }
}

/// The name of `names` closest to `given` by Jaro–Winkler similarity (as clap and cargo suggest
/// commands), if it is close enough (similarity ≥ 0.8) to be a likely misspelling; `None` for
/// an exact match's absence of anything close.
pub fn closest<'a, S: AsRef<str>>(given: &str, names: &'a [S]) -> Option<&'a str> {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(given, n.as_ref()), n.as_ref()))
        .filter(|(s, _)| *s >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// `did you mean `X`?` for the name of `names` closest to `given` (see [`closest`]), as a hint
/// line's text.
pub fn did_you_mean<S: AsRef<str>>(given: &str, names: &[S]) -> Option<String> {
    closest(given, names).map(|n| format!("did you mean `{}`?", n))
}

/// A name that is none of an enum's names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown value `{given}`, expected one of {}", expected.iter().map(|n| format!("`{}`", n)).collect::<Vec<_>>().join(", "))]
pub struct UnknownName {
    /// The name given.
    pub given: String,
    /// The names allowed.
    pub expected: &'static [&'static str],
}

impl UnknownName {
    /// The hint for this name: the closest allowed one (see [`did_you_mean`]), if any is close.
    pub fn hint(&self) -> Option<String> {
        did_you_mean(&self.given, self.expected)
    }
}

/// Defines a fieldless enum with one name per value; see the [module docs](crate::named).
///
/// ```
/// pledge::named_enum! {
///     /// A color.
///     pub enum Color {
///         /// Red.
///         Red = "red",
///         /// Dark blue.
///         DarkBlue = "dark-blue",
///     }
/// }
/// use pledge::named::Named;
/// assert_eq!(Color::DarkBlue.as_str(), "dark-blue");
/// assert_eq!("red".parse::<Color>().unwrap(), Color::Red);
/// assert_eq!(serde_json::to_string(&Color::Red).unwrap(), "\"red\"");
/// assert_eq!(Color::NAMES, &["red", "dark-blue"]);
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// The value's name (as in JSON, TOML and on the command line).
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text ),+
                }
            }
        }

        impl $crate::named::Named for $name {
            const ALL: &'static [Self] = &[$( $name::$variant ),+];
            const NAMES: &'static [&'static str] = &[$( $text ),+];
            fn name(self) -> &'static str {
                self.as_str()
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::named::UnknownName;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                <$name as $crate::named::Named>::from_name(s).ok_or_else(|| $crate::named::UnknownName {
                    given: s.to_string(),
                    expected: <$name as $crate::named::Named>::NAMES,
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::std::result::Result<Self, D::Error> {
                struct V;
                impl ::serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("one of the names of ", stringify!($name)))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, s: &str) -> ::std::result::Result<$name, E> {
                        <$name as $crate::named::Named>::from_name(s)
                            .ok_or_else(|| E::unknown_variant(s, <$name as $crate::named::Named>::NAMES))
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::Named;

    crate::named_enum! {
        /// A test enum.
        #[derive(Default)]
        enum Mode {
            /// First.
            #[default]
            First = "first",
            /// Second one.
            SecondOne = "second-one",
        }
    }

    #[test]
    fn one_list_of_names_drives_everything() {
        assert_eq!(Mode::default(), Mode::First);
        assert_eq!(Mode::SecondOne.to_string(), "second-one");
        assert_eq!("second-one".parse::<Mode>(), Ok(Mode::SecondOne));
        let e = "third".parse::<Mode>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown value `third`, expected one of `first`, `second-one`"
        );
        assert_eq!(serde_json::to_string(&Mode::SecondOne).unwrap(), "\"second-one\"");
        let back: Mode = serde_json::from_str("\"first\"").unwrap();
        assert_eq!(back, Mode::First);
        let err = serde_json::from_str::<Mode>("\"x\"").unwrap_err().to_string();
        assert!(
            err.contains("unknown variant `x`, expected `first` or `second-one`"),
            "{}",
            err
        );
        assert_eq!(Mode::ALL.len(), Mode::NAMES.len());
    }

    #[test]
    fn the_closest_name_is_suggested_when_close() {
        let e = "secnd-one".parse::<Mode>().unwrap_err();
        assert_eq!(e.hint().as_deref(), Some("did you mean `second-one`?"));
        assert_eq!("zzz".parse::<Mode>().unwrap_err().hint(), None);
        assert_eq!(
            super::closest("holm", &["bonferroni", "holm-bonferroni", "none"]),
            Some("holm-bonferroni")
        );
        assert_eq!(super::closest("x", &[] as &[&str]), None);
    }
}
