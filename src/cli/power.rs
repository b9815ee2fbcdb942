//! `pledge power`: components needed for a minimum detectable difference, the difference a count
//! can detect, the requirement for paired binary accuracy from discordant shares, and σ and ρ
//! estimated from a pilot. The numbers come from [`crate::power`]; this file only parses flags,
//! picks the mode and renders (human text in `power/human.rs`, or `--format json`).

use super::{resolve, Ctx, Outcome};
use crate::error::{Error, Result};
use crate::output::{render, Format};
use crate::power::inputs::{check_mde, check_sd};
use crate::power::pilot::PilotEstimate;
use crate::power::sample_size::{detectable, discordant, requirement, Detectable, Discordant};
use crate::power::{Clustering, Design, Requirement, Spec};
use crate::protocol::{PowerMethod, Scale};
use serde::Serialize;
use std::path::PathBuf;

mod human;

/// Arguments of `pledge power`.
///
/// Modes: `--sd S --mde D` (components needed), `--sd S --n N [--mde D]` (detectable difference,
/// and power at D), `--discordant P10,P01 [--mde D]` (paired binary accuracy),
/// `--pilot SCORES [--components FILE] [--systems A,B] [--mde D]` (σ and ρ from a pilot).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// SD σ of the paired difference: per component, or per question with --per-component/--icc.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub sd: Option<f64>,
    /// Minimum detectable difference δ (in the --scale unit).
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub mde: Option<f64>,
    /// Number of components: report the difference they can detect (and the power at --mde).
    #[arg(long, short = 'n', value_name = "N")]
    pub n: Option<u64>,
    /// Significance level α in (0, 1).
    #[arg(long, default_value_t = 0.05, allow_negative_numbers = true)]
    pub alpha: f64,
    /// Target power 1 − β in (α, 1).
    #[arg(long, default_value_t = 0.8, allow_negative_numbers = true)]
    pub power: f64,
    /// One- or two-sided test.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub sides: u8,
    /// Questions counted per component m (with --icc): design effect 1 + (m − 1)ρ.
    #[arg(long = "per-component", short = 'm', value_name = "M")]
    pub per_component: Option<u32>,
    /// Intra-component correlation ρ in [0, 1] (with --per-component).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    pub icc: Option<f64>,
    /// Which calculation gives the answer (both are shown).
    #[arg(long, value_enum, default_value_t = MethodArg::T)]
    pub method: MethodArg,
    /// Paired binary accuracy: shares of questions only A / only B gets right.
    #[arg(long, value_name = "P10,P01", allow_hyphen_values = true)]
    pub discordant: Option<String>,
    /// Pilot per-topic scores of two systems: estimate σ (and ρ with --components). Any format
    /// `--scores` reads; repeat for one file per system (with --column for per-system CSVs).
    #[arg(long, value_name = "SCORES")]
    pub pilot: Vec<PathBuf>,
    /// Read one system per pilot file from this column (e.g. f1), as `compare --column`.
    #[arg(long, value_name = "NAME", requires = "pilot")]
    pub column: Option<String>,
    /// The measure or metric to read when a pilot file holds several (as `compare --measure`).
    #[arg(long, value_name = "NAME", requires = "pilot")]
    pub measure: Option<String>,
    #[command(flatten)]
    pub input: super::inputs::InputArgs,
    /// Component assignment file (from `pledge components`) for the pilot's questions.
    #[arg(long, value_name = "FILE", requires = "pilot")]
    pub components: Option<PathBuf>,
    /// The two pilot systems A,B (difference A − B); default: the file's two systems.
    #[arg(long, value_name = "A,B", requires = "pilot")]
    pub systems: Option<String>,
    /// Map a score label of the pilot file to a value, e.g. HALTED=0 (repeatable; as analyze).
    #[arg(long, value_name = "LABEL=VALUE", requires = "pilot")]
    pub label: Vec<String>,
    /// Unit of σ, δ and the scores: fraction (0–1) or points (0–100).
    #[arg(long, value_enum, default_value_t = ScaleArg::Fraction)]
    pub scale: ScaleArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// `--method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MethodArg {
    /// Exact paired t-test (non-central t), as statsmodels TTestPower.
    T,
    /// Normal approximation.
    Normal,
}

