//! The tree-sitter query evaluator: a query compiled for each language it runs on, its
//! matches reported with their captures. The text predicates (`#eq?`, `#not-eq?`, `#any-eq?`,
//! `#match?`, `#not-match?`, `#any-match?`, `#any-of?`, `#not-any-of?`) are evaluated by
//! tree-sitter itself; a predicate it leaves to its caller is refused, never ignored (a query
//! whose condition is silently dropped would answer more than it asks).

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::{Language, Node, Query, QueryCursor, QueryErrorKind, StreamingIterator, Tree};

use super::syntax::{Token, tokens};
use super::{Capture, Found, XrayError, clip};

/// In-progress matches a cursor keeps (tree-sitter drops the oldest past this).
const MATCH_LIMIT: u32 = 65_536;

/// Driver matches closer than this many bytes are searched around in one walk of the tree.
const MERGE_GAP: usize = 2048;

/// A query compiled per language, by language name.
pub type Queries = BTreeMap<&'static str, CompiledQuery>;

/// A query compiled for one grammar.
pub struct CompiledQuery {
    query: Query,
    /// Per capture index: whether it is reported (names starting with `_` are not).
    reported: Vec<bool>,
    /// The index of the capture named `match`, which gives a match its place.
    main: Option<u32>,
    /// The node kinds the patterns' roots have, when each pattern has one root of a concrete
    /// kind: the query then runs on the subtrees of those nodes only (see
    /// [`CompiledQuery::matches`]).
    root_kinds: Option<Vec<String>>,
    /// Whether every match lies inside one top-level item of the file: each pattern has a root
    /// of a concrete kind, and none is the file's own (see [`CompiledQuery::regional`]).
    regional: bool,
    /// The families of containers (a bit each) one of whose items holds every match inside
    /// such a container: no pattern's root is of a kind that may hold those items (see
    /// [`CompiledQuery::families`]).
    families: u32,
}

/// Compiles `text` for each of `languages` (names of [`crate::lang::LANGUAGES`]); with none,
/// for every language X-Ray parses, to check it. Returns the queries by language and, for
/// the languages it does not compile for, why. Refused when it compiles for none of them (the
/// error of the first, with its position), when it captures nothing, or when it uses a
/// predicate this evaluator does not run.
pub fn compile_for(
    text: &str,
    languages: &BTreeSet<&'static str>,
) -> Result<(Queries, BTreeMap<String, String>), XrayError> {
    let checking_only = languages.is_empty();
    let all: BTreeSet<&'static str>;
    let tried = if checking_only {
        all = crate::lang::LANGUAGES
            .iter()
            .filter(|l| codecompass_grammars::NAMES.contains(&l.grammar))
            .map(|l| l.name)
            .collect();
        &all
    } else {
        languages
    };
    let mut compiled = BTreeMap::new();
    let mut skipped = BTreeMap::new();
    let mut first_error: Option<tree_sitter::QueryError> = None;
    let mut syntax_error = false;
    for &name in tried {
        let Some(language) = crate::lang::by_name(name) else { continue };
        let Some(grammar) = codecompass_grammars::language(language.grammar) else { continue };
        match Query::new(&grammar, text) {
            Ok(query) => {
                refuse_unsupported_predicates(&query, text)?;
                if query.capture_names().is_empty() {
                    return Err(XrayError::Query {
                        message: "the query captures nothing, so no match has a place: name the node to report \
                                  with a capture, e.g. `(call_expression) @match`"
                            .to_owned(),
                        line: 1,
                        column: 1,
                    });
                }
                let reported = query.capture_names().iter().map(|n| !n.starts_with('_')).collect();
                let main = query.capture_names().iter().position(|n| *n == "match").map(|i| i as u32);
                if !checking_only {
                    let root_kinds = root_kinds(&query, text, &grammar);
                    let file = file_kind(&grammar);
                    let regional =
                        root_kinds.as_ref().is_some_and(|kinds| file.is_some_and(|file| !kinds.contains(&file)));
                    let families = match &root_kinds {
                        Some(kinds) if regional => {
                            let patterns: Vec<Option<&str>> = (0..query.pattern_count())
                                .map(|p| {
                                    let end = query.end_byte_for_pattern(p).min(text.len());
                                    text.get(query.start_byte_for_pattern(p)..end)
                                })
                                .collect();
                            let all_header_only = |kind: &str, chain: Option<&str>| {
                                patterns.iter().all(|p| {
                                    p.is_some_and(|p| first_node_kind(p) != Some(kind) || header_only(p, chain))
                                })
                            };
                            crate::extract::families_inside(language.grammar, kinds, &all_header_only)
                        }
                        _ => 0,
                    };
                    compiled.insert(name, CompiledQuery { query, reported, main, root_kinds, regional, families });
                }
                if checking_only {
                    // It compiles for one language: nothing runs, nothing more to check.
                    return Ok((BTreeMap::new(), BTreeMap::new()));
                }
            }
            Err(e) => {
                syntax_error |= e.kind == QueryErrorKind::Syntax;
                skipped.insert(name.to_owned(), describe(&e));
                if first_error.is_none() {
                    first_error = Some(e);
                }
            }
        }
    }
    if compiled.is_empty()
        && let Some(e) = first_error
    {
        let per_language = if syntax_error || skipped.len() == 1 {
            describe(&e)
        } else {
            skipped.iter().map(|(l, m)| format!("{l}: {m}")).collect::<Vec<_>>().join("; ")
        };
        let scope = if checking_only { "any language".to_owned() } else { tried_names(tried) };
        return Err(XrayError::Query {
            message: format!("the query does not compile for {scope}: {per_language}"),
            line: e.row as u32 + 1,
            column: e.column as u32 + 1,
        });
    }
    Ok((compiled, skipped))
}

