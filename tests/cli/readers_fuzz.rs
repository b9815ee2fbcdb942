//! Property tests over every input reader: random bytes, truncations and single-byte mutations
//! of the real sample files in `tests/data/`, and gzip / zstd magic followed by garbage. Each
//! reader must return `Ok` or an `Err` with exit code 2 whose rendered message names the input
//! file; never panic; and hold at most [`MEMORY_BOUND`] bytes while reading (counted by the test
//! binary's allocator, `crate::alloc`). Inputs go through `Input::from_bytes` with a 1 MiB limit
//! (bounded memory: a decompression bomb stops at the limit). Fixed cases give every reader a
//! gzip and a zstd bomb, an endless line and NUL bytes. A few CLI cases check that a bad input
//! exits 2 and writes neither a ledger entry nor an output file.

use crate::common::Env;
use pledge::error::Error;
use pledge::input::{Compression, Input, Kind, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Cases per reader (each case is one generated input).
const CASES: u32 = 1024;

const LIMITS: Limits = Limits {
    max_bytes: 1 << 20,
    ..Limits::DEFAULT
};

/// The most memory one reader may hold (on its thread) while reading one fuzzed input of at
/// most [`LIMITS`] bytes.
const MEMORY_BOUND: u64 = 32 << 20;

fn sample(p: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(p);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {}", path.display(), e))
}

fn config() -> Config {
    Config {
        cases: CASES,
        failure_persistence: None,
        // A fixed seed: the same inputs on every run and machine, so a failure reproduces.
        rng_seed: RngSeed::Fixed(7),
        ..Config::default()
    }
}

/// One bad (or accidentally good) input derived from `samples`: random bytes, a truncation, a
/// single-byte change, or a compression magic number followed by garbage.
fn input_bytes(samples: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let n = samples.len();
    let s1 = samples.clone();
    let s2 = samples.clone();
    let s3 = samples;
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..512),
        (0..n, any::<prop::sample::Index>()).prop_map(move |(i, at)| {
            let s = &s1[i];
            s[..at.index(s.len() + 1)].to_vec()
        }),
        (0..n, any::<prop::sample::Index>(), any::<u8>()).prop_map(move |(i, at, b)| {
            let mut s = s2[i].clone();
            if !s.is_empty() {
                let k = at.index(s.len());
                s[k] = b;
            }
            s
        }),
        (0..n, any::<prop::sample::Index>(), any::<u8>()).prop_map(move |(i, at, b)| {
            // Insert one byte (a stray quote, comma, NUL or newline shifts every field after it).
            let mut s = s3[i].clone();
            let k = at.index(s.len() + 1);
            s.insert(k, b);
            s
        }),
        (
            prop_oneof![
                Just(vec![0x1f, 0x8b]),
                Just(vec![0x1f, 0x8b, 0x08, 0x00]),
                Just(vec![0x28, 0xb5, 0x2f, 0xfd]),
                Just(b"BZh9".to_vec()),
                Just(vec![0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]),
                Just(b"PK\x03\x04".to_vec()),
                Just(b"PAR1".to_vec()),
            ],
            proptest::collection::vec(any::<u8>(), 0..256),
        )
            .prop_map(|(mut magic, garbage)| {
                magic.extend(garbage);
                magic
            }),
    ]
}

/// Runs `read` on `bytes` as the file `name`: no panic; an error has exit code 2 and names
/// the file.
fn check(name: &str, bytes: Vec<u8>, read: impl FnOnce(&Input) -> Result<(), Error>) -> Result<(), TestCaseError> {
    check_lines(name, bytes, false, read)
}

/// As [`check`]; with `lined`, an error about a plain non-blank text input (not compressed, not
/// a container, UTF-8) also names the line, as `name:LINE:`, unless it says the file holds
/// nothing.
fn check_lines(
    name: &str,
    bytes: Vec<u8>,
    lined: bool,
    read: impl FnOnce(&Input) -> Result<(), Error>,
) -> Result<(), TestCaseError> {
    let mut plain_text = false;
    let (outcome, held) = crate::alloc::peak(|| {
        catch_unwind(AssertUnwindSafe(|| {
            Input::from_bytes(name, bytes.clone(), LIMITS).and_then(|input| {
                plain_text = input.compression() == Compression::None
                    && input.kind() == Kind::Text
                    && input.text().is_ok_and(|t| !t.trim().is_empty());
                read(&input)
            })
        }))
    });
    prop_assert!(
        held <= MEMORY_BOUND,
        "{} bytes held reading {} bytes as {}",
        held,
        bytes.len(),
        name
    );
    match outcome {
        Err(_) => Err(TestCaseError::fail(format!(
            "panic reading {} bytes as {}",
            bytes.len(),
            name
        ))),
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            check_error(name, &e)?;
            if lined && plain_text {
                let text = e.render();
                let after = text.split(&format!("{}:", name)).nth(1).unwrap_or("");
                // A statement about the whole file (nothing in it) has no line to name.
                let whole_file = text.contains(" empty") || text.contains("no judgments");
                prop_assert!(
                    whole_file || after.starts_with(|c: char| c.is_ascii_digit()),
                    "no line named: {}",
                    text
                );
            }
            Ok(())
        }
    }
}

