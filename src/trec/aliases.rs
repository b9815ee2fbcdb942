//! Measure names as people type them: trec_eval's `-m` syntax and printed names, ir_measures'
//! names (terrierteam/ir_measures, `ir_measures/measures/*.py`, `util.parse_measure`), ranx's
//! (AmenRa/ranx, `ranx/meta/evaluate.py`, `docs/metrics.md`) and MTEB's `ndcg_at_10`.
//!
//! Lookup order for a bare name: trec_eval's name (case-sensitive), then ir_measures' and ranx's
//! (case-sensitive), then all of them ignoring case; so `rbp` is trec_eval's (p = 0.9) and
//! `RBP` ir_measures' (p = 0.8), `P` is trec_eval's (all cutoffs) and `R` ir_measures' (needs
//! a cutoff).

use super::measures::{
    default_rbp, Gains, Measure, CUTOFFS, RECALL_LEVELS, RPREC_MULTIPLES, SUCCESS_CUTOFFS, UNJ_CUTOFFS,
};
use crate::error::{Error, Result};

/// trec_eval's measure names (and pledge's own in the same style), nicknames and pseudo-measures.
const TREC_BASES: &[&str] = &[
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
    "judged",
    "judged_ret",
    "recip_rank_cut",
    "ndcg_burges",
    "ndcg_burges_cut",
    "all_trec",
    "all",
    "official",
    "set",
    "runid",
    "num_q",
    // trec_eval measures pledge refuses (they need other judgment formats), listed so that
    // they get a clear refusal rather than "unknown".
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
    "all_prefs",
    "prefs",
    "qrels_jg",
];

/// ir_measures' registered names (supported or refused).
const IR_NAMES: &[&str] = &[
    "AP",
    "MAP",
    "nDCG",
    "NDCG",
    "P",
    "Precision",
    "R",
    "Recall",
    "RR",
    "MRR",
    "Rprec",
    "RPrec",
    "Bpref",
    "BPref",
    "infAP",
    "IPrec",
    "Judged",
    "NumQ",
    "NumRel",
    "NumRet",
    "NumRelRet",
    "RBP",
    "SetP",
    "SetRelP",
    "SetR",
    "SetF",
    "SetAP",
    "Success",
    // Refused: no trec_eval counterpart.
    "ERR",
    "ERR_IA",
    "nERR_IA",
    "alpha_DCG",
    "alpha_nDCG",
    "NRBP",
    "nNRBP",
    "AP_IA",
    "MAP_IA",
    "P_IA",
    "StRecall",
    "INST",
    "INSQ",
    "NERR8",
    "NERR9",
    "NERR10",
    "NERR11",
    "SDCG",
    "BPM",
    "Compat",
    "Accuracy",
];

/// ranx's metric names (supported or refused).
const RANX_NAMES: &[&str] = &[
    "hits",
    "hit_rate",
    "precision",
    "recall",
    "f1",
    "r-precision",
    "r_precision",
    "bpref",
    "rbp",
    "mrr",
    "map",
    "dcg",
    "dcg_burges",
    "ndcg",
    "ndcg_burges",
];

fn bad(spec: &str, why: impl std::fmt::Display) -> Error {
    Error::input(format!("measure `{}`: {}", spec, why))
}

/// Which naming family a name was found in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Family {
    Trec(&'static str),
    Ir(&'static str),
    Ranx(&'static str),
}

fn find_in(list: &'static [&'static str], name: &str, ignore_case: bool) -> Option<&'static str> {
    list.iter().copied().find(|b| {
        if ignore_case {
            b.eq_ignore_ascii_case(name)
        } else {
            *b == name
        }
    })
}

/// A bare name (no parameters) in the lookup order of the module docs.
fn bare(name: &str) -> Option<Family> {
    for ignore_case in [false, true] {
        if let Some(b) = find_in(TREC_BASES, name, ignore_case) {
            return Some(Family::Trec(b));
        }
        if let Some(b) = find_in(IR_NAMES, name, ignore_case) {
            return Some(Family::Ir(b));
        }
        if let Some(b) = find_in(RANX_NAMES, name, ignore_case) {
            return Some(Family::Ranx(b));
        }
    }
    None
}

fn trec_base(name: &str) -> Option<&'static str> {
    find_in(TREC_BASES, name, false).or_else(|| find_in(TREC_BASES, name, true))
}

