//! How a stored record type is made from a method's result: [`FromMethod`], implemented once
//! per record type by the crate's `mirror!` macro (a struct with the same fields as the
//! method's type, each converted by its own `FromMethod`) and `mirror_enum!` (a named enum
//! with the same values). A record type names its fields and their serialized form itself, so
//! a renamed or retyped field of a method result fails to compile here instead of changing what
//! the ledger stores; a new field of a method result reaches the record only when it is added
//! here.

/// Converts a method's result (or a part of it) into its stored record type.
pub trait FromMethod<S: ?Sized> {
    /// The record of `s`.
    fn from_method(s: &S) -> Self;
}

/// Values stored as the method holds them: numbers, strings and the protocol's and formats'
/// vocabulary (lower layers than the methods).
macro_rules! stored_as_is {
    ($($t:ty),* $(,)?) => {
        $(impl FromMethod<$t> for $t {
            fn from_method(s: &$t) -> Self {
                s.clone()
            }
        })*
    };
}

stored_as_is!(
    f64,
    u8,
    u32,
    u64,
    usize,
    bool,
    String,
    crate::protocol::Adjust,
    crate::protocol::Direction,
    crate::protocol::Estimator,
    crate::protocol::Hypothesis,
    crate::protocol::HypothesisKind,
    crate::protocol::Keep,
    crate::protocol::LinkKind,
    crate::protocol::MissingTopics,
    crate::protocol::OverlapMeasure,
    crate::protocol::PassageRole,
    crate::protocol::Percentile,
    crate::protocol::PowerMethod,
    crate::protocol::ResamplingUnit,
    crate::protocol::SampleAggregation,
    crate::protocol::Scale,
    crate::protocol::StopCount,
    crate::protocol::StopRequired,
    crate::protocol::TopicFilter,
    crate::rng::RngInfo,
    crate::scores::ReadOptions,
);

impl<S, T: FromMethod<S>> FromMethod<Option<S>> for Option<T> {
    fn from_method(s: &Option<S>) -> Self {
        s.as_ref().map(T::from_method)
    }
}

impl<S, T: FromMethod<S>> FromMethod<Vec<S>> for Vec<T> {
    fn from_method(s: &Vec<S>) -> Self {
        s.iter().map(T::from_method).collect()
    }
}

impl<S, T: FromMethod<S>, const N: usize> FromMethod<[S; N]> for [T; N] {
    fn from_method(s: &[S; N]) -> Self {
        std::array::from_fn(|i| T::from_method(&s[i]))
    }
}

impl<S1, S2, T1: FromMethod<S1>, T2: FromMethod<S2>> FromMethod<(S1, S2)> for (T1, T2) {
    fn from_method(s: &(S1, S2)) -> Self {
        (T1::from_method(&s.0), T2::from_method(&s.1))
    }
}

/// A statistic that may be undefined is stored as the number or `null`.
impl FromMethod<crate::stats::describe::Maybe> for Option<f64> {
    fn from_method(s: &crate::stats::describe::Maybe) -> Self {
        s.0
    }
}

/// Defines a record struct with the fields listed (doc comments and serde attributes as
/// written) and its [`FromMethod`] and `From<&SOURCE>` conversions, field by field. A field
/// written `name: Type = EXPR` is not read from the source but set to `EXPR`.
macro_rules! mirror {
    (
        $(#[$meta:meta])*
        pub struct $name:ident from $src:path {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty $(= $value:expr)? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty ),*
        }

        impl $crate::records::mirror::FromMethod<$src> for $name {
            fn from_method(s: &$src) -> Self {
                $name {
                    $( $field: $crate::records::mirror::mirror_field!(s, $field $(, $value)?) ),*
                }
            }
        }

        impl From<&$src> for $name {
            fn from(s: &$src) -> Self {
                <$name as $crate::records::mirror::FromMethod<$src>>::from_method(s)
            }
        }
    };
}

/// One field's value in [`mirror!`]'s conversion.
macro_rules! mirror_field {
    ($s:ident, $field:ident) => {
        $crate::records::mirror::FromMethod::from_method(&$s.$field)
    };
    ($s:ident, $field:ident, $value:expr) => {
        $value
    };
}

/// Defines a record's named enum (see [`named_enum!`](crate::named_enum)) with the same values
/// and names as a method's, and the conversion from it.
macro_rules! mirror_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident from $src:path {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $crate::named_enum! {
            $(#[$meta])*
            pub enum $name {
                $( $(#[$vmeta])* $variant = $text ),+
            }
        }

        impl $crate::records::mirror::FromMethod<$src> for $name {
            fn from_method(s: &$src) -> Self {
                type Source = $src;
                match s {
                    $( Source::$variant => $name::$variant ),+
                }
            }
        }

        impl From<$src> for $name {
            fn from(s: $src) -> Self {
                <$name as $crate::records::mirror::FromMethod<$src>>::from_method(&s)
            }
        }
    };
}

pub(crate) use {mirror, mirror_enum, mirror_field};