fn check_error(name: &str, e: &Error) -> Result<(), TestCaseError> {
    let text = e.render();
    prop_assert_eq!(e.exit_code(), 2, "{}", text);
    prop_assert!(text.contains(name), "message does not name {}: {}", name, text);
    Ok(())
}

/// Runs a reader that takes a path on `bytes` written to `dir/name`.
fn check_file(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    read: impl FnOnce(&Path) -> Result<(), Error>,
) -> Result<(), TestCaseError> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("writing the fuzz input");
    let (outcome, held) = crate::alloc::peak(|| catch_unwind(AssertUnwindSafe(|| read(&path))));
    prop_assert!(
        held <= MEMORY_BOUND,
        "{} bytes held reading {} bytes as {}",
        held,
        bytes.len(),
        name
    );
    match outcome {
        Err(_) => Err(TestCaseError::fail(format!(
            "panic reading {} bytes as {}",
            bytes.len(),
            name
        ))),
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => check_error(name, &e),
    }
}

fn score_samples() -> Vec<Vec<u8>> {
    [
        "analyze/kimi-k2.5.csv",
        "analyze/input.aplrob03a.q.txt",
        "formats/pytrec_eval/InexpC2.pytrec_eval.json",
        "formats/ir_measures/InexpC2.irm.q.tsv",
        "formats/ir_measures/InexpC2.irm.q.jsonl",
        "formats/lm_eval/dummy/samples_capitals_2026-12-01T10-09-04.123428.jsonl",
        "formats/lm_eval/dummy/results_2026-12-01T10-09-04.123428.json",
        "formats/pyterrier/pyterrier-perquery.csv",
        "formats/hf/hotpotqa-100-correctness.jsonl",
        "formats/hf/hotpotqa-100-correctness.parquet",
        "formats/inspect/quiz-mockllm-other.eval",
        "formats/compressed/input.aplrob03a.q.txt.zst",
        "formats/compressed/input.aplrob03a.q.txt.bz2",
        "trec/out.test",
    ]
    .iter()
    .map(|p| sample(p))
    .collect()
}

proptest! {
    #![proptest_config(config())]

    /// Per-topic score readers, format detected from the content.
    #[test]
    fn score_readers_never_panic(bytes in input_bytes(score_samples())) {
        check("fuzzed-scores.csv", bytes, |input| {
            pledge::scores::read_input(input, &pledge::scores::ReadOptions::default()).map(drop)
        })?;
    }

    /// TREC run reader.
    #[test]
    fn run_reader_never_panics(bytes in input_bytes(vec![sample("trec/results.test"), sample("trec/results.ties")])) {
        check_lines("fuzzed.run", bytes, true, |input| {
            pledge::trec::Run::from_input(input, pledge::trec::Duplicates::Error).map(drop)
        })?;
    }

    /// TREC qrels reader.
    #[test]
    fn qrels_reader_never_panics(bytes in input_bytes(vec![
        sample("trec/qrels.test"),
        sample("trec/qrels.rel_level"),
        sample("formats/beir/qrels/test.tsv"),
    ])) {
        check_lines("fuzzed.qrels", bytes, true, |input| {
            pledge::trec::Qrels::from_input(input, pledge::trec::Duplicates::Error).map(drop)
        })?;
    }

    /// Passages reader.
    #[test]
    fn passages_reader_never_panics(bytes in input_bytes(vec![
        sample("components/passages.jsonl"),
        sample("formats/beir/corpus.jsonl"),
    ])) {
        check("fuzzed-passages.jsonl", bytes, |input| {
            pledge::components::read::read_passages_input(input).map(drop)
        })?;
    }

    /// Questions reader, against the real passages.
    #[test]
    fn questions_reader_never_panics(bytes in input_bytes(vec![
        sample("components/questions.jsonl"),
        sample("formats/hf/hotpot_qa-hub-10.jsonl"),
        sample("components/musique-5.json"),
    ])) {
        let passages = Input::from_bytes("passages.jsonl", sample("components/passages.jsonl"), LIMITS).unwrap();
        check("fuzzed-questions.jsonl", bytes, |input| {
            pledge::components::read::read_corpus_inputs(Some(&passages), input, None).map(drop)
        })?;
    }

    /// Pairs reader, against the passage ids of the sample corpus.
    #[test]
    fn pairs_reader_never_panics(bytes in input_bytes(vec![PAIRS.as_bytes().to_vec()])) {
        let ids = ["d1:1", "d1:2", "d2:1", "d2:2", "d3:1", "d3:2", "d4:1", "d4:2"];
        check_lines("fuzzed-pairs.jsonl", bytes, true, |input| {
            pledge::components::pairs::read_pairs(input, &ids).map(drop)
        })?;
    }
}