/// Parses one spec (see [`super::measures::parse`]).
pub(super) fn parse(spec: &str) -> Result<Vec<Measure>> {
    if spec.is_empty() {
        return Err(Error::input("empty measure name").with_hint("e.g. `map`, `P.10`, `nDCG@10`"));
    }
    if let Some(i) = spec.rfind("-l") {
        if i > 0 && spec[i + 2..].chars().all(|c| c.is_ascii_digit()) && spec.len() > i + 2 {
            return Err(bad(spec, "ranx's per-measure relevance level (`-lN`) is not supported")
                .with_hint("pledge applies one relevance level to every measure: pass `-l N` to `pledge eval`"));
        }
    }
    if spec.contains('@') || spec.contains('(') {
        return call(spec).map(|m| m.into_iter().collect());
    }
    match bare(spec) {
        Some(Family::Trec(b)) => return trec(spec, b, None),
        Some(Family::Ir(b)) => return ir(spec, b, &[], None).map(|m| m.into_iter().collect()),
        Some(Family::Ranx(b)) => return ranx(spec, b, None).map(|m| vec![m]),
        None => {}
    }
    if let Some(i) = spec.find('.') {
        if let Some(b) = trec_base(&spec[..i]) {
            return trec(spec, b, Some(&spec[i + 1..]));
        }
    }
    if let Some(i) = spec.to_ascii_lowercase().rfind("_at_") {
        let (name, k) = (&spec[..i], &spec[i + 4..]);
        if find_in(RANX_NAMES, name, true).is_some() && !k.is_empty() && k.chars().all(|c| c.is_ascii_digit()) {
            return call(&format!("{}@{}", name, k)).map(|m| m.into_iter().collect());
        }
    }
    // trec_eval's printed form `base_params`: the longest base followed by `_`.
    let lower = spec.to_ascii_lowercase();
    let best = TREC_BASES
        .iter()
        .filter(|b| {
            lower.len() > b.len() + 1 && lower.starts_with(&b.to_ascii_lowercase()) && lower.as_bytes()[b.len()] == b'_'
        })
        .max_by_key(|b| b.len());
    if let Some(b) = best {
        return trec(spec, b, Some(&spec[b.len() + 1..]));
    }
    Err(unknown(spec, spec))
}

fn unknown(spec: &str, name: &str) -> Error {
    let lower = name.to_ascii_lowercase();
    let best = TREC_BASES
        .iter()
        .chain(IR_NAMES)
        .chain(RANX_NAMES)
        .map(|k| (strsim::jaro_winkler(&lower, &k.to_ascii_lowercase()), *k))
        .filter(|(s, _)| *s >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let e = bad(spec, "unknown measure");
    match best {
        Some((_, k)) => e.with_hint(format!(
            "did you mean `{}`? (trec_eval names such as map, P.10, ndcg_cut.10; ir_measures names such as \
             nDCG@10, AP, RR@10; ranx names such as ndcg@10, mrr; see the book's measure names, docs/reference/measures.md)",
            k
        )),
        None => e.with_hint(
            "known: trec_eval names (map, P.10, ndcg_cut.10, recall.100, bpref, all_trec, ...), ir_measures \
             names (nDCG@10, AP, RR, R@100, Judged@10, ...) and ranx names (ndcg@10, mrr, hit_rate@10, ...); \
             see the book's measure names, docs/reference/measures.md",
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// trec_eval syntax

fn no_params(spec: &str, base: &str, params: Option<&str>) -> Result<()> {
    match params {
        Some(_) => Err(bad(spec, format!("`{}` takes no parameters", base))),
        None => Ok(()),
    }
}

fn one(spec: &str, base: &str, params: Option<&str>, m: Measure) -> Result<Vec<Measure>> {
    no_params(spec, base, params)?;
    Ok(vec![m])
}

/// trec_eval's long cutoffs: positive integers, sorted, no duplicates (`meas_init.c`).
fn long_cutoffs(spec: &str, params: Option<&str>, default: &[u32]) -> Result<Vec<u32>> {
    let Some(p) = params else {
        return Ok(default.to_vec());
    };
    let mut v = p
        .split(',')
        .map(|c| match c.trim().parse::<u32>() {
            Ok(k) if k > 0 => Ok(k),
            _ => Err(bad(spec, "cutoffs must be positive integers")),
        })
        .collect::<Result<Vec<u32>>>()?;
    v.sort_unstable();
    if v.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad(spec, "duplicate cutoffs"));
    }
    Ok(v)
}

fn number(spec: &str, s: &str) -> Result<f64> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(bad(spec, format!("`{}` is not a number", s.trim()))),
    }
}

fn numbers(spec: &str, p: &str) -> Result<Vec<f64>> {
    p.split(',').map(|s| number(spec, s)).collect()
}

/// trec_eval's double cutoffs: non-negative numbers, sorted, no duplicates.
fn double_cutoffs(spec: &str, params: Option<&str>, default: &[f64]) -> Result<Vec<f64>> {
    let Some(p) = params else {
        return Ok(default.to_vec());
    };
    let mut v = numbers(spec, p)?;
    if v.iter().any(|x| *x < 0.0) {
        return Err(bad(spec, "levels must be non-negative"));
    }
    v.sort_by(f64::total_cmp);
    if v.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad(spec, "duplicate cutoffs"));
    }
    Ok(v)
}

/// `name=value` pairs (`get_param_pairs`).
fn pairs(spec: &str, p: &str) -> Result<Vec<(String, f64)>> {
    p.split(',')
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), number(spec, v)?)),
            _ => Err(bad(spec, format!("parameter `{}` is not `name=value`", kv))),
        })
        .collect()
}

