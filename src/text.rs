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

/// A byte count for people: `1.5 GiB`, `512.0 MiB`, `3.0 KiB` (powers of 1024, one decimal), or
/// `N bytes` (`1 byte`) below 1 KiB.
pub fn bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    UNITS
        .iter()
        .find(|(u, _)| n >= *u)
        .map(|(u, name)| format!("{:.1} {}", n as f64 / *u as f64, name))
        .unwrap_or_else(|| plural(n, "byte", "bytes"))
}

/// `s` as one POSIX shell word: as it is when it holds only safe characters, else in single
/// quotes.
pub fn shell_word(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | '+' | '@' | ','));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_quote_what_the_shell_would_split() {
        assert_eq!(shell_word("data/correctness.csv"), "data/correctness.csv");
        assert_eq!(shell_word("my data.csv"), "'my data.csv'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }

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
        assert_eq!(bytes(1023), "1023 bytes");
        assert_eq!(bytes(1), "1 byte");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(512 << 20), "512.0 MiB");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
    }
}