const PAIRS: &str = r#"{"a": "d1:1", "b": "d2:1", "intersection": 12, "union": 12, "jaccard": 1.0}
{"a": "d2:2", "b": "d3:2", "intersection": 36, "union": 38, "jaccard": 0.9473684210526315}
{"a": "d4:1", "b": "d3:1"}
"#;

const ASSIGNMENT: &str = "question,component,unit,split,counted
q1,0,d1,final,1
q2,1,d2,final,1
q3,1,d3,tuning,0
q4,2,d4,,
";

fn protocol_samples() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["protocols/hotpotqa.toml", "protocols/statutes-kr.toml"]
        .iter()
        .map(|p| std::fs::read(root.join(p)).unwrap())
        .collect()
}

/// An export of a real ledger (one registration), written by the binary once per test.
fn export_sample() -> Vec<u8> {
    let env = Env::init();
    env.copy_from_repo("protocols/statutes-kr.toml", "p.toml");
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = env.run(&["export", "ledger.jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    std::fs::read(env.join("ledger.jsonl")).unwrap()
}

proptest! {
    #![proptest_config(config())]

    /// Protocol TOML loader (reads the file itself: UTF-8, TOML, validation).
    #[test]
    fn protocol_loader_never_panics(bytes in input_bytes(protocol_samples())) {
        let dir = tempfile::tempdir().unwrap();
        check_file(dir.path(), "fuzzed-protocol.toml", &bytes, |p| pledge::protocol::load(p).map(drop))?;
    }

    /// Assignment CSV reader.
    #[test]
    fn assignment_reader_never_panics(bytes in input_bytes(vec![ASSIGNMENT.as_bytes().to_vec()])) {
        let dir = tempfile::tempdir().unwrap();
        check_file(dir.path(), "fuzzed.components.csv", &bytes, |p| pledge::assignment::read(p).map(drop))?;
    }
}

/// Export reader: everything but an unreadable, empty, cut-short or foreign file is a finding,
/// never an error.
#[test]
fn export_reader_never_panics() {
    let samples = vec![export_sample()];
    let dir = tempfile::tempdir().unwrap();
    proptest::test_runner::TestRunner::new(config())
        .run(&input_bytes(samples), |bytes| {
            check_file(dir.path(), "fuzzed-ledger.jsonl", &bytes, |p| {
                let input = pledge::input::Input::from_path(p, pledge::input::Limits::default())?;
                pledge::ledger::export::verify_export(&input, None, false).map(drop)
            })
        })
        .unwrap();
}

// ---- fixed cases: bombs, an endless line, NUL bytes, for every reader ----

/// A reader of an input already read.
type Reader = Box<dyn Fn(&Input) -> Result<(), Error>>;

/// Every reader that takes an input, by the file name it is tested under.
fn input_readers() -> Vec<(&'static str, Reader)> {
    let passages = Input::from_bytes("passages.jsonl", sample("components/passages.jsonl"), LIMITS).unwrap();
    let ids = ["d1:1", "d1:2", "d2:1", "d2:2", "d3:1", "d3:2", "d4:1", "d4:2"];
    vec![
        (
            "scores.csv",
            Box::new(|i: &Input| pledge::scores::read_input(i, &pledge::scores::ReadOptions::default()).map(drop)),
        ),
        (
            "run.txt",
            Box::new(|i: &Input| pledge::trec::Run::from_input(i, pledge::trec::Duplicates::Error).map(drop)),
        ),
        (
            "qrels.txt",
            Box::new(|i: &Input| pledge::trec::Qrels::from_input(i, pledge::trec::Duplicates::Error).map(drop)),
        ),
        (
            "passages.jsonl",
            Box::new(|i: &Input| pledge::components::read::read_passages_input(i).map(drop)),
        ),
        (
            "questions.jsonl",
            Box::new(move |i: &Input| pledge::components::read::read_corpus_inputs(Some(&passages), i, None).map(drop)),
        ),
        (
            "pairs.jsonl",
            Box::new(move |i: &Input| pledge::components::pairs::read_pairs(i, &ids).map(drop)),
        ),
        (
            "ledger.jsonl",
            Box::new(|i: &Input| pledge::ledger::export::verify_export(i, None, false).map(drop)),
        ),
    ]
}

/// `n` bytes of TREC run lines.
fn run_lines(n: usize) -> Vec<u8> {
    b"301 Q0 FBIS3-10082 1 12.5 bomb\n"
        .iter()
        .copied()
        .cycle()
        .take(n)
        .collect()
}

/// The fixed hostile inputs: (what, bytes, limits, the error's words after the file name).
fn hostile() -> Vec<(&'static str, Vec<u8>, Limits, &'static str)> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, &run_lines(64 << 20)).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::stream::encode_all(&run_lines(64 << 20)[..], 19).unwrap();
    let lines = Limits {
        max_bytes: 16 << 20,
        max_line: 64 << 10,
        ..Limits::DEFAULT
    };
    vec![
        (
            "gzip bomb",
            gz,
            LIMITS,
            ": decompresses (gzip) to larger than the input size limit of 1048576 bytes (1.0 MiB)",
        ),
        (
            "zstd bomb",
            zst,
            LIMITS,
            ": decompresses (zstd) to larger than the input size limit of 1048576 bytes (1.0 MiB)",
        ),
        (
            "endless line",
            vec![b'a'; 2 << 20],
            lines,
            ":1: the line is longer than the line-length limit of 65536 bytes (64.0 KiB)",
        ),
        (
            "NUL bytes",
            vec![0; 1 << 20],
            LIMITS,
            ": binary data with a NUL byte at offset 0",
        ),
    ]
}