fn gains(spec: &str, base: &str, params: Option<&str>) -> Result<Gains> {
    let Some(p) = params else {
        return Ok(Gains::default());
    };
    let pairs = pairs(spec, p)?
        .into_iter()
        .map(|(k, v)| match k.parse::<i64>() {
            Ok(level) => Ok((level, v)),
            Err(_) => Err(bad(
                spec,
                format!(
                    "`{}` takes gains as `level=gain` (e.g. `{}.1=3,2=9`), not `{}`",
                    base, base, k
                ),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Gains {
        pairs,
        params: Some(p.to_string()),
    })
}

fn persistence(spec: &str, p: f64) -> Result<f64> {
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(bad(spec, "persistence must be `p=X` with 0 < X < 1"))
    }
}

/// rbp / rbp_resid parameters: `p=0.95[,level=gain...]`, a bare `0.95`, or ranx's `95`.
/// rbp's parameters: persistence, `(level, gain)` pairs, the parameter text for the name.
type RbpParams = (f64, Vec<(i64, f64)>, Option<String>);

fn rbp_params(spec: &str, base: &str, params: Option<&str>) -> Result<RbpParams> {
    let Some(p) = params else {
        return Ok((0.9, Vec::new(), None));
    };
    if !p.contains('=') {
        let x = if !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()) {
            number(spec, &format!("0.{}", p))? // ranx: rbp.95 is p = 0.95
        } else {
            number(spec, p)?
        };
        let x = persistence(spec, x)?;
        return Ok((x, Vec::new(), Some(format!("p={}", x))));
    }
    let mut persistence_value = 0.9;
    let mut levels = Vec::new();
    for (k, v) in pairs(spec, p)? {
        if k == "p" {
            persistence_value = persistence(spec, v)?;
        } else if let (Ok(level), "rbp") = (k.parse::<i64>(), base) {
            levels.push((level, v));
        } else {
            return Err(bad(
                spec,
                format!(
                    "`{}` takes `p=X`{}, not `{}`",
                    base,
                    if base == "rbp" { " and level=gain" } else { "" },
                    k
                ),
            ));
        }
    }
    Ok((persistence_value, levels, Some(p.to_string())))
}

/// A trec_eval measure by its base name and `.`-parameters (`P.5,10`, `ndcg.1=3`), in the named
/// steps below: a measure without parameters, a nickname, a family over cutoffs, a measure with
/// parameters of its own, else a refusal that says why.
fn trec(spec: &str, base: &'static str, params: Option<&str>) -> Result<Vec<Measure>> {
    if params == Some("") {
        return Err(bad(spec, "empty parameter list after `.`"));
    }
    if let Some(m) = plain(base) {
        return one(spec, base, params, m);
    }
    if let Some(ms) = nickname(base) {
        no_params(spec, base, params)?;
        return Ok(ms);
    }
    if let Some(ms) = cutoff_family(spec, base, params)? {
        return Ok(ms);
    }
    if let Some(ms) = with_params(spec, base, params)? {
        return Ok(ms);
    }
    Err(refused(spec, base))
}

/// A trec_eval measure that takes no parameters.
fn plain(base: &str) -> Option<Measure> {
    Some(match base {
        "num_ret" => Measure::NumRet,
        "num_rel" => Measure::NumRel,
        "num_rel_ret" => Measure::NumRelRet,
        "map" => Measure::Map,
        "gm_map" => Measure::GmMap,
        "Rprec" => Measure::Rprec,
        "bpref" => Measure::Bpref,
        "recip_rank" => Measure::RecipRank,
        "infAP" => Measure::InfAp,
        "gm_bpref" => Measure::GmBpref,
        "binG" => Measure::BinG,
        "set_P" => Measure::SetP,
        "set_relative_P" => Measure::SetRelativeP,
        "set_recall" => Measure::SetRecall,
        "set_map" => Measure::SetMap,
        "num_nonrel_judged_ret" => Measure::NumNonrelJudgedRet,
        "yaap" => Measure::Yaap,
        "ndcg_burges" => Measure::NdcgBurges,
        _ => return None,
    })
}

/// trec_eval's nicknames and pseudo-measures: the measures they stand for (`runid` and `num_q`
/// give none: pledge always prints them).
fn nickname(base: &str) -> Option<Vec<Measure>> {
    Some(match base {
        "runid" | "num_q" => Vec::new(),
        "all_trec" | "all" => Measure::all_trec(),
        "official" => Measure::defaults(),
        "set" => Measure::set_measures(),
        _ => return None,
    })
}

/// The measures of a family over cutoffs (`P.5,10`, `recall`, `iprec_at_recall.0.5`).
fn cutoff_family(spec: &str, base: &str, params: Option<&str>) -> Result<Option<Vec<Measure>>> {
    let cuts = |default: &[u32]| long_cutoffs(spec, params, default);
    Ok(Some(match base {
        "iprec_at_recall" => double_cutoffs(spec, params, &RECALL_LEVELS)?
            .into_iter()
            .map(Measure::IprecAtRecall)
            .collect(),
        "Rprec_mult" => double_cutoffs(spec, params, &RPREC_MULTIPLES)?
            .into_iter()
            .map(Measure::RprecMult)
            .collect(),
        "P" => cuts(&CUTOFFS)?.into_iter().map(Measure::P).collect(),
        "recall" => cuts(&CUTOFFS)?.into_iter().map(Measure::Recall).collect(),
        "ndcg_cut" => cuts(&CUTOFFS)?.into_iter().map(Measure::NdcgCut).collect(),
        "map_cut" => cuts(&CUTOFFS)?.into_iter().map(Measure::MapCut).collect(),
        "relative_P" => cuts(&CUTOFFS)?.into_iter().map(Measure::RelativeP).collect(),
        "success" => cuts(&SUCCESS_CUTOFFS)?.into_iter().map(Measure::Success).collect(),
        "unj" => cuts(&UNJ_CUTOFFS)?.into_iter().map(Measure::Unj).collect(),
        "judged" => cuts(&[10])?.into_iter().map(Measure::Judged).collect(),
        "judged_ret" => match params {
            None => vec![Measure::JudgedRet(None)],
            Some(_) => cuts(&[])?.into_iter().map(|k| Measure::JudgedRet(Some(k))).collect(),
        },
        "recip_rank_cut" | "ndcg_burges_cut" => {
            if params.is_none() {
                return Err(bad(spec, format!("`{}` needs a cutoff, e.g. `{}.10`", base, base)));
            }
            let f = if base == "recip_rank_cut" {
                Measure::RecipRankCut
            } else {
                Measure::NdcgBurgesCut
            };
            cuts(&[])?.into_iter().map(f).collect()
        }
        _ => return Ok(None),
    }))
}

/// A measure with parameters of its own (`relstring.20`, `utility.1,-1,0,0`, gains, `rbp`).
fn with_params(spec: &str, base: &str, params: Option<&str>) -> Result<Option<Vec<Measure>>> {
    Ok(Some(match base {
        "relstring" => {
            let len = match params {
                None => 10,
                Some(p) => match p.trim().parse::<u32>() {
                    Ok(k) => k,
                    Err(_) => return Err(bad(spec, "relstring takes a number of documents, e.g. `relstring.20`")),
                },
            };
            vec![Measure::RelString {
                len,
                params: params.map(str::to_string),
            }]
        }
        "utility" => {
            let coefficients = match params {
                None => [1.0, -1.0, 0.0, 0.0],
                Some(p) => match <[f64; 4]>::try_from(numbers(spec, p)?) {
                    Ok(c) => c,
                    Err(_) => return Err(bad(spec, "utility takes 4 coefficients, e.g. `utility.1,-1,0,0`")),
                },
            };
            vec![Measure::Utility {
                coefficients,
                params: params.map(str::to_string),
            }]
        }
        "11pt_avg" => {
            let levels = match params {
                None => RECALL_LEVELS.to_vec(),
                Some(p) => numbers(spec, p)?,
            };
            vec![Measure::ElevenPtAvg {
                levels,
                params: params.map(str::to_string),
            }]
        }
        "set_F" => {
            let beta = match params {
                None => 1.0,
                Some(p) => number(spec, p)?,
            };
            vec![Measure::SetF {
                beta,
                params: params.map(str::to_string),
            }]
        }
        "G" => vec![Measure::G(gains(spec, base, params)?)],
        "dcg" => vec![Measure::Dcg(gains(spec, base, params)?)],
        "ideal_dcg" => vec![Measure::IdealDcg(gains(spec, base, params)?)],
        "ndcg" => vec![Measure::Ndcg(gains(spec, base, params)?)],
        "ndcg_rel" => vec![Measure::NdcgRel(gains(spec, base, params)?)],
        "Rndcg" => vec![Measure::Rndcg(gains(spec, base, params)?)],
        "rbp" => {
            let (p, pairs, text) = rbp_params(spec, base, params)?;
            vec![Measure::Rbp {
                p,
                gains: Gains { pairs, params: text },
            }]
        }
        "rbp_resid" => {
            let (p, _, text) = rbp_params(spec, base, params)?;
            vec![Measure::RbpResid { p, params: text }]
        }
        _ => return Ok(None),
    }))
}

/// Why a trec_eval name pledge knows is not read, else the unknown-name error.
fn refused(spec: &str, base: &str) -> Error {
    match base {
        "map_avgjg" | "P_avgjg" | "Rprec_mult_avgjg" | "qrels_jg" => bad(
            spec,
            "needs trec_eval's judgment-group qrels (`-R qrels_jg`), which pledge does not read",
        ),
        "all_prefs" | "prefs" => bad(
            spec,
            "needs trec_eval's preference judgments (`-R prefs`), which pledge does not read",
        ),
        _ => unknown(spec, spec),
    }
}

// ---------------------------------------------------------------------------------------------
// ir_measures / ranx syntax: `Name`, `Name@k`, `Name(key=value, ...)`, `Name(...)@k`

/// A parameter value as ir_measures' `ast` parsing gives it.
#[derive(Debug, Clone, PartialEq)]
enum Value {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Dict(Vec<(Value, Value)>),
}

impl Value {
    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }
}

