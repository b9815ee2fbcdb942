//! Bounded memory on every input path: endless and gigabyte inputs, made by the test (never
//! committed), each end with exit 2 and an error naming the file, the limit and its flag, within
//! 10 s, with pledge under a 1 GiB address-space limit (`ulimit -v`, as a small container or CI
//! runner would impose): `/dev/zero`, a 1 GiB line without a newline (fed through a named pipe,
//! so nothing reaches the disk and the writer sees pledge stop reading), and 1 GiB gzip, zstd,
//! bzip2 and xz bombs (one small compressed block repeated: a few hundred kilobytes on disk).

use crate::common::{Env, Run, NOW};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The address-space limit pledge runs under, in KiB (`ulimit -v`): 1 GiB.
const ADDRESS_SPACE_KIB: u64 = 1 << 20;

/// The most a bounded refusal may take.
const WITHIN: Duration = Duration::from_secs(10);

/// One gibibyte, the size of every big input here.
const GIB: u64 = 1 << 30;

/// Runs `pledge ARGS` in `env` under the 1 GiB address-space limit; asserts it ends with exit 2
/// within [`WITHIN`] and that stderr holds every one of `want`.
fn refused(env: &Env, args: &[&str], want: &[&str]) -> Run {
    let mut cmd = Command::new("sh");
    cmd.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("PLEDGE_NOW", NOW)
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", ADDRESS_SPACE_KIB))
        .arg(env!("CARGO_BIN_EXE_pledge"))
        .args(args)
        .current_dir(env.path());
    let start = Instant::now();
    let out = cmd.output().expect("running sh");
    let took = start.elapsed();
    let r = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert_eq!(r.code, 2, "pledge {:?}: {}", args, r.stderr);
    assert!(took < WITHIN, "pledge {:?} took {:?}", args, took);
    for w in want {
        assert!(r.stderr.contains(w), "pledge {:?}: no `{}` in: {}", args, w, r.stderr);
    }
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    r
}

/// A named pipe at `path` fed by a thread with up to `total` bytes of `byte` (no newline), in
/// 1 MiB writes; the thread stops when the reader closes the pipe. Returns the thread, which
/// gives the bytes written.
fn endless_line(path: &Path, byte: u8, total: u64) -> std::thread::JoinHandle<u64> {
    let made = Command::new("mkfifo").arg(path).status().expect("running mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opening the pipe");
        let block = vec![byte; 1 << 20];
        let mut written = 0;
        while written < total && pipe.write_all(&block).is_ok() {
            written += block.len() as u64;
        }
        written
    })
}

/// Unblocks the writer of `path` if pledge never opened the pipe, and waits for it: returns the
/// bytes it wrote.
fn finish(path: &Path, writer: std::thread::JoinHandle<u64>) -> u64 {
    if !writer.is_finished() {
        // A reader that opens and closes at once ends a writer still waiting in `open`. The open
        // is non-blocking: the writer may have ended between the check and the open (pledge
        // closed the pipe and the write failed), and a blocking open would then wait for ever.
        use std::os::unix::fs::OpenOptionsExt;
        const O_NONBLOCK: i32 = 0o4000; // Linux
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(O_NONBLOCK)
            .open(path);
    }
    writer.join().expect("the pipe writer")
}

/// A registered study in a fresh repository (for the commands that need one).
fn registered() -> Env {
    let env = Env::init();
    env.copy_from_repo("protocols/statutes-kr.toml", "p.toml");
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    env
}

#[test]
fn register_dev_zero_stops_at_once() {
    let env = Env::init();
    refused(
        &env,
        &["register", "/dev/zero"],
        &["error: /dev/zero: binary data with a NUL byte at offset 0: expected a protocol TOML text file"],
    );
}

/// A 1 GiB protocol without a newline stops at the 16 MiB a protocol may hold.
#[test]
fn a_gigabyte_protocol_stops_at_the_protocol_limit() {
    let env = Env::init();
    let pipe = env.join("huge.toml");
    let writer = endless_line(&pipe, b'a', GIB);
    refused(
        &env,
        &["register", "huge.toml"],
        &["huge.toml: is larger than 16777216 bytes (16.0 MiB), the most a protocol file may hold"],
    );
    assert!(finish(&pipe, writer) < GIB, "the whole gigabyte was read");
}