/// Every reader meets every hostile input with exit 2 and the limit named, holding at most
/// [`MEMORY_BOUND`] bytes, read whole and (the passages) as a stream; a protocol is read as
/// stored within its own fixed limit.
#[test]
fn bombs_lines_and_nul_bytes_stop_every_reader() {
    for (what, bytes, limits, want) in hostile() {
        for (name, read) in input_readers() {
            let (result, held) =
                crate::alloc::peak(|| Input::from_bytes(name, bytes.clone(), limits).and_then(|i| read(&i)));
            let e = result.expect_err(name);
            assert_eq!(e.exit_code(), 2, "{} as {}: {}", what, name, e.render());
            let head = format!("{}{}", name, want);
            assert!(e.message.starts_with(&head), "{} as {}: {}", what, name, e.message);
            assert!(held <= MEMORY_BOUND, "{} as {}: {} bytes held", what, name, held);
        }
        let (result, held) = crate::alloc::peak(|| {
            let stream = pledge::input::Stream::from_reader(
                "stream.jsonl",
                Box::new(std::io::Cursor::new(bytes.clone())),
                limits,
            )?;
            let source = pledge::components::read::PassageSource::Stream(stream);
            pledge::components::read::read_passages_from(source, Default::default()).map(drop)
        });
        let e = result.expect_err("stream");
        let head = format!("stream.jsonl{}", want);
        assert!(e.message.starts_with(&head), "{} streamed: {}", what, e.message);
        assert!(held <= MEMORY_BOUND, "{} streamed: {} bytes held", what, held);
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.toml");
    for (bytes, want) in [
        (
            vec![b'a'; 17 << 20],
            "is larger than 16777216 bytes (16.0 MiB), the most a protocol file may hold",
        ),
        (
            vec![0; 1 << 20],
            "binary data with a NUL byte at offset 0: expected a protocol TOML text file",
        ),
        (hostile().remove(0).1, "protocol is not valid UTF-8"),
    ] {
        std::fs::write(&p, &bytes).unwrap();
        let (result, held) = crate::alloc::peak(|| pledge::protocol::load(&p));
        let e = result.unwrap_err();
        assert_eq!(e.message, format!("{}: {}", p.display(), want));
        assert!(held <= MEMORY_BOUND, "protocol: {} bytes held", held);
    }
}

// ---- the real binary: a bad input exits 2 and writes nothing ----

fn ledger_tip(env: &Env) -> String {
    env.git(&["rev-parse", "--verify", "-q", "refs/pledge/ledger"]).stdout
}

fn mutated(mut bytes: Vec<u8>, at: usize, b: u8) -> Vec<u8> {
    bytes[at] = b;
    bytes
}

#[test]
fn cli_bad_protocol_exits_2_without_a_ledger_entry() {
    let env = Env::init();
    // A NUL in the middle of the protocol: invalid TOML.
    let good = protocol_samples().remove(1);
    env.write("p.toml", mutated(good.clone(), good.len() / 2, 0));
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("p.toml"), "{}", r.stderr);
    assert_eq!(ledger_tip(&env), "");
    // gzip magic then garbage: not a protocol either.
    env.write("p.toml", b"\x1f\x8b\x08\x00garbage");
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(ledger_tip(&env), "");
}

