//! Integration tests: the ledger commands and the tamper cases, each in a hermetic
//! temporary git repository. Tampering rewrites the ledger's commits with git2 the way an
//! attacker with write access to `.git` would, then moves the ref.

use crate::common::{pledge_cmd, Env};
use pledge::ledger::{Entry, LEDGER_REF};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A minimal valid protocol for study `id` with minimum detectable difference `mde`.
fn protocol(id: &str, mde: &str) -> String {
    format!(
        "schema-version = 1\n\n[study]\nid = \"{id}\"\ntitle = \"Test study {id}\"\nregistered-by = \"test\"\n\n\
         [target]\nmetric = \"accuracy\"\nmde = {mde}\n"
    )
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({}): {}", e, s))
}

/// The codes (and seqs) of a verify report's findings.
fn findings(r: &crate::common::Run) -> Vec<(String, Option<u64>)> {
    json(&r.stdout)["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["seq"].as_u64()))
        .collect()
}

/// The notes' codes, without the two every test ledger carries (its entries are written under
/// the harness's fixed clock, unsigned): `clock-fixed` and `entry-unsigned` (tests/cli/witness.rs
/// checks those).
fn note_codes(r: &crate::common::Run) -> Vec<String> {
    json(&r.stdout)["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .filter(|c| c != "clock-fixed" && c != "entry-unsigned")
        .collect()
}

fn ok(r: &crate::common::Run) {
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
}

/// A ledger of four entries: register a (#1), register b (#2), amend a (#3), note (#4).
fn four_entries() -> Env {
    let env = Env::init();
    env.write("a.toml", protocol("a", "0.1"));
    env.write("b.toml", protocol("b", "0.2"));
    ok(&env.run(&["register", "a.toml"]));
    ok(&env.run(&["register", "b.toml"]));
    env.write("a.toml", protocol("a", "0.15"));
    ok(&env.run(&["amend", "a.toml", "--reason", "pilot SD was larger"]));
    ok(&env.run(&[
        "note",
        "--reason",
        "first look at dev scores",
        "--access",
        "results-unseen",
    ]));
    env
}

fn verify_json(env: &Env, extra: &[&str]) -> crate::common::Run {
    let mut args = vec!["verify", "--format", "json"];
    args.extend_from_slice(extra);
    env.run(&args)
}

/// One ledger commit, as an attacker sees it: its tree and message.
struct Node {
    tree: git2::Oid,
    message: String,
}

/// Reads the ledger chain (first to last), lets `edit` change it, rebuilds the commits and
/// force-moves the ledger ref to the new tip.
fn rewrite(env: &Env, edit: impl FnOnce(&git2::Repository, &mut Vec<Node>)) {
    let repo = git2::Repository::open(env.path()).unwrap();
    let mut nodes = Vec::new();
    let mut next = Some(repo.refname_to_id(LEDGER_REF).unwrap());
    while let Some(oid) = next {
        let c = repo.find_commit(oid).unwrap();
        nodes.push(Node {
            tree: c.tree_id(),
            message: c.message().unwrap().to_string(),
        });
        next = c.parent_id(0).ok();
    }
    nodes.reverse();
    edit(&repo, &mut nodes);
    let sig = git2::Signature::new("pledge", "pledge@localhost", &git2::Time::new(1_800_000_000, 0)).unwrap();
    let mut parent: Option<git2::Oid> = None;
    for n in &nodes {
        let tree = repo.find_tree(n.tree).unwrap();
        let parents: Vec<git2::Commit> = parent.map(|p| repo.find_commit(p).unwrap()).into_iter().collect();
        let prefs: Vec<&git2::Commit> = parents.iter().collect();
        parent = Some(repo.commit(None, &sig, &sig, &n.message, &tree, &prefs).unwrap());
    }
    repo.reference(LEDGER_REF, parent.unwrap(), true, "tamper").unwrap();
}

fn entry_json(repo: &git2::Repository, tree: git2::Oid) -> Vec<u8> {
    let t = repo.find_tree(tree).unwrap();
    let e = t.get_name("entry.json").unwrap();
    repo.find_blob(e.id()).unwrap().content().to_vec()
}

/// A copy of `tree` with `entry.json` replaced by `bytes`.
fn with_entry(repo: &git2::Repository, tree: git2::Oid, bytes: &[u8]) -> git2::Oid {
    let t = repo.find_tree(tree).unwrap();
    let mut tb = repo.treebuilder(Some(&t)).unwrap();
    let blob = repo.blob(bytes).unwrap();
    tb.insert("entry.json", blob, 0o100644).unwrap();
    tb.write().unwrap()
}

fn sha256(b: &[u8]) -> String {
    hex::encode(Sha256::digest(b))
}

#[test]
fn register_log_verify_round_trip() {
    let env = Env::init();
    let text = protocol("s1", "0.1");
    env.write("p.toml", &text);
    let r = env.run(&["register", "p.toml", "--format", "json"]);
    ok(&r);
    let e = json(&r.stdout);
    assert_eq!(e["seq"], 1);
    assert_eq!(e["kind"], "register");
    assert_eq!(e["time"], "2026-11-30T12:00:00Z");
    assert_eq!(e["prev_sha256"], pledge::ledger::GENESIS);
    assert_eq!(e["protocol_sha256"], sha256(text.as_bytes()));
    assert_eq!(e["inputs"]["protocol:p.toml"], sha256(text.as_bytes()));
    assert_eq!(e["data_access"], "nothing-run");
    assert_eq!(e["summary"]["results_seen_at_registration"], false);
    assert_eq!(e["tool"]["name"], "pledge");
    // The entry hash is the SHA-256 of the canonical form, recomputed here independently.
    let parsed: Entry = serde_json::from_value(e.clone()).unwrap();
    assert_eq!(e["entry_sha256"], sha256(&parsed.canonical_bytes()));
    let log = env.run(&["log", "--format", "json"]);
    ok(&log);
    let l = json(&log.stdout);
    assert_eq!(l.as_array().unwrap().len(), 1);
    assert_eq!(l[0]["entry_sha256"], e["entry_sha256"]);
    assert_eq!(l[0]["commit"].as_str().unwrap().len(), 40);
    let human = env.run(&["log"]);
    ok(&human);
    assert!(
        human.stdout.contains("register") && human.stdout.contains("s1"),
        "{}",
        human.stdout
    );
    let v = verify_json(&env, &["p.toml"]);
    ok(&v);
    let rep = json(&v.stdout);
    assert_eq!(rep["ok"], true);
    assert_eq!(rep["entries"], 1);
    assert_eq!(rep["protocol"]["status"], "matches");
    assert_eq!(rep["protocol"]["registered_seq"], 1);
}

#[test]
fn four_entry_ledger_verifies_and_logs_in_order() {
    let env = four_entries();
    let l = json(&env.run(&["log", "--format", "json"]).stdout);
    let kinds: Vec<&str> = l
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["register", "register", "amend", "note"]);
    assert_eq!(l[2]["reason"], "pilot SD was larger");
    assert_eq!(l[2]["amends"], l[0]["protocol_sha256"]);
    assert_eq!(l[3]["data_access"], "results-unseen");
    for i in 1..4 {
        assert_eq!(l[i]["prev_sha256"], l[i - 1]["entry_sha256"]);
    }
    let v = verify_json(&env, &["a.toml"]);
    ok(&v);
    assert_eq!(json(&v.stdout)["protocol"]["registered_seq"], 3);
}

#[test]
fn different_protocol_under_same_study_is_refused_unless_amend() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    ok(&env.run(&["register", "p.toml"]));
    let same = env.run(&["register", "p.toml"]);
    assert_eq!(same.code, 1, "{}", same.stderr);
    env.write("p.toml", protocol("s", "0.2"));
    let r = env.run(&["register", "p.toml"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("already registered") && r.stderr.contains("pledge amend"),
        "{}",
        r.stderr
    );
    // Amend without a reason is a usage error, with an empty one too; nothing is written.
    let no_reason = env.run(&["amend", "p.toml"]);
    assert_eq!(no_reason.code, 2, "{}", no_reason.stderr);
    let empty = env.run(&["amend", "p.toml", "--reason", "  "]);
    assert_eq!(empty.code, 2, "{}", empty.stderr);
    assert_eq!(
        json(&env.run(&["log", "--format", "json"]).stdout)
            .as_array()
            .unwrap()
            .len(),
        1
    );
    ok(&env.run(&["amend", "p.toml", "--reason", "larger effect"]));
    // Amending an unregistered study is refused.
    env.write("q.toml", protocol("q", "0.1"));
    assert_eq!(env.run(&["amend", "q.toml", "--reason", "x"]).code, 1);
}

#[test]
fn tamper_one_byte_changed_in_an_entry() {
    let env = four_entries();
    rewrite(&env, |repo, nodes| {
        let mut b = entry_json(repo, nodes[1].tree);
        let s = String::from_utf8(b.clone()).unwrap();
        let at = s.find("12:00:00Z").unwrap() + 7;
        b[at] = b'1'; // 12:00:00Z -> 12:00:01Z
        nodes[1].tree = with_entry(repo, nodes[1].tree, &b);
    });
    let r = verify_json(&env, &[]);
    assert_eq!(r.code, 1);
    // #2 now claims 12:00:01, after #3 (12:00:00): time order is a finding too.
    assert_eq!(
        findings(&r),
        vec![
            ("entry-hash-mismatch".to_string(), Some(2)),
            ("time-decreased".to_string(), Some(3))
        ]
    );
    let human = env.run(&["verify"]);
    assert_eq!(human.code, 1);
    assert!(
        human.stdout.contains("entry #2") && human.stdout.contains("was edited"),
        "{}",
        human.stdout
    );
}

#[test]
fn tamper_middle_entry_deleted() {
    let env = four_entries();
    rewrite(&env, |_, nodes| {
        nodes.remove(1);
    });
    let r = verify_json(&env, &[]);
    assert_eq!(r.code, 1);
    let f = findings(&r);
    assert!(f.contains(&("entry-missing".into(), Some(2))), "{:?}", f);
    assert!(f.contains(&("broken-link".into(), Some(3))), "{:?}", f);
}

#[test]
fn tamper_two_entries_swapped() {
    let env = four_entries();
    rewrite(&env, |_, nodes| nodes.swap(1, 2));
    let r = verify_json(&env, &[]);
    assert_eq!(r.code, 1);
    let f = findings(&r);
    assert!(f.contains(&("entries-reordered".into(), Some(2))), "{:?}", f);
    assert!(f.iter().any(|x| x.0 == "broken-link"), "{:?}", f);
    assert!(!f.iter().any(|x| x.0 == "entry-missing"), "{:?}", f);
}

#[test]
fn tamper_forged_entry_inserted() {
    let env = four_entries();
    rewrite(&env, |repo, nodes| {
        // A forged entry with a valid hash of its own, chained after #2 and numbered #3.
        let two = Entry::parse(&entry_json(repo, nodes[1].tree), "e2").unwrap();
        let mut forged = two.clone();
        forged.seq = 3;
        forged.prev_sha256 = two.entry_sha256.clone();
        forged.kind = pledge::ledger::EntryKind::Note;
        forged.protocol_sha256 = None;
        forged.protocol_path = None;
        forged.inputs.clear();
        forged.reason = Some("forged".into());
        forged.entry_sha256 = forged.compute_sha256();
        let tree = {
            let mut tb = repo.treebuilder(None).unwrap();
            let blob = repo.blob(&forged.stored_bytes()).unwrap();
            tb.insert("entry.json", blob, 0o100644).unwrap();
            tb.write().unwrap()
        };
        let message = format!("pledge: note #3 b\n\nentry_sha256 {}\n", forged.entry_sha256);
        nodes.insert(2, Node { tree, message });
    });
    let r = verify_json(&env, &[]);
    assert_eq!(r.code, 1);
    let f = findings(&r);
    assert!(f.contains(&("seq-duplicate".into(), Some(3))), "{:?}", f);
    assert!(f.contains(&("broken-link".into(), Some(3))), "{:?}", f);
}

#[test]
fn tamper_result_or_protocol_blob_replaced() {
    let env = four_entries();
    rewrite(&env, |repo, nodes| {
        let t = repo.find_tree(nodes[0].tree).unwrap();
        let mut tb = repo.treebuilder(Some(&t)).unwrap();
        let blob = repo.blob(protocol("a", "0.5").as_bytes()).unwrap();
        tb.insert("protocol.toml", blob, 0o100644).unwrap();
        nodes[0].tree = tb.write().unwrap();
    });
    let r = verify_json(&env, &[]);
    assert_eq!(findings(&r), vec![("protocol-text-mismatch".to_string(), Some(1))]);
}

#[test]
fn protocol_edited_after_registration_is_caught() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    ok(&env.run(&["register", "p.toml"]));
    env.write("p.toml", protocol("s", "0.05"));
    let r = verify_json(&env, &["p.toml"]);
    assert_eq!(r.code, 1);
    assert_eq!(findings(&r), vec![("protocol-changed".to_string(), Some(1))]);
    assert_eq!(json(&r.stdout)["protocol"]["status"], "changed");
    let human = env.run(&["verify", "p.toml"]);
    assert_eq!(human.code, 1);
    assert!(human.stdout.contains("first difference at line 10"), "{}", human.stdout);
    // An unregistered study is a finding too.
    env.write("q.toml", protocol("q", "0.1"));
    let q = verify_json(&env, &["q.toml"]);
    assert_eq!(findings(&q), vec![("protocol-unregistered".to_string(), None)]);
}