/// Splits `s` at top-level occurrences of `sep` (outside quotes, braces and parentheses).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0usize);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '{' | '(' | '[') => depth += 1,
            (None, '}' | ')' | ']') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn value(spec: &str, s: &str) -> Result<Value> {
    let s = s.trim();
    let quoted = |q: char| s.len() >= 2 && s.starts_with(q) && s.ends_with(q);
    if quoted('\'') || quoted('"') {
        return Ok(Value::Str(s[1..s.len() - 1].to_string()));
    }
    match s {
        "True" => return Ok(Value::Bool(true)),
        "False" => return Ok(Value::Bool(false)),
        _ => {}
    }
    if let Some(inner) = s.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        let mut entries = Vec::new();
        for e in split_top(inner, ',') {
            if e.trim().is_empty() {
                continue;
            }
            let kv = split_top(e, ':');
            let [k, v] = kv.as_slice() else {
                return Err(bad(spec, format!("`{}` is not a `key: value` entry", e.trim())));
            };
            entries.push((value(spec, k)?, value(spec, v)?));
        }
        return Ok(Value::Dict(entries));
    }
    if let Ok(i) = s.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(Value::Float(x)),
        _ => Err(bad(
            spec,
            format!("`{}` is not a value (numbers, 'strings', True/False, {{dicts}})", s),
        )),
    }
}

