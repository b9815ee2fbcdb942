//! The code map's invariants, read from the source: every `crate::`, `super::` and `self::` path
//! in non-test code goes to a module of its own layer or a lower one in ARCHITECTURE.md's layer
//! tables (the tables are this test's input, so the page and the check cannot drift), the
//! modules form no cycle (between top-level modules, and between the files of each directory
//! that has a table of its own, such as `ledger/`), and no non-test function is over 100 lines.
//!
//! What counts as an edge: a path in code, including each name of a `use crate::{a, b::c}` group.
//! Comments are not code, so a doc link (`[`crate::x`]`) is no edge: rustdoc links may point
//! anywhere, upward included, without making the code depend on it. Test code (an item under
//! `#[cfg(test)]`, a file declared as a `#[cfg(test)] mod`) is no edge either. A name re-exported
//! by `lib.rs` or a directory's `mod.rs` (`pub use store::Ledger`) or a `#[macro_export]` macro
//! counts as an edge to the module that defines it.

use std::collections::{BTreeMap, BTreeSet};

/// The longest a non-test function may be, in lines from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 100;

/// One layer table: the directory whose children it orders (`None`: the top-level modules of
/// `src/`) and each module's layer (a higher number is a higher layer).
#[derive(Debug, Default)]
struct Table {
    scope: Option<String>,
    layer: BTreeMap<String, usize>,
}

/// Reads the layer tables of a Markdown page: a table whose first header cell ends with
/// `layer` (`Layer`, or ``` `ledger/` layer``` for the files of `ledger/`), one row per layer from
/// the top down, the row's modules as code spans in its second cell.
fn tables(markdown: &str) -> Vec<Table> {
    let mut out = Vec::new();
    let mut current: Option<(Table, Vec<Vec<String>>)> = None;
    for line in markdown.lines() {
        let line = line.trim();
        if !line.starts_with('|') {
            if let Some((t, rows)) = current.take() {
                out.push(finish(t, rows));
            }
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        match &mut current {
            None => {
                if cells[0].to_ascii_lowercase().ends_with("layer") {
                    let scope = code_spans(cells[0])
                        .into_iter()
                        .next()
                        .map(|d| d.trim_end_matches('/').to_string());
                    current = Some((
                        Table {
                            scope,
                            ..Table::default()
                        },
                        Vec::new(),
                    ));
                }
            }
            Some((_, rows)) => {
                if cells.iter().all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
                    continue;
                }
                rows.push(code_spans(cells.get(1).copied().unwrap_or("")));
            }
        }
    }
    if let Some((t, rows)) = current.take() {
        out.push(finish(t, rows));
    }
    out
}

fn finish(mut t: Table, rows: Vec<Vec<String>>) -> Table {
    let n = rows.len();
    for (i, row) in rows.into_iter().enumerate() {
        for m in row {
            t.layer
                .insert(m.trim_end_matches('/').trim_end_matches(".rs").to_string(), n - i);
        }
    }
    t
}

