//! What changed between two versions of a protocol, value by value.

use super::Protocol;
use std::collections::BTreeMap;

/// What an amendment changed in the protocol: one `key: old → new` per TOML value that differs
/// between the protocol texts `old` and `new` (keys as dotted paths, array items by position,
/// `(absent)` for a key only one side has; long values shortened), in key order. Texts that do
/// not parse as TOML give one line saying so.
pub fn changes(old: &str, new: &str) -> Vec<String> {
    fn flatten(prefix: &str, v: &toml::Value, out: &mut BTreeMap<String, String>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    // A key that is not bare is quoted, as TOML writes it.
                    let k = toml_edit::Key::new(k.as_str()).to_string();
                    let key = if prefix.is_empty() {
                        k
                    } else {
                        format!("{}.{}", prefix, k)
                    };
                    flatten(&key, v, out);
                }
            }
            toml::Value::Array(a) if a.iter().any(|x| x.is_table()) => {
                // Items named alike on both sides (hypotheses, link rules) are matched by name,
                // so inserting or reordering items does not read as renaming them.
                let names: Vec<Option<&str>> = a.iter().map(|x| x.get("name").and_then(|n| n.as_str())).collect();
                let mut unique = names.clone();
                unique.sort();
                unique.dedup();
                let by_name = names.iter().all(Option::is_some) && unique.len() == names.len();
                for (i, v) in a.iter().enumerate() {
                    let key = match names[i] {
                        Some(n) if by_name => format!("{}[name = {}]", prefix, toml::Value::from(n)),
                        _ => format!("{}[{}]", prefix, i),
                    };
                    flatten(&key, v, out);
                }
            }
            other => {
                out.insert(prefix.to_string(), other.to_string());
            }
        }
    }
    let parse = |s: &str| s.parse::<toml::Table>().map(toml::Value::Table);
    let (Ok(a), Ok(b)) = (parse(old), parse(new)) else {
        return vec!["the protocol text (not TOML on one side)".into()];
    };
    let (mut fa, mut fb) = (BTreeMap::new(), BTreeMap::new());
    flatten("", &a, &mut fa);
    flatten("", &b, &mut fb);
    // A long value is shown from a little before where the two sides first differ, so the
    // change itself is always in view.
    let short = |s: Option<&String>, from: usize| match s {
        None => "(absent)".to_string(),
        Some(s) => {
            let chars: Vec<char> = s.chars().collect();
            let start = if chars.len() > 60 {
                from.saturating_sub(20).min(chars.len())
            } else {
                0
            };
            let end = (start + 60).min(chars.len());
            format!(
                "{}{}{}",
                if start > 0 { "…" } else { "" },
                chars[start..end].iter().collect::<String>(),
                if end < chars.len() { "…" } else { "" }
            )
        }
    };
    let mut keys: Vec<&String> = fa.keys().chain(fb.keys()).collect();
    keys.sort();
    keys.dedup();
    let out: Vec<String> = keys
        .into_iter()
        .filter(|k| fa.get(*k) != fb.get(*k))
        .map(|k| {
            let (x, y) = (fa.get(k), fb.get(k));
            let from = match (x, y) {
                (Some(x), Some(y)) => x.chars().zip(y.chars()).take_while(|(a, b)| a == b).count(),
                _ => 0,
            };
            format!("{}: {} → {}", k, short(x, from), short(y, from))
        })
        .collect();
    if out.is_empty() && old != new {
        return vec!["no protocol value (comments or layout only)".into()];
    }
    out
}