fn call(spec: &str) -> Result<Option<Measure>> {
    // `...@at`: the last `@` outside parentheses.
    let parts = split_top(spec, '@');
    let (head, at) = match parts.as_slice() {
        [h] => (h.trim(), None),
        [h, a] => (h.trim(), Some(value(spec, a)?)),
        _ => return Err(bad(spec, "more than one `@`")),
    };
    let (name, args) = match head.find('(') {
        Some(i) => {
            let Some(inner) = head[i + 1..].strip_suffix(')') else {
                return Err(bad(spec, "expected `Name(key=value, ...)`"));
            };
            let mut args = Vec::new();
            for a in split_top(inner, ',') {
                if a.trim().is_empty() {
                    continue;
                }
                let Some((k, v)) = a.split_once('=') else {
                    return Err(bad(spec, format!("parameter `{}` is not `key=value`", a.trim())));
                };
                args.push((k.trim().to_string(), value(spec, v)?));
            }
            (head[..i].trim(), args)
        }
        None => (head, Vec::new()),
    };
    let found = [false, true].into_iter().find_map(|ic| {
        find_in(IR_NAMES, name, ic)
            .map(Family::Ir)
            .or_else(|| find_in(RANX_NAMES, name, ic).map(Family::Ranx))
    });
    match found {
        Some(Family::Ir(n)) => ir(spec, n, &args, at),
        Some(Family::Ranx(n)) => {
            if !args.is_empty() {
                return Err(bad(spec, format!("ranx's `{}` takes no `(...)` parameters", n)));
            }
            ranx(spec, n, at).map(Some)
        }
        _ => Err(unknown(spec, name)),
    }
}

fn cutoff(spec: &str, v: &Value) -> Result<u32> {
    match v {
        Value::Int(k) if *k > 0 && *k <= u32::MAX as i64 => Ok(*k as u32),
        _ => Err(bad(spec, "a cutoff must be a positive integer")),
    }
}

/// ir_measures' parameters of one measure, as given (`Name(key=value)@k`).
#[derive(Debug, Default)]
struct IrArgs {
    cut: Option<u32>,
    dcg: Option<String>,
    gains: Option<Vec<(i64, f64)>>,
    p: Option<f64>,
    beta: Option<f64>,
    relative: bool,
    recall: Option<f64>,
}

/// An ir_measures or ranx measure with its parameters, in the named steps below: the canonical
/// name, the parameters it allows, the parameters given, then the measure.
fn ir(spec: &str, name: &'static str, args: &[(String, Value)], at: Option<Value>) -> Result<Option<Measure>> {
    let canonical = ir_canonical(name);
    let allowed = ir_allowed(spec, name, canonical)?;
    let mut given: Vec<(&str, Value)> = args.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    if let Some(a) = at {
        given.push((if canonical == "IPrec" { "recall" } else { "cutoff" }, a));
    }
    let mut a = IrArgs::default();
    for (k, v) in &given {
        if !allowed.contains(k) {
            return Err(bad(
                spec,
                format!(
                    "`{}` takes {}; not `{}`",
                    name,
                    if allowed.is_empty() {
                        "no parameters".to_string()
                    } else {
                        allowed.join(", ")
                    },
                    k
                ),
            ));
        }
        ir_arg(spec, k, v, &mut a)?;
    }
    ir_measure(spec, name, canonical, &a)
}

/// ir_measures' name for an alias it registers (`MAP` is `AP`, `MRR` is `RR`, ...).
fn ir_canonical(name: &'static str) -> &'static str {
    match name {
        "MAP" => "AP",
        "NDCG" => "nDCG",
        "Precision" => "P",
        "Recall" => "R",
        "MRR" => "RR",
        "RPrec" => "Rprec",
        "BPref" => "Bpref",
        n => n,
    }
}

/// The parameters an ir_measures measure takes; a measure without a trec_eval counterpart is
/// refused.
fn ir_allowed(spec: &str, name: &str, canonical: &str) -> Result<&'static [&'static str]> {
    Ok(match canonical {
        "AP" | "P" | "R" | "RR" | "Success" => &["cutoff", "rel", "judged_only"],
        "nDCG" => &["cutoff", "dcg", "gains", "judged_only"],
        "Rprec" => &["rel", "judged_only"],
        "Bpref" | "infAP" | "NumRel" | "SetR" => &["rel"],
        "IPrec" => &["recall", "rel", "judged_only"],
        "Judged" => &["cutoff"],
        "NumRet" => &["rel"],
        "NumQ" | "NumRelRet" | "SetRelP" => &[],
        "RBP" => &["cutoff", "p", "rel"],
        "SetP" => &["rel", "relative", "judged_only"],
        "SetF" => &["rel", "beta", "judged_only"],
        "SetAP" => &["rel", "judged_only"],
        _ => {
            return Err(bad(
                spec,
                format!(
                    "ir_measures' `{}` has no trec_eval counterpart and pledge does not compute it",
                    name
                ),
            ))
        }
    })
}

