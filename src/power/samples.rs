//! Power with K samples per question (epochs, seeds): the split of the paired difference's
//! variance between topics and samples within topics (Miller, "Adding Error Bars to Evals",
//! 2024, §3; [`crate::stats::samples`]) gives the SD of a question's K-sample mean difference,
//! σ_K = √(σ²_topic + σ²_within / K), and the topics needed at each K follow from the paired
//! t-test at that SD ([`super::sample_size::requirement`]; statsmodels `TTestPower` at the
//! effect size δ / σ_K). More samples per question shrink only the within part: the table says
//! how much each K buys, down to σ_topic with unlimited samples.

use super::sample_size::{requirement, Spec};
use super::{Design, Requirement};
use crate::error::{Error, Result};
use crate::protocol::PowerMethod;
use serde::Serialize;

/// One row of the table: K samples per question, the SD of a question's mean difference, the
/// topics needed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplesRow {
    /// Samples per question K; `None` for unlimited samples (σ_K = σ_topic).
    pub samples_per_topic: Option<u32>,
    /// σ_K = √(σ²_topic + σ²_within / K), in the metric's scale.
    pub sd: f64,
    /// Topics needed at σ_K (the paired t-test, exact).
    pub t: Requirement,
    /// Topics needed at σ_K (normal approximation).
    pub normal: Requirement,
}

/// Topics needed for δ at several numbers of samples per question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplesPower {
    /// σ_topic: the SD of the questions' true paired differences.
    pub sd_topic: f64,
    /// σ_within: the SD of one sample's difference around its question's mean.
    pub sd_within: f64,
    /// The K asked for (`--samples-per-topic`).
    pub samples_per_topic: u32,
    /// Where σ_topic and σ_within come from (the flags, or the pilot's variance split).
    pub source: String,
    /// K = 1, 2, 4, 8, 16 and the K asked, in order, then unlimited samples (when σ_topic > 0).
    pub rows: Vec<SamplesRow>,
}

/// A sample count: whole when it is, else to one decimal.
pub fn count(k: f64) -> String {
    if (k - k.round()).abs() < 1e-9 {
        format!("{}", k.round())
    } else {
        format!("{:.1}", k)
    }
}

/// σ_K = √(σ²_topic + σ²_within / K).
pub fn effective_sd(sd_topic: f64, sd_within: f64, k: f64) -> f64 {
    (sd_topic * sd_topic + sd_within * sd_within / k).sqrt()
}

/// The table for δ = `mde` under `design` (see the module docs).
///
/// Errors (exit 2): K = 0, an SD that is negative or not finite, both SDs 0, δ ≤ 0.
pub fn samples_power(
    sd_topic: f64,
    sd_within: f64,
    k: u32,
    mde: f64,
    design: Design,
    source: String,
) -> Result<SamplesPower> {
    if k == 0 {
        return Err(Error::input("--samples-per-topic must be at least 1"));
    }
    for (name, s) in [("σ_topic", sd_topic), ("σ_within", sd_within)] {
        if !(s.is_finite() && s >= 0.0) {
            return Err(Error::input(format!("{} must be a finite SD ≥ 0, got {}", name, s)));
        }
    }
    if sd_topic == 0.0 && sd_within == 0.0 {
        return Err(Error::input(
            "σ_topic and σ_within are both 0: nothing varies, no power to compute",
        ));
    }
    let mut ks = vec![1, 2, 4, 8, 16, k];
    ks.sort_unstable();
    ks.dedup();
    let mut rows = Vec::with_capacity(ks.len() + 1);
    let row = |k: Option<u32>, sd: f64| -> Result<SamplesRow> {
        let spec = Spec {
            sd,
            mde,
            design,
            clustering: None,
        };
        Ok(SamplesRow {
            samples_per_topic: k,
            sd,
            t: requirement(&spec, PowerMethod::T)?,
            normal: requirement(&spec, PowerMethod::Normal)?,
        })
    };
    for k in ks {
        rows.push(row(Some(k), effective_sd(sd_topic, sd_within, f64::from(k)))?);
    }
    if sd_topic > 0.0 {
        rows.push(row(None, sd_topic)?);
    }
    Ok(SamplesPower {
        sd_topic,
        sd_within,
        samples_per_topic: k,
        source,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// statsmodels' n per row (K = 1, 2, 3, 4, 8, 16, unlimited), rounded up and unrounded.
    const ORACLE_T: [u64; 7] = [199, 136, 115, 104, 89, 81, 73];
    const ORACLE_UNROUNDED: [f64; 7] = [
        198.150820955562,
        135.36391913336098,
        114.43592070752885,
        103.97226948840134,
        88.27745746462368,
        80.4304749013221,
        72.58390269665837,
    ];

    /// σ_topic 0.3, σ_within 0.4, δ 0.1, α 0.05, power 0.8, two-sided: σ_K and the topics the
    /// paired t-test needs, against tests/data/oracles/samples-power.md (statsmodels
    /// `TTestPower().solve_power(effect_size=δ/σ_K, alpha=0.05, power=0.8)`, rounded up).
    #[test]
    fn topics_needed_fall_with_samples_as_the_oracle_says() {
        let design = Design::new(0.05, 0.8, 2).unwrap();
        let p = samples_power(0.3, 0.4, 3, 0.1, design, "flags".into()).unwrap();
        let ks: Vec<Option<u32>> = p.rows.iter().map(|r| r.samples_per_topic).collect();
        assert_eq!(ks, vec![Some(1), Some(2), Some(3), Some(4), Some(8), Some(16), None]);
        // By hand: σ_1 = 0.5, σ_4 = √(0.09 + 0.04) = 0.360555, unlimited = 0.3.
        assert!((p.rows[0].sd - 0.5).abs() < 1e-15);
        assert!((p.rows[3].sd - 0.13f64.sqrt()).abs() < 1e-15);
        assert!((p.rows[6].sd - 0.3).abs() < 1e-15);
        let got: Vec<u64> = p.rows.iter().map(|r| r.t.components).collect();
        assert_eq!(got, ORACLE_T.to_vec());
        let unrounded: Vec<f64> = p.rows.iter().map(|r| r.t.unrounded).collect();
        for (g, w) in unrounded.iter().zip(ORACLE_UNROUNDED) {
            assert!((g - w).abs() < 1e-6 * w, "{} vs {}", g, w);
        }
        assert!(samples_power(0.3, 0.4, 0, 0.1, design, String::new()).is_err());
        assert!(samples_power(0.0, 0.0, 2, 0.1, design, String::new()).is_err());
    }
}