/// What a component count decides from that differs between the protocol `old` (source text
/// `old_text`) and `new` (`new_text`), one `key: old → new` per changed value ([`changes`]).
///
/// What a count decides from: `components.unit`, `max-per-component` and `keep` (not the
/// estimator, which only the analysis uses) and the `[[link-rules]]` in order, with their
/// defaults filled in (which questions form one component); with splits in either version,
/// `[[splits]]`, `[stop-rule]` and `analysis.seed` (the seed of `--assign`'s shuffle; also with
/// `keep = "seeded-sample"`); with a `"from-target"` split in either, the `[target]` values
/// the power calculation uses (`scale`, `mde`, `alpha`, `power`, `sides`, `sd`, `pilot`,
/// `icc`, `method`, `samples-per-topic`, `sd-within`; not `metric` or the free-text
/// `sd-source`) and, when the first primary hypothesis' kind or margin changes, the
/// `[[hypotheses]]` changes. Empty when the count stands
/// under `new`. Link rules that differ only in order are listed as their order.
pub fn count_basis_changes(old: &Protocol, old_text: &str, new: &Protocol, new_text: &str) -> Vec<String> {
    let mut keys: Vec<&str> = Vec::new();
    let (oc, nc) = (&old.components, &new.components);
    for (k, same) in [
        ("components.unit", oc.unit == nc.unit),
        (
            "components.max-per-component",
            oc.max_per_component == nc.max_per_component,
        ),
        ("components.keep", oc.keep == nc.keep),
    ] {
        if !same {
            keys.push(k);
        }
    }
    let listed = link_rule_changes(old, new);
    let splits = !old.splits.is_empty() || !new.splits.is_empty();
    if splits {
        if old.splits != new.splits {
            keys.push("splits");
        }
        if old.stop_rule != new.stop_rule {
            keys.push("stop-rule");
        }
    }
    let seeded = |p: &Protocol| p.components.keep == super::Keep::SeededSample;
    if (splits || seeded(old) || seeded(new)) && old.analysis.seed != new.analysis.seed {
        keys.push("analysis.seed");
    }
    if old.derives_requirement() || new.derives_requirement() {
        let (a, b) = (&old.target, &new.target);
        for (k, same) in [
            ("target.scale", a.scale == b.scale),
            ("target.mde", a.mde == b.mde),
            ("target.alpha", a.alpha == b.alpha),
            ("target.power", a.power == b.power),
            ("target.sides", a.sides == b.sides),
            ("target.sd", a.sd == b.sd),
            ("target.pilot", a.pilot == b.pilot),
            ("target.icc", a.icc == b.icc),
            ("target.method", a.method == b.method),
            ("target.samples-per-topic", a.samples_per_topic == b.samples_per_topic),
            ("target.sd-within", a.sd_within == b.sd_within),
        ] {
            if !same {
                keys.push(k);
            }
        }
        // The requirement is sized by the first primary hypothesis' kind and margin.
        let sized = |p: &Protocol| p.primary_hypotheses().next().map(|h| (h.kind, h.margin));
        if sized(old) != sized(new) {
            keys.push("hypotheses");
        }
    }
    if keys.is_empty() {
        return listed;
    }
    let in_keys = |change: &String| {
        keys.iter().any(|k| {
            change
                .strip_prefix(k)
                .is_some_and(|rest| rest.starts_with(['.', '[', ':']))
        })
    };
    let from_text: Vec<String> = changes(old_text, new_text).into_iter().filter(in_keys).collect();
    // A value that parses otherwise while its text does not (a default written out): the key.
    let unnamed: Vec<String> = keys
        .iter()
        .filter(|k| !from_text.iter().any(|c| c.starts_with(*k)))
        .map(|k| format!("{} (its value as read)", k))
        .collect();
    let mut text = from_text;
    text.extend(unnamed);
    text.sort();
    // Link rules sort before the others, as in the protocol's key order they come after
    // `components` and before `splits`.
    let (before, after): (Vec<String>, Vec<String>) = text.into_iter().partition(|c| c.as_str() < "link-rules");
    before.into_iter().chain(listed).chain(after).collect()
}

