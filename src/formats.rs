//! The input formats pledge reads, for `pledge formats` and the book's input-format reference
//! table: each with its name (as `--input-format` takes it, where forcing applies), what it reads,
//! how it is detected, and the command a user runs.
//!
//! Compression (gzip, zstd, bzip2, xz) is recognised by content for every format, and `-` reads
//! standard input where the command allows it (see [`crate::input`]).

use serde::Serialize;

/// Which readers a format feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Per-topic scores (`--scores`, `power --pilot`).
    Scores,
    /// TREC-style runs (`--run`, `pledge eval`).
    Run,
    /// Relevance judgments (`--qrels`, `pledge eval`).
    Qrels,
    /// Passages for `pledge components` (`--passages`).
    Passages,
    /// Candidate questions for `pledge components` (`--questions`).
    Questions,
}

/// One format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Format {
    /// Short name; for score formats the name `--input-format` takes.
    pub name: &'static str,
    /// The reader it feeds.
    pub role: Role,
    /// The tool that writes it and what the file holds.
    pub reads: &'static str,
    /// How pledge recognises it.
    pub detected: &'static str,
    /// The command a user runs (placeholders in capitals).
    pub command: &'static str,
}

/// Every format pledge reads, scores first, then runs, qrels, passages and questions.
pub fn formats() -> &'static [Format] {
    FORMATS
}

