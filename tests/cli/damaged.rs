//! Integration tests: ledgers damaged below the level of entries, as git leaves them: an object
//! missing (deleted, or cut off by a shallow fetch), an object whose bytes are damaged, a ledger
//! ref naming no object. `verify` reports each as the finding `ledger-unreadable` (exit 1);
//! `log`, `export` and appends refuse with an `error:` / `Caused by:` / `hint:` (exit 2), never
//! an internal error (exit 70).

use crate::common::Env;
use pledge::ledger::LEDGER_REF;
use serde_json::Value;

/// The hint in a repository whose only remote is `origin` (with no remote it names `URL`, to be
/// filled in).
const REFETCH: &str = "hint: objects of the ledger are missing or damaged here (`git fsck` lists them): fetch them again from a complete copy with `git fetch --refetch origin 'refs/pledge/*:refs/pledge/*'`, then run `pledge verify`\n";

fn ok(r: &crate::common::Run) {
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
}

/// A ledger of three entries: the register of protocols/hotpotqa.toml (#1), two notes (#2, #3).
fn three_entries() -> Env {
    let env = Env::init();
    env.copy_from_repo("protocols/hotpotqa.toml", "protocols/hotpotqa.toml");
    ok(&env.run(&["register", "protocols/hotpotqa.toml", "--access", "nothing-run"]));
    ok(&env.run(&["note", "--reason", "first remark"]));
    ok(&env.run(&["note", "--reason", "second remark"]));
    env
}