fn tried_names(tried: &BTreeSet<&'static str>) -> String {
    tried.iter().copied().collect::<Vec<_>>().join(", ")
}

/// A query error as one line: what is wrong and where in the query.
fn describe(e: &tree_sitter::QueryError) -> String {
    let what = match e.kind {
        QueryErrorKind::Syntax => "syntax error",
        QueryErrorKind::NodeType => "no node kind",
        QueryErrorKind::Field => "no field",
        QueryErrorKind::Capture => "unknown capture",
        QueryErrorKind::Predicate => "bad predicate",
        QueryErrorKind::Structure => "impossible pattern",
        QueryErrorKind::Language => "grammar mismatch",
    };
    let detail = e.message.lines().next().unwrap_or("").trim();
    // A syntax error's message is the query's line; show the part from the error on.
    let detail = if e.kind == QueryErrorKind::Syntax {
        let from: String = detail.chars().skip(e.column).take(40).collect();
        if from.is_empty() { "at the end".to_owned() } else { format!("at `{from}`") }
    } else {
        format!("`{detail}`")
    };
    format!("{what} {detail} (line {}, column {})", e.row + 1, e.column + 1)
}

/// Predicates tree-sitter hands back to its caller (anything but the text predicates and
/// `#set!`) are refused with the list of those that run.
fn refuse_unsupported_predicates(query: &Query, text: &str) -> Result<(), XrayError> {
    for pattern in 0..query.pattern_count() {
        let unsupported = query.general_predicates(pattern).first().map(|p| p.operator.to_string()).or_else(|| {
            query
                .property_predicates(pattern)
                .first()
                .map(|(_, positive)| if *positive { "is?".to_owned() } else { "is-not?".to_owned() })
        });
        if let Some(operator) = unsupported {
            let before = &text[..query.start_byte_for_pattern(pattern).min(text.len())];
            let line = before.matches('\n').count() as u32 + 1;
            let column = (before.len() - before.rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
            return Err(XrayError::Query {
                message: format!(
                    "the predicate #{operator} is not supported; X-Ray runs #eq?, #not-eq?, #any-eq?, \
                     #any-not-eq?, #match?, #not-match?, #any-match?, #any-not-match?, #any-of? and #not-any-of?"
                ),
                line,
                column,
            });
        }
    }
    Ok(())
}

impl CompiledQuery {
    /// The compiled query.
    pub(super) fn query(&self) -> &Query {
        &self.query
    }

    /// Whether the pattern root of every match is inside one top-level item of the file (never
    /// the file's root node): a match whose pattern root intersects a driver match is then
    /// found in a parse of the items that hold driver matches alone (see
    /// [`crate::extract::Outline`]).
    pub(super) fn regional(&self) -> bool {
        self.regional
    }

    /// The families of containers (classes, functions; a bit each, see
    /// [`crate::extract::families_inside`]) whose items hold every match inside such a
    /// container: no pattern's root may be the container, its body or its wrapper. A match
    /// whose pattern root intersects a driver match inside such an item is then found in a
    /// parse of that item's run with its container's header and footer.
    pub(super) fn families(&self) -> u32 {
        self.families
    }

    /// The query's matches in `tree`, one per place (two patterns matching the same place give
    /// it once, with the first's captures). A match's place is its `@match` capture when the
    /// query names one, else the span of all its reported captures.
    ///
    /// With `near` (byte spans in order, the driver's matches), the cursor visits only the
    /// parts of the tree around them: a match whose pattern root intersects no span is not
    /// looked for. Every match whose place overlaps a span is still found (its pattern root
    /// holds its place), and the caller keeps only those; a query with a pattern of several
    /// top-level nodes (which may start before the span) is run on the whole tree.
    pub(super) fn matches(&self, tree: &Tree, source: &[u8], near: Option<&[(usize, usize)]>) -> Vec<Found> {
        let mut out: Vec<Found> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor = QueryCursor::new();
        cursor.set_match_limit(MATCH_LIMIT);
        let rooted = (0..self.query.pattern_count()).all(|p| self.query.is_pattern_rooted(p));
        match near {
            Some(spans) if rooted => {
                for range in merged_ranges(spans) {
                    cursor.set_byte_range(range);
                    self.collect(&mut cursor, tree.root_node(), source, &mut seen, &mut out);
                }
            }
            _ => match &self.root_kinds {
                // Each subtree whose root has a kind a pattern starts with, outermost only:
                // a match inside it is found by the run on it. The walk looks at node kinds
                // only, which costs far less than the cursor's visit of every node.
                Some(kinds) => {
                    for node in outermost_of_kinds(tree, kinds) {
                        self.collect(&mut cursor, node, source, &mut seen, &mut out);
                    }
                }
                None => self.collect(&mut cursor, tree.root_node(), source, &mut seen, &mut out),
            },
        }
        out
    }

    /// Runs `cursor` over the subtree of `node` and adds the matches at places not `seen` yet
    /// to `out`.
    fn collect(
        &self,
        cursor: &mut QueryCursor,
        node: Node<'_>,
        source: &[u8],
        seen: &mut std::collections::HashSet<(usize, usize)>,
        out: &mut Vec<Found>,
    ) {
        let mut matches = cursor.matches(&self.query, node, source);
        while let Some(m) = matches.next() {
            let mut reported: Vec<_> = m.captures().iter().filter(|c| self.reported[c.index as usize]).collect();
            // In the order the query names them (tree-sitter gives them in document order).
            reported.sort_by_key(|c| c.index);
            let placed = match self.main {
                Some(main) => reported.iter().find(|c| c.index == main).map(|c| c.node),
                None => None,
            };
            let (node, start_byte, end_byte, start, end) = match placed {
                Some(n) => (n, n.start_byte(), n.end_byte(), n.start_position(), n.end_position()),
                None => {
                    let Some(widest) =
                        reported.iter().map(|c| c.node).max_by_key(|n| (n.end_byte() - n.start_byte(), n.end_byte()))
                    else {
                        continue;
                    };
                    let first = reported.iter().map(|c| c.node).min_by_key(|n| n.start_byte()).unwrap_or(widest);
                    let last = reported.iter().map(|c| c.node).max_by_key(|n| n.end_byte()).unwrap_or(widest);
                    (widest, first.start_byte(), last.end_byte(), first.start_position(), last.end_position())
                }
            };
            if !seen.insert((start_byte, end_byte)) {
                continue;
            }
            let names = self.query.capture_names();
            let captures = reported
                .iter()
                .map(|c| {
                    let n = c.node;
                    Capture {
                        name: names[c.index as usize].to_owned(),
                        kind: n.kind().to_owned(),
                        text: clip(source, n.start_byte(), n.end_byte()),
                        line: n.start_position().row as u32 + 1,
                        column: n.start_position().column as u32 + 1,
                        line_end: n.end_position().row as u32 + 1,
                        column_end: n.end_position().column as u32 + 1,
                    }
                })
                .collect();
            out.push(Found {
                start_byte,
                end_byte,
                start,
                end,
                kind: node.kind().to_owned(),
                text: clip(source, start_byte, end_byte),
                captures,
                value: None,
            });
        }
    }
}

/// The node kind each pattern's root must have, read off the pattern's text: `None` when a
/// pattern is not rooted (several top-level nodes), starts with a wildcard, an alternation, an
/// anonymous node, `MISSING`, or a supertype (its nodes have other kinds).
fn root_kinds(query: &Query, text: &str, grammar: &Language) -> Option<Vec<String>> {
    let mut kinds: Vec<String> = Vec::new();
    for pattern in 0..query.pattern_count() {
        if !query.is_pattern_rooted(pattern) {
            return None;
        }
        let start = query.start_byte_for_pattern(pattern);
        let end = query.end_byte_for_pattern(pattern).min(text.len());
        let pattern_text = text.get(start..end)?;
        if quantified_at_top(pattern_text) {
            return None;
        }
        let kind = first_node_kind(pattern_text)?;
        let id = grammar.id_for_node_kind(kind, true);
        if id == 0 || grammar.node_kind_is_supertype(id) || kind == "MISSING" {
            return None;
        }
        if !kinds.iter().any(|k| k == kind) {
            kinds.push(kind.to_owned());
        }
    }
    Some(kinds)
}

/// The kind of a file's root node in `grammar` (`translation_unit`, `module`, ...).
fn file_kind(grammar: &Language) -> Option<String> {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(grammar).ok()?;
    Some(parser.parse("", None)?.root_node().kind().to_owned())
}

/// Whether a pattern's text has a quantifier (`+`, `*`, `?`) outside every parenthesis: a
/// run of sibling nodes, which no single subtree holds.
fn quantified_at_top(pattern: &str) -> bool {
    let mut depth = 0usize;
    for token in tokens(pattern) {
        match token {
            Token::Open | Token::OpenAlternation => depth += 1,
            Token::Close | Token::CloseAlternation => depth = depth.saturating_sub(1),
            Token::Quantifier(_) if depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Whether `pattern`, one pattern's text, asks of its root only for children named by fields
/// other than `chain`, each once (no quantifier), with no anchor, negated field or child
/// without a field; captures and predicates aside. Rooted at a node on a callback container's
/// way to its body, such a pattern matches there as it does in the whole file when only the
/// container's header and footer are parsed around a run of its items: the children it asks
/// for lie in them, and the root spans the same bytes.
fn header_only(pattern: &str, chain: Option<&str>) -> bool {
    let tokens = tokens(pattern);
    let Some(word) = tokens.iter().position(|t| matches!(t, Token::Word(_))) else { return false };
    if word == 0 || tokens[..word].iter().any(|t| *t != Token::Open) {
        return false;
    }
    let mut i = word + 1;
    while let Some(token) = tokens.get(i) {
        match token {
            Token::Close => return true,
            Token::Capture => i += 1,
            Token::Open if matches!(tokens.get(i + 1), Some(Token::Word(w)) if w.starts_with('#')) => {
                i = element_end(&tokens, i);
            }
            Token::Field(field) if chain != Some(*field) => {
                i = element_end(&tokens, i + 1);
                if matches!(tokens.get(i), Some(Token::Quantifier(_))) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    false
}

/// The position after the element starting at `i`: a node or group in parentheses, an
/// alternation, a word or a string.
fn element_end(tokens: &[Token<'_>], i: usize) -> usize {
    let (open, close) = match tokens.get(i) {
        Some(Token::Open) => (Token::Open, Token::Close),
        Some(Token::OpenAlternation) => (Token::OpenAlternation, Token::CloseAlternation),
        Some(Token::Word(_) | Token::Text) => return i + 1,
        _ => return tokens.len(),
    };
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(i) {
        if *t == open {
            depth += 1;
        } else if *t == close {
            depth -= 1;
            if depth == 0 {
                return j + 1;
            }
        }
    }
    tokens.len()
}

/// The kind of the first node of a pattern's text: `(call ...)`, or in a group with
/// predicates, `((call ...) (#eq? ...))`. `None` for anything else.
fn first_node_kind(pattern: &str) -> Option<&str> {
    let mut opened = false;
    for token in tokens(pattern) {
        match token {
            Token::Open => opened = true,
            Token::Word(word) if opened => {
                let len =
                    word.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).unwrap_or(word.len());
                let kind = &word[..len];
                return (!kind.is_empty() && kind != "_").then_some(kind);
            }
            _ => return None,
        }
    }
    None
}

/// The outermost nodes of `tree` whose kind is one of `kinds`, in document order.
fn outermost_of_kinds<'t>(tree: &'t Tree, kinds: &[String]) -> Vec<Node<'t>> {
    // Every symbol of those names (a grammar may give one name to several symbols).
    let language = tree.language();
    let ids: Vec<u16> = (0..language.node_kind_count() as u16)
        .filter(|&id| {
            language.node_kind_is_named(id)
                && language.node_kind_for_id(id).is_some_and(|k| kinds.iter().any(|w| w == k))
        })
        .collect();
    let mut found = Vec::new();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let hit = ids.contains(&node.kind_id());
        if hit {
            found.push(node);
        }
        if !hit && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return found;
            }
        }
    }
}

/// Byte ranges around `spans` for a query cursor: spans closer than [`MERGE_GAP`] bytes are
/// run as one range (one walk from the root instead of many), an empty span is its one byte.
fn merged_ranges(spans: &[(usize, usize)]) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    for &(start, end) in spans {
        let end = end.max(start + 1);
        match ranges.last_mut() {
            Some(last) if start <= last.end + MERGE_GAP => last.end = last.end.max(end),
            _ => ranges.push(start..end),
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn langs(names: &[&'static str]) -> BTreeSet<&'static str> {
        names.iter().copied().collect()
    }

    /// Line, text and `(capture, text)` pairs of one match.
    type Seen = (u32, String, Vec<(String, String)>);

    fn run(query: &str, lang: &'static str, source: &str) -> Vec<Seen> {
        let (compiled, _) = compile_for(query, &langs(&[lang])).unwrap();
        let language = crate::lang::by_name(lang).unwrap();
        let tree = crate::extract::parse_whole(language, source.as_bytes()).unwrap();
        compiled[lang]
            .matches(&tree, source.as_bytes(), None)
            .into_iter()
            .map(|f| (f.start.row as u32 + 1, f.text, f.captures.into_iter().map(|c| (c.name, c.text)).collect()))
            .collect()
    }

    #[test]
    fn a_pattern_is_read_from_a_header_only_when_it_asks_for_no_child_on_the_way_to_the_body() {
        let arguments = Some("arguments");
        // Children by other fields, captures and predicates: read from the header.
        assert!(header_only(r#"(call_expression function: (member_expression) @f) @c"#, arguments));
        assert!(header_only(r#"((call_expression function: (identifier) @f) @c (#eq? @f "describe"))"#, arguments));
        assert!(header_only(r#"(call_expression function: [(identifier) (member_expression)] @f)"#, arguments));
        assert!(header_only("(call_expression) @c", arguments));
        assert!(header_only("(statement_block) @b", None));
        // The child on the way to the body, a child with no field, an anchor, a negated field,
        // a quantified child: not.
        assert!(!header_only("(call_expression arguments: (arguments) @a) @c", arguments));
        assert!(!header_only("(call_expression (identifier) @f) @c", arguments));
        assert!(!header_only("(call_expression . function: (identifier)) @c", arguments));
        assert!(!header_only("(call_expression !type_arguments) @c", arguments));
        assert!(!header_only("(call_expression function: (identifier)? @f) @c", arguments));
        assert!(!header_only("(statement_block (expression_statement)) @b", None));
        assert!(!header_only("(arrow_function body: (_)) @f", Some("body")));
        assert!(header_only("(arrow_function parameters: (formal_parameters)) @f", Some("body")));
        assert!(!header_only("[(call_expression) (new_expression)] @c", arguments));
    }

    #[test]
    fn a_query_for_calls_keeps_callbacks_as_containers_only_when_their_headers_answer_it() {
        let families = |q: &str| {
            let (compiled, _) = compile_for(q, &langs(&["typescript"])).unwrap();
            compiled["typescript"].families
        };
        // Classes, functions, callbacks.
        assert_eq!(families(r#"(call_expression function: (member_expression) @f) @c"#), 0b111);
        assert_eq!(families("(call_expression arguments: (arguments (arrow_function))) @c"), 0b011);
        assert_eq!(families("(throw_statement) @t"), 0b111);
        // Two patterns rooted at calls: both must be read from the header.
        assert_eq!(families("(call_expression function: (identifier)) @a (call_expression (identifier)) @b"), 0b011);
    }

    #[test]
    fn text_predicates_narrow_the_matches() {
        let src = "open(a, 'r')\nopen(b, 'w')\nclose(c)\nopen(d)\n";
        let q = r#"(call function: (identifier) @f (#eq? @f "open") arguments: (argument_list (_) (string) @mode (#not-match? @mode "^'r'$"))) @match"#;
        let found = run(q, "python", src);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, 2);
        assert_eq!(found[0].1, "open(b, 'w')");
        assert_eq!(
            found[0].2,
            vec![("f".into(), "open".into()), ("mode".into(), "'w'".into()), ("match".into(), "open(b, 'w')".into())]
        );

        let any = run(r#"((identifier) @id (#any-of? @id "close" "d"))"#, "python", src);
        assert_eq!(any.iter().map(|f| f.1.as_str()).collect::<Vec<_>>(), vec!["close", "d"]);
        let not_any = run(r#"(call function: (identifier) @f (#not-any-of? @f "open"))"#, "python", src);
        assert_eq!(not_any.iter().map(|f| f.1.as_str()).collect::<Vec<_>>(), vec!["close"]);
        let eq_capture = run(
            r#"(call function: (identifier) @f arguments: (argument_list (identifier) @a (#eq? @a "c")))"#,
            "python",
            src,
        );
        assert_eq!(eq_capture.len(), 1);
        assert_eq!(eq_capture[0].0, 3);
    }

    #[test]
    fn a_query_runs_on_the_subtrees_its_patterns_can_start_at() {
        let grammar = codecompass_grammars::language(crate::lang::by_name("python").unwrap().grammar).unwrap();
        let kinds = |q: &str| root_kinds(&Query::new(&grammar, q).unwrap(), q, &grammar);
        assert_eq!(kinds("(call) @c"), Some(vec!["call".to_owned()]));
        assert_eq!(
            kinds("((identifier) @i (#eq? @i \"x\")) (call function: (_) @f) ; a comment (string)\n(call) @c"),
            Some(vec!["identifier".to_owned(), "call".to_owned()])
        );
        assert_eq!(kinds("(_) @any"), None);
        assert_eq!(kinds("[(call) (string)] @either"), None);
        assert_eq!(kinds("((comment) @a . (function_definition) @b)"), None);
        assert_eq!(kinds("(comment)+ @run"), None);
        assert_eq!(kinds("(expression) @e"), None, "a supertype: its nodes have other kinds");
        assert_eq!(kinds("(call arguments: (argument_list \"(\" @p)) @c"), Some(vec!["call".to_owned()]));

        // The same matches as a run on the whole tree, nested and at the root alike.
        let src = "f(g(h(1)), [k(2) for x in y])\nclass C:\n    def m(self, a=open(p)):\n        return q(r(s))\n";
        let language = crate::lang::by_name("python").unwrap();
        let tree = crate::extract::parse_whole(language, src.as_bytes()).unwrap();
        for query in [
            "(call) @match",
            "(call function: (identifier) @f arguments: (argument_list (call) @inner))",
            "(module) @m",
            "((identifier) @i (#match? @i \"^[a-z]$\"))",
            "(function_definition name: (identifier) @n) (call) @c",
        ] {
            let (compiled, _) = compile_for(query, &langs(&["python"])).unwrap();
            let compiled = &compiled["python"];
            assert!(compiled.root_kinds.is_some(), "{query}");
            let places = |q: &CompiledQuery| {
                let mut p: Vec<_> = q
                    .matches(&tree, src.as_bytes(), None)
                    .into_iter()
                    .map(|f| (f.start_byte, f.end_byte, f.text))
                    .collect();
                p.sort();
                p
            };
            let whole = CompiledQuery {
                query: Query::new(&grammar, query).unwrap(),
                reported: compiled.reported.clone(),
                main: compiled.main,
                root_kinds: None,
                regional: false,
                families: 0,
            };
            assert!(!places(&whole).is_empty(), "{query}");
            assert_eq!(places(compiled), places(&whole), "{query}");
        }
    }

    #[test]
    fn searching_near_the_driver_finds_every_match_that_overlaps_it() {
        // Calls far apart (more than the merge gap) and close together, nested calls, and a
        // pattern of two top-level nodes, which is run on the whole tree.
        let filler = format!("# {}\n", "x".repeat(3000));
        let src = format!("open(a)\n{filler}f(open(b), g(c))\nopen(d); open(e)\n{filler}h(x)\nopen(open(f))\n");
        let language = crate::lang::by_name("python").unwrap();
        let tree = crate::extract::parse_whole(language, src.as_bytes()).unwrap();
        let spans: Vec<(usize, usize)> = src.match_indices("open").map(|(i, t)| (i, i + t.len())).collect();
        for query in [
            r#"(call function: (identifier) @f (#eq? @f "open")) @match"#,
            "(call) @match",
            "(call function: (identifier) @fn arguments: (argument_list (_) @_arg))",
            "((expression_statement) @a . (expression_statement) @b)",
        ] {
            let (compiled, _) = compile_for(query, &langs(&["python"])).unwrap();
            let places = |near: Option<&[(usize, usize)]>| {
                let mut found: Vec<(usize, usize)> = compiled["python"]
                    .matches(&tree, src.as_bytes(), near)
                    .into_iter()
                    .filter(|f| super::super::overlaps(&spans, f.start_byte, f.end_byte))
                    .map(|f| (f.start_byte, f.end_byte))
                    .collect();
                found.sort();
                found
            };
            let everywhere = places(None);
            assert!(!everywhere.is_empty(), "{query}");
            assert_eq!(places(Some(&spans)), everywhere, "{query}");
        }
        assert_eq!(merged_ranges(&[(0, 4), (10, 10), (5000, 5004)]), vec![0..11, 5000..5004]);
    }

    #[test]
    fn underscore_captures_are_not_reported_and_the_span_covers_the_others() {
        let src = "def f(a, b):\n    return a\n";
        let found = run("(function_definition name: (identifier) @name parameters: (parameters) @_p)", "python", src);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "f");
        assert_eq!(found[0].2, vec![("name".into(), "f".into())]);
    }

    #[test]
    fn errors_say_where_and_what() {
        let err = compile_for("(call function: (identifier) @f", &langs(&["python"])).err().unwrap();
        match err {
            XrayError::Query { message, line, .. } => {
                assert!(message.contains("syntax error"), "{message}");
                assert_eq!(line, 1);
            }
            other => panic!("{other:?}"),
        }
        let err = compile_for("(no_such_node) @x", &langs(&["python", "rust"])).err().unwrap();
        assert!(err.to_string().contains("no node kind"), "{err}");
        let err = compile_for("(identifier)", &langs(&["python"])).err().unwrap();
        assert!(err.to_string().contains("captures nothing"), "{err}");
        let err = compile_for(r#"((identifier) @x (#lua-match? @x "a"))"#, &langs(&["python"])).err().unwrap();
        assert!(err.to_string().contains("#lua-match? is not supported"), "{err}");
        // Without candidates, a query that compiles for some language is fine; one that
        // compiles for none is refused.
        assert!(compile_for("(call_expression) @c", &langs(&[])).is_ok());
        assert!(compile_for("(no_such_node_anywhere) @c", &langs(&[])).is_err());
    }

    #[test]
    fn a_query_for_one_language_skips_the_others() {
        let (compiled, skipped) = compile_for("(call_expression) @c", &langs(&["python", "rust"])).unwrap();
        assert!(compiled.contains_key("rust"));
        assert!(skipped.contains_key("python"), "{skipped:?}");
    }
}