#[test]
fn crlf_only_change_passes_with_a_note() {
    let env = Env::init();
    let text = protocol("s", "0.1");
    env.write("p.toml", &text);
    ok(&env.run(&["register", "p.toml"]));
    env.write("p.toml", text.replace('\n', "\r\n"));
    let r = verify_json(&env, &["p.toml"]);
    ok(&r);
    assert_eq!(json(&r.stdout)["protocol"]["status"], "line-endings-only");
    assert_eq!(note_codes(&r), vec!["line-endings-only"]);
    // A BOM alone is also not a change.
    env.write("p.toml", format!("\u{feff}{}", text));
    ok(&verify_json(&env, &["p.toml"]));
}

#[test]
fn last_entry_removed_is_caught_against_the_published_copy() {
    let env = four_entries();
    assert_eq!(env.git(&["init", "-q", "--bare", "pub.git"]).code, 0);
    let p = env.run(&["publish", "pub.git", "--format", "json"]);
    ok(&p);
    assert_eq!(json(&p.stdout)["entries"], 4);
    assert_eq!(json(&p.stdout)["updated"], true);
    let published = env.git(&["--git-dir", "pub.git", "rev-parse", LEDGER_REF]);
    let local = env.git(&["rev-parse", LEDGER_REF]);
    assert_eq!(published.stdout, local.stdout);
    ok(&verify_json(&env, &["--remote", "pub.git"]));
    // Remove the last entry: the local chain alone still verifies...
    assert_eq!(
        env.git(&["update-ref", LEDGER_REF, &format!("{}~1", LEDGER_REF)]).code,
        0
    );
    ok(&verify_json(&env, &[]));
    // ...but not against the published copy.
    let r = verify_json(&env, &["--remote", "pub.git"]);
    assert_eq!(r.code, 1);
    assert_eq!(findings(&r), vec![("local-truncated".to_string(), Some(4))]);
    assert_eq!(json(&r.stdout)["remote"]["published_entries"], 4);
}

#[test]
fn force_rewritten_ledger_is_caught_against_the_published_copy() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    ok(&env.run(&["register", "p.toml"]));
    assert_eq!(env.git(&["init", "-q", "--bare", "pub.git"]).code, 0);
    ok(&env.run(&["publish", "pub.git"]));
    // Rewrite history: drop the ledger and register a different protocol as if it were first.
    assert_eq!(env.git(&["update-ref", "-d", LEDGER_REF]).code, 0);
    env.write("p.toml", protocol("s", "0.3"));
    ok(&env.run(&["register", "p.toml"]));
    ok(&verify_json(&env, &["p.toml"]));
    let r = verify_json(&env, &["p.toml", "--remote", "pub.git"]);
    assert_eq!(r.code, 1);
    assert_eq!(findings(&r), vec![("ledger-rewritten".to_string(), Some(1))]);
    // Publishing the rewritten ledger is refused (not a fast-forward).
    let p = env.run(&["publish", "pub.git"]);
    assert_eq!(p.code, 1, "{}", p.stderr);
    assert!(p.stderr.contains("not a fast-forward"), "{}", p.stderr);
}

#[test]
fn publish_appends_fast_forward_and_reports_unpublished() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    ok(&env.run(&["register", "p.toml"]));
    // A non-bare remote and a file:// URL work too.
    assert_eq!(env.git(&["init", "-q", "mirror"]).code, 0);
    let url = format!("file://{}", env.join("mirror").display());
    ok(&env.run(&["publish", &url]));
    ok(&env.run(&["note", "--reason", "x"]));
    let r = verify_json(&env, &["--remote", &url]);
    ok(&r);
    assert_eq!(note_codes(&r), vec!["unpublished"]);
    assert_eq!(json(&r.stdout)["remote"]["unpublished_entries"], 1);
    let p = env.run(&["publish", "mirror", "--format", "json"]);
    ok(&p);
    assert_eq!(json(&p.stdout)["entries"], 2);
    let again = env.run(&["publish", "mirror", "--format", "json"]);
    assert_eq!(json(&again.stdout)["updated"], false);
    // The mirror's work tree is untouched.
    assert_eq!(env.git(&["-C", "mirror", "status", "--porcelain"]).stdout, "");
}

