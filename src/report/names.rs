//! Short system names for the report. Long run names (TREC run tags such as
//! `input.UAmsT03RDesc`, Hugging Face model ids such as `meta-llama/Llama-2-13b-chat-hf`, agent
//! configurations such as `cot_context_gpt-3.5-turbo_trial1`) are shortened once, by one
//! deterministic rule, and the same short name is used in every table, sentence and figure of
//! the report, with a key mapping each short name to the full one.
//!
//! The rule, applied only when some name is longer than [`MAX_CHARS`] characters:
//! 1. the prefix every name shares is removed, up to and including its last separator (`_`, `.`,
//!    `/`, `:` or a space; not `-`, which joins the parts of `gpt-4`), and likewise the suffix every name shares from its first
//!    separator, as long as no name is left empty;
//! 2. a name still longer than [`MAX_CHARS`] is cut to `MAX_CHARS − 1` characters and `…`;
//! 3. names that would then read alike (or alike another name) get `~1`, `~2`, … in the order of
//!    the systems, cut further so that they stay within [`MAX_CHARS`].

use std::collections::{BTreeMap, BTreeSet};

/// The longest name shown in full: a name longer than this starts the shortening.
pub const MAX_CHARS: usize = 24;

/// The characters a common prefix or suffix may end or start at. Not `-`: it joins the parts of
/// one name more often than it separates names' parts (`gpt-4`, `Llama-2-7b`), so a prefix cut
/// there would leave `4` of `gpt-4`.
fn is_separator(c: char) -> bool {
    matches!(c, '_' | '.' | '/' | ':' | ' ')
}

/// The short name of each system, and how they were made.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShortNames {
    /// `(short, full)` in the order of the systems; empty when no name is shortened.
    key: Vec<(String, String)>,
    /// Full name → short name.
    short: BTreeMap<String, String>,
    /// The common prefix and suffix removed.
    removed: (String, String),
}

impl ShortNames {
    /// The short names of `names` (the systems, in report order; repeats are ignored) under the
    /// rule in the module documentation. When every name fits in [`MAX_CHARS`] characters,
    /// every short name is the full one.
    pub fn of(names: &[String]) -> ShortNames {
        let mut seen = BTreeSet::new();
        let names: Vec<&str> = names.iter().map(String::as_str).filter(|n| seen.insert(*n)).collect();
        if names.iter().all(|n| n.chars().count() <= MAX_CHARS) {
            return ShortNames::default();
        }
        let prefix = common_prefix(&names);
        let suffix = common_suffix(&names, prefix.len());
        let stripped: Vec<String> = names
            .iter()
            .map(|n| n[prefix.len()..n.len() - suffix.len()].to_string())
            .collect();
        let shorts = disambiguate(&stripped);
        ShortNames {
            short: names
                .iter()
                .zip(&shorts)
                .map(|(f, s)| (f.to_string(), s.clone()))
                .collect(),
            key: shorts.into_iter().zip(names.iter().map(|n| n.to_string())).collect(),
            removed: (prefix, suffix),
        }
    }

    /// Whether any name is shortened (then the report shows the key).
    pub fn any(&self) -> bool {
        !self.key.is_empty()
    }

    /// `(short, full)` for every system, in the systems' order; empty when none is shortened.
    pub fn key(&self) -> &[(String, String)] {
        &self.key
    }

    /// The short name of `full`, or `full` itself when it is not a shortened system name.
    pub fn get<'a>(&'a self, full: &'a str) -> &'a str {
        self.short.get(full).map_or(full, String::as_str)
    }

    /// The rule as applied, in one sentence: what was removed and the length names were cut to.
    pub fn rule(&self) -> String {
        let mut parts = Vec::new();
        if !self.removed.0.is_empty() {
            parts.push(format!("the common prefix “{}” removed", self.removed.0));
        }
        if !self.removed.1.is_empty() {
            parts.push(format!("the common suffix “{}” removed", self.removed.1));
        }
        parts.push(format!(
            "names longer than {} characters cut (~1, ~2 tell apart names cut alike)",
            MAX_CHARS
        ));
        format!(
            "System names are shortened in this report: {}. The key:",
            parts.join(", ")
        )
    }

    /// `text` with every full system name replaced by its short name: names are matched whole
    /// (not inside a longer name or word: the characters around a match are neither letters,
    /// digits nor `_ - . /`), the longest first.
    pub fn replace_in(&self, text: &str) -> String {
        if self.short.is_empty() {
            return text.to_string();
        }
        let mut fulls: Vec<&String> = self.short.keys().collect();
        fulls.sort_by_key(|f| std::cmp::Reverse(f.len()));
        let inside = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            let before_ok = !text[..i].chars().next_back().is_some_and(inside);
            let hit = fulls.iter().find(|f| {
                before_ok && rest.starts_with(f.as_str()) && !rest[f.len()..].chars().next().is_some_and(inside)
            });
            match hit {
                Some(f) => {
                    out.push_str(&self.short[*f]);
                    i += f.len();
                }
                None => {
                    let c = rest.chars().next().unwrap_or(' ');
                    out.push(c);
                    i += c.len_utf8();
                }
            }
        }
        out
    }
}