/// The code spans of a Markdown cell: `` `a` `b/` `` gives `a`, `b/`.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// `text` with comments, string literals and character literals blanked (replaced by spaces,
/// newlines kept), so what is left is code and line numbers still hold.
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank_range = |out: &mut String, s: &[char]| {
        out.extend(s.iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }));
    };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let rest = &c[i..];
        if rest.starts_with(&['/', '/']) {
            let end = rest.iter().position(|&ch| ch == '\n').map_or(c.len(), |p| i + p);
            blank_range(&mut out, &c[i..end]);
            i = end;
        } else if rest.starts_with(&['/', '*']) {
            let (mut depth, mut j) = (0usize, i);
            while j < c.len() {
                if c[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if c[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank_range(&mut out, &c[i..j.min(c.len())]);
            i = j.min(c.len());
        } else if let Some(len) = raw_string_start(rest).filter(|_| i == 0 || !ident(c[i - 1])) {
            let hashes = rest[..len].iter().filter(|&&ch| ch == '#').count();
            let mut j = i + len;
            while j < c.len()
                && !(c[j] == '"' && c[j + 1..].iter().take(hashes).filter(|&&ch| ch == '#').count() == hashes)
            {
                j += 1;
            }
            let end = (j + 1 + hashes).min(c.len());
            blank_range(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(c.len());
            blank_range(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            let from = (i + 3).min(c.len());
            let end = c[from..]
                .iter()
                .position(|&ch| ch == '\'')
                .map_or(c.len(), |p| from + p + 1);
            blank_range(&mut out, &c[i..end]);
            i = end;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The length of a raw string's opening (`r"`, `r#"`, `br##"`) at the start of `s`, if any.
fn raw_string_start(s: &[char]) -> Option<usize> {
    let mut i = usize::from(s.first() == Some(&'b'));
    if s.get(i) != Some(&'r') {
        return None;
    }
    i += 1;
    while s.get(i) == Some(&'#') {
        i += 1;
    }
    (s.get(i) == Some(&'"')).then_some(i + 1)
}

/// The end (exclusive) of the item starting at `from` in blanked code: after its first `;`
/// outside brackets, or its block's closing brace.
fn item_end(code: &[u8], from: usize) -> usize {
    let mut depth = 0i64;
    let mut j = from;
    while j < code.len() {
        match code[j] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 && code[j] == b'}' {
                    return j + 1;
                }
            }
            b';' if depth == 0 => return j + 1,
            _ => {}
        }
        j += 1;
    }
    code.len()
}

/// Blanked code with its test items blanked too, and the names of the `#[cfg(test)] mod NAME;`
/// files it declares.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut bytes = code.as_bytes().to_vec();
    let mut test_mods = Vec::new();
    let mut at = 0;
    while let Some(p) = code[at..].find("#[cfg(test)]") {
        let start = at + p;
        let end = item_end(code.as_bytes(), start + "#[cfg(test)]".len());
        let item: Vec<&str> = code[start..end].split_whitespace().collect();
        if let Some(i) = item.iter().position(|w| *w == "mod") {
            if let Some(name) = item.get(i + 1).filter(|n| n.ends_with(';')) {
                test_mods.push(name.trim_end_matches(';').to_string());
            }
        }
        for b in &mut bytes[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        at = end;
    }
    (String::from_utf8(bytes).expect("blanking keeps UTF-8"), test_mods)
}

/// A source file of `src/` by its path there (`ledger/chain.rs`): its module path
/// (`["ledger", "chain"]`; `[]` for `lib.rs`).
fn module_path(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// One path in code: where it is and the module path it names (`crate::` resolved, `super::`
/// and `self::` made absolute).
#[derive(Debug, Clone)]
struct Edge {
    file: String,
    line: usize,
    target: Vec<String>,
}

/// The files of `tree` that are test code: declared as `#[cfg(test)] mod NAME;` (and their
/// submodules), and `main.rs`, which is a crate of its own.
fn test_files(tree: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut test_mods: Vec<String> = Vec::new();
    for (file, text) in tree {
        let (_, mods) = without_tests(&blank(text));
        let dir = module_path(file).join("/");
        test_mods.extend(
            mods.into_iter()
                .map(|m| if dir.is_empty() { m } else { format!("{}/{}", dir, m) }),
        );
    }
    tree.keys()
        .filter(|f| {
            let m = module_path(f).join("/");
            f.as_str() == "main.rs" || test_mods.iter().any(|t| m == *t || m.starts_with(&format!("{}/", t)))
        })
        .cloned()
        .collect()
}

/// The paths of non-test code in `tree` (path under `src/` → text).
fn edges(tree: &BTreeMap<String, String>) -> Vec<Edge> {
    let tests = test_files(tree);
    let mut out = Vec::new();
    for (file, text) in tree {
        if tests.contains(file) {
            continue;
        }
        let (c, _) = without_tests(&blank(text));
        for (offset, segs) in paths(&c) {
            let line = c[..offset].matches('\n').count() + 1;
            let here = module_path(file);
            let target = match segs[0].as_str() {
                "crate" => segs[1..].to_vec(),
                "self" => here.iter().cloned().chain(segs[1..].iter().cloned()).collect(),
                _ => {
                    let mut up = here.clone();
                    up.pop();
                    let mut rest = &segs[1..];
                    while rest.first().map(String::as_str) == Some("super") {
                        up.pop();
                        rest = &rest[1..];
                    }
                    up.into_iter().chain(rest.iter().cloned()).collect()
                }
            };
            out.push(Edge {
                file: file.to_string(),
                line,
                target,
            });
        }
    }
    out
}

/// The `crate::`, `super::` and `self::` paths of blanked code, by byte offset: each one's
/// segments, and for a `use` group each name in it (`crate::{a, b::c}` gives `crate::a` and
/// `crate::b`).
fn paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let b = code.as_bytes();
    let word = |i: usize| -> (usize, &str) {
        let end = code[i..]
            .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
            .map_or(code.len(), |p| i + p);
        (end, &code[i..end])
    };
    let skip_ws = |mut i: usize| {
        while i < b.len() && (b[i] as char).is_whitespace() {
            i += 1;
        }
        i
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let boundary = i == 0 || !((b[i - 1] as char).is_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'$');
        let (end, w) = word(i);
        if end == i {
            i += 1;
            continue;
        }
        if !boundary || !matches!(w, "crate" | "super" | "self") {
            i = end;
            continue;
        }
        let mut segs = vec![w.to_string()];
        let mut j = end;
        loop {
            let k = skip_ws(j);
            if !code[k..].starts_with("::") {
                break;
            }
            let k = skip_ws(k + 2);
            if b.get(k) == Some(&b'{') {
                out.extend(group(code, k + 1).into_iter().map(|name| {
                    let mut s = segs.clone();
                    if name != "self" {
                        s.push(name);
                    }
                    (i, s)
                }));
                segs.clear();
                break;
            }
            let (e, w) = word(k);
            if e == k {
                break;
            }
            segs.push(w.to_string());
            j = e;
        }
        if segs.len() > 1 {
            out.push((i, segs));
        }
        i = j.max(end);
    }
    out
}

/// The first name of each member of the `use` group whose body starts at `from` (after `{`).
fn group(code: &str, from: usize) -> Vec<String> {
    let mut names = Vec::new();
    let (mut depth, mut member) = (0usize, String::new());
    for ch in code[from..].chars() {
        match ch {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.extend(first_word(&member));
                member.clear();
                continue;
            }
            _ => {}
        }
        member.push(ch);
    }
    names.extend(first_word(&member));
    names
}

fn first_word(s: &str) -> Option<String> {
    let w: String = s
        .trim()
        .chars()
        .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
        .collect();
    (!w.is_empty()).then_some(w)
}

/// The module each re-exported name stands for: `pub use child::{A, B}` in `lib.rs` or a
/// directory's `mod.rs` maps `dir::A` to `dir::child`, and a `#[macro_export]` macro is at the
/// crate root for its defining module. Keys and values are module paths joined with `::`.
fn reexports(tree: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (file, text) in tree {
        let (code, _) = without_tests(&blank(text));
        let here = module_path(file);
        let is_root = file == "lib.rs" || file.ends_with("/mod.rs");
        let mut at = 0;
        while let Some(p) = code[at..].find("use ") {
            let start = at + p;
            at = start + 4;
            let before = code[..start].trim_end();
            if !is_root || !(before.ends_with("pub") || before.ends_with(')')) {
                continue;
            }
            let end = item_end(code.as_bytes(), start);
            let body: String = code[start + 4..end].chars().filter(|c| !c.is_whitespace()).collect();
            let body = body.trim_end_matches(';').trim_start_matches("self::");
            let Some((child, names)) = body.split_once("::") else {
                continue;
            };
            let names = names.trim_start_matches('{').trim_end_matches('}');
            for name in names.split(',').filter_map(first_word) {
                let key = here.iter().cloned().chain([name]).collect::<Vec<_>>().join("::");
                let value = here
                    .iter()
                    .cloned()
                    .chain([child.to_string()])
                    .collect::<Vec<_>>()
                    .join("::");
                out.insert(key, value);
            }
        }
        let mut at = 0;
        while let Some(p) = code[at..].find("#[macro_export]") {
            at += p + 1;
            if let Some(m) = code[at..].find("macro_rules!") {
                if let Some(name) = first_word(code[at + m + 12..].trim_start()) {
                    out.insert(name, here.join("::"));
                }
            }
        }
    }
    out
}

/// The module of `scope` (its children, or the top-level modules) a target path lands in, with
/// re-exports followed; `None` for a path outside the scope or into the scope's own root file.
fn landing(target: &[String], scope: &[String], reexports: &BTreeMap<String, String>) -> Option<String> {
    if target.len() <= scope.len() || target[..scope.len()] != *scope {
        return None;
    }
    let key = target[..=scope.len()].join("::");
    let resolved = reexports.get(&key).cloned().unwrap_or(key);
    let parts: Vec<&str> = resolved.split("::").collect();
    parts.get(scope.len()).map(|s| s.to_string())
}

/// The modules of `scope` in `tree`: the top-level modules, or the children of a directory
/// (test files left out).
fn modules(tree: &BTreeMap<String, String>, scope: &[String]) -> BTreeSet<String> {
    let tests = test_files(tree);
    tree.keys()
        .filter(|f| !tests.contains(*f))
        .map(|f| module_path(f))
        .filter(|m| m.len() > scope.len() && m[..scope.len()] == *scope)
        .map(|m| m[scope.len()].clone())
        .collect()
}

/// Every breach of the layer tables in `tree`, one line each (`file:line: ...`): a path to a
/// higher layer, a module missing from its table or listed but absent, and each cycle among the
/// modules of one table (with the file and line of each step).
fn check(tree: &BTreeMap<String, String>, tables: &[Table]) -> Vec<String> {
    let all = edges(tree);
    let re = reexports(tree);
    let mut problems = Vec::new();
    for t in tables {
        let scope: Vec<String> = t.scope.iter().flat_map(|s| s.split('/')).map(str::to_string).collect();
        let where_ = t.scope.as_deref().map_or("src/".to_string(), |s| format!("src/{}/", s));
        let present = modules(tree, &scope);
        for m in present.difference(&t.layer.keys().cloned().collect()) {
            problems.push(format!("{}: module `{}` is in no row of the layer table", where_, m));
        }
        for m in t.layer.keys().filter(|m| !present.contains(*m)) {
            problems.push(format!(
                "{}: the layer table lists `{}`, which is not a module there",
                where_, m
            ));
        }
        let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for e in &all {
            let from = module_path(&e.file);
            let Some(a) = landing(&from, &scope, &BTreeMap::new()) else {
                continue;
            };
            let Some(b) = landing(&e.target, &scope, &re).filter(|b| *b != a && present.contains(b)) else {
                continue;
            };
            let at = format!("src/{}:{}", e.file, e.line);
            if let (Some(la), Some(lb)) = (t.layer.get(&a), t.layer.get(&b)) {
                if lb > la {
                    problems.push(format!(
                        "{}: `{}` (layer {}) uses `{}` (layer {}), a higher layer",
                        at, a, la, b, lb
                    ));
                }
            }
            graph.entry(a).or_default().entry(b).or_insert(at);
        }
        problems.extend(
            cycles(&graph)
                .into_iter()
                .map(|c| format!("{}: a module cycle: {}", where_, c)),
        );
    }
    problems
}

/// The cycles of `graph` (module → used module → the first place it is used), one per strongly
/// connected component of two or more modules, written `a → b (at) → ... → a (at)`.
fn cycles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<String> {
    let nodes: BTreeSet<&String> = graph.keys().chain(graph.values().flat_map(|m| m.keys())).collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for m in graph.get(&n).into_iter().flat_map(|m| m.keys()) {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    for n in nodes {
        if done.contains(n) || !reach(n).contains(n) {
            continue;
        }
        // One cycle through n: a shortest path back to it (breadth first).
        let mut prev: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([n.clone()]);
        'search: while let Some(x) = queue.pop_front() {
            for y in graph.get(&x).into_iter().flat_map(|m| m.keys()) {
                if y == n {
                    prev.insert(format!("{}#end", n), x.clone());
                    break 'search;
                }
                if !prev.contains_key(y) {
                    prev.insert(y.clone(), x.clone());
                    queue.push_back(y.clone());
                }
            }
        }
        let mut path = vec![n.clone()];
        let mut x = prev[&format!("{}#end", n)].clone();
        while x != *n {
            path.push(x.clone());
            x = prev[&x].clone();
        }
        path.push(n.clone());
        let len = path.len();
        path[1..len - 1].reverse();
        let mut text = path[0].clone();
        for w in path.windows(2) {
            text.push_str(&format!(" → {} ({})", w[1], graph[&w[0]][&w[1]]));
        }
        done.extend(path);
        out.push(text);
    }
    out
}

/// Each non-test function of `tree` over `MAX_FUNCTION_LINES` lines: `file:line: name is N lines`.
fn long_functions(tree: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (file, text) in tree {
        let (code, _) = without_tests(&blank(text));
        let b = code.as_bytes();
        let mut at = 0;
        while let Some(p) = code[at..].find("fn ") {
            let start = at + p;
            at = start + 3;
            if start > 0 && ((b[start - 1] as char).is_alphanumeric() || b[start - 1] == b'_') {
                continue;
            }
            let Some(name) = first_word(&code[start + 3..]) else {
                continue;
            };
            // The body: the first `{` before any `;` (a declaration without one has no body).
            let Some(open) = code[start..]
                .find(['{', ';'])
                .map(|o| start + o)
                .filter(|&o| b[o] == b'{')
            else {
                continue;
            };
            let end = item_end(b, open);
            let first = code[..start].matches('\n').count() + 1;
            let last = code[..end].matches('\n').count() + 1;
            if last - first + 1 > MAX_FUNCTION_LINES {
                out.push(format!(
                    "src/{}:{}: fn {} is {} lines",
                    file,
                    first,
                    name,
                    last - first + 1
                ));
            }
        }
    }
    out
}

/// The `.rs` files under `src/`, by their path there.
fn source_tree() -> BTreeMap<String, String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("src/ is readable") {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p
                    .strip_prefix(&root)
                    .expect("under src/")
                    .to_string_lossy()
                    .replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&p).expect("a source file is UTF-8"));
            }
        }
    }
    out
}