#[test]
fn remote_errors() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    ok(&env.run(&["register", "p.toml"]));
    assert_eq!(env.git(&["init", "-q", "--bare", "empty.git"]).code, 0);
    let r = verify_json(&env, &["--remote", "empty.git"]);
    assert_eq!(r.code, 1);
    assert_eq!(findings(&r), vec![("not-published".to_string(), None)]);
    let net = env.run(&["publish", "https://example.org/x.git"]);
    assert_eq!(net.code, 2);
    assert!(net.stderr.contains("git push"), "{}", net.stderr);
    let missing = env.run(&["publish", "no-such-dir"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}

#[test]
fn export_verifies_offline_and_catches_edits() {
    let env = four_entries();
    let out = env.dir.path().join("ledger.jsonl");
    let r = env.run(&["export", out.to_str().unwrap()]);
    ok(&r);
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4);
    let first = json(lines[0]);
    assert_eq!(first["format"], "pledge-ledger-export/2");
    assert!(first["commit_raw"].as_str().unwrap().starts_with("tree "));
    assert_eq!(first["entry"]["seq"], 1);
    assert!(first["protocol_toml"].as_str().unwrap().contains("id = \"a\""));
    assert_eq!(json(lines[1])["parents"][0], first["commit"]);
    // Exporting twice gives the same bytes.
    ok(&env.run(&["export", "again.jsonl"]));
    assert_eq!(std::fs::read(env.join("again.jsonl")).unwrap(), text.as_bytes());
    // Offline verification, with the protocol; no git needed (run outside the repository).
    let elsewhere = Env::new();
    let v = elsewhere.run(&["verify", "--ledger", out.to_str().unwrap(), "--format", "json"]);
    ok(&v);
    assert_eq!(json(&v.stdout)["entries"], 4);
    let a = env.join("a.toml");
    ok(&elsewhere.run(&["verify", a.to_str().unwrap(), "--ledger", out.to_str().unwrap()]));
    // One byte changed in the export.
    let edited = text.replacen("pilot SD was larger", "pilot SD was Larger", 1);
    elsewhere.write("edited.jsonl", &edited);
    let e = elsewhere.run(&["verify", "--ledger", "edited.jsonl", "--format", "json"]);
    assert_eq!(e.code, 1);
    assert_eq!(
        findings(&e),
        vec![
            ("entry-hash-mismatch".to_string(), Some(3)),
            ("commit-id-mismatch".to_string(), Some(3))
        ]
    );
    // A line removed.
    let removed: String = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, l)| format!("{}\n", l))
        .collect();
    elsewhere.write("removed.jsonl", &removed);
    let d = elsewhere.run(&["verify", "--ledger", "removed.jsonl", "--format", "json"]);
    let f = findings(&d);
    assert!(f.contains(&("entry-missing".into(), Some(2))), "{:?}", f);
    assert!(f.contains(&("commit-chain".into(), Some(3))), "{:?}", f);
    // Garbage is a finding naming the line; a missing file is bad input.
    elsewhere.write("junk.jsonl", format!("{}\nnot json\n", lines[0]));
    let j = elsewhere.run(&["verify", "--ledger", "junk.jsonl", "--format", "json"]);
    assert_eq!(findings(&j), vec![("malformed-entry".to_string(), None)]);
    assert!(j.stdout.contains("line 2"), "{}", j.stdout);
    assert_eq!(elsewhere.run(&["verify", "--ledger", "nope.jsonl"]).code, 2);
}

#[test]
fn registration_after_results_seen_is_allowed_but_marked() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    let r = env.run(&["register", "p.toml", "--access", "results-seen", "--format", "json"]);
    ok(&r);
    let e = json(&r.stdout);
    assert_eq!(e["data_access"], "results-seen");
    assert_eq!(e["summary"]["results_seen_at_registration"], true);
    assert!(r.stderr.contains("after results were seen"), "{}", r.stderr);
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(note_codes(&v), vec!["registered-after-results-seen"]);
    // The level is per study: another study registered later starts from nothing-run.
    env.write("q.toml", protocol("q", "0.1"));
    let q = json(&env.run(&["register", "q.toml", "--format", "json"]).stdout);
    assert_eq!(q["data_access"], "nothing-run");
    // A ledger-wide note raises the level for every study.
    ok(&env.run(&["note", "--access", "pilot-only", "--reason", "pilot run"]));
    env.write("q.toml", protocol("q", "0.2"));
    let a = json(
        &env.run(&["amend", "q.toml", "--reason", "pilot", "--format", "json"])
            .stdout,
    );
    assert_eq!(a["data_access"], "pilot-only");
    assert_eq!(a["summary"]["results_seen_at_registration"], false);
}

#[test]
fn a_ledger_wide_remark_never_lowers_a_studys_declared_access() {
    let env = Env::init();
    env.write("p.toml", protocol("s", "0.1"));
    ok(&env.run(&["register", "p.toml", "--access", "results-seen"]));
    // A remark on the whole ledger declares no level: it inherits the highest one in force, so
    // the study's next entry still records results-seen.
    let remark = json(&env.run(&["note", "--reason", "a remark", "--format", "json"]).stdout);
    assert_eq!(remark["data_access"], "results-seen");
    let next = json(
        &env.run(&["note", "--study", "s", "--reason", "next", "--format", "json"])
            .stdout,
    );
    assert_eq!(next["data_access"], "results-seen");
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(note_codes(&v), vec!["registered-after-results-seen"]);
    // An explicit ledger-wide declaration below it is recorded as a change and disclosed.
    let lower = json(
        &env.run(&[
            "note",
            "--access",
            "nothing-run",
            "--reason",
            "lower",
            "--format",
            "json",
        ])
        .stdout,
    );
    assert_eq!(lower["summary"]["access_changed_from"], "results-seen");
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(note_codes(&v), vec!["registered-after-results-seen", "access-lowered"]);
}

#[test]
fn commands_never_touch_the_users_branch_index_or_work_tree() {
    let env = Env::new();
    assert_eq!(env.git(&["init", "-q", "-b", "main"]).code, 0);
    env.write("README", "hello\n");
    env.write("p.toml", protocol("s", "0.1"));
    assert_eq!(env.git(&["add", "README"]).code, 0);
    assert_eq!(env.git(&["commit", "-q", "-m", "first"]).code, 0);
    env.write("README", "hello, modified\n");
    env.write("staged.txt", "staged\n");
    assert_eq!(env.git(&["add", "staged.txt"]).code, 0);
    let mirror = Env::new();
    assert_eq!(mirror.git(&["init", "-q", "--bare", "pub.git"]).code, 0);
    let before = (
        env.git(&["status", "--porcelain", "--untracked-files=all"]).stdout,
        env.git(&["rev-parse", "HEAD"]).stdout,
        env.git(&["symbolic-ref", "HEAD"]).stdout,
        std::fs::read(env.join(".git/index")).unwrap(),
        env.git(&["for-each-ref", "refs/heads", "refs/tags"]).stdout,
    );
    let pubdir = mirror.join("pub.git");
    let pubdir = pubdir.to_str().unwrap();
    ok(&env.run(&["init"]));
    ok(&env.run(&["register", "p.toml"]));
    env.write("p.toml", protocol("s", "0.2"));
    ok(&env.run(&["amend", "p.toml", "--reason", "r"]));
    env.write("p.toml", protocol("s", "0.1"));
    // (p.toml is back to its first text: git status shows the same.)
    ok(&env.run(&["note", "--reason", "n"]));
    ok(&env.run(&["log"]));
    ok(&env.run(&["publish", pubdir]));
    ok(&env.run(&["verify", "--remote", pubdir]));
    let after = (
        env.git(&["status", "--porcelain", "--untracked-files=all"]).stdout,
        env.git(&["rev-parse", "HEAD"]).stdout,
        env.git(&["symbolic-ref", "HEAD"]).stdout,
        std::fs::read(env.join(".git/index")).unwrap(),
        env.git(&["for-each-ref", "refs/heads", "refs/tags"]).stdout,
    );
    assert_eq!(before, after);
    // Each entry records the user's HEAD at the time.
    let l = json(&env.run(&["log", "--format", "json"]).stdout);
    assert_eq!(format!("{}\n", l[0]["git_head"].as_str().unwrap()), before.1);
}