/// The prefix every name shares, ending at a separator, such that no name is left empty
/// (shortened to an earlier separator when one would be); empty for fewer than two names.
fn common_prefix(names: &[&str]) -> String {
    let Some((first, rest)) = names.split_first() else {
        return String::new();
    };
    if rest.is_empty() {
        return String::new();
    }
    let mut len = first.len();
    for n in rest {
        len = first
            .char_indices()
            .zip(n.chars())
            .find(|((_, a), b)| a != b)
            .map_or(len.min(n.len()), |((i, _), _)| i.min(len));
    }
    // The longest prefix of that length that ends at a separator and leaves every name a rest.
    let shortest = names.iter().map(|n| n.len()).min().unwrap_or(0);
    first[..len]
        .char_indices()
        .filter(|&(i, c)| is_separator(c) && i + c.len_utf8() < shortest)
        .map(|(i, c)| i + c.len_utf8())
        .next_back()
        .map_or_else(String::new, |end| first[..end].to_string())
}

/// The suffix every name shares, starting at a separator, such that no name is left empty once
/// the common prefix (`prefix_len` bytes) is removed too; empty for fewer than two names.
fn common_suffix(names: &[&str], prefix_len: usize) -> String {
    let rests: Vec<&str> = names.iter().map(|n| &n[prefix_len..]).collect();
    let Some((first, others)) = rests.split_first() else {
        return String::new();
    };
    if others.is_empty() {
        return String::new();
    }
    // The common suffix length, in bytes of `first`.
    let mut len = first.len();
    for n in others {
        let shared: usize = first
            .chars()
            .rev()
            .zip(n.chars().rev())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a.len_utf8())
            .sum();
        len = len.min(shared);
    }
    let shortest = rests.iter().map(|n| n.len()).min().unwrap_or(0);
    let tail = &first[first.len() - len..];
    tail.char_indices()
        .filter(|&(i, c)| is_separator(c) && len - i < shortest)
        .map(|(i, _)| i)
        .next()
        .map_or_else(String::new, |start| tail[start..].to_string())
}

/// `name` cut to at most `max` characters, the last of them `…`, when it is longer.
fn cut(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_string();
    }
    let mut s: String = name.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// Each of `names` cut to [`MAX_CHARS`]; the names that read alike once cut (alike each other