/// `--scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScaleArg {
    /// Values in [0, 1].
    Fraction,
    /// Values in [0, 100].
    Points,
}

/// Requirements by both methods.
#[derive(Debug, Serialize)]
pub struct Both {
    /// Paired t-test.
    pub t: Requirement,
    /// Normal approximation.
    pub normal: Requirement,
}

/// What `pledge power` prints (`mode` tells which). Built once per run, so variant sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Serialize)]
#[serde(tag = "mode", rename_all = "kebab-case")]
pub enum Report {
    /// Components needed for δ.
    Required {
        /// `fraction` or `points`.
        scale: Scale,
        /// The method whose count is the answer.
        method: &'static str,
        /// Both requirements.
        requirements: Both,
    },
    /// Detectable difference for n components.
    Detectable {
        /// `fraction` or `points`.
        scale: Scale,
        /// The result.
        detectable: Detectable,
    },
    /// Paired binary accuracy.
    Discordant {
        /// `fraction` or `points`.
        scale: Scale,
        /// The method whose count is the answer.
        method: &'static str,
        /// Shares and variance (fractions).
        discordant: Discordant,
        /// Questions needed (σ = √Var in the scale's unit).
        requirements: Both,
    },
    /// σ and ρ from a pilot.
    Pilot {
        /// `fraction` or `points`.
        scale: Scale,
        /// The method whose count is the answer.
        method: &'static str,
        /// The estimates.
        pilot: PilotEstimate,
        /// Components needed with σ = sd_component (components like the pilot's), if --mde.
        requirements: Option<Both>,
        /// Components of m questions needed with σ = sd_question, ρ and m, if --mde and --per-component.
        clustered: Option<Both>,
    },
}

/// Runs `pledge power`.
pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    let report = build(&a, ctx)?;
    Ok((0, render(&report, a.format)))
}

fn build(a: &Args, ctx: &Ctx) -> Result<Report> {
    let scale = match a.scale {
        ScaleArg::Fraction => Scale::Fraction,
        ScaleArg::Points => Scale::Points,
    };
    let method = match a.method {
        MethodArg::T => PowerMethod::T,
        MethodArg::Normal => PowerMethod::Normal,
    };
    let mname = crate::power::sample_size::method_name(method);
    let design = Design::new(a.alpha, a.power, a.sides)?;
    if !a.pilot.is_empty() {
        let pilot = &a.pilot;
        if a.sd.is_some() || a.n.is_some() || a.discordant.is_some() || a.icc.is_some() {
            return Err(Error::input(
                "--pilot estimates σ and ρ itself: do not combine it with --sd, --n, --icc or --discordant",
            ));
        }
        return pilot_report(a, ctx, pilot, scale, method, design);
    }
    let clustering = clustering(a.per_component, a.icc)?;
    if let Some(shares) = &a.discordant {
        if a.sd.is_some() || a.n.is_some() {
            return Err(Error::input(
                "--discordant gives σ itself: do not combine it with --sd or --n",
            ));
        }
        let (p10, p01) = parse_pair(shares)?;
        let disc = discordant(p10, p01)?;
        let mde = match a.mde {
            Some(d) => check_mde(d, scale)?,
            None => check_mde(disc.expected_difference * scale.max(), scale)
                .map_err(|e| e.with_hint("p10 − p01 is not positive: give the difference to detect with --mde"))?,
        };
        let spec = Spec {
            sd: disc.sd * scale.max(),
            mde,
            design,
            clustering,
        };
        let requirements = both(&spec)?;
        return Ok(Report::Discordant {
            scale,
            method: mname,
            discordant: disc,
            requirements,
        });
    }
    let Some(sd) = a.sd else {
        return Err(Error::input("nothing to compute").with_hint(
            "give --sd S --mde D (components needed), --sd S --n N (detectable difference), \
             --discordant P10,P01 --mde D, or --pilot SCORES",
        ));
    };
    let sd = check_sd(sd, scale)?;
    let mde = a.mde.map(|d| check_mde(d, scale)).transpose()?;
    if let Some(n) = a.n {
        let detectable = detectable(sd, n, design, clustering, mde)?;
        return Ok(Report::Detectable { scale, detectable });
    }
    let Some(mde) = mde else {
        return Err(Error::input(
            "--sd needs --mde D (components needed) or --n N (detectable difference)",
        ));
    };
    let requirements = both(&Spec {
        sd,
        mde,
        design,
        clustering,
    })?;
    Ok(Report::Required {
        scale,
        method: mname,
        requirements,
    })
}