#[test]
fn concurrent_appends_from_several_processes_all_land() {
    let env = Env::init();
    let (procs, each) = (6, 5);
    for p in 0..procs {
        for i in 0..each {
            env.write(
                &format!("p{}_{}.toml", p, i),
                protocol(&format!("study-{}-{}", p, i), "0.1"),
            );
        }
    }
    let dir = env.path().to_path_buf();
    let handles: Vec<_> = (0..procs)
        .map(|p| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let mut codes = Vec::new();
                for i in 0..each {
                    let out = pledge_cmd()
                        .args(["register", &format!("p{}_{}.toml", p, i)])
                        .current_dir(&dir)
                        .output()
                        .unwrap();
                    codes.push((out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned()));
                }
                codes
            })
        })
        .collect();
    for h in handles {
        for (code, err) in h.join().unwrap() {
            assert_eq!(code, Some(0), "{}", err);
        }
    }
    let l = json(&env.run(&["log", "--format", "json"]).stdout);
    let l = l.as_array().unwrap();
    assert_eq!(l.len(), procs * each);
    let mut ids: Vec<&str> = l.iter().map(|x| x["study_id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), procs * each);
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(json(&v.stdout)["entries"], procs * each);
}

#[test]
fn concurrent_registrations_of_one_study_let_exactly_one_win() {
    let env = Env::init();
    for i in 0..6 {
        env.write(&format!("v{}.toml", i), protocol("same", &format!("0.{}", i + 1)));
    }
    let dir = env.path().to_path_buf();
    let handles: Vec<_> = (0..6)
        .map(|i| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                pledge_cmd()
                    .args(["register", &format!("v{}.toml", i)])
                    .current_dir(&dir)
                    .output()
                    .unwrap()
                    .status
                    .code()
            })
        })
        .collect();
    let codes: Vec<Option<i32>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(codes.iter().filter(|c| **c == Some(0)).count(), 1, "{:?}", codes);
    assert_eq!(codes.iter().filter(|c| **c == Some(1)).count(), 5, "{:?}", codes);
    ok(&verify_json(&env, &[]));
}

#[test]
fn empty_ledger_and_non_git_directory() {
    let env = Env::init();
    let l = env.run(&["log"]);
    ok(&l);
    assert!(l.stdout.contains("empty"), "{}", l.stdout);
    assert_eq!(env.run(&["log", "--format", "json"]).stdout.trim(), "[]");
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(json(&v.stdout)["entries"], 0);
    let bare = Env::new();
    for args in [vec!["verify"], vec!["log"], vec!["note", "--reason", "x"]] {
        let r = bare.run(&args);
        assert_eq!(r.code, 2, "{:?}: {}", args, r.stderr);
        assert!(r.stderr.starts_with("error: ") && r.stderr.contains("not inside a git repository"));
    }
}

