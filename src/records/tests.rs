//! The serialized form of every stored record kind, pinned: a fixed value of each type written as
//! the ledger writes it and compared with a committed golden file (`snapshots/`), read back with
//! the same type (equal, and the same bytes again), and a record as an older version wrote it
//! (no `record_version`, none of the later fields) read back.
//!
//! A golden file changes only when a stored format changes: then the record version and the
//! readers of older records need a look too (`INSTA_UPDATE=always` rewrites them).

use super::analysis::AnalysisRecord;
use super::*;
use crate::components::{self, read::Corpus, read::Question, NoProgress};
use crate::ledger::entry::{DataAccess, NoteSummary};
use crate::protocol::{Keep, StopCount, StopRequired};
use serde_json::Value;
use std::path::Path;

/// `v` as the ledger stores a `result.json`: the JSON value, pretty-printed.
fn stored(v: &impl Serialize) -> String {
    String::from_utf8(serde_json::to_vec_pretty(&to_value(v).unwrap()).unwrap()).unwrap()
}

/// `v` pinned: its stored form equals the golden file `name`, reads back with its own type as an
/// equal value, and writes the same bytes again.
fn pin<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(name: &str, v: &T) {
    let text = stored(v);
    insta::assert_snapshot!(name, text);
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, v, "{} does not read back equal", name);
    assert_eq!(stored(&back), text, "{} does not write the same bytes again", name);
}

/// The stored form of `v` without `keys` (at any depth): a record as a version before those
/// fields wrote it.
fn without(v: &impl Serialize, keys: &[&str]) -> Value {
    fn strip(v: &mut Value, keys: &[&str]) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| !keys.contains(&k.as_str()));
                m.values_mut().for_each(|x| strip(x, keys));
            }
            Value::Array(a) => a.iter_mut().for_each(|x| strip(x, keys)),
            _ => {}
        }
    }
    let mut v = to_value(v).unwrap();
    strip(&mut v, keys);
    v
}

