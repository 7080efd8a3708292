//! The texts a query given no driver demands of a file: read off the query itself, they choose
//! the files to parse through the view's trigram index, so a "driverless" query still reads
//! only the files that can hold a match.
//!
//! Two sources, both certain: the literals of `#eq?` and `#any-of?` predicates on captures
//! every match has, and the keywords every node of a kind the pattern requires contains (a
//! `goto_statement` holds `goto`; the grammars' table, `codecompass_grammars::KIND_TEXTS`). A
//! pattern demands all of its texts; a query, those of one of its patterns. Per language,
//! because kinds are: a file is checked against its own language's demand.
//!
//! What it cannot see: a node tree-sitter made up to recover from a syntax error (a `MISSING`
//! keyword has no text), which no file holds anyway.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::OnceLock;

use tree_sitter::{CaptureQuantifier, Query};

use super::pattern::CompiledQuery;
use super::syntax::{Token, tokens, unquote};

use crate::query::prefilter::Prefilter;

/// One demand: any of these texts.
type Clause = Vec<String>;

/// What a query demands of a file, per language it may compile for.
#[derive(Debug, PartialEq, Eq)]
pub struct Demand {
    /// Per language name, per pattern: the clauses a file must meet all of.
    by_language: BTreeMap<&'static str, Vec<Vec<Clause>>>,
}

impl Demand {
    /// The demand of the query `text`, compiled as `queries` per language, or `None` when some
    /// pattern demands nothing of a file in one of them (any file of it may match).
    pub fn of(text: &str, queries: &BTreeMap<&'static str, CompiledQuery>) -> Option<Demand> {
        let table = kind_texts();
        let mut by_language = BTreeMap::new();
        for (&name, compiled) in queries {
            let grammar = crate::lang::by_name(name)?.grammar;
            let query = compiled.query();
            let mut per_pattern = Vec::new();
            for p in 0..query.pattern_count() {
                let pattern = pattern_text(query, text, p);
                let mut clauses = predicate_clauses(query, p, pattern);
                for kind in required_kinds(pattern) {
                    for t in table.get(&(grammar, kind.as_str())).into_iter().flatten() {
                        clauses.push(vec![(*t).to_owned()]);
                    }
                }
                clauses.sort();
                clauses.dedup();
                if clauses.is_empty() {
                    return None;
                }
                per_pattern.push(clauses);
            }
            by_language.insert(name, per_pattern);
        }
        let demand = Demand { by_language };
        (!demand.by_language.is_empty() && !demand.prefilter().is_any()).then_some(demand)
    }

    /// The trigram condition a file meeting the demand in any language has.
    pub fn prefilter(&self) -> Prefilter {
        Prefilter::or(
            self.by_language
                .values()
                .flatten()
                .map(|clauses| {
                    Prefilter::and(
                        clauses
                            .iter()
                            .map(|clause| Prefilter::or(clause.iter().map(|t| Prefilter::of_literal(t)).collect()))
                            .collect(),
                    )
                })
                .collect(),
        )
    }

    /// Where in `data`, a file of `language`, matches can be: `None` when the file meets no
    /// pattern's demand, else byte spans (in order) of which every match's pattern root holds
    /// one (the root holds all its pattern's texts: for each pattern, the places of the texts
    /// the file holds least often). More than `limit` places give the whole file as one span.
    pub fn places(&self, language: &str, data: &[u8], limit: usize) -> Option<Vec<(usize, usize)>> {
        let whole = vec![(0, data.len())];
        let Some(patterns) = self.by_language.get(language) else { return Some(whole) };
        let found = |t: &String| memchr::memmem::find(data, t.as_bytes()).is_some();
        let met: Vec<&Vec<Clause>> =
            patterns.iter().filter(|clauses| clauses.iter().all(|clause| clause.iter().any(found))).collect();
        if met.is_empty() {
            return None;
        }
        let mut spans = Vec::new();
        for clauses in met {
            // The clause whose texts the file holds least often places the matches closest
            // (a part parse reads the items around them only): `None` before `return`.
            let telling = clauses.iter().min_by_key(|c| {
                let count: usize =
                    c.iter().map(|t| memchr::memmem::find_iter(data, t.as_bytes()).take(limit + 1).count()).sum();
                (count, std::cmp::Reverse(c.iter().map(String::len).min().unwrap_or(0)))
            })?;
            for t in telling {
                for at in memchr::memmem::find_iter(data, t.as_bytes()) {
                    if spans.len() == limit {
                        return Some(whole);
                    }
                    spans.push((at, at + t.len()));
                }
            }
        }
        spans.sort_unstable();
        spans.dedup();
        Some(spans)
    }