/// An empty export is not a ledger; a note on an unregistered study is refused.
#[test]
fn empty_export_and_note_on_unknown_study() {
    let env = crate::common::Env::init();
    env.write("empty.jsonl", "");
    let r = env.run(&["verify", "--ledger", "empty.jsonl"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("holds no ledger entry"), "{}", r.stderr);
    let r = env.run(&["note", "--reason", "hi", "--study", "nosuch"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("study `nosuch` is not registered"), "{}", r.stderr);
    assert_eq!(env.git(&["for-each-ref", "refs/pledge"]).stdout, "");
}

/// Processes killed (SIGKILL) at arbitrary moments of an append leave a valid ledger: the ref only
/// moves, by compare-and-swap, once the entry's commit is complete.
#[test]
fn processes_killed_mid_append_leave_a_valid_ledger() {
    let env = crate::common::Env::init();
    let mut landed_before_kill = 0;
    for i in 0..24u64 {
        let mut cmd = crate::common::pledge_cmd();
        cmd.args(["note", "--reason", &format!("note {}", i)])
            .current_dir(env.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = cmd.spawn().expect("spawn pledge");
        // Kill after 0–11 ms: some before they start, some mid-append, some after.
        std::thread::sleep(std::time::Duration::from_millis(i % 12));
        let _ = child.kill();
        if let Ok(status) = child.wait() {
            if status.success() {
                landed_before_kill += 1;
            }
        }
    }
    let v = env.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0, "{}\n{}", v.stdout, v.stderr);
    let report: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
    let entries = report["entries"].as_u64().unwrap();
    assert!(
        entries >= landed_before_kill && entries <= 24,
        "{} entries, {} landed",
        entries,
        landed_before_kill
    );
    // Appending goes on after the kills: none of them left the ledger locked.
    for i in 0..3 {
        let r = env.run(&["note", "--reason", &format!("after the kills {}", i)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let v = env.run(&["verify", "--format", "json"]);
    assert_eq!(v.code, 0, "{}", v.stdout);
    let after: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
    assert_eq!(after["entries"].as_u64().unwrap(), entries + 3);
}

/// A ref lock file left by a process killed between libgit2's creating and removing it (what
/// 2 of 450 killed appends did) is known stale under the append lock: the next append removes
/// it, says so, and lands at once.
#[test]
fn a_leftover_ref_lock_is_cleared_with_a_note() {
    let env = Env::init();
    ok(&env.run(&["note", "--reason", "first"]));
    let lock = env.join(".git/refs/pledge/ledger.lock");
    std::fs::write(&lock, "0123456789012345678901234567890123456789\n").unwrap();
    let r = env.run(&["note", "--reason", "second"]);
    ok(&r);
    assert!(r.stderr.contains("note: removed "), "{}", r.stderr);
    assert!(r.stderr.contains("killed while appending"), "{}", r.stderr);
    assert!(!lock.exists());
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(json(&v.stdout)["entries"], 2);
}

/// An `amend` racing `analyze` runs: every check of an analysis runs inside the append, so no
/// analysis entry ever lands under a superseded protocol (verify would report
/// `unregistered-protocol`), and an analysis that starts before the amend but appends after it
/// is refused.
#[test]
fn a_concurrent_amend_never_leaves_an_analysis_under_a_superseded_protocol() {
    let env = Env::init();
    let body = protocol("race", "0.1") + "\n[analysis]\ntrials = 50\nrandomization-trials = 50\n";
    env.write("v1.toml", &body);
    env.write("v2.toml", body.replace("mde = 0.1", "mde = 0.2"));
    let scores: String = std::iter::once("topic,a,b\n".to_string())
        .chain((0..200).map(|i| format!("t{},{},{}\n", i, (i % 3) as f64 / 2.0, (i % 5) as f64 / 4.0)))
        .collect();
    env.write("s.csv", scores);
    ok(&env.run(&["register", "v1.toml"]));
    let dir = env.path().to_path_buf();
    let analyzers: Vec<_> = (0..3)
        .map(|_| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                (0..4)
                    .map(|_| {
                        let out = pledge_cmd()
                            .args(["analyze", "v1.toml", "--scores", "s.csv"])
                            .current_dir(&dir)
                            .output()
                            .unwrap();
                        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let amend = pledge_cmd()
        .args(["amend", "v2.toml", "--reason", "larger target"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        amend.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&amend.stderr)
    );
    for h in analyzers {
        for (code, err) in h.join().unwrap() {
            assert!(
                code == Some(0) || (code == Some(1) && err.contains("changed since it was registered")),
                "{:?}: {}",
                code,
                err
            );
        }
    }
    // In ledger order: analyses before the amend use v1's hash, none comes after it.
    let l = json(&env.run(&["log", "--format", "json"]).stdout);
    let kinds: Vec<&str> = l
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    let amend_at = kinds.iter().position(|k| *k == "amend").unwrap();
    assert!(kinds[amend_at + 1..].iter().all(|k| *k != "analyze"), "{:?}", kinds);
    let v = verify_json(&env, &[]);
    ok(&v);
}

/// Several entries of one command land in one compare-and-swap: a failing later draft writes
/// none of them.
#[test]
fn a_batch_of_entries_lands_whole_or_not_at_all() {
    use pledge::ledger::{Draft, EntryKind, Ledger};
    let env = Env::init();
    let l = Ledger::open(env.path()).unwrap();
    let now = chrono::DateTime::parse_from_rfc3339(crate::common::NOW)
        .unwrap()
        .with_timezone(&chrono::Utc);
    let d = |k| Draft {
        kind: Some(k),
        study_id: String::new(),
        reason: Some("r".into()),
        ..Draft::default()
    };
    let written = l
        .append_many_with(now, "", |_| Ok(vec![d(EntryKind::Note), d(EntryKind::Note)]))
        .unwrap();
    assert_eq!(written.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(written[1].prev_sha256, written[0].entry_sha256);
    // A draft without a kind fails the batch: nothing of it is written.
    let bad = Draft::default();
    assert!(l
        .append_many_with(now, "", |_| Ok(vec![d(EntryKind::Note), bad.clone()]))
        .is_err());
    assert_eq!(l.entries().unwrap().len(), 2);
    ok(&verify_json(&env, &[]));
}

/// A ledger written before the portable form (entries without the `canonical` key, hashed over
/// pledge's sorted-keys form) keeps verifying, and appending to it adds RFC 8785 entries.
#[test]
fn ledgers_of_the_original_form_keep_verifying_and_take_jcs_entries() {
    let env = Env::init();
    ok(&env.run(&["note", "--reason", "written in the original form"]));
    rewrite(&env, |repo, nodes| {
        let mut e: Entry = serde_json::from_slice(&entry_json(repo, nodes[0].tree)).unwrap();
        assert_eq!(e.canonical, Some(pledge::ledger::entry::CanonicalForm::Jcs));
        e.canonical = None;
        e.entry_sha256 = e.compute_sha256();
        let bytes = e.stored_bytes();
        assert!(!String::from_utf8_lossy(&bytes).contains("canonical"));
        nodes[0].tree = with_entry(repo, nodes[0].tree, &bytes);
        nodes[0].message = format!("pledge: note #1 \n\nentry_sha256 {}\n", e.entry_sha256);
    });
    ok(&verify_json(&env, &[]));
    ok(&env.run(&["note", "--reason", "written in RFC 8785 form"]));
    let v = verify_json(&env, &[]);
    ok(&v);
    assert_eq!(json(&v.stdout)["entries"], 2);
    let log = json(&env.run(&["log", "--format", "json"]).stdout);
    let forms: Vec<Value> = log.as_array().unwrap().iter().map(|i| i["canonical"].clone()).collect();
    assert_eq!(forms, vec![Value::Null, Value::from("jcs")]);
}

/// tools/jcs_sha256.py, an RFC 8785 implementation outside Rust (Python's standard library),
/// recomputes every `entry_sha256` of an export. Skipped with a message without python3.
#[test]
fn an_independent_python_verifier_recomputes_the_export_hashes() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/jcs_sha256.py");
    let python = std::env::var("PLEDGE_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    if !crate::tools::available(&python, &[script.to_str().unwrap(), "--help"]) {
        return;
    }
    let env = four_entries();
    ok(&env.run(&["export", "ledger.jsonl"]));
    let check = |file: &str| {
        std::process::Command::new(&python)
            .arg(&script)
            .arg(env.join(file))
            .args([
                "--impl",
                "stdlib",
                "--select",
                "entry",
                "--drop",
                "entry_sha256",
                "--expect",
                "entry_sha256",
            ])
            .output()
            .unwrap()
    };
    let out = check("ledger.jsonl");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(env.join("ledger.jsonl")).unwrap();
    let want: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            format!(
                "{}\t{}\tok\n",
                i + 1,
                json(l)["entry"]["entry_sha256"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(stdout, want);
    // An edit is caught from outside Rust too.
    env.write(
        "edited.jsonl",
        text.replacen("pilot SD was larger", "pilot SD was Larger", 1),
    );
    let out = check("edited.jsonl");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(2)
        .unwrap()
        .ends_with("MISMATCH"));
}

/// Rewrites entry #3's reason in an export and repairs every hash after it: `entry_sha256`, the
/// `prev_sha256` links and the commit messages; with `new_ids`, also every tree, commit and
/// parent id (recomputed with git's object format), as a careful forger would.
fn forge_export(text: &str, new_ids: bool) -> String {
    use pledge::ledger::gitobj::{blob_id, commit_id, tree_id, ObjectFormat, TreeEntry};
    let mut out = String::new();
    let mut prev_hash: Option<String> = None;
    let mut prev_commit: Option<String> = None;
    for line in text.lines() {
        let mut l = json(line);
        let mut e: Entry = serde_json::from_value(l["entry"].clone()).unwrap();
        let old = e.entry_sha256.clone();
        if e.seq == 3 {
            e.reason = Some("pilot SD was smaller".into());
        }
        if let Some(p) = &prev_hash {
            e.prev_sha256 = p.clone();
        }
        e.entry_sha256 = e.compute_sha256();
        let mut raw = l["commit_raw"].as_str().unwrap().replace(&old, &e.entry_sha256);
        if new_ids {
            let f = ObjectFormat::Sha1;
            let mut files = vec![TreeEntry::file("entry.json", &blob_id(f, &e.stored_bytes()))];
            if let Some(p) = l["protocol_toml"].as_str() {
                files.push(TreeEntry::file("protocol.toml", &blob_id(f, p.as_bytes())));
            }
            let tree = tree_id(f, &files).unwrap();
            let (head, msg) = raw.split_once("\n\n").unwrap();
            let mut lines: Vec<String> = vec![format!("tree {}", tree)];
            lines.extend(prev_commit.iter().map(|p| format!("parent {}", p)));
            lines.extend(
                head.lines()
                    .filter(|h| !h.starts_with("tree ") && !h.starts_with("parent "))
                    .map(String::from),
            );
            raw = format!("{}\n\n{}", lines.join("\n"), msg);
            let id = commit_id(f, raw.as_bytes());
            l["commit"] = Value::from(id.clone());
            l["parents"] = Value::from(prev_commit.iter().cloned().collect::<Vec<_>>());
            prev_commit = Some(id);
        }
        l["commit_raw"] = Value::from(raw);
        prev_hash = Some(e.entry_sha256.clone());
        l["entry"] = serde_json::to_value(&e).unwrap();
        out.push_str(&serde_json::to_string(&l).unwrap());
        out.push('\n');
    }
    out
}

/// An export whose entries were rewritten consistently (every entry hash and link repaired) but
/// that keeps the original commit ids is caught: the ids no longer recompute. A forger who also
/// recomputes every commit id ends at another tip, which `--expect-tip` catches.
#[test]
fn a_rewritten_export_is_caught_by_commit_ids_and_by_the_expected_tip() {
    let env = four_entries();
    ok(&env.run(&["export", "ledger.jsonl"]));
    let text = std::fs::read_to_string(env.join("ledger.jsonl")).unwrap();
    let tip = json(text.lines().last().unwrap())["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let elsewhere = Env::new();
    elsewhere.write("genuine.jsonl", &text);
    let v = elsewhere.run(&[
        "verify",
        "--ledger",
        "genuine.jsonl",
        "--expect-tip",
        &tip,
        "--format",
        "json",
    ]);
    ok(&v);
    assert_eq!(json(&v.stdout)["tip"], tip.as_str());
    assert!(
        json(&v.stdout)["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["code"] == "offline" && n["message"].as_str().unwrap().contains("every commit id recomputed")),
        "{}",
        v.stdout
    );
    // Same ids, rewritten content: every line from #3 on fails to recompute.
    elsewhere.write("same-ids.jsonl", forge_export(&text, false));
    let r = elsewhere.run(&["verify", "--ledger", "same-ids.jsonl", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(
        findings(&r),
        vec![
            ("commit-id-mismatch".to_string(), Some(3)),
            ("commit-id-mismatch".to_string(), Some(4))
        ]
    );
    // New ids throughout: internally consistent, so only the expected tip can tell.
    elsewhere.write("new-ids.jsonl", forge_export(&text, true));
    ok(&elsewhere.run(&["verify", "--ledger", "new-ids.jsonl"]));
    let r = elsewhere.run(&[
        "verify",
        "--ledger",
        "new-ids.jsonl",
        "--expect-tip",
        &tip[..12],
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(findings(&r), vec![("tip-mismatch".to_string(), None)]);
    // The repository's own ledger: the right tip passes, another one is a finding, junk exit 2.
    ok(&env.run(&["verify", "--expect-tip", &tip]));
    let other = "0".repeat(40);
    assert_eq!(
        findings(&verify_json(&env, &["--expect-tip", &other])),
        vec![("tip-mismatch".to_string(), None)]
    );
    assert_eq!(env.run(&["verify", "--expect-tip", "xyz"]).code, 2);
    // An export of the first format (no raw commits) cannot have its commit ids recomputed: a
    // finding by default (a rewritten ledger saved in it would pass), a note with --allow-format 1.
    let v1: String = text
        .lines()
        .map(|l| {
            let mut v = json(l);
            v.as_object_mut().unwrap().remove("commit_raw");
            v["format"] = Value::from("pledge-ledger-export/1");
            format!("{}\n", v)
        })
        .collect();
    elsewhere.write("v1.jsonl", v1.clone());
    let r = elsewhere.run(&["verify", "--ledger", "v1.jsonl", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(findings(&r), vec![("export-ids-unchecked".to_string(), None)]);
    assert!(
        r.stdout
            .contains("accept the old format knowingly with --allow-format 1"),
        "{}",
        r.stdout
    );
    let r = elsewhere.run(&[
        "verify",
        "--ledger",
        "v1.jsonl",
        "--allow-format",
        "1",
        "--format",
        "json",
    ]);
    ok(&r);
    assert!(r.stdout.contains("checked for order, not recomputed"), "{}", r.stdout);
    assert_eq!(json(&r.stdout)["review"]["tip"], Value::Null);
    let human = elsewhere.run(&["verify", "--ledger", "v1.jsonl", "--allow-format", "1"]);
    assert_eq!(human.code, 0, "{}", human.stdout);
    assert!(!human.stdout.contains("cite tip"), "{}", human.stdout);
    assert!(
        human.stdout.contains(&format!(
            "  tip          {} (not to cite: the commit ids of this export are not recomputed)\n",
            tip
        )),
        "{}",
        human.stdout
    );
    // No other format is accepted, and the flag concerns exports only.
    assert_eq!(
        elsewhere
            .run(&["verify", "--ledger", "v1.jsonl", "--allow-format", "2"])
            .code,
        2
    );
    assert_eq!(env.run(&["verify", "--allow-format", "1"]).code, 2);
    // But its commit ids are not recomputed, so a tip id authenticates nothing: an expected
    // tip, even the right one, is a finding.
    let r = elsewhere.run(&[
        "verify",
        "--ledger",
        "v1.jsonl",
        "--allow-format",
        "1",
        "--expect-tip",
        &tip,
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(findings(&r), vec![("tip-mismatch".to_string(), None)]);
    assert!(r.stdout.contains("cannot be checked"), "{}", r.stdout);
    // A spliced export: the last entry dropped, the line before it stripped of its raw commit
    // and given the real tip's id. Lines of both formats are a finding, and the tip is refused.
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    let mut spliced: Vec<String> = lines[..n - 2].iter().map(|l| format!("{}\n", l)).collect();
    let mut last = json(v1.lines().nth(n - 2).unwrap());
    last["commit"] = Value::from(tip.clone());
    spliced.push(format!("{}\n", last));
    elsewhere.write("spliced.jsonl", spliced.concat());
    let r = elsewhere.run(&[
        "verify",
        "--ledger",
        "spliced.jsonl",
        "--expect-tip",
        &tip,
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let f = findings(&r);
    assert!(
        f.contains(&("malformed-entry".to_string(), Some(n as u64 - 1))),
        "{:?}",
        f
    );
    assert!(f.contains(&("tip-mismatch".to_string(), None)), "{:?}", f);
    assert!(r.stdout.contains("carries no raw commit while"), "{}", r.stdout);
}

/// A study id names output files (`ID.components.csv`): `../../../x` and other unsafe names are
/// refused at registration (exit 2, nothing written), safe ones pass.
#[test]
fn unsafe_study_ids_are_refused_at_registration() {
    let env = Env::init();
    for id in ["../../../x", "a/b", "-rf", ".hidden", "a b", "é"] {
        env.write("p.toml", protocol(id, "0.1"));
        let r = env.run(&["register", "p.toml"]);
        assert_eq!(r.code, 2, "{}: {}", id, r.stderr);
        assert!(r.stderr.contains("is not a safe name"), "{}", r.stderr);
    }
    let long = "a".repeat(101);
    env.write("p.toml", protocol(&long, "0.1"));
    assert_eq!(env.run(&["register", "p.toml"]).code, 2);
    assert_eq!(env.git(&["for-each-ref", "refs/pledge"]).stdout, "");
    assert!(!env.path().parent().unwrap().join("x.components.csv").exists());
    env.write("p.toml", protocol("robust04_v2.1-final", "0.1"));
    ok(&env.run(&["register", "p.toml"]));
}

/// A system name longer than a format width can hold (65,535) is printed, not a panic.
#[test]
fn a_system_name_over_65535_characters_does_not_panic() {
    let env = Env::new();
    let long = "S".repeat(70_000);
    let mut csv = String::from("topic,system,score\n");
    for t in 0..10 {
        csv.push_str(&format!("t{t},{long},{}\nt{t},b,{}\n", t % 2, (t + 1) % 3));
    }
    env.write("long.csv", csv);
    let r = env.run(&["compare", "--scores", "long.csv"]);
    assert_eq!(r.code, 0, "{}", &r.stderr[..r.stderr.len().min(500)]);
    assert!(r.stdout.contains(&long));
}

/// `GIT_DIR` and `GIT_WORK_TREE` are honoured; a symbolic ledger ref, a SHA-256 repository and
/// a shallow ledger are clear errors (exit 2 with a hint), never exit 70 or a silent append.
#[test]
fn repository_states_get_a_clear_error_or_work() {
    // GIT_DIR from a directory that is no repository.
    let repo = Env::init();
    let elsewhere = Env::new();
    let gd = repo.join(".git");
    let gd = gd.to_str().unwrap();
    let r = elsewhere.run_env(&["note", "--reason", "via GIT_DIR"], &[("GIT_DIR", gd)]);
    ok(&r);
    assert_eq!(json(&verify_json(&repo, &[]).stdout)["entries"], 1);
    let wt = repo.path().to_str().unwrap();
    ok(&elsewhere.run_env(&["verify"], &[("GIT_DIR", gd), ("GIT_WORK_TREE", wt)]));
    let r = elsewhere.run_env(&["log"], &[("GIT_DIR", "/nonexistent/.git")]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("GIT_DIR=/nonexistent/.git is not a git repository"),
        "{}",
        r.stderr
    );
    // A symbolic ledger ref.
    let tip = repo.git(&["rev-parse", LEDGER_REF]).stdout.trim().to_string();
    assert_eq!(repo.git(&["update-ref", "refs/other", &tip]).code, 0);
    assert_eq!(repo.git(&["symbolic-ref", LEDGER_REF, "refs/other"]).code, 0);
    let r = repo.run(&["note", "--reason", "onto a symref"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("is a symbolic ref (to refs/other)"), "{}", r.stderr);
    assert!(r.stderr.contains("hint: make it a direct ref again"), "{}", r.stderr);
    // A shallow clone of the ledger.
    let src = Env::init();
    for i in 0..3 {
        ok(&src.run(&["note", "--reason", &format!("n{}", i)]));
    }
    let shallow = Env::new();
    let url = format!("file://{}", src.path().display());
    assert_eq!(shallow.git(&["init", "-q"]).code, 0);
    let f = shallow.git(&[
        "fetch",
        "-q",
        "--depth",
        "1",
        &url,
        "refs/pledge/ledger:refs/pledge/ledger",
    ]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    let r = shallow.run(&["note", "--reason", "onto a cut chain"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("shallow repository"), "{}", r.stderr);
    assert!(r.stderr.contains("git fetch --unshallow"), "{}", r.stderr);
    // A SHA-256 repository (when this git can make one).
    let s256 = Env::new();
    if s256.git(&["init", "-q", "--object-format=sha256"]).code == 0 {
        let r = s256.run(&["note", "--reason", "x"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("is a SHA-256 git repository"), "{}", r.stderr);
    } else {
        crate::tools::unavailable(
            "git with SHA-256 repositories",
            "`git init --object-format=sha256` failed",
        );
    }
}

/// `verify` takes several protocol files (as a pre-commit hook passes them): every one that
/// matches passes, and one edited without `amend` fails the whole run (exit 1, naming it).
#[test]
fn verify_checks_several_protocols_and_fails_if_one_changed() {
    let env = Env::init();
    let a = std::fs::read_to_string(crate::common::data("../../protocols/hotpotqa.toml")).unwrap();
    env.write("a.toml", &a);
    env.write("b.toml", a.replace("id = \"hotpotqa-100-agents\"", "id = \"other\""));
    assert_eq!(env.run(&["register", "a.toml"]).code, 0);
    assert_eq!(env.run(&["register", "b.toml"]).code, 0);
    let ok = env.run(&["verify", "a.toml", "b.toml"]);
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    env.write(
        "b.toml",
        a.replace("id = \"hotpotqa-100-agents\"", "id = \"other\"") + "# edited\n",
    );
    let r = env.run(&["verify", "a.toml", "b.toml", "--format", "json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{}", r.stdout);
    assert_eq!(findings[0]["code"], "protocol-changed");
    assert!(findings[0]["message"]
        .as_str()
        .unwrap()
        .contains("b.toml changed since study `other`"));
    // Order does not matter: the changed file first fails the same way.
    assert_eq!(env.run(&["verify", "b.toml", "a.toml"]).code, 1);
    // An unreadable protocol among them is bad input (exit 2).
    assert_eq!(env.run(&["verify", "a.toml", "missing.toml"]).code, 2);
}

/// A clone does not fetch `refs/pledge/ledger`: `verify` says so with the exact refspec, and
/// running that `git fetch` brings the published ledger in.
#[test]
fn a_clone_without_the_ledger_ref_gets_the_fetch_refspec() {
    let env = Env::new();
    let a = std::fs::read_to_string(crate::common::data("../../protocols/hotpotqa.toml")).unwrap();
    env.write("origin/p.toml", &a);
    let origin = env.join("origin");
    assert_eq!(env.run(&["-C", origin.to_str().unwrap(), "init"]).code, 0);
    assert_eq!(env.run(&["-C", origin.to_str().unwrap(), "register", "p.toml"]).code, 0);
    let c = env.git(&["clone", "-q", origin.to_str().unwrap(), "clone"]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    env.write("clone/p.toml", &a);
    let clone = env.join("clone");
    let r = env.run(&["-C", clone.to_str().unwrap(), "verify", "p.toml"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Without a protocol too: a clone with no ledger ref verifies nothing, and says so.
    let bare = env.run(&["-C", clone.to_str().unwrap(), "verify", "--format", "json"]);
    assert_eq!(bare.code, 1, "{}", bare.stdout);
    let v: serde_json::Value = serde_json::from_str(&bare.stdout).unwrap();
    assert_eq!(v["findings"][0]["code"], "ledger-missing", "{}", bare.stdout);
    let hint = "git fetch origin 'refs/pledge/*:refs/pledge/*'";
    assert!(
        r.stderr.contains(&format!(
            "hint: this repository has no refs/pledge/ledger; in a clone, fetch the published ledger with: {}",
            hint
        )),
        "{}",
        r.stderr
    );
    let f = env.git(&[
        "-C",
        clone.to_str().unwrap(),
        "fetch",
        "-q",
        "origin",
        "refs/pledge/*:refs/pledge/*",
    ]);
    assert_eq!(f.code, 0, "{}", f.stderr);
    let r = env.run(&["-C", clone.to_str().unwrap(), "verify", "p.toml"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("hint:"), "{}", r.stderr);
}

/// Under `--format json` an error is one JSON object on stderr with the fields of the
/// `error:` / `Caused by:` / `hint:` lines and the exit code; a usage error too.
#[test]
fn errors_are_json_under_format_json() {
    let env = Env::init();
    let r = env.run(&["verify", "missing.toml", "--format", "json"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    let v: serde_json::Value = serde_json::from_str(r.stderr.trim()).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .ends_with("missing.toml: no such file or directory"),
        "{}",
        v
    );
    // Said once, in the message: no cause repeats the operating system's words.
    assert_eq!(v["causes"], serde_json::json!([]));
    assert_eq!(v["hint"], serde_json::Value::Null);
    assert_eq!(v["exit_code"], 2);
    let u = env.run(&["report", "--format=json", "--bogus"]);
    assert_eq!(u.code, 2);
    let v: serde_json::Value = serde_json::from_str(u.stderr.trim()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "error": "unexpected argument '--bogus' found",
            "causes": [],
            "hint": null,
            "usage": "pledge report --format <FORMAT>",
            "exit_code": 2,
        })
    );
    // clap's tip is the hint, the usage line a field of its own, never the hint.
    let u = env.run(&["log", "--format", "json", "--sign-ke", "k"]);
    assert_eq!(u.code, 2);
    let v: serde_json::Value = serde_json::from_str(u.stderr.trim()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "error": "unexpected argument '--sign-ke' found",
            "causes": [],
            "hint": "a similar argument exists: '--sign-key'",
            "usage": "pledge log --format <FORMAT> --sign-key <KEY>",
            "exit_code": 2,
        })
    );
    // Without --format json the text form stays.
    let t = env.run(&["verify", "missing.toml"]);
    assert!(t.stderr.starts_with("error: "), "{}", t.stderr);
}

/// `pledge completions SHELL` and `pledge man` come from the clap definition.
#[test]
fn completions_and_man_page() {
    let env = Env::new();
    let b = env.run(&["completions", "bash"]);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(
        b.stdout.contains("_pledge()") && b.stdout.contains("complete -F _pledge"),
        "{}",
        b.stdout
    );
    let z = env.run(&["completions", "zsh"]);
    assert!(z.stdout.starts_with("#compdef pledge"), "{}", z.stdout);
    let f = env.run(&["completions", "fish"]);
    assert!(f.stdout.contains("complete -c pledge"), "{}", f.stdout);
    assert_eq!(env.run(&["completions", "tcsh"]).code, 2);
    let m = env.run(&["man"]);
    assert_eq!(m.code, 0);
    assert!(
        m.stdout.contains(".TH pledge 1") && m.stdout.contains("pledge\\-verify"),
        "{}",
        m.stdout
    );
    // --dir writes the pages pledge(1) refers to: itself and one per subcommand.
    let d = env.run(&["man", "--dir", "man/man1"]);
    assert_eq!(d.code, 0, "{}", d.stderr);
    let mut names: Vec<String> = std::fs::read_dir(env.join("man/man1"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let subcommands = [
        "amend",
        "analyze",
        "check",
        "compare",
        "completions",
        "components",
        "demo",
        "eval",
        "export",
        "fingerprint",
        "formats",
        "init",
        "log",
        "man",
        "new",
        "note",
        "power",
        "publish",
        "register",
        "report",
        "timestamp",
        "trace",
        "verify",
    ];
    let mut want: Vec<String> = subcommands.iter().map(|s| format!("pledge-{}.1", s)).collect();
    want.push("pledge.1".into());
    want.sort();
    assert_eq!(names, want);
    assert_eq!(
        d.stdout,
        format!("Wrote 24 man pages to {}\n", env.join("man/man1").display())
    );
    assert_eq!(
        std::fs::read_to_string(env.join("man/man1/pledge.1")).unwrap(),
        m.stdout
    );
    let v = std::fs::read_to_string(env.join("man/man1/pledge-verify.1")).unwrap();
    assert!(v.starts_with(".ie \\n(.g .ds Aq \\(aq"), "{}", &v[..80]);
    assert!(
        v.contains(".TH verify 1") || v.contains(".TH pledge-verify 1"),
        "{}",
        &v[..400]
    );
    // Every page pledge(1) names exists.
    for s in subcommands {
        assert!(
            m.stdout.contains(&format!("pledge\\-{}(1)", s)),
            "pledge(1) lacks {}",
            s
        );
    }
    // A file in the way: exit 2, naming the path, nothing written.
    env.write("afile", "x");
    let r = env.run(&["man", "--dir", "afile/man1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.starts_with(&format!(
            "error: creating the directory {}",
            env.join("afile/man1").display()
        )),
        "{}",
        r.stderr
    );
}

/// An append onto a ledger that fails verification is refused with the findings and a hint
/// (the verified-tip cache is keyed by the exact tip commit, so a rewritten ledger is checked
/// again); `note --despite-findings` records the failure in the ledger itself.
#[test]
fn appending_onto_a_failing_ledger_is_refused_unless_a_note_records_it() {
    let env = four_entries();
    // A clean append first: the tip is remembered as verified.
    ok(&env.run(&["note", "--reason", "before the edit"]));
    rewrite(&env, |repo, nodes| {
        let mut b = entry_json(repo, nodes[1].tree);
        let s = String::from_utf8(b.clone()).unwrap();
        let at = s.find("12:00:00Z").unwrap() + 7;
        b[at] = b'1'; // 12:00:00Z -> 12:00:01Z: the content no longer hashes to entry_sha256
        nodes[1].tree = with_entry(repo, nodes[1].tree, &b);
    });
    let before = env.git(&["rev-parse", "refs/pledge/ledger"]).stdout;
    let r = env.run(&["note", "--reason", "after the edit"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("error: the ledger fails verification")
            && r.stderr.contains("Caused by:")
            && r.stderr.contains("#2")
            && r.stderr.contains("--despite-findings"),
        "{}",
        r.stderr
    );
    assert_eq!(
        env.git(&["rev-parse", "refs/pledge/ledger"]).stdout,
        before,
        "nothing appended"
    );
    let r = env.run(&[
        "note",
        "--reason",
        "entry #2 was edited by hand; reported",
        "--despite-findings",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("appended onto a ledger that fails verification"),
        "{}",
        r.stderr
    );
    let e = json(&r.stdout);
    let recorded = e["summary"]["ledger_findings"].as_array().unwrap();
    assert!(
        !recorded.is_empty() && recorded.iter().all(|f| f.as_str().unwrap().contains(": ")),
        "{}",
        r.stdout
    );
    // Other appends stay refused.
    assert_eq!(env.run(&["note", "--reason", "again"]).code, 1);
}

/// An append whose clock is before the ledger's last entry is refused before anything is written
/// (it would leave the ledger failing `time-decreased` for good).
#[test]
fn an_append_dated_before_the_last_entry_is_refused() {
    let env = four_entries();
    let before = env.git(&["rev-parse", "refs/pledge/ledger"]).stdout;
    let r = env.run_env(
        &["note", "--reason", "back-dated"],
        &[("PLEDGE_NOW", "2020-01-01T00:00:00Z")],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("error: the clock says 2020-01-01T00:00:00Z, 2525 days (about 6.9 years) before the ledger's last entry #4 (2026-11-30T12:00:00Z): an entry dated earlier would break the order of times"),
        "{}",
        r.stderr
    );
    assert_eq!(env.git(&["rev-parse", "refs/pledge/ledger"]).stdout, before);
    ok(&verify_json(&env, &[]));
}

/// A file that is not a whole export is bad input (exit 2, the file and what was expected
/// named), not a list of findings: a file cut short, another file given by mistake, an empty one.
#[test]
fn a_cut_short_or_foreign_export_file_is_bad_input() {
    let env = four_entries();
    ok(&env.run(&["export", "ledger.jsonl"]));
    let text = std::fs::read_to_string(env.join("ledger.jsonl")).unwrap();
    let first_two = text.lines().take(2).map(|l| format!("{}\n", l)).collect::<String>();
    env.write(
        "cut.jsonl",
        format!("{}{}", first_two, &text.lines().nth(2).unwrap()[..300]),
    );
    let r = env.run(&["verify", "--ledger", "cut.jsonl"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        format!(
            "error: {}:3: the file ends inside this line's JSON, at column 300: it was cut short (expected the JSON Lines written by `pledge export`, one object per entry, each ending in a newline)\n\
             hint: export the ledger again (pledge export FILE), or copy the whole file\n",
            env.join("cut.jsonl").display()
        )
    );
    // The whole lines before the cut still verify as a (shorter) export.
    env.write("two.jsonl", &first_two);
    ok(&env.run(&["verify", "--ledger", "two.jsonl"]));
    // A protocol given where an export was meant.
    let r = env.run(&["verify", "--ledger", "a.toml"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert_eq!(
        r.stderr,
        format!(
            "error: {}: is not a ledger export: no line is a JSON object with \"format\": \"pledge-ledger-export/2\" (expected the JSON Lines written by `pledge export`, one object per entry)\n",
            env.join("a.toml").display()
        )
    );
    env.write("empty.jsonl", "\n");
    let r = env.run(&["verify", "--ledger", "empty.jsonl"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.ends_with("empty.jsonl: holds no ledger entry (expected the JSON Lines written by `pledge export`, one object per entry)\n"), "{}", r.stderr);
    // One edited line among good ones stays a finding (exit 1).
    let edited: String = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 1 {
                "{\"format\": 5}\n".to_string()
            } else {
                format!("{}\n", l)
            }
        })
        .collect();
    env.write("edited.jsonl", edited);
    let r = env.run(&["verify", "--ledger", "edited.jsonl", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        findings(&r).contains(&("malformed-entry".to_string(), None)),
        "{}",
        r.stdout
    );
}

/// A ledger ref naming a blob is a malformed ledger: a finding (exit 1), and appends are
/// refused, instead of a git error.
#[test]
fn a_ledger_ref_naming_a_blob_is_a_finding() {
    let env = Env::init();
    assert_eq!(env.run(&["note", "--reason", "first"]).code, 0);
    env.write("blob.txt", "not a commit\n");
    let blob = env.git(&["hash-object", "-w", "blob.txt"]);
    assert_eq!(blob.code, 0, "{}", blob.stderr);
    assert_eq!(env.git(&["update-ref", LEDGER_REF, blob.stdout.trim()]).code, 0);
    let v = env.run(&["verify"]);
    assert_eq!(v.code, 1, "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.contains("malformed-entry"), "{}", v.stdout);
    assert!(
        v.stdout.contains("the ledger names a blob, not a commit"),
        "{}",
        v.stdout
    );
    assert!(
        v.stdout.contains("(1 entry, tip "),
        "one entry, in the singular: {}",
        v.stdout
    );
    let n = env.run(&["note", "--reason", "second"]);
    assert_eq!(n.code, 1, "{}", n.stderr);
    assert!(n.stderr.contains("the ledger fails verification"), "{}", n.stderr);
}

/// `log`'s output (human and JSON), with every cache of `.git/pledge/` removed first.
fn log_without_caches(env: &Env) -> (String, String) {
    let _ = std::fs::remove_dir_all(env.join(".git/pledge"));
    let (h, j) = (env.run(&["log"]), env.run(&["log", "--format", "json"]));
    ok(&h);
    ok(&j);
    (h.stdout, j.stdout)
}

/// `log`'s output (human and JSON) as it is now, caches and all.
fn log_now(env: &Env) -> (String, String) {
    let (h, j) = (env.run(&["log"]), env.run(&["log", "--format", "json"]));
    ok(&h);
    ok(&j);
    (h.stdout, j.stdout)
}

/// `log` through its cache (`.git/pledge/log-cache`, written by the first `log`) prints the same
/// bytes as `log` without one, in both formats, and again after an append adds to the cache.
#[test]
fn log_through_its_cache_prints_what_log_without_it_prints() {
    let env = four_entries();
    let cache = env.join(".git/pledge/log-cache");
    let plain = log_without_caches(&env);
    assert!(cache.is_file(), "the first log writes the cache");
    assert_eq!(json(&plain.1).as_array().unwrap().len(), 4);
    assert_eq!(log_now(&env), plain);
    ok(&env.run(&["note", "--reason", "after the cache"]));
    let before = std::fs::metadata(&cache).unwrap().len();
    let after_append = log_now(&env);
    assert!(
        std::fs::metadata(&cache).unwrap().len() > before,
        "the new entry is added"
    );
    assert_eq!(log_now(&env), after_append);
    assert_eq!(log_without_caches(&env), after_append);
    assert!(after_append.0.contains("reason: after the cache"), "{}", after_append.0);
}

/// A log cache that does not describe the ledger is ignored, whatever is in it: one whose
/// cached entry was edited (the same length, so only the object ids tell), one of another
/// ledger, one cut short, and one of a ledger that was rewritten; `log` then prints the
/// ledger's own entries, and `verify` never reads the cache.
#[test]
fn a_tampered_foreign_or_stale_log_cache_is_ignored() {
    let env = four_entries();
    let cache = env.join(".git/pledge/log-cache");
    let plain = log_without_caches(&env);
    let good = std::fs::read(&cache).unwrap();
    // Tampered: the note's reason edited in place.
    let at = good
        .windows(24)
        .position(|w| w == b"first look at dev scores")
        .expect("the cache holds the note");
    let mut edited = good.clone();
    edited[at..at + 24].copy_from_slice(b"FIRST LOOK AT TEST SCORE");
    std::fs::write(&cache, &edited).unwrap();
    assert_eq!(log_now(&env), plain);
    assert!(!log_now(&env).0.contains("TEST SCORE"));
    std::fs::write(&cache, &edited).unwrap();
    ok(&verify_json(&env, &[]));
    // Foreign: the cache of another ledger.
    let other = Env::init();
    ok(&other.run(&["note", "--reason", "another ledger"]));
    let _ = log_without_caches(&other);
    std::fs::copy(other.join(".git/pledge/log-cache"), &cache).unwrap();
    assert_eq!(log_now(&env), plain);
    // Cut short, and garbage.
    std::fs::write(&cache, &good[..good.len() - 1]).unwrap();
    assert_eq!(log_now(&env), plain);
    std::fs::write(&cache, b"pledge log cache 1\nnot a record").unwrap();
    assert_eq!(log_now(&env), plain);
    // Stale: the ledger rewritten with the last entry dropped, the cache still of the old tip.
    std::fs::write(&cache, &good).unwrap();
    rewrite(&env, |_, nodes| {
        nodes.pop();
    });
    let rewritten = log_now(&env);
    assert_eq!(json(&rewritten.1).as_array().unwrap().len(), 3);
    assert_eq!(log_without_caches(&env), rewritten);
}
