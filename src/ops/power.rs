//! `pledge power`: components needed for a minimum detectable difference, the difference a count
//! can detect, the requirement for paired binary accuracy from discordant shares, and σ and ρ
//! estimated from a pilot. The numbers come from [`crate::power`]; this op picks the mode and
//! checks the options.

use crate::error::{Error, Result};
use crate::power::inputs::{check_mde, check_sd};
use crate::power::pilot::PilotEstimate;
use crate::power::sample_size::{detectable_on_scale, discordant, requirement, Detectable, Discordant};
use crate::power::{Clustering, Design, Requirement, Spec};
use crate::protocol::{PowerMethod, Scale};
use serde::Serialize;
use std::path::PathBuf;

/// What `pledge power` is asked. Modes: `sd` + `mde` (components needed), `sd` + `n` [+ `mde`]
/// (detectable difference, and power at `mde`), `discordant` [+ `mde`] (paired binary
/// accuracy), `pilot` [+ `components`, `systems`, `mde`, `per_component`] (σ and ρ from a pilot).
/// Differences and SDs are in `scale`'s unit. Paths are absolute.
#[derive(Debug, Clone)]
pub struct PowerOptions {
    /// SD σ of the paired difference: per component, or per question with `per_component`/`icc`.
    pub sd: Option<f64>,
    /// Minimum detectable difference δ.
    pub mde: Option<f64>,
    /// Number of components.
    pub n: Option<u64>,
    /// Significance level α.
    pub alpha: f64,
    /// Target power 1 − β.
    pub power: f64,
    /// 1 or 2 sides.
    pub sides: u8,
    /// Questions counted per component m.
    pub per_component: Option<u32>,
    /// Intra-component correlation ρ.
    pub icc: Option<f64>,
    /// The method whose count is the answer (both are computed).
    pub method: PowerMethod,
    /// Shares (p10, p01) of questions only A / only B gets right.
    pub discordant: Option<(f64, f64)>,
    /// Pilot score files (one holding both systems, or one per system).
    pub pilot: Vec<PathBuf>,
    /// Component assignment of the pilot's questions.
    pub components: Option<PathBuf>,
    /// The two pilot systems A, B (difference A − B).
    pub systems: Option<(String, String)>,
    /// How the pilot files are read (labels, column, measure, format, standard input).
    pub read: crate::scores::ReadOptions,
    /// Unit of σ, δ and the scores.
    pub scale: Scale,
    /// A hypothesis with a margin to size instead of a difference (`None`: superiority, sized by
    /// `mde`): non-inferiority, superiority by a margin or equivalence, with `margin` and the
    /// assumed true difference `expected`.
    pub kind: Option<crate::protocol::HypothesisKind>,
    /// The margin M > 0 of `kind`, in `scale`'s unit.
    pub margin: Option<f64>,
    /// The true difference Δ₀ assumed for `kind` (default 0), in `scale`'s unit.
    pub expected: Option<f64>,
    /// Number of systems k to separate (Sakai's one-way ANOVA topic set size design): with
    /// `sd` as the residual SD σ (σ² the within-system variance) and `mde` as the minimum range
    /// D between the best and the worst system.
    pub k_systems: Option<u32>,
    /// Samples per question K (epochs, seeds): the topics needed at K and at other K, from
    /// σ_topic (`sd`) and σ_within (`sd_within`), or from a pilot with repeated samples.
    pub samples_per_topic: Option<u32>,
    /// σ_within: the SD of one sample's paired difference around its question's mean (with
    /// `samples_per_topic`; `sd` is then σ_topic).
    pub sd_within: Option<f64>,
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
    /// Topics needed to separate k systems (one-way ANOVA, Sakai 2016).
    Anova {
        /// `fraction` or `points`.
        scale: Scale,
        /// The requirement.
        anova: crate::power::anova::AnovaRequirement,
    },
    /// Components needed for a hypothesis with a margin, or its power at `--n`.
    Margin {
        /// `fraction` or `points`.
        scale: Scale,
        /// The method whose count is the answer (`t`: the exact one).
        method: &'static str,
        /// Both methods' answers.
        margin: crate::power::margin::MarginPower,
    },
    /// Topics needed with K samples per question, and at other K.
    Samples {
        /// `fraction` or `points`.
        scale: Scale,
        /// The method whose count is the answer.
        method: &'static str,
        /// The table.
        samples: crate::power::samples::SamplesPower,
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
        /// Topics needed with K samples per question, from the pilot's variance split, if
        /// --samples-per-topic and --mde.
        #[serde(skip_serializing_if = "Option::is_none")]
        samples: Option<crate::power::samples::SamplesPower>,
    },
}

