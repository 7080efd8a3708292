//! The top-level patterns of a query's source, found without compiling it. History reads only
//! definitions of the blobs it parses, and tree-sitter compiles a query pattern by pattern, at
//! a cost that grows with the grammar: the definition patterns alone compile in a quarter to a
//! half of the whole query's time (Rust 3.6 ms of 14.9, Python 8.8 of 17.2), and a query of
//! fewer patterns also matches faster.

use std::ops::Range;

/// The byte ranges of the top-level patterns of `source`: each starts at a `(` or `[` at depth
/// 0 (comments and strings skipped) and runs to where the next one starts, so what follows a
/// group at depth 0 (its capture, a quantifier, comments) belongs to it. A test holds this
/// equal to tree-sitter's own pattern starts for every language's query.
pub(super) fn ranges(source: &str) -> Vec<Range<usize>> {
    let bytes = source.as_bytes();
    let mut starts = Vec::new();
    let mut depth = 0usize;
    for i in code(bytes) {
        match bytes[i] {
            b'(' | b'[' => {
                if depth == 0 {
                    starts.push(i);
                }
                depth += 1;
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    starts.iter().enumerate().map(|(n, &start)| start..starts.get(n + 1).copied().unwrap_or(bytes.len())).collect()
}

/// The capture names (without `@`) a pattern's source uses, comments and strings skipped.
pub(super) fn captures(pattern: &str) -> Vec<&str> {
    let bytes = pattern.as_bytes();
    let named = |b: &u8| b.is_ascii_alphanumeric() || b"_.-".contains(b);
    code(bytes)
        .filter(|&i| bytes[i] == b'@')
        .map(|i| &pattern[i + 1..i + 1 + bytes[i + 1..].iter().take_while(|b| named(b)).count()])
        .collect()
}

/// The kinds a pattern's `(#kind-if-match? @capture "regex" kind)` predicates name.
pub(super) fn kinds_if_match(pattern: &str) -> Vec<&str> {
    const OP: &str = "#kind-if-match?";
    let bytes = pattern.as_bytes();
    let mut kinds = Vec::new();
    for at in code(bytes).filter(|&i| pattern[i..].starts_with(OP)) {
        // The capture, the regex (a string, escapes and all), then the kind.
        let mut i = at + OP.len();
        let skip_space = |i: &mut usize| {
            while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
                *i += 1;
            }
        };
        let token = |i: &mut usize| {
            let start = *i;
            while *i < bytes.len() && !bytes[*i].is_ascii_whitespace() && bytes[*i] != b')' {
                *i += 1;
            }
            &pattern[start..*i]
        };
        skip_space(&mut i);
        token(&mut i);
        skip_space(&mut i);
        if bytes.get(i) == Some(&b'"') {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        }
        skip_space(&mut i);
        kinds.push(token(&mut i));
    }
    kinds
}

/// The positions of `bytes` outside comments (to the end of their line) and strings (escapes
/// included).
fn code(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            match bytes[i] {
                b';' => i = bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |end| i + end),
                b'"' => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != b'"' {
                        i += if bytes[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                _ => {
                    i += 1;
                    return Some(i - 1);
                }
            }
        }
        None
    })
}

/// The patterns of `source` that use a capture `keep` accepts, in their order.
pub(super) fn only(source: &str, keep: impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    for range in ranges(source) {
        let pattern = &source[range];
        if captures(pattern).into_iter().any(&keep) {
            out.push_str(pattern);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_start_where_tree_sitter_says_for_every_language() {
        for language in crate::lang::LANGUAGES {
            let grammar = codecompass_grammars::language(language.grammar).unwrap();
            let query = tree_sitter::Query::new(&grammar, language.query).unwrap();
            let theirs: Vec<usize> = (0..query.pattern_count()).map(|i| query.start_byte_for_pattern(i)).collect();
            let ours: Vec<usize> = ranges(language.query).into_iter().map(|r| r.start).collect();
            assert_eq!(ours, theirs, "{}", language.name);
        }
    }

    #[test]
    fn comments_and_strings_hide_brackets_and_captures() {
        let source = "; (not a pattern) @no\n(a (#eq? @x \"(@not\\\")\")) @yes ; [nor this] @no2\n[(b) (c)] @both\n";
        let found: Vec<&str> = ranges(source).into_iter().map(|r| source[r].trim_end()).collect();
        assert_eq!(found, ["(a (#eq? @x \"(@not\\\")\")) @yes ; [nor this] @no2", "[(b) (c)] @both"]);
        assert_eq!(captures(found[0]), ["x", "yes"]);
        assert_eq!(only(source, |c| c == "both").trim_end(), "[(b) (c)] @both");
    }

    #[test]
    fn the_kinds_of_kind_if_match_are_read_past_the_regex() {
        let pattern = "((x) @name @definition.variable\n  (#kind-if-match? @name \"^[A-Z) \\\"]+$\"  constant)\n  ; (#kind-if-match? @name \"x\" no)\n  (#kind-if-match?\n @name \"y\" field))";
        assert_eq!(kinds_if_match(pattern), ["constant", "field"]);
        assert!(kinds_if_match("(x) @definition.variable").is_empty());
    }
}