const FORMATS: &[Format] = &[
    Format {
        name: "trec-eval",
        role: Role::Scores,
        reads: "trec_eval -q output (measure, topic, value); pledge eval --format trec",
        detected: "3 tab-separated fields, numeric third; a `runid` row or `all` in the second field",
        command: "pledge compare --scores RUN.q.txt --scores RUN2.q.txt --measure map",
    },
    Format {
        name: "ir-measures",
        role: Role::Scores,
        reads: "ir_measures QRELS RUN MEASURES -q (query_id, measure, value; `all` rows)",
        detected: "3 tab-separated fields, numeric third; `all` in the first field or `@` in measure names",
        command: "pledge compare --scores A.tsv --scores B.tsv --measure nDCG@10",
    },
    Format {
        name: "json-table",
        role: Role::Scores,
        reads: "ir_measures -q -o jsonl ({query_id, measure, value}); Hugging Face `to_json` wide JSON Lines",
        detected: "JSON Lines or a JSON array of flat objects (no `doc_id`, no `topic`+`system`)",
        command: "pledge compare --scores A.jsonl --scores B.jsonl --measure nDCG@10",
    },
    Format {
        name: "pytrec-eval",
        role: Role::Scores,
        reads: "json.dump(pytrec_eval.RelevanceEvaluator(...).evaluate(run)): {query: {measure: value}}",
        detected: "one JSON object of objects of numbers, the same keys for every query",
        command: "pledge compare --scores A.json --scores B.json --measure ndcg_cut_10",
    },
    Format {
        name: "delimited",
        role: Role::Scores,
        reads: "CSV/TSV/;-separated: long (topic, system, score), wide (topic + one column per system), \
                one system per file (--column), or topic/measure/value (PyTerrier Experiment(perquery=True).to_csv)",
        detected: "anything else with a header row; delimiter from the header (tab, `;` without `,`, else `,`)",
        command: "pledge compare --scores results.csv  |  --scores glm.csv --scores kimi.csv --column f1  |  --scores pyterrier.csv --measure nDCG@10",
    },
    Format {
        name: "jsonl",
        role: Role::Scores,
        reads: "pledge's JSON Lines {topic, system, score}",
        detected: "JSON Lines whose first object has `topic` and `system` or `score`",
        command: "pledge compare --scores scores.jsonl",
    },
    Format {
        name: "parquet",
        role: Role::Scores,
        reads: "Parquet tables (pandas / Hugging Face datasets `to_parquet`) and Hugging Face `Dataset.save_to_disk` \
                Arrow IPC streams (`data-00000-of-00001.arrow`) in any table layout above",
        detected: "magic bytes `PAR1`; an Arrow stream's continuation marker `ff ff ff ff`",
        command: "pledge compare --scores results.parquet [--column NAME]  |  --scores DIR/data-00000-of-00001.arrow",
    },
    Format {
        name: "lm-eval",
        role: Role::Scores,
        reads: "lm-evaluation-harness --log_samples: OUTPUT/MODEL/samples_TASK_DATE.jsonl (doc_id, filter, metric fields)",
        detected: "JSON Lines whose first object has `doc_id` and `filter` or `doc`",
        command: "pledge compare --scores out/MODEL_A/samples_TASK.jsonl --scores out/MODEL_B/samples_TASK.jsonl --measure exact_match --filter strict-match",
    },
    Format {
        name: "inspect-eval",
        role: Role::Scores,
        reads: "inspect_ai .eval logs (ZIP: header.json, samples/, reductions.json); values as the log's scorer reduced them",
        detected: "ZIP magic bytes `PK` with a header.json member",
        command: "pledge compare --scores logs/A.eval --scores logs/B.eval --measure match",
    },
    Format {
        name: "inspect-json",
        role: Role::Scores,
        reads: "inspect_ai .json logs (--log-format json)",
        detected: "one JSON object with `version`, `eval` and `samples` or `results`",
        command: "pledge compare --scores logs/A.json --scores logs/B.json --measure match",
    },
    Format {
        name: "helm",
        role: Role::Scores,
        reads: "HELM benchmark_output/runs/SUITE/RUN/per_instance_stats.json",
        detected: "a JSON array of objects with `instance_id` and `stats`",
        command: "pledge compare --scores runs/S/RUN_A/per_instance_stats.json --scores runs/S/RUN_B/per_instance_stats.json --measure exact_match",
    },
    Format {
        name: "promptfoo",
        role: Role::Scores,
        reads: "promptfoo eval -o out.json / out.jsonl / out.csv (one system per prompt and provider: `[PROVIDER] PROMPT`)",
        detected: "JSON with `evalId` and `results.results`; JSON Lines with `promptIdx` and `testIdx`; CSV with `[..]`, Status, Score columns",
        command: "pledge compare --scores out.json  (--measure pass for pass/fail, or a named score)",
    },
    Format {
        name: "ranx-scores",
        role: Role::Scores,
        reads: "ranx per-query scores: json.dump(run.scores) after evaluate() ({metric: {query: value}})",
        detected: "a JSON object whose keys are measure names and whose inner keys are not",
        command: "pledge compare --scores a.json=A --scores b.json=B --measure ndcg@10",
    },
    Format {
        name: "inspect-samples",
        role: Role::Scores,
        reads: "inspect_ai samples_df(logs) saved with to_csv / to_parquet (id, epoch, score_SCORER; model when asked); epochs averaged",
        detected: "a table with `sample_id`, `id`, `epoch` and a `score_` column (read as delimited or parquet)",
        command: "pledge compare --scores samples.csv --measure match",
    },
    Format {
        name: "trec-run",
        role: Role::Run,
        reads: "TREC run: qid Q0 docno rank score tag",
        detected: "text that is not JSON",
        command: "pledge eval QRELS RUN...  |  pledge compare --qrels QRELS --run RUN --run RUN2",
    },
    Format {
        name: "ranx-run",
        role: Role::Run,
        reads: "ranx Run.save(\"run.json\") / (\"run.parquet\") / (\"run.lz4\"): {query: {doc: score}} / q_id, doc_id, score / CBOR in LZ4",
        detected: "a JSON object (first character `{`), Parquet or LZ4 frame magic bytes",
        command: "pledge eval qrels.json run.json",
    },
    Format {
        name: "msmarco-run",
        role: Role::Run,
        reads: "MS MARCO run (Anserini/pyserini --output-format msmarco): qid docid rank; score 1/rank",
        detected: "3 fields on the first line, the third a positive integer",
        command: "pledge eval qrels.dev.tsv run.dev.tsv -m recip_rank_cut_10",
    },
    Format {
        name: "trec-qrels",
        role: Role::Qrels,
        reads: "TREC qrels: qid iter docno rel (4 fields)",
        detected: "4 fields on the first line",
        command: "pledge eval qrels.txt RUN",
    },
    Format {
        name: "beir-qrels",
        role: Role::Qrels,
        reads: "BEIR qrels/SPLIT.tsv: query-id corpus-id score (3 fields, header optional)",
        detected: "3 fields on the first line",
        command: "pledge eval qrels/test.tsv RUN",
    },
    Format {
        name: "ranx-qrels",
        role: Role::Qrels,
        reads: "ranx Qrels.save(\"qrels.json\") / (\"qrels.parquet\")",
        detected: "a JSON object, or Parquet magic bytes",
        command: "pledge eval qrels.json run.json",
    },
    Format {
        name: "pledge-passages",
        role: Role::Passages,
        reads: "JSON Lines / JSON array / Parquet of {id | _id | title, text, ...}; BEIR corpus.jsonl (_id)",
        detected: "records with `text`",
        command: "pledge components PROTOCOL --passages corpus.jsonl --questions QUESTIONS",
    },
    Format {
        name: "pledge-questions",
        role: Role::Questions,
        reads: "JSON Lines {id, passages?, decoys?, ...}; questions without passages are their own units",
        detected: "records without `context` or `paragraphs`",
        command: "pledge components PROTOCOL --questions questions.jsonl [--passages passages.jsonl]",
    },
    Format {
        name: "beir",
        role: Role::Questions,
        reads: "BEIR queries.jsonl joined with qrels/SPLIT.tsv (relevant documents are the passages)",
        detected: "pledge questions given together with qrels",
        command: "pledge components PROTOCOL --passages corpus.jsonl --questions queries.jsonl --qrels qrels/test.tsv",
    },
    Format {
        name: "hotpotqa",
        role: Role::Questions,
        reads: "HotpotQA distractor files and original 2WikiMultihopQA files (context: [[title, [sentences]]])",
        detected: "`context` (a list) and `supporting_facts`",
        command: "pledge components PROTOCOL --questions hotpot_dev_distractor_v1.json",
    },
    Format {
        name: "hotpotqa-hub",
        role: Role::Questions,
        reads: "Hugging Face hub hotpot_qa and 2WikiMultihopQA schema (context: {title, sentences | content})",
        detected: "`context` (an object) and `supporting_facts`",
        command: "pledge components PROTOCOL --questions validation.parquet",
    },
    Format {
        name: "musique",
        role: Role::Questions,
        reads: "MuSiQue (paragraphs: [{title, paragraph_text, is_supporting}])",
        detected: "`paragraphs`",
        command: "pledge components PROTOCOL --questions musique_ans_v1.0_dev.jsonl",
    },
];

/// The formats as a Markdown table (`| format | reads | detected by | command |`), for the
/// book (`docs/reference/formats.md`) and `pledge formats`. Pipes inside cells are escaped.
pub fn markdown_table() -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = String::from("| format | reads | detected by | command |\n|---|---|---|---|\n");
    for f in FORMATS {
        out.push_str(&format!(
            "| `{}` | {} | {} | `{}` |\n",
            f.name,
            esc(f.reads),
            esc(f.detected),
            esc(f.command)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_score_format_is_listed_and_named_as_input_format_takes_it() {
        for f in crate::scores::ScoreFormat::ALL {
            let listed = formats().iter().find(|x| x.name == f.name());
            assert!(listed.is_some_and(|x| x.role == Role::Scores), "{:?}", f);
            assert_eq!(crate::scores::ScoreFormat::from_name(f.name()).unwrap(), f);
        }
        let names: std::collections::HashSet<_> = formats().iter().map(|f| f.name).collect();
        assert_eq!(names.len(), formats().len(), "names are unique");
        assert_eq!(markdown_table().lines().count(), formats().len() + 2);
    }
}
