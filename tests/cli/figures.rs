//! The report for people: many systems lead with a ranking table, long run names are shortened
//! once with a key, figures that carry no information are left out, and the HTML page draws
//! the components' flowchart as an SVG (never Mermaid source).
//!
//! The many-systems study is real data: the per-topic average precision of the 17 TREC 2003
//! Robust track runs in tests/data/trec/robust03_te10/ (trec_eval 10.0 `-q -m all_trec` on the
//! full qrels; see that folder's PROVENANCE), 100 topics, one column per run.

use crate::common::{data, Env};
use std::io::Read;

/// Runs by name, each with its `(topic, AP)` values.
type Runs = Vec<(String, Vec<(String, f64)>)>;

/// The 17 runs' per-topic AP: `(system name, [(topic, AP)])`, runs in file-name order, each
/// system named as its run file is found in the collection: `robust03/runs/input.TAG`.
fn robust03_ap() -> Runs {
    let dir = data("trec/robust03_te10");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".te10.gz") && !n.contains(".extra."))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let mut text = String::new();
            flate2::read::GzDecoder::new(std::fs::File::open(dir.join(f)).unwrap())
                .read_to_string(&mut text)
                .unwrap();
            let ap: Vec<(String, f64)> = text
                .lines()
                .filter_map(|l| {
                    let cells: Vec<&str> = l.split_whitespace().collect();
                    match cells.as_slice() {
                        ["map", topic, v] if *topic != "all" => Some((topic.to_string(), v.parse().unwrap())),
                        _ => None,
                    }
                })
                .collect();
            let tag = f.trim_end_matches(".te10.gz");
            (format!("robust03/runs/{}", tag), ap)
        })
        .collect()
}

/// A fresh environment with the 17 runs' per-topic AP in `ap.csv` (one column per run).
fn robust03_env() -> (Env, Runs) {
    let runs = robust03_ap();
    assert_eq!(runs.len(), 17);
    let env = Env::init();
    let mut csv = format!(
        "question,{}\n",
        runs.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join(",")
    );
    for (i, (topic, _)) in runs[0].1.iter().enumerate() {
        let row: Vec<String> = runs
            .iter()
            .map(|r| {
                assert_eq!(&r.1[i].0, topic);
                r.1[i].1.to_string()
            })
            .collect();
        csv.push_str(&format!("{},{}\n", topic, row.join(",")));
    }
    env.write("ap.csv", csv);
    (env, runs)
}