    /// Whether `data`, a file of `language`, meets the demand of one pattern.
    pub fn holds(&self, language: &str, data: &[u8]) -> bool {
        let Some(patterns) = self.by_language.get(language) else { return true };
        let found = |t: &String| memchr::memmem::find(data, t.as_bytes()).is_some();
        patterns.iter().any(|clauses| clauses.iter().all(|clause| clause.iter().any(found)))
    }

    /// The demand for a reader: `a & b` both, `a|b` either, patterns (and languages that
    /// demand other texts) joined by ` | `.
    pub fn describe(&self) -> String {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for clauses in self.by_language.values().flatten() {
            let text = clauses
                .iter()
                .map(|c| if c.len() > 1 && clauses.len() > 1 { format!("({})", c.join("|")) } else { c.join("|") })
                .collect::<Vec<_>>()
                .join(" & ");
            if seen.insert(text.clone()) {
                out.push(text);
            }
        }
        out.join(" | ")
    }
}

/// The grammars' kind texts, by (grammar, kind).
fn kind_texts() -> &'static HashMap<(&'static str, &'static str), Vec<&'static str>> {
    static TABLE: OnceLock<HashMap<(&'static str, &'static str), Vec<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        codecompass_grammars::KIND_TEXTS
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|line| {
                let mut fields = line.split('\t');
                let key = (fields.next()?, fields.next()?);
                Some((key, fields.collect()))
            })
            .collect()
    })
}

/// The text of pattern `p` of `query` (up to the next pattern).
fn pattern_text<'t>(query: &Query, text: &'t str, p: usize) -> &'t str {
    let start = query.start_byte_for_pattern(p).min(text.len());
    let end =
        if p + 1 < query.pattern_count() { query.start_byte_for_pattern(p + 1).min(text.len()) } else { text.len() };
    &text[start.min(end)..end]
}

/// The literal demands of pattern `p`'s predicates on captures every match of it has.
fn predicate_clauses(query: &Query, p: usize, pattern: &str) -> Vec<Clause> {
    let quantifiers = query.capture_quantifiers(p);
    let mandatory = |name: &str| {
        query.capture_index_for_name(name).is_some_and(|i| {
            matches!(quantifiers.get(i as usize), Some(CaptureQuantifier::One | CaptureQuantifier::OneOrMore))
        })
    };
    literal_predicates(pattern)
        .into_iter()
        .filter(|(capture, alternatives)| mandatory(capture) && alternatives.iter().all(|a| !a.is_empty()))
        .map(|(_, alternatives)| alternatives)
        .collect()
}

/// The `(#eq? @capture "text")` and `(#any-of? @capture "a" "b")` predicates of a pattern's
/// text: the capture's name and the literal alternatives.
fn literal_predicates(pattern: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = pattern;
    while let Some(at) = rest.find("(#") {
        rest = &rest[at + 2..];
        let (operator, after) = rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len()));
        if operator != "eq?" && operator != "any-of?" {
            continue;
        }
        let after = after.trim_start();
        let Some(capture) = after.strip_prefix('@') else { continue };
        let name_end = capture.find(|c: char| c.is_whitespace() || c == ')').unwrap_or(capture.len());
        let (name, mut args) = capture.split_at(name_end);
        let mut literals = Vec::new();
        loop {
            args = args.trim_start();
            let Some(quoted) = args.strip_prefix('"') else { break };
            let Some((literal, after)) = unquote(quoted) else { break };
            literals.push(literal);
            args = after;
        }
        // `#eq?` compares with one literal; with a capture instead, it demands no text.
        let well_formed =
            args.starts_with(')') && !literals.is_empty() && (operator == "any-of?" || literals.len() == 1);
        if well_formed {
            out.push((name.to_owned(), literals));
        }
    }
    out
}

