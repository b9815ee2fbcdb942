//! The multi-hop QA layouts mapped to passages (see [`super::read`] for the mapping): HotpotQA
//! (and the original 2WikiMultihopQA files), the Hugging Face hub schema of `hotpot_qa` and
//! 2WikiMultihopQA, and MuSiQue.

use super::read::Layout;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A paragraph of a question: (title = passage id, text, supporting?).
pub type Paragraph = (String, String, bool);

/// The question id and paragraphs of a HotpotQA or MuSiQue record; `err` builds a located error.
pub fn paragraphs(
    m: &Map<String, Value>,
    layout: Layout,
    _line: usize,
    err: impl Fn(String) -> Error,
) -> Result<(String, Vec<Paragraph>)> {
    match layout {
        Layout::Hotpotqa => hotpotqa(m, &err),
        Layout::HotpotqaHub => hub(m, &err),
        _ => musique(m, &err),
    }
}

fn hotpotqa(m: &Map<String, Value>, err: &impl Fn(String) -> Error) -> Result<(String, Vec<Paragraph>)> {
    let id = match m.get("_id").or_else(|| m.get("id")) {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(err("missing `_id` (HotpotQA layout)".into())),
    };
    let mut support = HashSet::new();
    if let Some(Value::Array(facts)) = m.get("supporting_facts") {
        for f in facts {
            match f.get(0) {
                Some(Value::String(t)) => {
                    support.insert(t.clone());
                }
                _ => return Err(err("`supporting_facts` must hold [title, sentence index] pairs".into())),
            }
        }
    }
    let ctx = match m.get("context") {
        Some(Value::Array(c)) => c,
        _ => return Err(err("`context` must be a list of [title, [sentences]]".into())),
    };
    let mut out = Vec::with_capacity(ctx.len());
    for p in ctx {
        let (title, sents) = match (p.get(0), p.get(1)) {
            (Some(Value::String(t)), Some(Value::Array(s))) => (t, s),
            _ => return Err(err("`context` entries must be [title, [sentences]]".into())),
        };
        let mut text = String::new();
        for s in sents {
            match s {
                Value::String(s) => text.push_str(s),
                _ => return Err(err(format!("paragraph `{}`: sentences must be strings", title))),
            }
        }
        out.push((title.clone(), text, support.contains(title)));
    }
    Ok((id, out))
}

fn musique(m: &Map<String, Value>, err: &impl Fn(String) -> Error) -> Result<(String, Vec<Paragraph>)> {
    let id = match m.get("id").or_else(|| m.get("_id")) {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(err("missing `id` (MuSiQue layout)".into())),
    };
    let paras = match m.get("paragraphs") {
        Some(Value::Array(p)) => p,
        _ => return Err(err("`paragraphs` must be a list".into())),
    };
    let mut out = Vec::with_capacity(paras.len());
    for p in paras {
        let title = p.get("title").and_then(Value::as_str);
        let text = p.get("paragraph_text").and_then(Value::as_str);
        let sup = p.get("is_supporting").and_then(Value::as_bool).unwrap_or(false);
        match (title, text) {
            (Some(t), Some(x)) => out.push((t.to_string(), x.to_string(), sup)),
            _ => return Err(err("`paragraphs` entries need `title` and `paragraph_text`".into())),
        }
    }
    Ok((id, out))
}