/// Records one parameter in `a`, refusing those pledge does not apply per measure.
fn ir_arg(spec: &str, k: &str, v: &Value, a: &mut IrArgs) -> Result<()> {
    match k {
        "cutoff" => a.cut = Some(cutoff(spec, v)?),
        "rel" => {
            return Err(bad(spec, "per-measure `rel=` is not supported").with_hint(
                "pledge applies one relevance level to every measure: pass `-l N` to `pledge eval` (trec_eval -l)",
            ))
        }
        "judged_only" => match v {
            Value::Bool(false) => {}
            Value::Bool(true) => {
                return Err(bad(spec, "per-measure `judged_only=True` is not supported")
                    .with_hint("pass `-J` to `pledge eval` (trec_eval -J) to drop unjudged documents"))
            }
            _ => return Err(bad(spec, "judged_only must be True or False")),
        },
        "dcg" => match v {
            Value::Str(s) if s == "log2" || s == "exp-log2" => a.dcg = Some(s.clone()),
            _ => return Err(bad(spec, "dcg must be 'log2' or 'exp-log2'")),
        },
        "gains" => match v {
            Value::Dict(entries) => {
                let mut g = Vec::new();
                for (level, gain) in entries {
                    match (level, gain.as_f64()) {
                        (Value::Int(l), Some(x)) => g.push((*l, x)),
                        _ => {
                            return Err(bad(
                                spec,
                                "gains must map integer grades to numbers, e.g. {0:0, 1:1, 2:3}",
                            ))
                        }
                    }
                }
                a.gains = Some(g);
            }
            _ => return Err(bad(spec, "gains must be a dict such as {0:0, 1:1, 2:3}")),
        },
        "p" => a.p = Some(persistence(spec, v.as_f64().unwrap_or(f64::NAN))?),
        "beta" => match v.as_f64() {
            Some(b) if b > 0.0 => a.beta = Some(b),
            _ => return Err(bad(spec, "beta must be a positive number")),
        },
        "relative" => match v {
            Value::Bool(b) => a.relative = *b,
            _ => return Err(bad(spec, "relative must be True or False")),
        },
        "recall" => match v.as_f64() {
            Some(r) if (0.0..=1.0).contains(&r) => a.recall = Some(r),
            _ => return Err(bad(spec, "the recall level must be in [0, 1]")),
        },
        _ => {}
    }
    Ok(())
}

/// The nDCG variant the parameters ask for.
fn ir_ndcg(spec: &str, a: &IrArgs) -> Result<Measure> {
    Ok(match (a.dcg.as_deref(), a.gains.clone(), a.cut) {
        (Some("exp-log2"), Some(_), _) => {
            return Err(bad(spec, "gains= and dcg='exp-log2' together are not supported"))
        }
        (Some("exp-log2"), None, None) => Measure::NdcgBurges,
        (Some("exp-log2"), None, Some(k)) => Measure::NdcgBurgesCut(k),
        (_, None, None) => Measure::Ndcg(Gains::default()),
        (_, None, Some(k)) => Measure::NdcgCut(k),
        (_, Some(g), None) => {
            let text = g
                .iter()
                .map(|(l, x)| format!("{}={}", l, x))
                .collect::<Vec<_>>()
                .join(",");
            Measure::Ndcg(Gains {
                pairs: g,
                params: Some(text),
            })
        }
        (_, Some(_), Some(_)) => {
            return Err(bad(spec, "custom gains with a cutoff are not supported").with_hint(
                "trec_eval's ndcg_cut uses the grades as gains; custom gains work without a cutoff (ndcg.1=3,2=9)",
            ))
        }
    })
}

/// The measure an ir_measures name and its parameters denote (`None` for `NumQ`).
fn ir_measure(spec: &str, name: &str, canonical: &str, a: &IrArgs) -> Result<Option<Measure>> {
    let need_cutoff = |what: &str| -> Result<u32> {
        a.cut
            .ok_or_else(|| bad(spec, format!("`{}` needs a cutoff, e.g. `{}@10`", what, what)))
    };
    Ok(Some(match canonical {
        "AP" => a.cut.map_or(Measure::Map, Measure::MapCut),
        "nDCG" => ir_ndcg(spec, a)?,
        "P" => Measure::P(need_cutoff(name)?),
        "R" => Measure::Recall(need_cutoff(name)?),
        "RR" => a.cut.map_or(Measure::RecipRank, Measure::RecipRankCut),
        "Rprec" => Measure::Rprec,
        "Bpref" => Measure::Bpref,
        "infAP" => Measure::InfAp,
        "IPrec" => match a.recall {
            Some(r) => Measure::IprecAtRecall(r),
            None => return Err(bad(spec, "`IPrec` needs a recall level, e.g. `IPrec@0.5`")),
        },
        "Judged" => Measure::JudgedRet(a.cut),
        "NumQ" => return Ok(None),
        "NumRel" => Measure::NumRel,
        "NumRet" => Measure::NumRet,
        "NumRelRet" => Measure::NumRelRet,
        "RBP" => {
            if a.cut.is_some() {
                return Err(
                    bad(spec, "RBP with a cutoff is not supported (trec_eval's rbp has none)")
                        .with_hint("for ranx's `rbp.95` persistence write `RBP(p=0.95)` or `rbp.p=0.95`"),
                );
            }
            default_rbp(a.p.unwrap_or(0.8))
        }
        "SetP" if a.relative => Measure::SetRelativeP,
        "SetP" => Measure::SetP,
        "SetRelP" => Measure::SetRelativeP,
        "SetR" => Measure::SetRecall,
        "SetF" => match a.beta {
            None | Some(1.0) => Measure::SetF {
                beta: 1.0,
                params: None,
            },
            Some(b) => Measure::SetF {
                beta: b,
                params: Some(format!("{}", b)),
            },
        },
        "SetAP" => Measure::SetMap,
        "Success" => Measure::Success(need_cutoff(name)?),
        _ => return Err(unknown(spec, name)),
    }))
}