/// The changes of the link rules, compared with their defaults filled in and named here (not
/// from the text, where a default left out would read as a change): their names in order, then
/// each rule both versions name, field by field.
fn link_rule_changes(old: &Protocol, new: &Protocol) -> Vec<String> {
    let mut listed: Vec<String> = Vec::new();
    let names = |p: &Protocol| -> Vec<String> {
        p.link_rules
            .iter()
            .map(|r| toml::Value::from(r.name.as_str()).to_string())
            .collect()
    };
    if names(old) != names(new) {
        listed.push(format!(
            "link-rules: {} → {}",
            names(old).join(", "),
            names(new).join(", ")
        ));
    }
    let quoted = |s: &str| toml::Value::from(s).to_string();
    for a in &old.link_rules {
        let Some(b) = new.link_rules.iter().find(|b| b.name == a.name) else {
            continue;
        };
        let field = |f: &Option<String>| f.as_deref().map_or("(absent)".to_string(), quoted);
        for (key, x, y) in [
            ("kind", quoted(a.kind.as_str()), quoted(b.kind.as_str())),
            (
                "normalization",
                quoted(a.normalization.as_str()),
                quoted(b.normalization.as_str()),
            ),
            (
                "shingle-size",
                a.shingle_size().to_string(),
                b.shingle_size().to_string(),
            ),
            ("jaccard", a.jaccard().to_string(), b.jaccard().to_string()),
            ("field", field(&a.field), field(&b.field)),
        ] {
            if x != y {
                listed.push(format!("link-rules[name = {}].{}: {} → {}", quoted(&a.name), key, x, y));
            }
        }
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::changes;

    #[test]
    fn count_basis_changes_name_only_what_a_count_decides_from() {
        use super::count_basis_changes;
        let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/protocols/hotpotqa.toml")).unwrap();
        let parse = |t: &str| crate::protocol::parse(t, std::path::Path::new("p.toml")).unwrap();
        let diff = |from: &str, to: &str, text: &str| {
            assert!(text.contains(from), "{}", from);
            let new = text.replacen(from, to, 1);
            count_basis_changes(&parse(text), text, &parse(&new), &new)
        };
        // What the count decides from: a link rule (matched by name), [components], the
        // target of a "from-target" split, the stop rule.
        assert_eq!(
            diff("jaccard = 0.8", "jaccard = 0.75", &base),
            ["link-rules[name = \"plus near-identical paragraphs\"].jaccard: 0.8 → 0.75"]
        );
        assert_eq!(
            diff("max-per-component = 4", "max-per-component = 3", &base),
            ["components.max-per-component: 4 → 3"]
        );
        assert_eq!(diff("mde = 0.15", "mde = 0.2", &base), ["target.mde: 0.15 → 0.2"]);
        // K samples per question and the primary hypothesis' kind size the requirement too.
        assert_eq!(
            diff(
                "sd = 0.45\n",
                "sd = 0.45\nsamples-per-topic = 3\nsd-within = 0.2\n",
                &base
            ),
            [
                "target.samples-per-topic: (absent) → 3",
                "target.sd-within: (absent) → 0.2"
            ]
        );
        let primary = "direction = \"greater\"\nprimary = true\n";
        assert_eq!(
            diff(
                primary,
                "kind = \"non-inferiority\"\nmargin = 0.05\ndirection = \"greater\"\nprimary = true\n",
                &base
            ),
            [
                "hypotheses[name = \"gpt-4 beats gpt-3.5-turbo\"].kind: (absent) → \"non-inferiority\"",
                "hypotheses[name = \"gpt-4 beats gpt-3.5-turbo\"].margin: (absent) → 0.05"
            ]
        );
        assert_eq!(
            diff("required = \"sum-of-splits\"", "required = \"each-split\"", &base),
            ["stop-rule.required: \"sum-of-splits\" → \"each-split\""]
        );
        // The seed of the assignment's shuffle, with splits.
        assert_eq!(
            diff("seed = 20261130", "seed = 1", &base),
            ["analysis.seed: 20261130 → 1"]
        );
        // Not: the analysis settings, the scores, the hypotheses, what only the analysis or the
        // reader uses (the estimator, the metric's name, the SD's free-text source).
        assert!(diff("trials = 10000", "trials = 2000", &base).is_empty());
        assert!(diff("HALTED = 0", "HALTED = 1", &base).is_empty());
        assert!(diff(
            "estimator = \"component-mean\"",
            "estimator = \"question-weighted\"",
            &base
        )
        .is_empty());
        assert!(diff("metric = \"accuracy\"", "metric = \"exact-match\"", &base).is_empty());
        assert!(diff("sd-source = \"binary", "sd-source = \"Binary", &base).is_empty());
        // A link rule's default left out reads the same.
        assert!(diff("shingle-size = 5\n", "", &base).is_empty());
        assert!(diff("jaccard = 0.8\n", "", &base).is_empty());
        // Reordered link rules: the order is the change.
        let a = "[[link-rules]]\nname = \"identical paragraphs\"\nkind = \"identical-passage\"\nnormalization = \"nfc\"\n\n";
        let at = base.find(a).unwrap();
        let (decoy, end) = (
            base.find("[[link-rules]]\nname = \"plus shared distractors\"").unwrap(),
            base.find("[[splits]]").unwrap(),
        );
        let moved = format!(
            "{}{}{}{}",
            &base[..at],
            &base[at + a.len()..decoy],
            &base[decoy..end],
            a
        ) + &base[end..];
        assert_eq!(
            count_basis_changes(&parse(&base), &base, &parse(&moved), &moved),
            ["link-rules: \"identical paragraphs\", \"plus near-identical paragraphs\", \"plus shared distractors\" → \"plus near-identical paragraphs\", \"plus shared distractors\", \"identical paragraphs\""]
        );
        // Reordered, a default left out and a value changed: the order and the one value.
        let both = moved
            .replacen("shingle-size = 5\n", "", 1)
            .replacen("jaccard = 0.8", "jaccard = 0.7", 1);
        let both = both.replacen("mde = 0.15", "mde = 0.2", 1);
        assert_eq!(
            count_basis_changes(&parse(&base), &base, &parse(&both), &both),
            [
                "link-rules: \"identical paragraphs\", \"plus near-identical paragraphs\", \"plus shared distractors\" → \"plus near-identical paragraphs\", \"plus shared distractors\", \"identical paragraphs\"",
                "link-rules[name = \"plus near-identical paragraphs\"].jaccard: 0.8 → 0.7",
                "target.mde: 0.15 → 0.2",
            ]
        );
        // A renamed rule: the names.
        assert_eq!(
            diff("name = \"plus shared distractors\"", "name = \"decoys\"", &base),
            ["link-rules: \"identical paragraphs\", \"plus near-identical paragraphs\", \"plus shared distractors\" → \"identical paragraphs\", \"plus near-identical paragraphs\", \"decoys\""]
        );
        // A default written out parses alike: no change.
        assert!(diff(
            "[stop-rule]\n",
            "[stop-rule]\nrequired = \"sum-of-splits\"\n",
            &base.replacen("required = \"sum-of-splits\"\n", "", 1)
        )
        .is_empty());
        // With a fixed requirement the target no longer counts; the split's count does.
        let fixed = base.replacen("required-components = \"from-target\"", "required-components = 50", 1);
        assert!(diff("mde = 0.15", "mde = 0.2", &fixed).is_empty());
        assert_eq!(
            diff("required-components = 50", "required-components = 60", &fixed),
            ["splits[name = \"final\"].required-components: 50 → 60"]
        );
        // Without splits neither the target nor the stop rule counts.
        let (at, end) = (fixed.find("[[splits]]").unwrap(), fixed.find("[stop-rule]").unwrap());
        let none = format!("{}{}", &fixed[..at], &fixed[end..]);
        assert!(diff("required = \"sum-of-splits\"", "required = \"each-split\"", &none).is_empty());
        assert!(diff("mde = 0.15", "mde = 0.2", &none).is_empty());
    }

    #[test]
    fn protocol_changes_lists_each_differing_value_by_its_dotted_key() {
        let old = "schema-version = 2\n[target]\nmde = 0.15\nalpha = 0.05\n[[hypotheses]]\nname = \"h1\"\n";
        let new = "schema-version = 2\n[target]\nmde = 0.1\nalpha = 0.05\nsides = 1\n[[hypotheses]]\nname = \"h2\"\n";
        assert_eq!(
            changes(old, new),
            vec![
                "hypotheses[name = \"h1\"].name: \"h1\" → (absent)".to_string(),
                "hypotheses[name = \"h2\"].name: (absent) → \"h2\"".to_string(),
                "target.mde: 0.15 → 0.1".to_string(),
                "target.sides: (absent) → 1".to_string(),
            ]
        );
        // Inserting an item before another does not read as renaming it.
        let two = "[[hypotheses]]\nname = \"h0\"\n[[hypotheses]]\nname = \"h1\"\n";
        assert_eq!(
            changes("[[hypotheses]]\nname = \"h1\"\n", two),
            vec!["hypotheses[name = \"h0\"].name: (absent) → \"h0\"".to_string()]
        );
        // A change deep inside a long value is shown, not cut off.
        let d = |x: &str| format!("[study]\ndescription = \"{}{}{}\"\n", "a".repeat(80), x, "b".repeat(80));
        assert_eq!(
            changes(&d("15"), &d("16")),
            vec![format!(
                "study.description: …{}15{}… → …{}16{}…",
                "a".repeat(19),
                "b".repeat(39),
                "a".repeat(19),
                "b".repeat(39)
            )]
        );
        // A key that is not bare stays quoted.
        assert_eq!(
            changes("[labels]\n\"a.b\" = 1\n", "[labels]\n\"a.b\" = 2\n"),
            vec!["labels.\"a.b\": 1 → 2".to_string()]
        );
        // Comments and layout only.
        assert_eq!(
            changes("# a\nx = 1\n", "# b\nx = 1\n"),
            vec!["no protocol value (comments or layout only)".to_string()]
        );
        assert!(changes(old, old).is_empty());
        let long = format!("[study]\ndescription = \"{}\"\n", "x".repeat(100));
        let got = changes("", &long);
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with("study.description: (absent) → \"xxxx"), "{}", got[0]);
        assert!(got[0].ends_with('…') && got[0].chars().count() < 110, "{}", got[0]);
        assert_eq!(
            changes("a = ", "a = 1"),
            vec!["the protocol text (not TOML on one side)".to_string()]
        );
    }

    #[test]
    fn protocol_changes_name_a_hypothesis_kind_and_margin() {
        let h = |keys: &str| {
            format!(
                "[[hypotheses]]\nname = \"h\"\nsystem = \"a\"\ncomparator = \"b\"\n{}\n",
                keys
            )
        };
        let old = h("kind = \"equivalence\"\nmargin = 0.02");
        let new = h("kind = \"non-inferiority\"\nmargin = 0.05\ndirection = \"greater\"");
        assert_eq!(
            changes(&old, &new),
            vec![
                "hypotheses[name = \"h\"].direction: (absent) → \"greater\"".to_string(),
                "hypotheses[name = \"h\"].kind: \"equivalence\" → \"non-inferiority\"".to_string(),
                "hypotheses[name = \"h\"].margin: 0.02 → 0.05".to_string(),
            ]
        );
    }
}
