//! The one random generator pledge uses, and how it is recorded.
//!
//! Every resampling, shuffle and sample in pledge draws from `ChaCha8Rng` (crate `rand_chacha`,
//! pinned to one version in `Cargo.toml`) seeded with `seed_from_u64(seed)`; integer ranges and
//! shuffles come from `rand` (also pinned). A new version of either crate could change the
//! streams, so both versions are recorded next to the seed in every ledger entry and result that
//! uses randomness ([`RngInfo`]).

use serde::{Deserialize, Serialize};

/// Name of the generator.
pub const GENERATOR: &str = "ChaCha8Rng";
/// The pinned `rand_chacha` version (checked against `Cargo.lock` by a test).
pub const RAND_CHACHA_VERSION: &str = "0.3.1";
/// The pinned `rand` version (checked against `Cargo.lock` by a test).
pub const RAND_VERSION: &str = "0.8.5";

/// The random generator used by a computation, as recorded in the ledger and in results.
///
/// JSON: `{"name": "ChaCha8Rng", "version": "rand_chacha 0.3.1", "rand": "rand 0.8.5", "seed": N}`.
/// `rand` is absent in entries written by pledge versions that did not record it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RngInfo {
    /// Generator name, `ChaCha8Rng`.
    pub name: String,
    /// Crate and version of the generator, e.g. `rand_chacha 0.3.1`.
    pub version: String,
    /// Crate and version of `rand` (ranges, shuffles, samples), e.g. `rand 0.8.5`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rand: Option<String>,
    /// The seed given to `seed_from_u64`.
    pub seed: u64,
}

impl RngInfo {
    /// The generator pledge uses everywhere, with `seed`.
    pub fn chacha8(seed: u64) -> Self {
        RngInfo {
            name: GENERATOR.into(),
            version: format!("rand_chacha {}", RAND_CHACHA_VERSION),
            rand: Some(format!("rand {}", RAND_VERSION)),
            seed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recorded versions are the ones the build really uses (from `Cargo.lock`).
    #[test]
    fn versions_match_the_lock_file() {
        let lock = include_str!("../Cargo.lock");
        // Every locked version of a package (another crate may pull in a second `rand`).
        let versions_of = |name: &str| -> Vec<String> {
            let lines: Vec<&str> = lock.lines().map(str::trim).collect();
            lines
                .windows(2)
                .filter(|w| w[0] == format!("name = \"{}\"", name))
                .filter_map(|w| w[1].strip_prefix("version = \"")?.strip_suffix('"').map(str::to_string))
                .collect()
        };
        assert!(versions_of("rand_chacha").contains(&RAND_CHACHA_VERSION.to_string()));
        assert!(versions_of("rand").contains(&RAND_VERSION.to_string()));
        // The pins in Cargo.toml are exact, so the build uses these versions.
        let manifest = include_str!("../Cargo.toml");
        assert!(manifest.contains(&format!("rand = \"={}\"", RAND_VERSION)));
        assert!(manifest.contains(&format!("rand_chacha = \"={}\"", RAND_CHACHA_VERSION)));
        let r = RngInfo::chacha8(7);
        assert_eq!(r.version, "rand_chacha 0.3.1");
        assert_eq!(r.rand.as_deref(), Some("rand 0.8.5"));
    }

    #[test]
    fn old_entries_without_rand_still_parse_and_serialize_the_same() {
        let old = r#"{"name":"ChaCha8Rng","seed":3,"version":"rand_chacha 0.3.1"}"#;
        let r: RngInfo = serde_json::from_str(old).unwrap();
        assert_eq!(r.rand, None);
        let back: serde_json::Value = serde_json::to_value(&r).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(old).unwrap());
    }
}
