//! Bridges: the passages, decoys and field values whose links join the most units into one
//! component, and how much the largest component would shrink without each.
//!
//! Every link a rule adds is owned by one *element*:
//! - a **passage** group: passages joined to each other by the identical-passage and
//!   near-duplicate-passage rules (e.g. one boilerplate article repeated across many laws), owning
//!   those passage–passage links;
//! - a **decoy**: one passage used as a decoy / distractor, owning the question–decoy links to it;
//! - a **field** value of a shared-field rule, owning the links among the questions that carry it.
//!
//! An element *joins* the units its links touch: a unit node at either end of a link, and for a
//! passage that is not a unit (unit `question`, or a passage without the unit field) the units of
//! the questions that use it as one of their own passages. Its candidate questions are those of
//! the units it joins. Elements joining two or more units are bridges; they are ranked by units
//! joined, then candidate questions, then label. For each of the top ones the count is redone
//! with every link except the element's (own passages and every other link kept), and the largest
//! component then is compared with the largest one now (components and the largest one as in
//! [`super::count::snapshot`]: by units, then questions). Removing one bridge of a component that
//! is held together by many gives a shrink of 0: that is the finding, not an error.
//!
//! Bridges are a diagnostic: they never change the registered count or decision.

use super::count::{self, Snapshot};
use super::read::Corpus;
use super::rules::{self, Texts};
use super::unionfind::UnionFind;
use super::{join, Progress};
use crate::error::{Error, Result};
use crate::protocol::{LinkKind, Protocol};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

crate::named_enum! {
    /// What a bridge is.
    pub enum BridgeKind {
        /// A group of identical or near-identical passages.
        Passage = "passage",
        /// A passage used as a decoy / distractor.
        Decoy = "decoy",
        /// A value of a shared-field rule's field.
        Field = "field",
    }
}

/// One bridge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bridge {
    /// What it is.
    pub kind: BridgeKind,
    /// The passage id (for a group: its first passage in input order), or `field = value`.
    pub label: String,
    /// The names of the rules whose links it owns.
    pub rules: Vec<String>,
    /// Passages in the group (1 for a decoy, 0 for a field value).
    pub passages: usize,
    /// The start of the passage's text (at most 60 characters, white space collapsed; empty for
    /// a field value).
    pub excerpt: String,
    /// Links it owns.
    pub links: usize,
    /// Units it joins.
    pub units: usize,
    /// Candidate questions in those units.
    pub questions: usize,
    /// The largest component without this element's links: units.
    pub largest_units_without: usize,
    /// The largest component without this element's links: candidate questions.
    pub largest_questions_without: usize,
}

/// The top bridges of a count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bridges {
    /// Units in the largest component with every link.
    pub largest_units: usize,
    /// Candidate questions in it.
    pub largest_questions: usize,
    /// Elements that join two or more units.
    pub total: usize,
    /// The top bridges, best first (at most the number asked for).
    pub top: Vec<Bridge>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Owner {
    Group(usize),
    Decoy(usize),
    Field(usize, String),
}

/// Kind, label, passages in the group, excerpt.
type Label = (BridgeKind, String, usize, String);

struct Element {
    owner: Owner,
    rules: BTreeSet<usize>,
    links: usize,
    nodes: BTreeSet<u32>,
}

fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 60 {
        let mut s: String = flat.chars().take(59).collect();
        s.push('…');
        s
    } else {
        flat
    }
}