fn architecture_tables() -> Vec<Table> {
    let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md");
    let t = tables(&std::fs::read_to_string(page).expect("ARCHITECTURE.md is readable"));
    assert!(
        t.iter().any(|t| t.scope.is_none()),
        "ARCHITECTURE.md has no layer table of the top-level modules (a table whose first header cell is `Layer`)"
    );
    t
}

/// Checks the tables of ARCHITECTURE.md that `pick` takes against the source.
fn check_tables(pick: impl Fn(&Table) -> bool) {
    let tables: Vec<Table> = architecture_tables().into_iter().filter(|t| pick(t)).collect();
    assert!(!tables.is_empty(), "ARCHITECTURE.md has no such layer table");
    let problems = check(&source_tree(), &tables);
    assert!(
        problems.is_empty(),
        "the layers of ARCHITECTURE.md do not hold:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_top_level_layer_table_of_architecture_md_holds() {
    check_tables(|t| t.scope.is_none());
}

#[test]
fn the_directory_layer_tables_of_architecture_md_hold() {
    check_tables(|t| t.scope.is_some());
}

#[test]
fn no_non_test_function_is_over_100_lines() {
    let long = long_functions(&source_tree());
    assert!(
        long.is_empty(),
        "functions over {} lines (split them into named steps with doc lines):\n{}",
        MAX_FUNCTION_LINES,
        long.join("\n")
    );
}

/// A small tree: `lib.rs` declares `a`, `b`, `c` and `d/`; the table puts `a` on top.
fn tiny_tree(b_rs: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "lib.rs".to_string(),
            "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub use c::{Thing};\n".to_string(),
        ),
        (
            "a.rs".to_string(),
            "use crate::{b::B, c};\nfn f() { crate::d::x(); }\n".to_string(),
        ),
        ("b.rs".to_string(), b_rs.to_string()),
        (
            "c.rs".to_string(),
            "//! Links [`crate::a`] in a doc comment.\npub struct Thing;\n".to_string(),
        ),
        ("d/mod.rs".to_string(), "mod p;\nmod q;\npub use q::x;\n".to_string()),
        ("d/p.rs".to_string(), "pub fn y() { super::x() }\n".to_string()),
        ("d/q.rs".to_string(), "pub fn x() {}\n".to_string()),
    ])
}