/// `git rev-parse SPEC`.
fn rev(env: &Env, spec: &str) -> String {
    let r = env.git(&["rev-parse", spec]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout.trim().to_string()
}

/// The loose object file of `id` (pledge writes its objects loose).
fn loose(env: &Env, id: &str) -> std::path::PathBuf {
    env.join(&format!(".git/objects/{}/{}", &id[..2], &id[2..]))
}

/// Removes pledge's caches (`.git/pledge/`), as a fresh clone has none: the next append checks
/// the whole chain.
fn forget_caches(env: &Env) {
    let _ = std::fs::remove_dir_all(env.join(".git/pledge"));
}

/// The findings of `verify --format json`: (code, seq, message).
fn findings(env: &Env) -> Vec<(String, Option<u64>, String)> {
    let r = env.run(&["verify", "--format", "json"]);
    assert_eq!(r.code, 1, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["seq"].as_u64(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A deleted ledger commit (#2): `verify` names it, and the entry that names it, as the only
/// finding (the entry before it is not "missing", it cannot be read), with the refetch hint;
/// `log`, `export`, `note` and `register` refuse with exit 2, writing nothing. Fetching the
/// objects again from a complete copy, as the hint says, repairs it.
#[test]
fn a_deleted_ledger_commit_is_a_finding_and_commands_refuse_with_a_hint() {
    let origin = three_entries();
    let url = format!("file://{}", origin.path().display());
    let env = Env::new();
    assert_eq!(env.git(&["init", "-q"]).code, 0);
    assert_eq!(env.git(&["remote", "add", "origin", &url]).code, 0);
    let f = env.git(&["fetch", "-q", "origin", "refs/pledge/*:refs/pledge/*"]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    ok(&env.run(&["verify"]));
    let (c2, c3) = (rev(&env, "refs/pledge/ledger~1"), rev(&env, LEDGER_REF));
    std::fs::remove_file(loose(&env, &c2)).expect("a small fetch leaves loose objects");
    forget_caches(&env);

    assert_eq!(
        findings(&env),
        [(
            "ledger-unreadable".to_string(),
            None,
            format!(
                "commit {}, the parent of entry #3 (commit {}), cannot be read: it is not in this repository; no entry before it can be read or checked",
                &c2[..7],
                &c3[..7]
            )
        )]
    );
    let v = env.run(&["verify"]);
    assert_eq!(v.code, 1);
    assert!(v.stdout.contains("FAILED: 1 finding"), "{}", v.stdout);
    // The registration (#1) lies past the unreadable commit: not said to be missing.
    assert!(
        v.stdout
            .contains("  no registration can be read (entries of this ledger cannot be read: see ledger-unreadable)\n"),
        "{}",
        v.stdout
    );
    assert!(!v.stdout.contains("never registered"), "{}", v.stdout);
    assert_eq!(v.stderr, REFETCH);

    let l = env.run(&["log"]);
    assert_eq!(l.code, 2, "{}", l.stderr);
    assert_eq!(
        l.stderr,
        format!(
            "error: ledger commit {} cannot be read\nCaused by: it is not in this repository\n{}",
            c2, REFETCH
        )
    );
    let x = env.run(&["export", "ledger.jsonl"]);
    assert_eq!(x.code, 2, "{}", x.stderr);
    assert_eq!(
        x.stderr,
        format!(
            "error: cannot export the ledger: commit {}, the parent of entry #3 (commit {}), cannot be read\nCaused by: it is not in this repository\n{}",
            &c2[..7],
            &c3[..7],
            REFETCH
        )
    );
    assert!(!env.join("ledger.jsonl").exists(), "nothing exported");
    let appended = format!(
        "error: commit {}, the parent of entry #3 (commit {}), cannot be read\nCaused by: it is not in this repository\n{}",
        &c2[..7],
        &c3[..7],
        REFETCH
    );
    let n = env.run(&["note", "--reason", "onto a damaged ledger"]);
    assert_eq!((n.code, n.stderr.as_str()), (2, appended.as_str()));
    // Even to record the damage: a chain that cannot be read cannot be numbered on.
    let n = env.run(&["note", "--reason", "recording it", "--despite-findings"]);
    assert_eq!((n.code, n.stderr.as_str()), (2, appended.as_str()));
    env.copy_from_repo("protocols/statutes-kr.toml", "statutes.toml");
    let r = env.run(&["register", "statutes.toml"]);
    assert_eq!((r.code, r.stderr.as_str()), (2, appended.as_str()));
    assert_eq!(rev(&env, LEDGER_REF), c3, "nothing appended");

    // The hint's command brings the object back.
    let f = env.git(&["fetch", "-q", "--refetch", "origin", "refs/pledge/*:refs/pledge/*"]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    ok(&env.run(&["verify"]));
    ok(&env.run(&["log"]));
}

/// A ledger fetched shallow (`--depth 2`): `verify` names the cut, says the clone is shallow and
/// hints `git fetch --unshallow`, which repairs it; `log` and `export` refuse (exit 2).
#[test]
fn a_shallow_fetch_of_the_ledger_is_named_with_the_unshallow_hint() {
    let origin = three_entries();
    let url = format!("file://{}", origin.path().display());
    let env = Env::new();
    assert_eq!(env.git(&["init", "-q"]).code, 0);
    assert_eq!(env.git(&["remote", "add", "origin", &url]).code, 0);
    let f = env.git(&["fetch", "-q", "--depth", "2", "origin", "refs/pledge/*:refs/pledge/*"]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    let (c1, c2) = (
        rev(&origin, "refs/pledge/ledger~2"),
        rev(&origin, "refs/pledge/ledger~1"),
    );
    let hint = "hint: this repository is shallow, so the ledger's history is cut: fetch the rest with `git fetch --unshallow origin 'refs/pledge/*:refs/pledge/*'`, then run `pledge verify`\n";
    assert_eq!(
        findings(&env),
        [(
            "ledger-unreadable".to_string(),
            None,
            format!(
                "commit {}, the parent of entry #2 (commit {}), cannot be read: it is not in this repository (this repository is a shallow clone, its history cut here); no entry before it can be read or checked",
                &c1[..7],
                &c2[..7]
            )
        )]
    );
    assert_eq!(env.run(&["verify"]).stderr, hint);
    let l = env.run(&["log"]);
    assert_eq!(l.code, 2, "{}", l.stderr);
    assert_eq!(
        l.stderr,
        format!(
            "error: ledger commit {} cannot be read\nCaused by: it is not in this repository\n{}",
            c1, hint
        )
    );
    let x = env.run(&["export", "ledger.jsonl"]);
    assert_eq!(x.code, 2, "{}", x.stderr);
    assert!(x.stderr.ends_with(hint), "{}", x.stderr);
    let f = env.git(&["fetch", "-q", "--unshallow", "origin", "refs/pledge/*:refs/pledge/*"]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    ok(&env.run(&["verify"]));
}

/// A ledger ref naming an id the repository lacks, then one whose file holds no id at all:
/// each a finding of `verify` (exit 1) and a refusal of `log`, `export` and `note` (exit 2).
#[test]
fn a_ledger_ref_naming_no_object_is_a_finding() {
    let env = three_entries();
    let tip = rev(&env, LEDGER_REF);
    let ref_file = env.join(".git/refs/pledge/ledger");
    assert!(ref_file.is_file(), "pledge writes its ref loose");
    let absent = "1234567890abcdef1234567890abcdef12345678";
    std::fs::write(&ref_file, format!("{}\n", absent)).unwrap();
    assert_eq!(
        findings(&env),
        [(
            "ledger-unreadable".to_string(),
            None,
            "commit 1234567, the tip refs/pledge/ledger names, cannot be read: it is not in this repository; no entry can be read or checked".to_string()
        )]
    );
    for args in [&["log"][..], &["export", "l.jsonl"], &["note", "--reason", "x"]] {
        let r = env.run(args);
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
        assert!(
            r.stderr.starts_with("error: ") && r.stderr.contains("Caused by: it is not in this repository\nhint: "),
            "{:?}: {}",
            args,
            r.stderr
        );
    }

    std::fs::write(&ref_file, "not an id\n").unwrap();
    assert_eq!(
        findings(&env),
        [(
            "ledger-unreadable".to_string(),
            None,
            "refs/pledge/ledger cannot be read (corrupted loose reference file: refs/pledge/ledger): no entry can be read or checked".to_string()
        )]
    );
    let hint = format!(
        "hint: remove the damaged ref file ({}), then fetch the published ledger again with `git fetch URL 'refs/pledge/*:refs/pledge/*'`, or point the ref at the ledger's tip commit with `git update-ref refs/pledge/ledger COMMIT`; then run `pledge verify`\n",
        env.path().canonicalize().unwrap().join(".git/refs/pledge/ledger").display()
    );
    let v = env.run(&["verify"]);
    assert_eq!((v.code, v.stderr.as_str()), (1, hint.as_str()));
    for args in [&["log"][..], &["export", "l.jsonl"], &["note", "--reason", "x"]] {
        let r = env.run(args);
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
        assert_eq!(
            r.stderr,
            format!(
                "error: refs/pledge/ledger cannot be read\nCaused by: corrupted loose reference file: refs/pledge/ledger\n{}",
                hint
            ),
            "{:?}",
            args
        );
    }
    // The hint's repair: the file removed, the ref set to the tip.
    std::fs::remove_file(&ref_file).unwrap();
    assert_eq!(env.git(&["update-ref", LEDGER_REF, &tip]).code, 0);
    ok(&env.run(&["verify"]));
}

/// A damaged object (entry.json of #2 overwritten with bytes that are no zlib stream) is what it
/// is, not "no entry.json": `verify` names the file, its blob and commit, with no guessed
/// `entry-missing` beside it.
#[test]
fn a_damaged_entry_blob_is_named_as_unreadable() {
    let env = three_entries();
    let (c2, blob) = (
        rev(&env, "refs/pledge/ledger~1"),
        rev(&env, "refs/pledge/ledger~1:entry.json"),
    );
    let file = loose(&env, &blob);
    let mut perms = std::fs::metadata(&file).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&file, perms).unwrap();
    std::fs::write(&file, b"not zlib").unwrap();
    forget_caches(&env);
    let f = findings(&env);
    assert_eq!(f.len(), 1, "{:?}", f);
    assert_eq!((f[0].0.as_str(), f[0].1), ("ledger-unreadable", None));
    let want = format!(
        "entry.json (blob {}) of commit {} cannot be read: ",
        &blob[..7],
        &c2[..7]
    );
    assert!(f[0].2.starts_with(&want), "{}", f[0].2);
    let l = env.run(&["log"]);
    assert_eq!(l.code, 2, "{}", l.stderr);
    assert!(
        l.stderr.starts_with(&format!(
            "error: entry.json (blob {}) of ledger commit {} cannot be read\nCaused by: ",
            &blob[..7],
            c2
        )) && l.stderr.ends_with(&REFETCH.replace("origin", "URL")),
        "{}",
        l.stderr
    );
    let n = env.run(&["note", "--reason", "x"]);
    assert_eq!(n.code, 2, "{}", n.stderr);
}

/// A commit on the ledger that holds no entry (here one with only a `notes.txt`, as a `git
/// commit` onto the ledger ref makes) is not exported as an `"entry": null` line: `export`
/// refuses, naming the commit (exit 2, the convention of `log` on a malformed entry), writes
/// nothing, and hints `pledge verify`, which lists it as `malformed-entry`.
#[test]
fn export_refuses_a_ledger_commit_without_an_entry() {
    let env = three_entries();
    let tip = rev(&env, LEDGER_REF);
    let foreign = {
        let repo = git2::Repository::open(env.path()).unwrap();
        let mut tb = repo.treebuilder(None).unwrap();
        tb.insert("notes.txt", repo.blob(b"not an entry\n").unwrap(), 0o100644)
            .unwrap();
        let tree = repo.find_tree(tb.write().unwrap()).unwrap();
        let parent = repo.find_commit(git2::Oid::from_str(&tip).unwrap()).unwrap();
        let sig = git2::Signature::new("Test", "test@example.org", &git2::Time::new(1_800_000_000, 0)).unwrap();
        repo.commit(None, &sig, &sig, "a commit onto the ledger\n", &tree, &[&parent])
            .unwrap()
            .to_string()
    };
    assert_eq!(env.git(&["update-ref", LEDGER_REF, &foreign]).code, 0);

    let x = env.run(&["export", "ledger.jsonl"]);
    assert_eq!(x.code, 2, "{}", x.stdout);
    assert_eq!(
        x.stderr,
        format!(
            "error: cannot export the ledger: commit {} holds no pledge ledger entry\n\
             Caused by: the commit has no entry.json\n\
             hint: run `pledge verify` to see every problem of the ledger: an export line carries one entry, so a commit without one cannot be exported\n",
            &foreign[..7]
        )
    );
    assert!(!env.join("ledger.jsonl").exists(), "nothing exported");
    let f = findings(&env);
    assert_eq!(f.len(), 1, "{:?}", f);
    assert_eq!(
        (f[0].0.as_str(), f[0].1, f[0].2.as_str()),
        (
            "malformed-entry",
            None,
            format!(
                "commit {}: not a pledge ledger entry (the commit has no entry.json)",
                &foreign[..7]
            )
            .as_str()
        )
    );
    // Back on the last entry, the same ledger exports, and the export verifies.
    assert_eq!(env.git(&["update-ref", LEDGER_REF, &tip]).code, 0);
    ok(&env.run(&["export", "ledger.jsonl"]));
    ok(&env.run(&["verify", "--ledger", "ledger.jsonl"]));
}

/// Rebuilds the ledger with entry #2's `entry.json` replaced by `bytes` (and #3 on top of it),
/// as someone editing `.git` by hand would; returns the new commit of #2.
fn replace_second_entry(env: &Env, bytes: &[u8]) -> String {
    let repo = git2::Repository::open(env.path()).unwrap();
    let tip = repo.find_commit(repo.refname_to_id(LEDGER_REF).unwrap()).unwrap();
    let second = tip.parent(0).unwrap();
    let first = second.parent(0).unwrap();
    let mut tb = repo.treebuilder(Some(&second.tree().unwrap())).unwrap();
    tb.insert("entry.json", repo.blob(bytes).unwrap(), 0o100644).unwrap();
    let tree = repo.find_tree(tb.write().unwrap()).unwrap();
    let sig = git2::Signature::new("pledge", "pledge@localhost", &git2::Time::new(1_800_000_000, 0)).unwrap();
    let new2 = repo
        .commit(None, &sig, &sig, second.message().unwrap(), &tree, &[&first])
        .unwrap();
    let new2c = repo.find_commit(new2).unwrap();
    let new3 = repo
        .commit(
            None,
            &sig,
            &sig,
            tip.message().unwrap(),
            &tip.tree().unwrap(),
            &[&new2c],
        )
        .unwrap();
    repo.reference(LEDGER_REF, new3, true, "tamper").unwrap();
    new2.to_string()
}

/// An `entry.json` that does not parse is said to be one, with the parser's error and the
/// commit, by `verify` (`malformed-entry`, and no guessed `entry-missing` for the number it
/// held) and by `log` (exit 2); `export` refuses it.
#[test]
fn an_entry_json_that_does_not_parse_is_named_with_the_parse_error() {
    let env = three_entries();
    let c2 = replace_second_entry(&env, b"{\"seq\": 2, \"kind\": \"note\"");
    let parse_error = "EOF while parsing an object at line 1 column 25";
    assert_eq!(
        findings(&env),
        [(
            "malformed-entry".to_string(),
            None,
            format!(
                "commit {}: not a pledge ledger entry (its entry.json does not parse: {})",
                &c2[..7],
                parse_error
            )
        )]
    );
    let l = env.run(&["log"]);
    assert_eq!(l.code, 2, "{}", l.stderr);
    assert_eq!(
        l.stderr,
        format!(
            "error: entry.json of ledger commit {} does not parse as a pledge ledger entry\n\
             Caused by: {}\n\
             hint: run `pledge verify` to see every problem of the ledger\n",
            c2, parse_error
        )
    );
    let x = env.run(&["export", "ledger.jsonl"]);
    assert_eq!(x.code, 2, "{}", x.stderr);
    assert!(
        x.stderr.starts_with(&format!(
            "error: cannot export the ledger: commit {} holds no pledge ledger entry\nCaused by: its entry.json does not parse: {}\n",
            &c2[..7],
            parse_error
        )),
        "{}",
        x.stderr
    );
    // JSON that parses but is no entry: the missing field is named.
    let c2 = replace_second_entry(&env, b"{\"seq\": 2}\n");
    let f = findings(&env);
    assert_eq!(f.len(), 1, "{:?}", f);
    assert_eq!(
        f[0].2,
        format!(
            "commit {}: not a pledge ledger entry (its entry.json does not parse: missing field `kind` at line 1 column 10)",
            &c2[..7]
        )
    );
}

/// A `git replace` of a ledger commit changes what git shows (`git show`), not what pledge
/// reads: `verify` checks the ledger's own objects, passes, and says in a note that replace refs
/// exist and which ledger commit they replace.
#[test]
fn a_replace_ref_on_a_ledger_commit_is_noted_and_the_real_objects_are_verified() {
    let env = three_entries();
    let (c1, c2) = (rev(&env, "refs/pledge/ledger~2"), rev(&env, "refs/pledge/ledger~1"));
    let fake = {
        let repo = git2::Repository::open(env.path()).unwrap();
        let mut tb = repo.treebuilder(None).unwrap();
        tb.insert("entry.json", repo.blob(b"forged\n").unwrap(), 0o100644)
            .unwrap();
        let tree = repo.find_tree(tb.write().unwrap()).unwrap();
        let parent = repo.find_commit(git2::Oid::from_str(&c1).unwrap()).unwrap();
        let sig = git2::Signature::new("pledge", "pledge@localhost", &git2::Time::new(1_800_000_000, 0)).unwrap();
        repo.commit(None, &sig, &sig, "pledge: note #2 \n", &tree, &[&parent])
            .unwrap()
            .to_string()
    };
    assert_eq!(env.git(&["replace", &c2, &fake]).code, 0);
    assert_eq!(env.git(&["show", "refs/pledge/ledger~1:entry.json"]).stdout, "forged\n");
    let r = env.run(&["verify", "--format", "json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let note = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["code"] == "replace-refs")
        .unwrap_or_else(|| panic!("no replace-refs note: {}", r.stdout));
    assert_eq!(
        note["message"],
        format!(
            "the repository has 1 replace ref under refs/replace/ (git replace), replacing ledger commit {}: git commands show the replacements, but pledge verified the ledger's own objects",
            &c2[..7]
        )
    );
    ok(&env.run(&["log"]));
}