/// Runs `pledge power`: picks the mode from the options given (see [`PowerOptions`]).
///
/// Errors (exit 2): a value out of range (α, power, δ, σ, m, ρ, shares), a mode's missing or
/// conflicting options, an unreadable pilot or assignment file.
pub fn power(a: &PowerOptions) -> Result<Report> {
    let scale = a.scale;
    let method = a.method;
    let mname = method.as_str();
    let design = Design::new(a.alpha, a.power, a.sides)?;
    // Values given are checked before the mode is chosen, so `--mde inf` alone says what is
    // wrong with it rather than that nothing can be computed.
    if let Some(d) = a.mde {
        check_mde(d, scale)?;
    }
    if let Some(s) = a.sd {
        check_sd(s, scale)?;
    }
    if a.kind.is_some_and(|k| k.has_margin()) && (!a.pilot.is_empty() || a.k_systems.is_some()) {
        return Err(Error::input(
            "--kind sizes one hypothesis with a margin from --sd: do not combine it with --pilot or --k-systems",
        ));
    }
    if !a.pilot.is_empty() {
        let pilot = &a.pilot;
        if a.sd.is_some() || a.n.is_some() || a.discordant.is_some() || a.icc.is_some() || a.sd_within.is_some() {
            return Err(Error::input(
                "--pilot estimates σ and ρ itself: do not combine it with --sd, --sd-within, --n, --icc or --discordant",
            ));
        }
        return pilot_report(a, pilot, scale, method, design);
    }
    if let Some(k) = a.k_systems {
        return anova_report(a, k);
    }
    if a.samples_per_topic.is_some() || a.sd_within.is_some() {
        return samples_report(a, design);
    }
    let clustering = clustering(a.per_component, a.icc)?;
    if let Some(kind) = a.kind.filter(|k| k.has_margin()) {
        return margin_report(a, kind, clustering);
    }
    if a.margin.is_some() || a.expected.is_some() {
        return Err(Error::input(
            "--margin and --expected size a hypothesis with a margin: give --kind non-inferiority, superiority-by-margin or equivalence",
        ));
    }
    if let Some((p10, p01)) = a.discordant {
        if a.sd.is_some() || a.n.is_some() {
            return Err(Error::input(
                "--discordant gives σ itself: do not combine it with --sd or --n",
            ));
        }
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
        let detectable = detectable_on_scale(scale, sd, n, design, clustering, mde)?;
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

/// `pledge power PROTOCOL`: what the protocol's `[target]` and first primary hypothesis ask for,
/// through the same modes as the flags (so the numbers equal theirs): a margin kind as `--kind K
/// --margin M --expected D` (Δ₀ = 0, or M + `target.mde` for superiority by a margin) at σ, or
/// at σ_K = √(σ² + σ_within²/K) with `target.samples-per-topic`; superiority with K samples per
/// question (and no `target.icc`) as `--samples-per-topic K --sd-within W`, else as `--sd S
/// --mde D` with `target.icc` and `components.max-per-component` as `--icc` and
/// `--per-component`. σ is `target.sd`, else the estimate from the registered pilot (as
/// `pledge components` uses for a `"from-target"` split); the method, α, power and sides are
/// the target's. The answer equals the stop rule's requirement
/// ([`crate::power::required_by_protocol`]).
///
/// Errors (exit 2): no `target.sd` and no `target.pilot`; an unreadable pilot; the errors of
/// [`power`].
pub fn from_protocol(lp: &crate::protocol::LoadedProtocol) -> Result<Report> {
    let p = &lp.protocol;
    let t = &p.target;
    let sd = match (t.sd, &t.pilot) {
        (Some(sd), _) => sd,
        (None, Some(_)) => match super::register::estimate_pilot(lp, |f| f.display().to_string())? {
            Some((_, _, est)) => est.sd_for(t),
            None => return Err(Error::input("the protocol's pilot gave no SD")),
        },
        (None, None) => {
            return Err(Error::input("the protocol's [target] has no sd: nothing to size")
                .with_hint("register target.sd (the SD of the paired difference) or target.pilot"))
        }
    };
    let mut o = PowerOptions {
        sd: Some(sd),
        mde: Some(t.mde),
        n: None,
        alpha: t.alpha,
        power: t.power,
        sides: t.sides,
        per_component: t.icc.map(|_| p.components.max_per_component),
        icc: t.icc,
        method: t.method,
        discordant: None,
        pilot: Vec::new(),
        components: None,
        systems: None,
        read: crate::scores::ReadOptions::default(),
        scale: t.scale,
        kind: None,
        margin: None,
        expected: None,
        k_systems: None,
        samples_per_topic: None,
        sd_within: None,
    };
    let samples = t.samples_per_topic.zip(t.sd_within);
    if let Some(h) = p.primary_hypotheses().next().filter(|h| h.kind.has_margin()) {
        let margin = h.margin.unwrap_or(0.0);
        o.kind = Some(h.kind);
        o.margin = Some(margin);
        o.expected = Some(match h.kind {
            crate::protocol::HypothesisKind::SuperiorityByMargin => margin + t.mde,
            _ => 0.0,
        });
        o.mde = None;
        o.sides = 1;
        if let Some((k, w)) = samples {
            o.sd = Some(crate::power::samples::effective_sd(sd, w, f64::from(k)));
        }
    } else if let Some((k, w)) = samples {
        if t.icc.is_some() {
            o.sd = Some(crate::power::samples::effective_sd(sd, w, f64::from(k)));
        } else {
            o.samples_per_topic = Some(k);
            o.sd_within = Some(w);
        }
    }
    power(&o)
}

/// Topics needed to separate `k` systems (one-way ANOVA, Sakai 2016): `--sd` the residual SD,
/// `--mde` the minimum range.
///
/// Errors (exit 2): `--n`, `--discordant`, `--per-component` or `--icc` given; `--sd` or `--mde`
/// missing or out of range.
fn anova_report(a: &PowerOptions, k: u32) -> Result<Report> {
    let scale = a.scale;
    if a.n.is_some() || a.discordant.is_some() || a.per_component.is_some() || a.icc.is_some() {
        return Err(Error::input(
            "--k-systems takes --sd (residual SD) and --mde (minimum range): do not combine it with --n, --discordant, --per-component or --icc",
        ));
    }
    let (Some(sd), Some(mde)) = (a.sd, a.mde) else {
        return Err(Error::input("--k-systems needs --sd S (the residual SD of a topic's score) and --mde D (the minimum range between the best and the worst system)"));
    };
    let spec = crate::power::anova::AnovaSpec {
        systems: k,
        min_range: check_mde(mde, scale)?,
        variance: check_sd(sd, scale)?.powi(2),
        alpha: a.alpha,
        power: a.power,
    };
    Ok(Report::Anova {
        scale,
        anova: crate::power::anova::topics_for_systems(&spec, scale)?,
    })
}

/// Components needed for a hypothesis with a margin (`--sd`, `--margin`, `--expected`), or its
/// power at `--n`.
///
/// Errors (exit 2): no `--sd` or `--margin`; `--mde` or `--discordant` given (a margin
/// hypothesis is sized at `--expected`); values out of range.
fn margin_report(
    a: &PowerOptions,
    kind: crate::protocol::HypothesisKind,
    clustering: Option<Clustering>,
) -> Result<Report> {
    if a.mde.is_some() || a.discordant.is_some() || !a.pilot.is_empty() {
        return Err(Error::input(format!(
            "--kind {} is sized at --expected D (the true difference assumed, default 0) with --margin M: do not give --mde or --discordant",
            kind
        )));
    }
    let (Some(sd), Some(margin)) = (a.sd, a.margin) else {
        return Err(Error::input(format!("--kind {} needs --sd S and --margin M", kind)));
    };
    let sd = check_sd(sd, a.scale)?;
    let margin = check_mde(margin, a.scale)
        .map_err(|e| e.caused_by("--margin must be a positive difference within the scale"))?;
    let expected = a.expected.unwrap_or(0.0);
    if !(expected.is_finite() && expected.abs() <= a.scale.max()) {
        return Err(Error::input(format!(
            "--expected must be a difference within ±{}, got {}",
            a.scale.max(),
            expected
        )));
    }
    let spec = crate::power::margin::MarginSpec {
        kind,
        margin,
        expected,
        sd,
        alpha: a.alpha,
        power: a.power,
        clustering,
    };
    Ok(Report::Margin {
        scale: a.scale,
        method: a.method.as_str(),
        margin: crate::power::margin::margin_power(&spec, a.n)?,
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

fn pilot_report(
    a: &PowerOptions,
    paths: &[PathBuf],
    scale: Scale,
    method: PowerMethod,
    design: Design,
) -> Result<Report> {
    let refs: Vec<&std::path::Path> = paths.iter().map(PathBuf::as_path).collect();
    let table = crate::scores::read_many(&refs, &a.read)?;
    let rows = match (&a.components, &a.read.stdin) {
        // `--components -`: the standard input the caller read into `a.read.stdin`.
        (Some(p), Some(i)) if crate::input::is_stdin(p) => Some(crate::assignment::from_text(i.path(), i.text()?)?),
        (Some(p), _) => Some(crate::assignment::read(p)?),
        (None, _) => None,
    };
    let names = a.systems.clone();
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
    let samples = pilot_samples(a, &table, design)?;
    let method = method.as_str();
    Ok(Report::Pilot {
        scale,
        method,
        pilot,
        requirements,
        clustered,
        samples,
    })
}

/// Topics needed with K samples per question from `--sd` (σ_topic), `--sd-within` and `--mde`.
///
/// Errors (exit 2): no `--samples-per-topic`; a missing one of the three; `--n`, `--discordant`, `--per-component`, `--icc`
/// or `--kind` given; values out of range.
fn samples_report(a: &PowerOptions, design: Design) -> Result<Report> {
    let Some(k) = a.samples_per_topic else {
        return Err(Error::input(
            "--sd-within sizes a study with repeated samples: give --samples-per-topic K",
        ));
    };
    if a.n.is_some() || a.discordant.is_some() || a.per_component.is_some() || a.icc.is_some() || a.kind.is_some() {
        return Err(Error::input(
            "--samples-per-topic takes --sd (σ_topic), --sd-within and --mde, or a pilot: do not combine it with --n, --discordant, --per-component, --icc or --kind",
        ));
    }
    let (Some(sd), Some(within), Some(mde)) = (a.sd, a.sd_within, a.mde) else {
        return Err(Error::input("--samples-per-topic K needs --sd S (σ_topic, the SD of the questions' true paired differences), --sd-within W (the SD of one sample's difference around its question's mean) and --mde D")
            .with_hint("or estimate both from a pilot with repeated samples: --pilot SCORES --samples-per-topic K --mde D"));
    };
    let mde = check_mde(mde, a.scale)?;
    let source = "σ_topic from --sd, σ_within from --sd-within".to_string();
    Ok(Report::Samples {
        scale: a.scale,
        method: a.method.as_str(),
        samples: crate::power::samples::samples_power(sd, within, k, mde, design, source)?,
    })
}

/// With `--samples-per-topic`: the table from the pilot's variance split of the paired difference
/// of its two systems ([`crate::stats::samples::variance_split`]).
///
/// Errors (exit 2): no `--mde`; a pilot without repeated samples or without a topic of two.
fn pilot_samples(
    a: &PowerOptions,
    table: &crate::scores::ScoreTable,
    design: Design,
) -> Result<Option<crate::power::samples::SamplesPower>> {
    let Some(k) = a.samples_per_topic else { return Ok(None) };
    let mde = a
        .mde
        .ok_or_else(|| Error::input("--samples-per-topic with --pilot needs --mde D"))?;
    let mde = check_mde(mde, a.scale)?;
    let no_samples = || {
        Error::input("--samples-per-topic with --pilot needs a pilot with repeated samples (two or more per question)")
            .with_hint(
                "inspect_ai logs keep their epochs; a long table names its sample column with --sample-column NAME",
            )
    };
    let samples = table.samples.as_ref().ok_or_else(no_samples)?;
    let pick = |n: &str| table.systems.iter().position(|s| s == n);
    let (x, y) = match &a.systems {
        Some((x, y)) => (pick(x), pick(y)),
        None if table.systems.len() == 2 => (Some(0), Some(1)),
        None => (None, None),
    };
    let (Some(x), Some(y)) = (x, y) else {
        return Err(
            Error::input("--samples-per-topic with --pilot needs the pilot's two systems")
                .with_hint("name them with --systems A,B"),
        );
    };
    let cells: Vec<crate::stats::samples::Cell> = (0..table.topics.len())
        .filter_map(|t| crate::stats::samples::difference_cells(&samples.cells[x][t], &samples.cells[y][t]))
        .collect();
    let split = crate::stats::samples::variance_split(&cells).ok_or_else(no_samples)?;
    let source = format!(
        "σ_topic and σ_within from the pilot's variance split of {} − {} over {} topics, {} {}s per topic",
        table.systems[x],
        table.systems[y],
        split.topics,
        crate::power::samples::count(split.samples_per_topic),
        samples.unit
    );
    let p = crate::power::samples::samples_power(
        split.between.max(0.0).sqrt(),
        split.within.sqrt(),
        k,
        mde,
        design,
        source,
    )?;
    Ok(Some(p))
}
