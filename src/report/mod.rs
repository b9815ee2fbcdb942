//! The reviewer-facing Markdown report, rendered from the ledger alone with minijinja, with SVG
//! pictures beside it; from the same data, a self-contained HTML page ([`html`]) and a LaTeX
//! table of the results ([`latex`]). It opens with the verdict card ([`card`]): each primary
//! hypothesis' verdict at the registered α, whether the analysis is confirmatory, the
//! deviations, the split and the witness status; then the three statements an honest benchmark
//! report makes: the mean and the topic count, the paired-resampling interval and reversal
//! rate, and whether the evaluated runs contributed to the judgment pool (Sakai, *Laboratory
//! Experiments in Information Retrieval*, 2018; Zobel, "How reliable are the results of
//! large-scale information retrieval experiments?", SIGIR 1998, for pool bias).
//!
//! Every report ends with its [`stamp`]: the ledger tip and template it was rendered from, so
//! that `pledge verify --report` can render it again and compare.

mod assemble;
pub mod card;
pub mod diagnostics;
pub mod flowchart;
pub mod funnel;
pub mod html;
pub mod latex;
pub mod markdown;
pub mod model;
pub mod names;
mod pool;
mod render;
mod reproduce;
mod results;
mod sections;
pub mod stamp;
pub mod svg;

pub use assemble::{assemble, pick_study, Assembled, Context};
pub use render::{render, DEFAULT_TEMPLATE};

use crate::error::Result;
use crate::ledger::{Ledger, StoredEntry};
use model::{RenderedFrom, ReportData};
use std::collections::BTreeMap;

/// A report template: pledge's built-in one, or a minijinja file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Template {
    /// `templates/report.md.j2`, compiled in.
    BuiltIn,
    /// A template file.
    File {
        /// Its path as the report names it (relative to the repository root when inside it).
        name: String,
        /// Its text.
        text: String,
    },
}

impl Template {
    /// The name the report's stamp gives it: [`stamp::BUILT_IN`] or the file's path.
    pub fn name(&self) -> &str {
        match self {
            Template::BuiltIn => stamp::BUILT_IN,
            Template::File { name, .. } => name,
        }
    }

    /// Its text.
    pub fn text(&self) -> &str {
        match self {
            Template::BuiltIn => DEFAULT_TEMPLATE,
            Template::File { text, .. } => text,
        }
    }

    /// SHA-256 of its text (hex).
    pub fn sha256(&self) -> String {
        crate::io::sha256_hex(self.text().as_bytes())
    }

    /// Whether it writes HTML (its name ends in `.html` or `.htm`), so values are HTML-escaped.
    pub fn html(&self) -> bool {
        let lower = self.name().to_ascii_lowercase();
        lower.ends_with(".html") || lower.ends_with(".htm")
    }
}

/// What to render.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The study (default: the only study in the ledger).
    pub study: Option<&'a str>,
    /// The ledger tip to render from, a commit of the ledger; `None`: the ledger's tip now.
    pub tip: Option<git2::Oid>,
    /// The template.
    pub template: &'a Template,
    /// The report's directory as its commands name it (relative to the repository root when
    /// inside it).
    pub report_dir: String,
}

/// A rendered report: its data, its pictures and the Markdown (stamp included).
#[derive(Debug, Clone)]
pub struct Produced {
    /// What the template rendered.
    pub data: ReportData,
    /// Pictures to write next to the Markdown, by file name.
    pub svgs: BTreeMap<String, String>,
    /// The template's output followed by the stamp.
    pub markdown: String,
}

impl Produced {
    /// The self-contained HTML page of the report (see [`html::to_html`]), with the components'
    /// flowchart drawn as an SVG in place of its Mermaid source.
    pub fn html(&self) -> String {
        let c = &self.data.components;
        let mut diagrams = BTreeMap::new();
        if !c.mermaid.is_empty() {
            diagrams.insert(c.mermaid.trim().to_string(), c.flowchart_svg.clone());
        }
        html::to_html(&self.markdown, &self.data.study.title, &self.svgs, &diagrams)
    }