/// The hub schema: `context: {title: [..], sentences | content: [[..]]}`, `supporting_facts:
/// {title: [..], sent_id: [..]}`; the id is `id` (hotpot_qa) or `_id` (2WikiMultihopQA).
fn hub(m: &Map<String, Value>, err: &impl Fn(String) -> Error) -> Result<(String, Vec<Paragraph>)> {
    let id = match m.get("id").or_else(|| m.get("_id")) {
        Some(Value::String(s)) => s.clone(),
        _ => {
            return Err(err(
                "missing `id` (Hugging Face hotpot_qa / 2WikiMultihopQA schema)".into()
            ))
        }
    };
    let strings = |v: Option<&Value>, what: &str| -> Result<Vec<String>> {
        match v {
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| err(format!("`{}` must hold strings", what)))
                })
                .collect(),
            None | Some(Value::Null) => Ok(vec![]),
            _ => Err(err(format!("`{}` must be a list of strings", what))),
        }
    };
    let support: HashSet<String> = match m.get("supporting_facts") {
        Some(Value::Object(f)) => strings(f.get("title"), "supporting_facts.title")?.into_iter().collect(),
        Some(Value::Array(facts)) => facts
            .iter()
            .filter_map(|f| {
                f.get(0)
                    .or_else(|| f.get("title"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect(),
        _ => HashSet::new(),
    };
    let ctx = match m.get("context") {
        Some(Value::Object(c)) => c,
        _ => return Err(err("`context` must be {title: [...], sentences: [[...]]}".into())),
    };
    let titles = strings(ctx.get("title"), "context.title")?;
    let sents = match ctx.get("sentences").or_else(|| ctx.get("content")) {
        Some(Value::Array(s)) => s,
        _ => {
            return Err(err(
                "`context` needs `sentences` (hotpot_qa) or `content` (2WikiMultihopQA)".into(),
            ))
        }
    };
    if sents.len() != titles.len() {
        return Err(err(format!(
            "`context` has {} titles but {} sentence lists",
            titles.len(),
            sents.len()
        )));
    }
    let mut out = Vec::with_capacity(titles.len());
    for (title, s) in titles.into_iter().zip(sents) {
        let mut text = String::new();
        for x in s.as_array().into_iter().flatten() {
            match x {
                Value::String(x) => text.push_str(x),
                _ => return Err(err(format!("paragraph `{}`: sentences must be strings", title))),
            }
        }
        let sup = support.contains(&title);
        out.push((title, text, sup));
    }
    Ok((id, out))
}

#[cfg(test)]
mod tests {
    use crate::components::read::{read_corpus_inputs, Layout};
    use crate::input::{Input, Limits};

    /// The 2WikiMultihopQA hub schema names the sentences `content` (hotpot_qa: `sentences`).
    #[test]
    fn two_wiki_hub_schema() {
        let line = r#"{"_id": "w1", "type": "compositional", "question": "Who?", "context": {"title": ["A", "B", "C"], "content": [["A is ", "x."], ["B is y."], ["C is z."]]}, "supporting_facts": {"title": ["A", "B"], "sent_id": [0, 0]}, "evidences": {"fact": ["A"], "relation": ["r"], "entity": ["B"]}, "answer": "y"}"#;
        let q = Input::from_bytes("dev.jsonl", format!("{}\n", line).into_bytes(), Limits::default()).unwrap();
        let (c, layout) = read_corpus_inputs(None, &q, None).unwrap();
        assert_eq!(layout, Layout::HotpotqaHub);
        assert_eq!(c.passages.len(), 3);
        assert_eq!(c.texts.get(0).unwrap(), "A is x.");
        let qu = &c.questions[0];
        assert_eq!((qu.id.as_str(), qu.passages.len(), qu.decoys.len()), ("w1", 2, 1));
        assert_eq!(qu.fields.get("type").map(String::as_str), Some("compositional"));
        let bad = line.replace(r#"["B is y."], "#, "");
        let q = Input::from_bytes("dev.jsonl", bad.into_bytes(), Limits::default()).unwrap();
        let e = read_corpus_inputs(None, &q, None).unwrap_err();
        assert!(
            e.message
                .contains("dev.jsonl:1: `context` has 3 titles but 2 sentence lists"),
            "{}",
            e.message
        );
    }

    /// BEIR's corpus is keyed by `_id`: two documents titled `Paris` are two passages.
    #[test]
    fn beir_corpus_is_keyed_by_underscore_id() {
        let text = "{\"_id\": \"d1\", \"title\": \"Paris\", \"text\": \"Capital.\", \"metadata\": {}}\n{\"_id\": \"d2\", \"title\": \"Paris\", \"text\": \"A city in Texas.\", \"metadata\": {}}\n";
        let i = Input::from_bytes("corpus.jsonl", text.as_bytes().to_vec(), Limits::default()).unwrap();
        let p = crate::components::read::read_passages_input(&i).unwrap();
        assert_eq!(
            p.passages.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
            vec!["d1", "d2"]
        );
        assert_eq!(p.passages[1].fields.get("title"), Some("Paris"));
    }
}