/// A ranx metric (`ranx/metrics/__init__.py` `metric_switch`), `name` or `name@k`.
fn ranx(spec: &str, name: &'static str, at: Option<Value>) -> Result<Measure> {
    let k = match &at {
        Some(v) => Some(cutoff(spec, v)?),
        None => None,
    };
    let no_cutoff = |m: Measure| match k {
        Some(_) => Err(bad(spec, format!("ranx's `{}` takes no cutoff", name))),
        None => Ok(m),
    };
    match (name, k) {
        ("hit_rate", Some(k)) => Ok(Measure::Success(k)),
        ("hit_rate", None) => Err(bad(spec, "ranx's hit_rate needs a cutoff here, e.g. `hit_rate@10`")),
        ("precision", Some(k)) => Ok(Measure::P(k)),
        ("precision", None) => Ok(Measure::SetP),
        ("recall", Some(k)) => Ok(Measure::Recall(k)),
        ("recall", None) => Ok(Measure::SetRecall),
        ("f1", None) => Ok(Measure::SetF {
            beta: 1.0,
            params: None,
        }),
        ("r-precision" | "r_precision", _) => no_cutoff(Measure::Rprec),
        ("bpref", _) => no_cutoff(Measure::Bpref),
        ("mrr", None) => Ok(Measure::RecipRank),
        ("mrr", Some(k)) => Ok(Measure::RecipRankCut(k)),
        ("map", None) => Ok(Measure::Map),
        ("map", Some(k)) => Ok(Measure::MapCut(k)),
        ("ndcg", None) => Ok(Measure::Ndcg(Gains::default())),
        ("ndcg", Some(k)) => Ok(Measure::NdcgCut(k)),
        ("ndcg_burges", None) => Ok(Measure::NdcgBurges),
        ("ndcg_burges", Some(k)) => Ok(Measure::NdcgBurgesCut(k)),
        ("dcg", None) => Ok(Measure::Dcg(Gains::default())),
        ("rbp", _) => Err(bad(
            spec,
            "`rbp@N` is ambiguous (ranx: persistence 0.N; ir_measures: a cutoff)",
        )
        .with_hint("write the persistence as `rbp.p=0.95`, `rbp.95` or `RBP(p=0.95)`")),
        ("hits", _) => Err(
            bad(spec, "ranx's hits (a count of relevant documents) is not supported")
                .with_hint("P@k × k is the same number"),
        ),
        ("f1", Some(_)) | ("dcg", Some(_)) | ("dcg_burges", _) => Err(bad(
            spec,
            format!(
                "ranx's `{}` has no trec_eval counterpart and pledge does not compute it",
                spec
            ),
        )),
        _ => Err(unknown(spec, name)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::measures::{parse, resolve};
    use super::*;

    fn canon(s: &str) -> String {
        resolve(s)
            .unwrap_or_else(|e| panic!("{}: {}", s, e.message))
            .canonical_name()
    }

    #[test]
    fn trec_eval_names() {
        assert_eq!(parse("P.10").unwrap(), vec![Measure::P(10)]);
        assert_eq!(parse("P_10").unwrap(), vec![Measure::P(10)]);
        assert_eq!(
            parse("P.10,5").unwrap(),
            vec![Measure::P(5), Measure::P(10)],
            "sorted as trec_eval"
        );
        assert_eq!(parse("P").unwrap().len(), 9);
        assert_eq!(parse("recall").unwrap().len(), 9);
        assert_eq!(parse("map_cut").unwrap().len(), 9);
        assert_eq!(parse("success").unwrap().len(), 3);
        assert_eq!(parse("iprec_at_recall").unwrap().len(), 11);
        assert_eq!(parse("Rprec_mult").unwrap().len(), 10);
        assert_eq!(parse("all_trec").unwrap().len(), 98);
        assert_eq!(parse("official").unwrap().len(), 28);
        assert!(parse("num_q").unwrap().is_empty());
        for (spec, name) in [
            ("ndcg_cut.10", "ndcg_cut_10"),
            ("ndcg_cut_20", "ndcg_cut_20"),
            ("map_cut.100", "map_cut_100"),
            ("recall.100", "recall_100"),
            ("success.10", "success_10"),
            ("iprec_at_recall..10", "iprec_at_recall_0.10"),
            ("iprec_at_recall_0.10", "iprec_at_recall_0.10"),
            ("Rprec_mult.0.2", "Rprec_mult_0.20"),
            ("rbp", "rbp"),
            ("rbp.p=0.95", "rbp_p=0.95"),
            ("rbp.0.95", "rbp_p=0.95"),
            ("rbp.95", "rbp_p=0.95"),
            ("rbp_p=0.95", "rbp_p=0.95"),
            ("rbp_resid", "rbp_resid"),
            ("rbp_resid.p=0.5", "rbp_resid_p=0.5"),
            ("ndcg.1=3,2=9,4=4.5", "ndcg_1=3,2=9,4=4.5"),
            ("utility.2,-1,0,0", "utility_2,-1,0,0"),
            ("11pt_avg..25,.5,.75", "11pt_avg_.25,.5,.75"),
            ("relstring.20", "relstring_20"),
            ("set_F.0.5", "set_F_0.5"),
            ("judged.10", "judged_10"),
            ("judged_10", "judged_10"),
            ("judged_ret.10", "judged_ret_10"),
            ("recip_rank_cut.10", "recip_rank_cut_10"),
            ("ndcg_burges_cut_10", "ndcg_burges_cut_10"),
            ("Rprec", "Rprec"),
            ("rprec", "Rprec"),
            ("NDCG_CUT_10", "ndcg_cut_10"),
            ("gm_map", "gm_map"),
            ("num_nonrel_judged_ret", "num_nonrel_judged_ret"),
        ] {
            assert_eq!(canon(spec), name, "{}", spec);
        }
    }

    #[test]
    fn ir_measures_and_ranx_names() {
        for (spec, name) in [
            ("nDCG@10", "ndcg_cut_10"),
            ("NDCG@10", "ndcg_cut_10"),
            ("nDCG", "ndcg"),
            ("nDCG(dcg='log2')@10", "ndcg_cut_10"),
            ("nDCG(dcg='exp-log2')@10", "ndcg_burges_cut_10"),
            ("nDCG(gains={0:0, 1:1, 2:3})", "ndcg_0=0,1=1,2=3"),
            ("nDCG(cutoff=20)", "ndcg_cut_20"),
            ("P@10", "P_10"),
            ("Precision@5", "P_5"),
            ("AP", "map"),
            ("MAP", "map"),
            ("AP@100", "map_cut_100"),
            ("RR", "recip_rank"),
            ("MRR@10", "recip_rank_cut_10"),
            ("RR@10", "recip_rank_cut_10"),
            ("R@100", "recall_100"),
            ("Recall@1000", "recall_1000"),
            ("Judged@10", "judged_ret_10"),
            ("Judged", "judged_ret"),
            ("Success@10", "success_10"),
            ("Bpref", "bpref"),
            ("infAP", "infAP"),
            ("IPrec@0.5", "iprec_at_recall_0.50"),
            ("Rprec", "Rprec"),
            ("RBP", "rbp_p=0.8"),
            ("RBP(p=0.8)", "rbp_p=0.8"),
            ("RBP(p=0.9)", "rbp"),
            ("SetP", "set_P"),
            ("SetP(relative=True)", "set_relative_P"),
            ("SetRelP", "set_relative_P"),
            ("SetR", "set_recall"),
            ("SetF", "set_F"),
            ("SetF(beta=0.5)", "set_F_0.5"),
            ("SetAP", "set_map"),
            ("NumRel", "num_rel"),
            ("NumRet", "num_ret"),
            ("NumRelRet", "num_rel_ret"),
            ("P(judged_only=False)@10", "P_10"),
            ("ndcg@10", "ndcg_cut_10"),
            ("map@100", "map_cut_100"),
            ("mrr", "recip_rank"),
            ("mrr@10", "recip_rank_cut_10"),
            ("precision@10", "P_10"),
            ("precision", "set_P"),
            ("recall@100", "recall_100"),
            ("hit_rate@10", "success_10"),
            ("bpref", "bpref"),
            ("r-precision", "Rprec"),
            ("ndcg_burges@10", "ndcg_burges_cut_10"),
            ("f1", "set_F"),
            ("ndcg_at_10", "ndcg_cut_10"),
            ("recall_at_100", "recall_100"),
            ("mrr_at_10", "recip_rank_cut_10"),
            ("map_at_10", "map_cut_10"),
            ("precision_at_5", "P_5"),
        ] {
            assert_eq!(canon(spec), name, "{}", spec);
        }
        assert!(parse("NumQ").unwrap().is_empty());
    }

    #[test]
    fn refusals_say_why() {
        for (spec, why) in [
            ("mapp", "did you mean `map`"),
            ("ndgc@10", "did you mean"),
            ("P.0", "positive integers"),
            ("P.5,5", "duplicate cutoffs"),
            ("map.3", "takes no parameters"),
            ("rbp.p=1.5", "persistence"),
            ("P(rel=2)@10", "rel="),
            ("P(judged_only=True)@10", "-J"),
            ("ndcg@10-l2", "-l N"),
            ("ERR@20", "no trec_eval counterpart"),
            ("rbp@95", "ambiguous"),
            ("RBP@10", "cutoff is not supported"),
            ("P_avgjg", "qrels_jg"),
            ("P@0", "positive integer"),
            ("R", "needs a cutoff"),
            ("nDCG(gains={0:0,1:1})@10", "custom gains"),
            ("nDCG(foo=1)", "not `foo`"),
            ("hits@10", "not supported"),
            ("utility.1,2", "4 coefficients"),
            ("ndcg.a=1", "level=gain"),
            ("recip_rank_cut", "needs a cutoff"),
        ] {
            let e = parse(spec).unwrap_err();
            let text = format!("{} {}", e.message, e.hint.clone().unwrap_or_default());
            assert!(text.contains(why), "{}: {}", spec, text);
            assert_eq!(e.kind, crate::error::ErrorKind::Input);
        }
        let e = resolve("P").unwrap_err();
        assert!(e.message.contains("names 9 measures"), "{}", e.message);
        let e = resolve("num_q").unwrap_err();
        assert!(e.message.contains("not a per-topic measure"), "{}", e.message);
    }
}