/// A 1 GiB line read by every kind of reader: scores, runs (and qrels), passages (streamed),
/// questions, pairs, exports. Each stops at the 256 MiB line-length limit, naming line 1 and
/// the flag; a lower `--max-line-length` stops sooner.
#[test]
fn a_gigabyte_line_stops_at_the_line_limit_in_every_reader() {
    let env = registered();
    env.copy_from_repo("tests/data/components/passages.jsonl", "passages.jsonl");
    env.copy_from_repo("tests/data/components/questions.jsonl", "questions.jsonl");
    env.copy_from_repo("tests/data/trec/qrels.test", "qrels.test");
    env.copy_from_repo("tests/data/trec/results.test", "run.test");
    let limit = "the line is longer than the line-length limit of 268435456 bytes (256.0 MiB)";
    let flag = "--max-line-length";
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("scores.csv", vec!["compare", "--scores", "scores.csv"]),
        ("run.txt", vec!["eval", "qrels.test", "run.txt"]),
        ("qrels.txt", vec!["eval", "qrels.txt", "run.test"]),
        (
            "passages-1g.jsonl",
            vec![
                "components",
                "p.toml",
                "--dry-run",
                "--passages",
                "passages-1g.jsonl",
                "--questions",
                "questions.jsonl",
            ],
        ),
        (
            "questions-1g.jsonl",
            vec![
                "components",
                "p.toml",
                "--dry-run",
                "--passages",
                "passages.jsonl",
                "--questions",
                "questions-1g.jsonl",
            ],
        ),
        (
            "pairs.jsonl",
            vec![
                "components",
                "p.toml",
                "--dry-run",
                "--passages",
                "passages.jsonl",
                "--questions",
                "questions.jsonl",
                "--pairs",
                "pairs.jsonl",
            ],
        ),
        ("ledger.jsonl", vec!["verify", "--ledger", "ledger.jsonl"]),
    ];
    for (file, args) in cases {
        let pipe = env.join(file);
        let writer = endless_line(&pipe, b'a', GIB);
        let at = format!("{}:1: ", file);
        refused(&env, &args, &[&at, limit, flag]);
        assert!(finish(&pipe, writer) < GIB, "{}: the whole gigabyte was read", file);
        std::fs::remove_file(&pipe).unwrap();
    }
    // The flag sets the limit: 1 MiB stops after the first megabyte or two.
    let pipe = env.join("scores.csv");
    let writer = endless_line(&pipe, b'a', GIB);
    refused(
        &env,
        &["compare", "--scores", "scores.csv", "--max-line-length", "1M"],
        &["scores.csv:1: the line is longer than the line-length limit of 1048576 bytes (1.0 MiB)"],
    );
    assert!(finish(&pipe, writer) <= 64 << 20);
}

/// Compresses `bytes` alone (one gzip member, zstd frame, bzip2 or xz stream).
fn compress(compression: &str, bytes: &[u8]) -> Vec<u8> {
    match compression {
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
        "zst" => zstd::stream::encode_all(bytes, 19).unwrap(),
        "bz2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
        "xz" => {
            let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
            e.write_all(bytes).unwrap();
            e.finish().unwrap()
        }
        other => panic!("no compression {}", other),
    }
}

/// A 1 GiB bomb: `head`, then 4 MiB of `unit` repeated (each compressed alone) 256 times; the
/// members, frames or streams are read as one stream.
fn bomb(compression: &str, head: &[u8], unit: &[u8]) -> Vec<u8> {
    let block: Vec<u8> = unit.iter().copied().cycle().take(4 << 20).collect();
    let mut out = compress(compression, head);
    out.extend(compress(compression, &block).repeat(256));
    out
}

/// TREC run lines, for the readers that read an input whole before parsing it.
const RUN_LINE: &[u8] = b"301 Q0 FBIS3-10082 1 12.5 bomb\n";

/// Each compression's 1 GiB bomb as scores, a run, an export and passages (streamed): stopped
/// by the compression-ratio limit once past 64 MiB, naming the ratio and its flag. With the
/// ratio raised, the decompressed size limit stops it (`--max-input-size`).
#[test]
fn gigabyte_bombs_stop_at_the_ratio_limit() {
    let env = registered();
    env.copy_from_repo("tests/data/components/questions.jsonl", "questions.jsonl");
    env.copy_from_repo("tests/data/trec/qrels.test", "qrels.test");
    let ratio = "to more than 100 times its compressed size";
    for c in ["gz", "zst", "bz2", "xz"] {
        let bytes = bomb(c, b"", RUN_LINE);
        assert!(bytes.len() < 4 << 20, "{}: {} bytes", c, bytes.len());
        let name = |stem: &str| format!("{}.{}", stem, c);
        for (file, args) in [
            (name("scores"), vec!["compare", "--scores"]),
            (name("run"), vec!["eval", "qrels.test"]),
            (name("ledger"), vec!["verify", "--ledger"]),
        ] {
            env.write(&file, &bytes);
            let mut args = args;
            args.push(&file);
            refused(
                &env,
                &args,
                &[&format!("{}: decompresses", file), ratio, "--max-compression-ratio"],
            );
        }
        // The streamed passages: one JSON line whose text never ends (a repeated block of lines
        // would stop earlier, at its first duplicate id).
        let passages = name("passages");
        env.write(&passages, bomb(c, br#"{"id": "d1", "text": ""#, b"a"));
        refused(
            &env,
            &[
                "components",
                "p.toml",
                "--dry-run",
                "--passages",
                &passages,
                "--questions",
                "questions.jsonl",
            ],
            &[&format!("{}: decompresses", passages), ratio],
        );
    }
    env.write("scores.gz", bomb("gz", b"", RUN_LINE));
    refused(
        &env,
        &[
            "compare",
            "--scores",
            "scores.gz",
            "--max-compression-ratio",
            "100000",
            "--max-input-size",
            "100M",
        ],
        &[
            "scores.gz: decompresses (gzip) to larger than the input size limit of 104857600 bytes (100.0 MiB)",
            "--max-input-size",
        ],
    );
}

/// A regular file larger than memory allows (sparse, so it costs no disk) with the size limit
/// raised past it: the memory refused is an error naming the file, not an abort.
#[test]
fn memory_refused_is_an_error_not_an_abort() {
    let env = Env::new();
    let path: PathBuf = env.join("huge.csv");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(2 * GIB).unwrap();
    refused(
        &env,
        &["compare", "--scores", "huge.csv", "--max-input-size", "4G"],
        &["huge.csv: not enough memory to read it", "ulimit -v"],
    );
}
