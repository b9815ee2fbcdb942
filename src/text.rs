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
    }
}