fn both(spec: &Spec) -> Result<Both> {
    Ok(Both {
        t: requirement(spec, PowerMethod::T)?,
        normal: requirement(spec, PowerMethod::Normal)?,
    })
}

fn clustering(m: Option<u32>, icc: Option<f64>) -> Result<Option<Clustering>> {
    match (m, icc) {
        (None, None) => Ok(None),
        (Some(m), Some(icc)) => {
            crate::power::inputs::design_effect(m, icc)?;
            Ok(Some(Clustering { per_component: m, icc }))
        }
        (Some(_), None) => Err(Error::input(
            "--per-component needs --icc (the intra-component correlation)",
        )),
        (None, Some(_)) => Err(Error::input("--icc needs --per-component (questions per component)")),
    }
}

/// Parses `P10,P01`.
fn parse_pair(s: &str) -> Result<(f64, f64)> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let bad = || {
        Error::input(format!(
            "--discordant expects two shares P10,P01 such as 0.10,0.07, got `{}`",
            s
        ))
    };
    if parts.len() != 2 {
        return Err(bad());
    }
    let p10: f64 = parts[0].parse().map_err(|_| bad())?;
    let p01: f64 = parts[1].parse().map_err(|_| bad())?;
    Ok((p10, p01))
}

fn pilot_report(
    a: &Args,
    ctx: &Ctx,
    paths: &[PathBuf],
    scale: Scale,
    method: PowerMethod,
    design: Design,
) -> Result<Report> {
    let labels = super::analyze::label_args(&a.label)?;
    let mut opts = crate::scores::ReadOptions {
        labels,
        measure: a.measure.clone(),
        column: a.column.clone(),
        ..Default::default()
    };
    a.input.apply(&mut opts, paths)?;
    let files: Vec<PathBuf> = paths.iter().map(|p| resolve(ctx, p)).collect();
    let refs: Vec<&std::path::Path> = files.iter().map(PathBuf::as_path).collect();
    let table = crate::scores::read_many(&refs, &opts)?;
    let rows = match &a.components {
        Some(p) => Some(crate::assignment::read(&resolve(ctx, p))?),
        None => None,
    };
    let names = match &a.systems {
        Some(s) => match s.split_once(',') {
            Some((x, y)) if !x.trim().is_empty() && !y.trim().is_empty() && !y.contains(',') => {
                Some((x.trim().to_string(), y.trim().to_string()))
            }
            _ => return Err(Error::input(format!("--systems expects two names A,B, got `{}`", s))),
        },
        None => None,
    };
    let mut pilot = crate::power::pilot::estimate(
        &table,
        names.as_ref().map(|(x, y)| (x.as_str(), y.as_str())),
        rows.as_deref(),
    )?;
    if table.values.iter().flatten().flatten().any(|v| v.abs() > scale.max()) {
        pilot.notes.push(format!(
            "some scores exceed {}, the largest value on the {:?} scale: check --scale",
            scale.max(),
            scale
        ));
    }
    let (mut requirements, mut clustered) = (None, None);
    if let Some(d) = a.mde {
        let mde = check_mde(d, scale)?;
        let sd = check_sd(pilot.sd_component, scale)
            .map_err(|e| e.caused_by("the pilot's component-level SD cannot be used"))?;
        requirements = Some(both(&Spec {
            sd,
            mde,
            design,
            clustering: None,
        })?);
        if let Some(m) = a.per_component {
            let icc = pilot.icc.as_ref().map(|i| i.used).ok_or_else(|| {
                Error::input("--per-component needs ρ, which the pilot could not estimate")
                    .with_hint("give --components FILE with components holding several pilot questions")
            })?;
            let sd = check_sd(pilot.sd_question, scale)?;
            let c = clustering(Some(m), Some(icc))?;
            clustered = Some(both(&Spec {
                sd,
                mde,
                design,
                clustering: c,
            })?);
        }
    } else if a.per_component.is_some() {
        return Err(Error::input("--per-component with --pilot needs --mde D"));
    }
    let method = crate::power::sample_size::method_name(method);
    Ok(Report::Pilot {
        scale,
        method,
        pilot,
        requirements,
        clustered,
    })
}