    /// The LaTeX table of the results (see [`latex::results_table`]), ending with the stamp.
    pub fn latex(&self) -> String {
        let stamp = stamp::Stamp::of(&self.data.study.id, &self.data.rendered);
        format!("{}{}\n", latex::results_table(&self.data), stamp.latex_comment())
    }
}

/// Verifies the ledger at the requested tip and assembles the report of the study: the data a
/// template renders, and the pictures.
///
/// Errors: see [`assemble`] and [`pick_study`]; a tip whose chain cannot be read (exit 2). A
/// ledger that fails verification is not an error: the report is still built, with the failure
/// first.
pub fn build(ledger: &Ledger, req: &Request) -> Result<Assembled> {
    let tip = match req.tip {
        Some(t) => Some(t),
        None => ledger.tip()?,
    };
    let entries = match tip {
        Some(t) => ledger.entries_from(t)?,
        None => Vec::new(),
    };
    let id = pick_study(&entries, req.study)?;
    let verification = match tip {
        Some(t) => sections::verification_view(&crate::ledger::verify_at(ledger, t)?),
        None => sections::verification_view(&crate::ledger::verify_ledger(ledger, None)?),
    };
    let last = entries.last();
    let rendered = RenderedFrom {
        tool: format!("pledge {}", env!("CARGO_PKG_VERSION")),
        tip_commit: last.map(|e| e.commit.clone()).unwrap_or_default(),
        tip_seq: last.map(|e| e.entry.seq).unwrap_or_default(),
        template: req.template.name().to_string(),
        template_sha256: req.template.sha256(),
        report_dir: req.report_dir.clone(),
    };
    let signature = registration_signature(ledger, &entries, &id);
    let witness = crate::ledger::witness::report_evidence(ledger, &entries);
    assemble(
        &entries,
        &id,
        Context {
            verification,
            signature,
            witness,
            rendered,
        },
    )
}

/// [`build`], then renders the Markdown with the template and adds the stamp.
///
/// Errors: as [`build`]; a bad template (exit 2, with its line).
pub fn produce(ledger: &Ledger, req: &Request) -> Result<Produced> {
    let a = build(ledger, req)?;
    let t = req.template;
    let body = match t {
        Template::BuiltIn => render(&a.data, None)?,
        Template::File { name, text } => render(&a.data, Some((name, text)))?,
    };
    let markdown = stamp::finish(&body, &a.data.study.id, &a.data.rendered, t.html());
    Ok(Produced {
        data: a.data,
        svgs: a.svgs,
        markdown,
    })
}

/// How the study's registration commit is signed, in words: by which SSH key (the signature
/// verified under the key it carries; whose key it is, an allowed-signers file tells), with a
/// signature that does not verify, or unsigned.
pub fn registration_signature(ledger: &Ledger, entries: &[StoredEntry], study: &str) -> String {
    use crate::ledger::gitobj::ObjectFormat;
    let Some(reg) = entries
        .iter()
        .find(|e| e.entry.study_id == study && e.entry.kind == crate::ledger::EntryKind::Register)
    else {
        return "no registration commit".into();
    };
    let Ok(raw) = ledger.raw_commit(&reg.commit) else {
        return "the registration commit cannot be read, so its signature is unknown".into();
    };
    let format = ObjectFormat::from_hex_len(reg.commit.len()).unwrap_or(ObjectFormat::Sha1);
    match crate::ledger::sshsig::carried_key(format, &raw) {
        None => "the registration commit is unsigned, so nothing proves who wrote it".into(),
        Some(Ok((fingerprint, algorithm))) => format!(
            "the registration commit is signed with the {} key {} (the signature verifies under it; whose key it is, pledge verify --allowed-signers FILE checks)",
            algorithm, fingerprint
        ),
        Some(Err(p @ crate::ledger::sshsig::SigProblem::NotBuilt)) => format!(
            "the registration commit carries a signature this pledge cannot check ({})",
            p
        ),
        Some(Err(p)) => format!(
            "the registration commit carries a signature that does not verify ({})",
            p
        ),
    }
}
