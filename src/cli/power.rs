//! `pledge power`: parse, call [`crate::ops::power::power`], render.

use super::human::render;
use super::values::named;
use super::{resolve, Ctx, Outcome, Output};
use crate::error::{Error, Result};
use crate::ops::power::PowerOptions;
use crate::output::Format;
use crate::protocol::{HypothesisKind, PowerMethod, Scale};
use std::path::PathBuf;

/// Arguments of `pledge power`.
///
/// Modes: `PROTOCOL` (what a protocol's target and hypothesis ask for), `--sd S --mde D`
/// (components needed), `--sd S --n N [--mde D]` (detectable difference,
/// and power at D), `--discordant P10,P01 [--mde D]` (paired binary accuracy),
/// `--pilot SCORES [--components FILE] [--systems A,B] [--mde D]` (σ and ρ from a pilot).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A protocol file: size what its `[target]` and first primary hypothesis ask for (the
    /// registered kind and margin, K samples per question), the requirement a `"from-target"`
    /// split uses; every sizing option comes from the protocol.
    #[arg(
        value_name = "PROTOCOL",
        conflicts_with_all = [
            "sd", "mde", "n", "alpha", "power", "sides", "kind", "margin", "expected",
            "per_component", "icc", "method", "discordant", "pilot", "scale", "k_systems",
            "samples_per_topic", "sd_within",
        ]
    )]
    pub protocol: Option<PathBuf>,
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
    /// One- or two-sided test (default 2; not with --kind, whose margin tests are one-sided).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub sides: Option<u8>,
    /// Size a hypothesis with a margin instead of a difference: non-inferiority,
    /// superiority-by-margin or equivalence (with --sd, --margin and --expected), one-sided tests
    /// at --alpha; superiority is the default sizing by --mde.
    #[arg(long, value_parser = named::<HypothesisKind>())]
    pub kind: Option<HypothesisKind>,
    /// The margin M > 0 of --kind, in the --scale unit.
    #[arg(long, value_name = "M", allow_negative_numbers = true, requires = "kind")]
    pub margin: Option<f64>,
    /// The true difference assumed for --kind (default 0), in the --scale unit.
    #[arg(long, value_name = "D", allow_negative_numbers = true, requires = "kind")]
    pub expected: Option<f64>,
    /// Questions counted per component m (with --icc): design effect 1 + (m − 1)ρ.
    #[arg(long = "per-component", short = 'm', value_name = "M")]
    pub per_component: Option<u32>,
    /// Intra-component correlation ρ in [0, 1] (with --per-component).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    pub icc: Option<f64>,
    /// Which calculation gives the answer (both are shown).
    #[arg(long, value_parser = named::<PowerMethod>(), default_value = "t")]
    pub method: PowerMethod,
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
    #[arg(long, value_parser = named::<Scale>(), default_value = "fraction")]
    pub scale: Scale,
    /// Number of systems to separate: topics needed by Sakai's one-way ANOVA design, with --sd
    /// as the residual SD of a topic's score and --mde as the minimum range between the best
    /// and the worst system.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(2..))]
    pub k_systems: Option<u32>,
    /// Samples per question K (epochs, seeds): the topics needed at K and at other K, from --sd
    /// (then σ_topic, the SD of the questions' true paired differences) and --sd-within, or from
    /// a --pilot with repeated samples.
    #[arg(long = "samples-per-topic", value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    pub samples_per_topic: Option<u32>,
    /// σ_within: the SD of one sample's paired difference around its question's mean (with
    /// --samples-per-topic).
    #[arg(long = "sd-within", value_name = "W", allow_negative_numbers = true)]
    pub sd_within: Option<f64>,
    /// Output format.
    #[arg(long, value_parser = named::<Format>(), default_value = "human")]
    pub format: Format,
}

/// Runs `pledge power`.
pub fn run(a: Args, ctx: &Ctx) -> Outcome {
    if let Some(p) = &a.protocol {
        let lp = crate::protocol::load_protocol(&resolve(ctx, p))?;
        let report = crate::ops::power::from_protocol(&lp)?;
        return Ok(Output::ok(render(&report, a.format), &vec![]));
    }
    let systems = match &a.systems {
        Some(s) => match s.split_once(',') {
            Some((x, y)) if !x.trim().is_empty() && !y.trim().is_empty() && !y.contains(',') => {
                Some((x.trim().to_string(), y.trim().to_string()))
            }
            _ => return Err(Error::input(format!("--systems expects two names A,B, got `{}`", s))),
        },
        None => None,
    };
    let o = PowerOptions {
        sd: a.sd,
        mde: a.mde,
        n: a.n,
        alpha: a.alpha,
        power: a.power,
        sides: a.sides.unwrap_or(2),
        per_component: a.per_component,
        icc: a.icc,
        method: a.method,
        discordant: a.discordant.as_deref().map(parse_pair).transpose()?,
        pilot: a
            .pilot
            .iter()
            .map(|p| {
                if crate::input::is_stdin(p) {
                    p.clone()
                } else {
                    resolve(ctx, p)
                }
            })
            .collect(),
        components: a.components.as_deref().map(|p| {
            if crate::input::is_stdin(p) {
                p.to_path_buf()
            } else {
                resolve(ctx, p)
            }
        }),
        systems,
        read: {
            let mut opts = crate::scores::ReadOptions {
                labels: super::values::label_args(&a.label)?,
                measure: a.measure.clone(),
                column: a.column.clone(),
                ..Default::default()
            };
            // `-` may stand for one input only: a pilot file or the assignment.
            let files: Vec<PathBuf> = a.pilot.iter().chain(&a.components).cloned().collect();
            a.input.apply(&mut opts, &files)?;
            a.input.name_files(&mut opts, vec![None; a.pilot.len()])?;
            opts
        },
        scale: a.scale,
        k_systems: a.k_systems,
        kind: a.kind,
        margin: a.margin,
        expected: a.expected,
        samples_per_topic: a.samples_per_topic,
        sd_within: a.sd_within,
    };
    if a.sides.is_some() && a.kind.is_some_and(|k| k.has_margin()) {
        return Err(Error::input(format!(
            "--sides does not apply to --kind {} (its margin tests are one-sided at --alpha)",
            a.kind.map(|k| k.to_string()).unwrap_or_default()
        )));
    }
    let report = crate::ops::power::power(&o)?;
    Ok(Output::ok(render(&report, a.format), &vec![]))
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