/// A stored entry for the readers: `kind`, `summary` and `result.json` bytes.
struct Fake(&'static str, Value, Option<Vec<u8>>);

impl Stored for Fake {
    fn seq(&self) -> u64 {
        7
    }
    fn kind_name(&self) -> &str {
        self.0
    }
    fn summary(&self) -> &Value {
        &self.1
    }
    fn result_bytes(&self) -> Option<&[u8]> {
        self.2.as_deref()
    }
}

fn result_entry(kind: &'static str, v: &Value) -> Fake {
    Fake(kind, Value::Null, Some(serde_json::to_vec_pretty(v).unwrap()))
}

/// Twelve questions in four components (c1×5, c2×2, c3×3, c4×2), systems A and B with 0/1
/// scores: the clustered-questions example of the statistics tests.
fn analysis() -> AnalysisRecord {
    use crate::assignment::AssignmentRow;
    use crate::scores::ScoreTable;
    let a = [1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 1., 1.];
    let b = [0., 0., 1., 0., 0., 1., 1., 0., 0., 0., 1., 0.];
    let comp = ["c1", "c1", "c1", "c1", "c1", "c2", "c2", "c3", "c3", "c3", "c4", "c4"];
    let topics: Vec<String> = (0..12).map(|i| format!("q{:02}", i)).collect();
    let assignment = topics
        .iter()
        .zip(comp)
        .map(|(q, c)| AssignmentRow {
            question: q.clone(),
            component: c.into(),
            unit: q.clone(),
            split: None,
            counted: None,
        })
        .collect();
    let inputs = crate::stats::Inputs {
        scores: ScoreTable {
            systems: vec!["A".into(), "B".into()],
            topics,
            values: vec![
                a.iter().map(|x| Some(*x)).collect(),
                b.iter().map(|x| Some(*x)).collect(),
            ],
            notes: vec![],
            samples: None,
        },
        assignment: Some(assignment),
        pool_bias: None,
        split: None,
        strata: None,
        strata_field: None,
        prefilled: 0,
    };
    let mut s = crate::stats::Settings::compare_defaults();
    s.trials = 200;
    s.randomization_trials = 200;
    s.resampling_unit = crate::protocol::ResamplingUnit::Component;
    s.max_per_component = 4;
    let mut r = crate::stats::run(&inputs, &s, "analyze", "as registered (#1)", Some("s".into())).unwrap();
    r.options = Some(crate::stats::settings::RunOptions {
        scores: vec!["scores.csv".into()],
        components: Some("assignment.csv".into()),
        ..Default::default()
    });
    AnalysisRecord::from(&r)
}

/// Six questions over eight passages, three link rules and two splits: the counting tests' hand
/// example (3 components with candidates, `go`).
fn count_and_assign() -> (CountRecord, AssignRecord) {
    let text = "schema-version = 1\n[study]\nid = \"t\"\ntitle = \"t\"\nregistered-by = \"t\"\n[target]\nmetric = \"accuracy\"\nmde = 0.1\nsd = 0.5\n[components]\nunit = \"question\"\nmax-per-component = 2\n[[link-rules]]\nname = \"identical\"\nkind = \"identical-passage\"\n[[link-rules]]\nname = \"near\"\nkind = \"near-duplicate-passage\"\nshingle-size = 3\njaccard = 0.7\n[[link-rules]]\nname = \"decoys\"\nkind = \"decoy\"\n[[splits]]\nname = \"final\"\nrequired-components = 2\n[[splits]]\nname = \"tuning\"\nrequired-components = 1\n";
    let p = crate::protocol::parse(text, Path::new("t.toml")).unwrap();
    let mut c = Corpus::default();
    for (id, t) in [
        ("p1", "alpha beta gamma"),
        ("p2", "alpha beta gamma"),
        ("p3", "abcdefghij"),
        ("p4", "abcdefghiz"),
        ("p5", "zzzzyyyyxxxx"),
        ("p6", "qqqqwwwweeee"),
        ("p7", "mmmmnnnnoooo"),
        ("p8", "kkkkjjjjhhhh"),
    ] {
        c.push_passage(id.to_string(), t, Default::default()).unwrap();
    }
    c.texts.finish().unwrap();
    let qs: [(&str, &[usize], &[usize]); 6] = [
        ("q1", &[0], &[4]),
        ("q2", &[1], &[]),
        ("q3", &[2], &[]),
        ("q4", &[3], &[5]),
        ("q5", &[4], &[]),
        ("q6", &[6], &[7]),
    ];
    c.questions = qs
        .iter()
        .map(|(id, p, d)| Question {
            id: id.to_string(),
            passages: p.to_vec(),
            decoys: d.to_vec(),
            distractors: 0,
            fields: Default::default(),
            loc: "q:1".into(),
        })
        .collect();
    let r = components::count(&p, &c, &NoProgress).unwrap();
    let d = components::stop::decide(&p, &r).unwrap();
    let a = components::assign::assign(&p, &r, &d.splits).unwrap();
    let ids: Vec<String> = ["q1", "q2", "q3", "q4", "q5", "q6"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let registered: Vec<String> = ["q0", "q1", "q2", "q3", "q4", "q5"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let count = CountRecord {
        record_version: RECORD_VERSION,
        count: (&r).into(),
        stop: (&d).into(),
        diagnostics: None,
        contamination: None,
        question_change: Some(QuestionChange::between(3, &registered, &ids)),
        question_ids: ids,
    };
    (count, AssignRecord::from(&a))
}

#[test]
fn analysis_record_is_pinned() {
    let r = analysis();
    assert_eq!(r.record_version, RECORD_VERSION);
    pin("analysis_record", &r);
}

/// The verdict on the registered question set, each outcome: analyzed (the fixture's topic
/// and component accounting and systems; its comparisons are pinned with the analysis record),
/// an input lacking registered questions, and not available.
fn registered_sets() -> Vec<analysis::RegisteredSet> {
    use analysis::{Lacking, RegisteredAnalysis, RegisteredOutcome, RegisteredSet};
    let r = analysis();
    let set = |outcome| RegisteredSet {
        registered_seq: 2,
        questions: 12,
        outcome,
    };
    vec![
        set(RegisteredOutcome::Analyzed(RegisteredAnalysis {
            topics: r.topics.clone(),
            components: r.components.clone(),
            systems: r.systems.clone(),
            comparisons: vec![],
        })),
        set(RegisteredOutcome::Lacking(Lacking {
            input: "scores".into(),
            missing: 2,
            examples: vec!["q03".into(), "q07".into()],
        })),
        set(RegisteredOutcome::Unavailable(
            "the registered count's record (entry #2, record version 2) holds no question ids".into(),
        )),
    ]
}

#[test]
fn the_registered_set_is_pinned_and_unknown_fields_in_it_are_refused() {
    let sets = registered_sets();
    pin("registered_sets", &sets);
    assert_eq!(
        sets[1].outcome,
        analysis::RegisteredOutcome::Lacking(analysis::Lacking {
            input: "scores".into(),
            missing: 2,
            examples: vec!["q03".into(), "q07".into()],
        })
    );
    let record = AnalysisRecord {
        registered_set: Some(sets[1].clone()),
        ..analysis()
    };
    let mut v = to_value(&record).unwrap();
    let back: AnalysisRecord = read_result(&result_entry("analyze", &v), "analysis").unwrap();
    assert_eq!(back, record);
    v["registered_set"]["outcome"]["lacking"]["ids"] = serde_json::json!([]);
    let err = read_result::<AnalysisRecord>(&result_entry("analyze", &v), "analysis").unwrap_err();
    assert!(format!("{:?}", err).contains("ids"), "{:?}", err);
}

/// The ranking of three systems (record version 4): the 3 systems × 2 topics example of the rank
/// tests, every resample once.
#[test]
fn ranking_record_is_pinned() {
    let names: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
    let draws = vec![vec![1.0, 0.5, 0.5, 0.0], vec![0.0, 0.5, 0.5, 1.0], vec![0.4; 4]];
    let r = crate::stats::rank::rank_systems(&names, &[0.5, 0.5, 0.4], &draws, 0.95).unwrap();
    pin("ranking_record", &super::analysis::Ranking::from(&r));
}

#[test]
fn count_and_assign_records_are_pinned() {
    let (count, assign) = count_and_assign();
    assert_eq!(
        (count.count.with_candidates, count.stop.decision),
        (3, StopDecision::Go)
    );
    pin("count_record", &count);
    pin("assign_record", &assign);
}

#[test]
fn summaries_are_pinned() {
    let (count, assign) = count_and_assign();
    let pilot = PilotSummary {
        file: "pilot.csv".into(),
        systems: vec!["A".into(), "B".into()],
        questions: 40,
        mean_difference: 0.05,
        sd_question: 0.25,
        sd_component: 0.3,
    };
    pin(
        "registration_summary",
        &RegistrationSummary {
            title: "A study".into(),
            registered_by: "A. Author".into(),
            results_seen_at_registration: false,
            pilot: Some(pilot),
        },
    );
    pin(
        "timestamp_summary",
        &TimestampSummary {
            covers_seq: 1,
            covers_sha256: "ab".repeat(32),
            tsa_url: "http://127.0.0.1:8318/tsa".into(),
            token_der: "3082".into(),
        },
    );
    pin(
        "count_summary",
        &CountSummary {
            decision: count.stop.decision,
            counted: count.stop.counted,
            required: count.stop.required,
            count: StopCount::WithCandidates,
            required_rule: StopRequired::SumOfSplits,
            splits: count.stop.splits.clone(),
            components: count.count.components,
            with_candidates: count.count.with_candidates,
            questions: count.count.questions,
            assignment_sha256: "cd".repeat(32),
            question_change: count.question_change.as_ref().map(QuestionChange::counts),
            attempt: None,
        },
    );
    pin(
        "assign_summary",
        &AssignSummary {
            splits: assign.splits.clone(),
            max_per_component: 2,
            keep: Keep::FirstById,
            assignment_sha256: "cd".repeat(32),
        },
    );
    pin("analyze_summary", &analyze_summary());
    pin(
        "deviation_summary",
        &DeviationSummary {
            command: "analyze".into(),
            overridden: vec!["the protocol changed since its registration".into()],
            fields: vec![FieldDeviation {
                field: "analysis.seed".into(),
                registered: "1".into(),
                used: "2".into(),
            }],
        },
    );
    pin(
        "note_summary",
        &NoteSummary {
            access_changed_from: Some(DataAccess::NothingRun),
            ledger_findings: vec!["chain-break: entry #3".into()],
        },
    );
}

fn analyze_summary() -> AnalyzeSummary {
    AnalyzeSummary {
        trials: 200,
        seed: 1,
        topics: 12,
        components: Some(4),
        deviation: false,
        comparisons: vec![ComparisonSummary {
            system: "A".into(),
            baseline: "B".into(),
            difference: 0.25,
            interval: [0.0, 0.5],
            component_interval: Some([-0.1, 0.6]),
            reversal_rate: Some(0.05),
            ties_share: 0.01,
            p_t: Some(0.04),
            p_randomization: 0.06,
            p_adjusted: 0.06,
            adjust: "holm".into(),
        }],
    }
}

#[test]
fn records_as_older_versions_wrote_them_still_read() {
    // Version 1: no record_version; none of the fields added since (the count's diagnostics,
    // contamination and question ids, the analysis' estimator, hypotheses, topic detail and
    // per-system intervals).
    let (count, _) = count_and_assign();
    let old = without(
        &count,
        &[
            "record_version",
            "question_ids",
            "question_change",
            "diagnostics",
            "contamination",
        ],
    );
    let back: CountRecord = read_result(&result_entry("count", &old), "count").unwrap();
    assert_eq!(back.record_version, 1);
    assert!(back.question_ids.is_empty() && back.question_change.is_none());
    assert_eq!(back.count, count.count);
    let analysis = analysis();
    let mut old = without(
        &AnalysisRecord {
            registered_set: Some(registered_sets().remove(1)),
            ..analysis.clone()
        },
        &[
            "record_version",
            "hypothesis",
            "detail",
            "topic_filter",
            "registered_set",
        ],
    );
    for (list, key) in [("systems", "interval"), ("comparisons", "estimator")] {
        for x in old[list].as_array_mut().unwrap() {
            x.as_object_mut().unwrap().remove(key);
        }
    }
    let back: AnalysisRecord = read_result(&result_entry("analyze", &old), "analysis").unwrap();
    assert_eq!(back.record_version, 1);
    assert_eq!(back.comparisons[0].difference, analysis.comparisons[0].difference);
    assert!(back.comparisons[0].estimator.is_empty() && back.systems[0].interval.is_none());
    assert!(back.registered_set.is_none());
    // A deviation summary before `fields` was recorded.
    let old = without(
        &DeviationSummary {
            command: "analyze".into(),
            overridden: vec![],
            fields: vec![],
        },
        &["fields"],
    );
    let back: DeviationSummary = read_summary(&Fake("deviation", old, None), "deviation").unwrap();
    assert!(back.fields.is_empty());
}

#[test]
fn readers_refuse_unknown_fields_and_newer_versions() {
    let (count, _) = count_and_assign();
    let mut v = to_value(&count).unwrap();
    v["record_version"] = (RECORD_VERSION + 1).into();
    let err = read_result::<CountRecord>(&result_entry("count", &v), "count").unwrap_err();
    assert!(err.to_string().contains("newer than this pledge reads"), "{}", err);
    let mut v = to_value(&analyze_summary()).unwrap();
    v["topic_count"] = 3.into();
    let err = read_summary::<AnalyzeSummary>(&Fake("analyze", v, None), "analyze").unwrap_err();
    let text = format!("{:?}", err);
    assert!(text.contains("#7") && text.contains("topic_count"), "{}", text);
}

#[test]
fn trace_record_is_pinned() {
    let spec: crate::protocol::RepairTrace = toml::from_str("threshold = 0.6\nfolds = 2").unwrap();
    let o = [
        "the mill by the river",
        "a river runs by the mill",
        "mill wheels turn slowly",
    ];
    let r = ["quantum lattice zeta", "zeta omega lattice", "omega quantum field"];
    let (_, t) = crate::gate::trace::run(&o, &r, &spec, 3).unwrap();
    let rec = super::TraceRecord::new(&t, &spec, 3);
    pin("trace_record", &rec);
    pin("trace_summary", &rec.result);
}