/// Registers and analyzes the 17-run study (every pair compared, randomized Tukey HSD) and
/// writes its report with the HTML page; returns the environment, the runs and the Markdown.
fn many_systems() -> (Env, Runs, String) {
    let (env, runs) = robust03_env();
    let systems: Vec<String> = runs.iter().map(|r| format!("\"{}\"", r.0)).collect();
    env.write(
        "robust.toml",
        format!(
            "schema-version = 2\n\n[study]\nid = \"robust03-runs\"\ntitle = \"Which TREC 2003 Robust runs differ in AP?\"\n\
registered-by = \"pledge tests\"\n\n[target]\nmetric = \"AP\"\nscale = \"fraction\"\nmde = 0.05\nsd = 0.15\n\n\
[scores]\nlayout = \"wide\"\n\n[analysis]\nseed = 7\ntrials = 2000\nrandomization-trials = 2000\n\
systems = [{}]\nadjust = \"tukey-hsd\"\n",
            systems.join(", ")
        ),
    );
    assert_eq!(env.run(&["register", "robust.toml"]).code, 0);
    let r = env.run(&["analyze", "robust.toml", "--scores", "ap.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = env.run(&["report", "--out", "report", "--html", "report/report.html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let md = std::fs::read_to_string(env.join("report/report.md")).unwrap();
    (env, runs, md)
}

/// The Markdown from `## Summary` up to the next section.
fn summary_section(md: &str) -> &str {
    let start = md.find("## Summary").unwrap();
    let end = start + md[start..].find("\n## Power").unwrap();
    &md[start..end]
}

#[test]
fn seventeen_runs_lead_with_a_ranking_and_shorten_names_once() {
    let (env, runs, md) = many_systems();
    // The ranking, by the mean AP computed here from trec_eval's per-topic values (trec_eval's
    // own `all` map is that mean), highest first.
    let mut means: Vec<(String, f64)> = runs
        .iter()
        .map(|(name, ap)| (name.clone(), ap.iter().map(|x| x.1).sum::<f64>() / ap.len() as f64))
        .collect();
    means.sort_by(|a, b| b.1.total_cmp(&a.1));
    let summary = summary_section(&md);
    let rows: Vec<Vec<&str>> = summary
        .lines()
        .filter(|l| l.starts_with("| ") && l.split('|').count() == 9)
        .skip(1)
        .map(|l| l.split('|').map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rows.len(), 17, "{}", summary);
    for (i, (row, (full, mean))) in rows.iter().zip(&means).enumerate() {
        assert_eq!(row[0], (i + 1).to_string(), "{:?}", row);
        // The common prefix `robust03/runs/input.` is removed: the short name is the run tag.
        assert_eq!(row[1], full.trim_start_matches("robust03/runs/input."), "{:?}", row);
        assert_eq!(row[2], format!("{:.4}", mean), "{:?}", row);
        assert!(row[3].starts_with('[') && row[3].ends_with(']'), "{:?}", row);
        // The rank interval holds the rank; P(rank 1) is a share.
        let (best, worst) = row[4].split_once('–').unwrap();
        let (best, worst): (f64, f64) = (best.parse().unwrap(), worst.parse().unwrap());
        assert!(best <= (i + 1) as f64 && (i + 1) as f64 <= worst, "{:?}", row);
        let p: f64 = row[5].parse().unwrap();
        assert!((0.0..=1.0).contains(&p), "{:?}", row);
    }
    let shares: f64 = rows.iter().map(|r| r[5].parse::<f64>().unwrap()).sum();
    assert!((shares - 1.0).abs() < 0.01, "{}", shares);
    // The Tukey group column is the compact letter display, the same as the groups line under
    // Results: not a transitive closure that puts everything but the top in one group, so the
    // best and the worst share no letter.
    let groups = md.lines().find(|l| l.starts_with("Tukey groups at α = 0.05")).unwrap();
    let entries: Vec<&str> = groups
        .rsplit_once("): ")
        .unwrap()
        .1
        .trim_end_matches('.')
        .split("; ")
        .collect();
    let listed: Vec<String> = rows.iter().map(|r| format!("{} {}", r[1], r[6])).collect();
    assert_eq!(entries, listed, "{}", groups);
    let (top, bottom) = (rows[0][6], rows[16][6]);
    assert!(!top.chars().any(|c| bottom.contains(c)), "{} {}", top, bottom);
    // The key maps every short name to its full name, once.
    for (full, _) in &means {
        let short = full.trim_start_matches("robust03/runs/input.");
        assert_eq!(
            md.matches(&format!("| {} | `{}` |", short, full)).count(),
            1,
            "{}",
            full
        );
    }
    // The full names appear nowhere else but in the key and the sentence that says what the
    // shortening removed.
    let outside_key = md
        .lines()
        .filter(|l| l.contains("robust03/runs/") && !l.ends_with("` |") && !l.starts_with("System names are shortened"))
        .count();
    assert_eq!(outside_key, 0, "{}", md);
    // One screen: the summary and its table come before any pairwise row, within 80 lines.
    let ranking_end = md.find("Ranked by mean, highest first").unwrap();
    assert!(md[..ranking_end].lines().count() < 80, "{}", &md[..ranking_end]);
    let first_pair = md.find(" − ").unwrap();
    assert!(first_pair > ranking_end);
    assert!(
        summary.contains("- 136 pairwise comparisons are under Results."),
        "{}",
        summary
    );
    // 136 comparisons and no hypothesis: no bootstrap picture, said in one line.
    assert!(md.contains(
        "Bootstrap pictures are drawn for the comparisons a registered hypothesis names only: with 17 systems and 136 comparisons, the tables above give every interval."
    ));
    let svgs = std::fs::read_dir(env.join("report"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "svg"))
        .count();
    assert_eq!(svgs, 0);
    // The power table gives the detectable differences as one range, not 136 entries.
    let power = md
        .lines()
        .find(|l| l.starts_with("| Detectable difference achieved"))
        .unwrap();
    assert!(power.contains("over 136 comparisons"), "{}", power);
    assert!(power.len() < 400, "{}", power);
    // The report is what the ledger gives, byte for byte, the HTML page too.
    let r = env.run(&["verify", "--report", "report"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = env.run(&["verify", "--report", "report/report.html"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

/// `compare` on the 17 runs leads with the ranking (rank, estimate, intervals, rank interval,
/// P(rank 1), Tukey group) in one screen: fewer than 30 lines before the first pairwise block,
/// ranked by the means computed here; the screen is pinned.
#[test]
fn compare_on_seventeen_runs_leads_with_a_one_screen_ranking() {
    let (env, runs) = robust03_env();
    // compare reads the topic column by its name `topic`.
    let csv = std::fs::read_to_string(env.join("ap.csv")).unwrap();
    env.write("ap.csv", csv.replacen("question,", "topic,", 1));
    let r = env.run(&[
        "compare",
        "--scores",
        "ap.csv",
        "--trials",
        "2000",
        "--randomization-trials",
        "2000",
        "--adjust",
        "tukey-hsd",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first_pair = r.stdout.find("  (difference ").unwrap();
    let screen = &r.stdout[..first_pair];
    let screen = &screen[..screen.rfind('\n').unwrap()];
    assert!(screen.lines().count() < 30, "{}", screen);
    let mut means: Vec<(String, f64)> = runs
        .iter()
        .map(|(name, ap)| (name.clone(), ap.iter().map(|x| x.1).sum::<f64>() / ap.len() as f64))
        .collect();
    means.sort_by(|a, b| b.1.total_cmp(&a.1));
    let rows: Vec<Vec<&str>> = screen
        .lines()
        .filter(|l| l.contains("robust03/runs/"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 17, "{}", screen);
    for (i, (row, (name, mean))) in rows.iter().zip(&means).enumerate() {
        assert_eq!(row[0], (i + 1).to_string(), "{:?}", row);
        assert_eq!(row[1], name, "{:?}", row);
        assert_eq!(row[2], format!("{:.4}", mean), "{:?}", row);
    }
    insta::assert_snapshot!("compare_seventeen_runs_ranking", screen);
    // --format json carries the ranking: 17 systems, P(rank 1) summing to 1.
    let r = env.run(&[
        "compare",
        "--scores",
        "ap.csv",
        "--trials",
        "500",
        "--randomization-trials",
        "100",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let ranked = v["ranking"]["systems"].as_array().unwrap();
    assert_eq!(ranked.len(), 17);
    let total: f64 = ranked.iter().map(|s| s["p_first"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "{}", total);
    assert_eq!(v["ranking"]["trials"], 500);
}

/// The many-systems summary as a snapshot: ranking, key, and the pointer to the pairwise detail.
#[test]
fn many_systems_summary_snapshot() {
    let (_env, _runs, md) = many_systems();
    insta::assert_snapshot!("many_systems_summary", summary_section(&md));
}

/// The demo's report: six long agent names shortened once (the common suffix `_trial1` removed,
/// the two longest cut), the one-bar histogram of component sizes left out with one line, and
/// the HTML page drawing the flowchart with no Mermaid source in it.
#[test]
fn demo_report_shortens_names_drops_the_one_bar_histogram_and_draws_the_flowchart() {
    let env = Env::new();
    assert_eq!(env.run(&["demo", "demo"]).code, 0);
    let md = std::fs::read_to_string(env.join("demo/report/report.md")).unwrap();
    assert!(
        md.contains("| cot_context_gpt-3.5-tur… | `cot_context_gpt-3.5-turbo_trial1` |"),
        "{}",
        md
    );
    assert!(
        md.contains("| cot_context_HEAD_reflex… | `cot_context_HEAD_reflexion_trial1` |"),
        "{}",
        md
    );
    assert!(md.contains("| gpt-4 beats gpt-3.5-turbo (cot_context_gpt-4 − cot_context_gpt-3.5-tur…) |"));
    assert!(md.contains(
        "No histogram of component sizes: all 100 components hold 1 candidate question, so it would have one bar."
    ));
    assert!(!env.join("demo/report/component-sizes.svg").exists());
    assert!(!md.contains("component-sizes.svg"));
    // Markdown keeps the Mermaid block (GitHub draws it); the HTML page draws it as an SVG.
    assert!(md.contains("```mermaid\nflowchart TB\n"));
    let r = env.sh("demo", "pledge report --out report --html report/report.html");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(env.join("demo/report/report.html")).unwrap();
    assert!(!html.contains("flowchart TB"), "raw Mermaid in the HTML page");
    assert!(!html.contains("language-mermaid"));
    let svg_start = html.find("<svg role=\"img\" aria-label=\"diagram\"").unwrap();
    let svg = &html[svg_start..svg_start + html[svg_start..].find("</svg>").unwrap() + 6];
    let doc = roxmltree::Document::parse(svg).unwrap();
    let class = |c: &str| doc.descendants().filter(|n| n.attribute("class") == Some(c)).count();
    // Four steps (no rule, then three link rules) and the three arrows between them.
    assert_eq!((class("node"), class("edge")), (4, 3));
    let text: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tspan"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        text,
        [
            "100 candidate questions",
            "identical paragraphs",
            "899 components (100 with candidates)",
            "plus near-identical paragraphs",
            "898 components (100 with candidates)",
            "plus shared distractors",
            "100 components (100 with candidates)"
        ]
    );
}