/// or alike a name kept whole) get `~1`, `~2`, … in order, cut further to stay within
/// [`MAX_CHARS`], while a name kept whole keeps itself; so every short name is distinct.
fn disambiguate(names: &[String]) -> Vec<String> {
    let cuts: Vec<String> = names.iter().map(|n| cut(n, MAX_CHARS)).collect();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &cuts {
        *uses.entry(c.as_str()).or_default() += 1;
    }
    // A name is final as it is when it was not cut (the names are distinct) or no other reads
    // alike.
    let fixed = |i: usize| cuts[i] == names[i] || uses[cuts[i].as_str()] == 1;
    let mut taken: BTreeSet<String> = (0..names.len())
        .filter(|&i| fixed(i))
        .map(|i| cuts[i].clone())
        .collect();
    let mut next: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        if fixed(i) {
            out.push(cuts[i].clone());
            continue;
        }
        let k = next.entry(cuts[i].as_str()).or_insert(0);
        let short = loop {
            *k += 1;
            let tag = format!("~{}", k);
            let candidate = format!("{}{}", cut(name, MAX_CHARS - tag.chars().count()), tag);
            if !taken.contains(&candidate) {
                break candidate;
            }
        };
        taken.insert(short.clone());
        out.push(short);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shorts(names: &[&str]) -> Vec<String> {
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let s = ShortNames::of(&names);
        names.iter().map(|n| s.get(n).to_string()).collect()
    }

    #[test]
    fn short_names_are_kept_whole_and_no_key_is_made() {
        let s = ShortNames::of(&["gpt-4".into(), "gpt-3.5-turbo".into()]);
        assert!(!s.any());
        assert_eq!(s.get("gpt-4"), "gpt-4");
        assert_eq!(s.replace_in("gpt-4 − gpt-3.5-turbo"), "gpt-4 − gpt-3.5-turbo");
    }

    #[test]
    fn the_demo_agents_lose_their_common_suffix_and_the_longest_is_cut() {
        let names = [
            "cot_context_gpt-3.5-turbo_trial1",
            "cot_context_gpt-4_trial1",
            "cot_context_gpt-4_base_trial1",
            "cot_context_HEAD_reflexion_trial1",
            "cot_nocontext_HEAD_base_trial1",
            "react_HEAD_base_trial1",
        ];
        assert_eq!(
            shorts(&names),
            [
                "cot_context_gpt-3.5-tur…",
                "cot_context_gpt-4",
                "cot_context_gpt-4_base",
                "cot_context_HEAD_reflex…",
                "cot_nocontext_HEAD_base",
                "react_HEAD_base"
            ]
        );
        let s = ShortNames::of(&names.map(String::from));
        assert_eq!(
            s.rule(),
            "System names are shortened in this report: the common suffix “_trial1” removed, names longer than 24 characters cut (~1, ~2 tell apart names cut alike). The key:"
        );
        assert_eq!(
            s.key()[1],
            ("cot_context_gpt-4".into(), "cot_context_gpt-4_trial1".into())
        );
    }

    #[test]
    fn hugging_face_ids_lose_the_shared_owner_but_not_half_a_name() {
        assert_eq!(
            shorts(&[
                "meta-llama/Llama-2-7b-chat-hf",
                "meta-llama/Llama-2-13b-chat-hf",
                "meta-llama/Llama-2-70b-chat-hf"
            ]),
            ["Llama-2-7b-chat-hf", "Llama-2-13b-chat-hf", "Llama-2-70b-chat-hf"]
        );
        // Not `4` of `gpt-4`: a hyphen is no separator.
        assert_eq!(
            shorts(&[
                "cot_context_gpt-3.5-turbo_trial1",
                "cot_context_gpt-4_trial1",
                "cot_context_gpt-4_base_trial1"
            ]),
            ["gpt-3.5-turbo", "gpt-4", "gpt-4_base"]
        );
        // A prefix that would leave a name empty stops at an earlier separator.
        assert_eq!(
            shorts(&[
                "org/model/large-finetuned-on-squad",
                "org/model/large",
                "org/model/large_v2"
            ]),
            ["large-finetuned-on-squad", "large", "large_v2"]
        );
        assert_eq!(
            shorts(&["org/model_large-finetuned-on-squad-v2", "org/model_large"]),
            ["large-finetuned-on-squa…", "large"]
        );
    }

    #[test]
    fn trec_run_tags_lose_input_dot() {
        assert_eq!(
            shorts(&["input.UAmsT03RDescriptionRun", "input.humR03dc", "input.uic0301"]),
            ["UAmsT03RDescriptionRun", "humR03dc", "uic0301"]
        );
    }

    #[test]
    fn names_cut_alike_get_numbered_suffixes() {
        let names = [
            "a-very-long-system-name-number-one",
            "a-very-long-system-name-number-two",
            "b",
        ];
        let s = shorts(&names);
        assert_eq!(s, ["a-very-long-system-na…~1", "a-very-long-system-na…~2", "b"]);
        assert!(s.iter().all(|n| n.chars().count() <= MAX_CHARS), "{:?}", s);
        // A cut name that collides with a name kept whole, and a generated name that is taken.
        let names = [
            "xxxxxxxxxxxxxxxxxxxxxxx…",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "xxxxxxxxxxxxxxxxxxxxx…~1",
        ];
        let s = shorts(&names);
        assert_eq!(
            s,
            [
                "xxxxxxxxxxxxxxxxxxxxxxx…",
                "xxxxxxxxxxxxxxxxxxxxx…~2",
                "xxxxxxxxxxxxxxxxxxxxx…~1"
            ]
        );
        let distinct: BTreeSet<&String> = s.iter().collect();
        assert_eq!(distinct.len(), 3);
    }

    #[test]
    fn replacing_in_text_matches_whole_names_longest_first() {
        let s = ShortNames::of(&[
            "run-alpha-baseline-2024-final".into(),
            "run-alpha-baseline-2024-final-v2".into(),
            "beta".into(),
        ]);
        assert_eq!(s.get("beta"), "beta");
        assert_eq!(
            s.replace_in(
                "systems run-alpha-baseline-2024-final-v2 and run-alpha-baseline-2024-final differ; \
run-alpha-baseline-2024-final_x is not a system"
            ),
            "systems run-alpha-baseline-20…~2 and run-alpha-baseline-20…~1 differ; \
run-alpha-baseline-2024-final_x is not a system"
        );
        assert_eq!(s.replace_in("ü beta−beta"), "ü beta−beta");
        assert_eq!(ShortNames::of(&[]).key(), &[] as &[(String, String)]);
    }
}