const TINY_TABLES: &str = "\
| Layer | Modules |
|---|---|
| 3 | `a` |
| 2 | `b`, `d/` |
| 1 | `c` |

| `d/` layer | Files |
|---|---|
| 2 | `p` |
| 1 | `q` |
";

#[test]
fn the_checker_passes_a_tree_that_keeps_its_layers() {
    let tree = tiny_tree(
        "//! Uses [`crate::a::f`] in a doc link only.\nuse crate::c::Thing;\nconst S: &str = \"crate::a::f\";\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n",
    );
    let t = tables(TINY_TABLES);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].layer.get("a"), Some(&3));
    assert_eq!(t[0].layer.get("d"), Some(&2));
    assert_eq!(t[1].scope.as_deref(), Some("d"));
    assert_eq!(check(&tree, &t), Vec::<String>::new());
}

#[test]
fn the_checker_finds_a_planted_cycle_with_file_and_line() {
    // b uses a (a higher layer), and a uses b: a cycle, and an upward edge at b.rs:2.
    let tree = tiny_tree("pub struct B;\nfn g() { let _ = crate::a::f; }\n");
    let problems = check(&tree, &tables(TINY_TABLES));
    assert_eq!(
        problems,
        vec![
            "src/b.rs:2: `b` (layer 2) uses `a` (layer 3), a higher layer".to_string(),
            "src/: a module cycle: a → b (src/a.rs:1) → a (src/b.rs:2)".to_string(),
        ]
    );
    // Inside a directory: q using p (a re-export followed) is upward and a cycle.
    let mut tree = tiny_tree("pub struct B;\n");
    tree.insert("d/q.rs".to_string(), "pub fn x() { super::p::y() }\n".to_string());
    let problems = check(&tree, &tables(TINY_TABLES));
    assert_eq!(
        problems,
        vec![
            "src/d/q.rs:1: `q` (layer 1) uses `p` (layer 2), a higher layer".to_string(),
            "src/d/: a module cycle: p → q (src/d/p.rs:1) → p (src/d/q.rs:1)".to_string(),
        ]
    );
}

#[test]
fn the_checker_names_modules_missing_from_the_table() {
    let mut tree = tiny_tree("pub struct B;\n");
    tree.insert("e.rs".to_string(), "use crate::a;\n".to_string());
    let problems = check(&tree, &tables(TINY_TABLES));
    assert_eq!(
        problems,
        vec!["src/: module `e` is in no row of the layer table".to_string()]
    );
}

#[test]
fn the_length_check_counts_from_fn_to_the_closing_brace() {
    let body = "    let _x = 1;\n".repeat(99);
    let tree = BTreeMap::from([
        (
            "ok.rs".to_string(),
            format!("fn fits() {{\n{}}}\n", &body[..body.len() - 16]),
        ),
        (
            "long.rs".to_string(),
            format!(
                "// a comment\nfn too_long() {{\n{}}}\n#[cfg(test)]\nmod tests {{\nfn t() {{\n{}}}\n}}\n",
                body, body
            ),
        ),
    ]);
    assert_eq!(
        long_functions(&tree),
        vec!["src/long.rs:2: fn too_long is 101 lines".to_string()]
    );
}