/// The `top` bridges of `corpus` under `protocol`'s unit and link rules (see the module docs).
///
/// Errors (exit 2): `top` is 0; the errors of [`super::count()`].
pub fn bridges(protocol: &Protocol, corpus: &Corpus, top: usize, progress: &dyn Progress) -> Result<Bridges> {
    if top == 0 {
        return Err(Error::input("--bridges needs a number of bridges ≥ 1"));
    }
    let g = rules::graph(corpus, protocol.components.unit.as_str())?;
    let mut qcount = vec![0u32; g.nodes.len()];
    for &n in &g.question_node {
        qcount[n as usize] += 1;
    }
    let base = rules::base_edges(corpus, &g);
    // The units that use a non-unit passage node as one of their own passages.
    let mut users: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(q, p) in &base {
        if !g.nodes[p as usize].unit {
            users.entry(p).or_default().push(q);
        }
    }
    // Passage–passage links of the text rules, grouped by a passage-level union-find.
    let text_links = text_links(protocol, corpus, progress)?;
    let mut groups = UnionFind::new(corpus.passages.len());
    for &(_, a, b) in &text_links {
        groups.union(a, b);
    }
    let root: Vec<usize> = (0..corpus.passages.len()).map(|p| groups.find(p)).collect();
    // Each group's first passage (input order) and size.
    let mut members: HashMap<usize, (usize, usize)> = HashMap::new();
    for (p, &r) in root.iter().enumerate() {
        members.entry(r).or_insert((p, 0)).1 += 1;
    }
    // Every link with its owner; base links have none.
    let (links, elements) = owned_links(protocol, corpus, &g, &base, &text_links, &root)?;
    let (total, labelled) = top_elements(protocol, corpus, &g, &qcount, &users, &members, &elements, top);
    let snapshot_without = |skip: Option<usize>| -> Snapshot {
        let mut uf = UnionFind::new(g.nodes.len());
        for &(a, b, o) in &links {
            if o.is_none() || o != skip {
                uf.union(a as usize, b as usize);
            }
        }
        count::snapshot(&mut uf, &g, &qcount)
    };
    let all = snapshot_without(None);
    progress.start("bridges: recounting without each", labelled.len() as u64);
    let top = labelled
        .into_iter()
        .map(|((i, units, questions), (kind, label, passages, excerpt))| {
            let without = snapshot_without(Some(i));
            progress.advance(1);
            Bridge {
                kind,
                label,
                rules: elements[i]
                    .rules
                    .iter()
                    .map(|&r| protocol.link_rules[r].name.clone())
                    .collect(),
                passages,
                excerpt,
                links: elements[i].links,
                units,
                questions,
                largest_units_without: without.largest_units,
                largest_questions_without: without.largest_questions,
            }
        })
        .collect();
    progress.finish();
    Ok(Bridges {
        largest_units: all.largest_units,
        largest_questions: all.largest_questions,
        total,
        top,
    })
}

/// The passage–passage links of the text rules (identical and near-duplicate passages), as
/// (rule, passage, passage).
fn text_links(protocol: &Protocol, corpus: &Corpus, progress: &dyn Progress) -> Result<Vec<(usize, usize, usize)>> {
    let mut texts = Texts::default();
    let mut text_links: Vec<(usize, usize, usize)> = Vec::new(); // (rule, passage, passage)
    for (ri, rule) in protocol.link_rules.iter().enumerate() {
        match rule.kind {
            LinkKind::IdenticalPassage => {
                let t = texts.get(corpus, rule.normalization)?;
                let mut first: HashMap<&str, usize> = HashMap::with_capacity(t.len());
                for (i, s) in t.iter().enumerate() {
                    if !s.is_empty() {
                        let f = *first.entry(s.as_ref()).or_insert(i);
                        if f != i {
                            text_links.push((ri, f, i));
                        }
                    }
                }
            }
            LinkKind::NearDuplicatePassage => {
                progress.start("bridges: shingling", 0);
                let sets = texts.get(corpus, rule.normalization)?.ranked(rule.shingle_size()).sets;
                progress.start("bridges: near-duplicate join", sets.len() as u64);
                for (a, b) in join::join(&sets, rule.jaccard(), &|k| progress.advance(k)) {
                    text_links.push((ri, a as usize, b as usize));
                }
            }
            LinkKind::Decoy | LinkKind::SharedField => {}
        }
    }
    Ok(text_links)
}

