//! Small text helpers shared by the library and the CLI.

/// The first `n` characters of `s` (a hash or commit id shortened for display). Counts
/// characters, not bytes, so text read from a tampered ledger can never split a character.
pub fn short(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// `s` cut to at most `n` characters, with `…` when cut.
pub fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// `n` followed by `one` or `many` as `n` is 1 or not: `1 component`, `2 components`.
pub fn plural(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{} {}", n, if n == 1 { one } else { many })
}

/// Entry numbers in words with runs collapsed: `entry #3`, `entries #1–#4, #7` (`seqs`
/// ascending).
pub fn seq_list(seqs: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < seqs.len() {
        let mut j = i;
        while j + 1 < seqs.len() && seqs[j + 1] == seqs[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            format!("#{}", seqs[i])
        } else {
            format!("#{}–#{}", seqs[i], seqs[j])
        });
        i = j + 1;
    }
    format!(
        "{} {}",
        if seqs.len() == 1 { "entry" } else { "entries" },
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_counts_characters() {
        assert_eq!(short("0123456789abcdef", 7), "0123456");
        assert_eq!(short("abc", 7), "abc");
        // Multi-byte characters never split (a tampered ledger may hold anything).
        assert_eq!(short("ééééééééé", 3), "ééé");
        assert_eq!(short("", 3), "");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("ab", 4), "ab");
        assert_eq!(plural(1u64, "component", "components"), "1 component");
        assert_eq!(plural(3u64, "component", "components"), "3 components");
        assert_eq!(seq_list(&[3]), "entry #3");
        assert_eq!(seq_list(&[1, 2, 3, 4, 7, 9, 10]), "entries #1–#4, #7, #9–#10");
    }
}