#[test]
fn cli_bad_components_inputs_exit_2_without_entry_or_output() {
    let env = Env::init();
    env.copy_from_repo("protocols/statutes-kr.toml", "p.toml");
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let tip = ledger_tip(&env);
    env.copy_from_repo("tests/data/components/passages.jsonl", "passages.jsonl");
    let questions = sample("components/questions.jsonl");
    let cases: [(&str, Vec<u8>); 4] = [
        ("questions.jsonl", questions[..questions.len() / 2].to_vec()),
        ("questions.jsonl", b"\x28\xb5\x2f\xfdgarbage".to_vec()),
        ("questions.jsonl", mutated(questions.clone(), 1, b'!')),
        ("pairs.jsonl", b"{\"a\": \"d1:1\", \"b\": \"d1:1\"}\n".to_vec()),
    ];
    for (name, bytes) in cases {
        env.copy_from_repo("tests/data/components/questions.jsonl", "questions.jsonl");
        env.write(name, bytes);
        let mut args = vec![
            "components",
            "p.toml",
            "--passages",
            "passages.jsonl",
            "--questions",
            "questions.jsonl",
            "--assign",
            "--out",
            "out.csv",
        ];
        if name == "pairs.jsonl" {
            args.extend(["--pairs", "pairs.jsonl"]);
        } else {
            args.extend(["--write-pairs", "written-pairs.jsonl"]);
        }
        let r = env.run(&args);
        assert_eq!(r.code, 2, "{}: {}", name, r.stderr);
        assert!(r.stderr.contains(name), "{}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert_eq!(ledger_tip(&env), tip, "{}: a ledger entry was written", name);
        assert!(!env.join("out.csv").exists(), "{}: the assignment was written", name);
        assert!(
            !env.join("written-pairs.jsonl").exists(),
            "{}: pairs were written",
            name
        );
    }
}

#[test]
fn cli_bad_scores_exit_2_without_output() {
    let env = Env::new();
    let good = sample("analyze/kimi-k2.5.csv");
    for bytes in [
        good[..good.len() / 3].to_vec(),
        b"\x1f\x8bnot gzip at all".to_vec(),
        mutated(good.clone(), 0, 0xff),
    ] {
        env.write("scores.csv", bytes);
        let r = env.run(&["compare", "--scores", "scores.csv", "--format", "json"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("scores.csv"), "{}", r.stderr);
        assert_eq!(r.stdout, "", "data was written for a bad input");
    }
}

/// A Parquet file on which the `parquet` crate panics (a page type byte changed: "not
/// implemented: Page type … is not supported"): pledge catches the panic and says the file is
/// corrupt; the crate's panic text and backtrace never reach stderr, even with RUST_BACKTRACE.
#[test]
fn cli_a_decoder_panic_leaves_only_the_clear_error() {
    let env = Env::new();
    env.write(
        "bad.parquet",
        mutated(sample("formats/hf/hotpotqa-100-correctness.parquet"), 5, 0x7f),
    );
    let r = env.run_env(&["compare", "--scores", "bad.parquet"], &[("RUST_BACKTRACE", "1")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "error: bad.parquet: is not a readable Parquet file (its encoded data is corrupt)\n\
         Caused by: read as `parquet` (detected from the content; --input-format NAME reads it as another)\n"
    );
    assert_eq!(r.stdout, "");
}