/// Every link of the graph with the element that owns it (base links have none), and the
/// elements: a text link is owned by its passage group (`root`: each passage's group), a decoy
/// link by the decoy, a shared-field link by the field value.
#[allow(clippy::type_complexity)]
fn owned_links(
    protocol: &Protocol,
    corpus: &Corpus,
    g: &rules::Graph,
    base: &[(u32, u32)],
    text_links: &[(usize, usize, usize)],
    root: &[usize],
) -> Result<(Vec<(u32, u32, Option<usize>)>, Vec<Element>)> {
    let mut links: Vec<(u32, u32, Option<usize>)> = base.iter().map(|&(a, b)| (a, b, None)).collect();
    let mut elements: Vec<Element> = Vec::new();
    let mut index: HashMap<Owner, usize> = HashMap::new();
    let mut own = |owner: Owner, rule: usize, a: u32, b: u32, links: &mut Vec<(u32, u32, Option<usize>)>| {
        let i = *index.entry(owner.clone()).or_insert_with(|| {
            elements.push(Element {
                owner,
                rules: BTreeSet::new(),
                links: 0,
                nodes: BTreeSet::new(),
            });
            elements.len() - 1
        });
        let e = &mut elements[i];
        e.rules.insert(rule);
        e.links += 1;
        e.nodes.insert(a);
        e.nodes.insert(b);
        links.push((a, b, Some(i)));
    };
    for &(ri, a, b) in text_links {
        let owner = Owner::Group(root[a]);
        own(owner, ri, g.passage_node[a], g.passage_node[b], &mut links);
    }
    for (ri, rule) in protocol.link_rules.iter().enumerate() {
        match rule.kind {
            LinkKind::Decoy => {
                for (qi, q) in corpus.questions.iter().enumerate() {
                    for &p in &q.decoys {
                        own(Owner::Decoy(p), ri, g.question_node[qi], g.passage_node[p], &mut links);
                    }
                }
            }
            LinkKind::SharedField => {
                let Some(field) = rule.field.as_deref() else {
                    return Err(Error::input(format!(
                        "link rule `{}` (shared-field) needs a `field`",
                        rule.name
                    )));
                };
                let mut first: HashMap<&str, usize> = HashMap::new();
                for (qi, q) in corpus.questions.iter().enumerate() {
                    if let Some(v) = q.fields.get(field) {
                        let f = *first.entry(v.as_str()).or_insert(qi);
                        if f != qi {
                            let owner = Owner::Field(ri, v.clone());
                            own(owner, ri, g.question_node[f], g.question_node[qi], &mut links);
                        }
                    }
                }
            }
            LinkKind::IdenticalPassage | LinkKind::NearDuplicatePassage => {}
        }
    }
    Ok((links, elements))
}

/// The elements that join two or more units (how many), and the `top` of them ranked by units
/// joined, then candidate questions, then label, each with its label.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn top_elements(
    protocol: &Protocol,
    corpus: &Corpus,
    g: &rules::Graph,
    qcount: &[u32],
    users: &HashMap<u32, Vec<u32>>,
    members: &HashMap<usize, (usize, usize)>,
    elements: &[Element],
    top: usize,
) -> (usize, Vec<((usize, usize, usize), Label)>) {
    // Units and candidate questions each element joins.
    let joined = |e: &Element| -> (usize, usize) {
        let mut units: BTreeSet<u32> = BTreeSet::new();
        for &n in &e.nodes {
            if g.nodes[n as usize].unit {
                units.insert(n);
            } else if let Some(us) = users.get(&n) {
                units.extend(us.iter().copied());
            }
        }
        let questions = units.iter().map(|&u| qcount[u as usize] as usize).sum();
        (units.len(), questions)
    };
    // Texts in memory (the caller refuses spilled ones); an unreadable text shows empty.
    let text_of = |i: usize| corpus.texts.get(i).map(|t| t.into_owned()).unwrap_or_default();
    let label = |o: &Owner| -> Label {
        match o {
            Owner::Group(r) => {
                let (first, size) = members.get(r).copied().unwrap_or((*r, 1));
                let p = &corpus.passages[first];
                (BridgeKind::Passage, p.id.clone(), size, excerpt(&text_of(first)))
            }
            Owner::Decoy(p) => {
                let (id, text) = (&corpus.passages[*p].id, text_of(*p));
                (BridgeKind::Decoy, id.clone(), 1, excerpt(&text))
            }
            Owner::Field(ri, v) => (
                BridgeKind::Field,
                format!("{} = {}", protocol.link_rules[*ri].field.as_deref().unwrap_or(""), v),
                0,
                String::new(),
            ),
        }
    };
    let mut ranked: Vec<(usize, usize, usize)> = elements
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (u, q) = joined(e);
            (i, u, q)
        })
        .filter(|&(_, u, _)| u >= 2)
        .collect();
    let total = ranked.len();
    // Labels decide ties; they are computed only for the candidates of the top places.
    ranked.sort_by_key(|r| std::cmp::Reverse((r.1, r.2)));
    let cut = ranked.get(top.min(total).saturating_sub(1)).map(|r| (r.1, r.2));
    ranked.retain(|r| cut.is_some_and(|c| (r.1, r.2) >= c));
    let mut labelled: Vec<((usize, usize, usize), Label)> =
        ranked.into_iter().map(|r| (r, label(&elements[r.0].owner))).collect();
    labelled.sort_by(|a, b| (b.0 .1, b.0 .2).cmp(&(a.0 .1, a.0 .2)).then(a.1 .1.cmp(&b.1 .1)));
    labelled.truncate(top);
    (total, labelled)
}