/// The node kinds every match of a pattern has: the named nodes of its text that are not in
/// an alternation, not quantified `?` or `*`, and not under `MISSING` or `ERROR`.
fn required_kinds(pattern: &str) -> Vec<String> {
    let tokens = tokens(pattern);
    let mut kinds = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        i = item(&tokens, i, true, &mut kinds);
    }
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Reads the item at `i` (with its quantifier), adding the kinds it requires when `required`;
/// returns where the next item starts.
fn item(tokens: &[Token<'_>], i: usize, required: bool, kinds: &mut Vec<String>) -> usize {
    let mut own = Vec::new();
    let mut next = match tokens[i] {
        Token::Open => match tokens.get(i + 1) {
            Some(Token::Word(w)) if w.starts_with('#') => skip_group(tokens, i),
            Some(Token::Word(w)) => {
                let inside = !matches!(*w, "MISSING" | "ERROR");
                if inside && *w != "_" && !w.contains('/') {
                    own.push((*w).to_owned());
                }
                children(tokens, i + 2, Token::Close, inside, &mut own)
            }
            _ => children(tokens, i + 1, Token::Close, true, &mut own),
        },
        Token::OpenAlternation => children(tokens, i + 1, Token::CloseAlternation, false, &mut own),
        _ => i + 1,
    };
    let optional = matches!(tokens.get(next), Some(Token::Quantifier('?' | '*')));
    if matches!(tokens.get(next), Some(Token::Quantifier(_))) {
        next += 1;
    }
    if required && !optional {
        kinds.extend(own);
    }
    next
}

/// Reads items from `i` up to `close`; returns the position after it.
fn children(tokens: &[Token<'_>], mut i: usize, close: Token<'_>, required: bool, kinds: &mut Vec<String>) -> usize {
    while i < tokens.len() {
        if tokens[i] == close {
            return i + 1;
        }
        i = item(tokens, i, required, kinds);
    }
    i
}

/// The position after the parenthesized group opening at `i`.
fn skip_group(tokens: &[Token<'_>], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(i) {
        match t {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(pattern: &str) -> Vec<String> {
        required_kinds(pattern)
    }

    #[test]
    fn the_kinds_a_pattern_requires_are_read_off_its_text() {
        assert_eq!(kinds("(goto_statement) @match"), vec!["goto_statement"]);
        assert_eq!(kinds("(return_statement (none)) @m"), vec!["none", "return_statement"]);
        // Fields, captures, anchors, negated fields and predicates are no kinds.
        assert_eq!(
            kinds(r#"(call function: (identifier) @f . arguments: (argument_list) !type (#eq? @f "open")) @m"#),
            vec!["argument_list", "call", "identifier"]
        );
        // Optional, repeated-or-none, alternatives, wildcards, MISSING and ERROR require nothing;
        // one-or-more does.
        assert_eq!(
            kinds("(block (comment)? (pass_statement)* (expression_statement)+) @b"),
            vec!["block", "expression_statement"]
        );
        assert_eq!(kinds("[(list) (dictionary)] @v"), Vec::<String>::new());
        assert_eq!(kinds("(_ (MISSING identifier) (ERROR (string))) @e"), Vec::<String>::new());
        // A group of nodes, a comment, a string with a parenthesis in it.
        assert_eq!(
            kinds("; (comment)\n((decorator) (function_definition)) @d"),
            vec!["decorator", "function_definition"]
        );
        assert_eq!(kinds(r#"((string) @s (#eq? @s "(x)") (integer))"#), vec!["integer", "string"]);
        // A quantified group.
        assert_eq!(kinds("((comment) (decorator))* (class_definition) @c"), vec!["class_definition"]);
    }

    /// The demand of `query` of files in `languages`.
    fn demand_in(query: &str, languages: &[&'static str]) -> Option<Demand> {
        let (queries, _) = super::super::pattern::compile_for(query, &languages.iter().copied().collect()).ok()?;
        Demand::of(query, &queries)
    }

    /// The demand of `query` of Python, C and TypeScript files.
    fn demand(query: &str) -> Option<Demand> {
        demand_in(query, &["python", "c", "typescript"])
    }

    fn clauses(query: &str, language: &str) -> Option<Vec<Vec<Clause>>> {
        demand(query).map(|d| d.by_language.get(language).cloned().unwrap_or_default())
    }

    fn clause(texts: &[&str]) -> Clause {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn a_query_demands_its_predicates_texts_and_its_kinds_keywords() {
        // A kind's keyword: a goto holds `goto`, in C and in C++ alike.
        let goto = demand_in("(goto_statement) @g", &["c", "cpp", "python"]).unwrap();
        assert_eq!(goto.by_language["c"], vec![vec![clause(&["goto"])]]);
        assert_eq!(goto.by_language["cpp"], vec![vec![clause(&["goto"])]]);
        assert!(!goto.by_language.contains_key("python"), "the query does not compile for Python");
        assert_eq!(goto.describe(), "goto");
        // Only the languages of the view count: PHP's `goto` matches in any case, so a view
        // with PHP files could hold a goto without the text `goto`.
        assert_eq!(demand_in("(goto_statement) @g", &["c", "php"]), None);
        assert_eq!(demand_in("(goto_statement) @g", &["c"]).map(|d| d.describe()).as_deref(), Some("goto"));
        // Every kind of the pattern, and the predicates' texts.
        assert_eq!(
            clauses("(return_statement (none)) @r", "python"),
            Some(vec![vec![clause(&["None"]), clause(&["return"])]])
        );
        assert_eq!(
            clauses(r#"(call function: (identifier) @f (#eq? @f "isinstance")) @m"#, "python"),
            Some(vec![vec![clause(&["isinstance"])]])
        );
        assert_eq!(
            clauses(r#"(call function: (identifier) @g (#any-of? @g "gets" "strcpy")) @n"#, "python"),
            Some(vec![vec![clause(&["gets", "strcpy"])]])
        );
        // Escapes are read.
        assert_eq!(clauses(r#"((string) @s (#eq? @s "\"a\\b\""))"#, "python"), Some(vec![vec![clause(&["\"a\\b\""])]]));
        // Two patterns: one of them.
        let two = demand_in(r#"(goto_statement) @g ((identifier) @i (#eq? @i "longjmp"))"#, &["c"]).unwrap();
        assert_eq!(two.describe(), "goto | longjmp");
    }

    #[test]
    fn a_query_that_may_match_anywhere_demands_nothing() {
        // A capture every match need not have, a negation, a regex, two captures compared.
        assert_eq!(
            demand(r#"(call function: (identifier) @f arguments: (argument_list (string)? @s (#eq? @s "x"))) @m"#),
            None
        );
        assert_eq!(demand(r#"((identifier) @i (#not-eq? @i "self"))"#), None);
        assert_eq!(demand(r#"((identifier) @i (#match? @i "^open$"))"#), None);
        assert_eq!(demand(r#"(assignment left: (identifier) @a right: (identifier) @b (#eq? @a @b))"#), None);
        // One pattern without a demand.
        assert_eq!(demand(r#"((identifier) @i (#eq? @i "open")) (identifier) @r"#), None);
        // Texts too short to look up choose no files.
        assert_eq!(demand(r#"((identifier) @i (#eq? @i "os"))"#), None);
        // A kind whose nodes share no keyword.
        assert_eq!(demand("(binary_expression) @b"), None);
    }

    #[test]
    fn a_file_meets_its_own_languages_demand() {
        let returns = demand("(return_statement (none)) @r").unwrap();
        let source = b"def f():\n    return None\n\ndef g():\n    return None\n";
        // The places of the text the file holds least often, the longer one when even.
        assert_eq!(returns.places("python", source, 100), Some(vec![(13, 19), (39, 45)]));
        let one = b"def f():\n    return 1\n\ndef g():\n    return None\n";
        assert_eq!(returns.places("python", one, 100), Some(vec![(43, 47)]));
        assert!(returns.holds("python", one) && !returns.holds("python", b"return 1"));
        assert_eq!(returns.places("python", source, 1), Some(vec![(0, source.len())]), "too many: the whole file");
        assert_eq!(returns.places("python", b"def f():\n    return 1\n", 100), None);
        assert_eq!(returns.places("python", b"x = None\n", 100), None);
        // A language the query has no demand for is read whole.
        assert_eq!(returns.places("rust", b"fn f() {}", 100), Some(vec![(0, 9)]));
        // A short text that chooses no files through the index is still checked in the file.
        let os = demand(r#"(call function: (attribute object: (identifier) @o (#eq? @o "os") attribute: (identifier) @a (#eq? @a "getenv"))) @m"#).unwrap();
        assert_eq!(os.places("python", b"os.getenv('A')", 100), Some(vec![(3, 9)]));
        assert_eq!(os.places("python", b"env.getenv('A')", 100), None);
        assert_eq!(os.describe(), "getenv & os");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 500, ..Default::default() })]

        /// Whatever text a query holds (it is read before tree-sitter has the last word on
        /// some of it), reading its kinds never panics.
        #[test]
        fn reading_any_pattern_text_never_panics(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[a-z_]{1,8}",
                    "[()\\[\\]\"@!:.;?*+#_ \n]{1,3}",
                    "[\u{3000}\u{a0}ä😀\\\\]{1,2}",
                ],
                0..30,
            )
        ) {
            let _ = required_kinds(&parts.concat());
        }
    }
}
