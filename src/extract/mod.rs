//! Symbol extraction: one blob's content in, its symbols and diagnostics out.
//!
//! Pure: no I/O, no store, no paths beyond what chose the language. Never fails: a syntax
//! error gives the symbols of the parts that parse plus a diagnostic; a parse that runs too
//! long is cut off and said so. Parsers and query cursors are reused per thread.
//!
//! Architecture invariant: the output depends only on (content, language, the language's query
//! text, [`EXTRACTOR_VERSION`]); that is what makes a blob record shareable by every path,
//! branch and worktree that holds the blob.

mod doc;
mod occurrences;
mod outline;
mod parents;
mod parse;
mod patterns;
mod query;
mod signature;
mod visibility;

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::Duration;

use tree_sitter::{Node, QueryCursor, StreamingIterator};

use crate::lang::{self, Language, VisibilityRule};

pub use occurrences::{MAX_QUALIFIER, Occurrence, RefKind};
#[cfg(test)]
pub use outline::chain_kinds;
pub use outline::{GRAMMARS as OUTLINE_GRAMMARS, Outline, Region, families_inside, regions};
use parse::parse_after;
pub(crate) use parse::parse_in;
pub use parse::parse_whole;
use query::{Capture, Compiled, compiled, compiled_definitions};
pub use query::{check_query, compile_ahead, compile_definitions_ahead, definition_kinds};

/// The version of the extraction logic. Part of every record key, beside a hash of the
/// language's query file, so changing either re-extracts exactly what it affects.
///
/// History:
/// - 1: first version: definitions, declarations, scopes, signatures, docs, visibility.
/// - 2: references (calls, types, imports, names) with the symbol each sits in. Python's
///   imported names (`from m import a`), renamed imports, instance attributes and (with a
///   note in Python's query) later assignments to an instance attribute as its uses came
///   later with changes of Python's query alone, which re-extract Python files and nothing else.
/// - 3: a member use (`options.storage`) is kept when a local of the same name exists in its
///   function (`let storage = options.storage`): only a bare name can be the local.
/// - 4: a head without a body goes on past a line ending in `,`, `<` or `=` (a TypeScript
///   function type with its type parameters one per line), up to twelve lines.
/// - 5: a type alias holds the members of its object type (TypeScript's `type A = {x: 1}`:
///   `A.x`), except C's and C++'s typedefs.
/// - 6: Python's bound values keep call chains (`requests.Request().prepare()`) and a loop's
///   variable an element of what it loops over (`jar[]`, also `next(jar)`), bound where the
///   loop's body starts; a signature is cut at 600 characters, not 300, and keeps its end
///   (`… -> Response`); a TypeScript module's top-level declaration is `export` or `private`.
/// - 7: a record keeps its file's outline (where a parse of the file may start and stop, and
///   the syntax between; see [`Outline`]), for X-Ray's parses of a few items.
pub const EXTRACTOR_VERSION: u32 = 7;

/// A parse taking longer than this is cut off and reported as partial.
const PARSE_TIMEOUT: Duration = Duration::from_secs(10);
/// Signatures are cut to this many characters, keeping their start and end (a long parameter
/// list loses its middle; the resolvers read a parameter's type and the return type from it).
const MAX_SIGNATURE_CHARS: usize = 600;

/// Whether a symbol is the definition or only a declaration (a prototype, a forward declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The body, the value: where the thing is made.
    Definition,
    /// A prototype or forward declaration.
    Declaration,
}

/// One extracted symbol. Lines are 1-based and inclusive, bytes 0-based and half-open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// The name as written (quotes of string names removed).
    pub name: String,
    /// The name with its enclosing scopes (`Index::find`, `Greeter.greet`).
    pub qualified_name: String,
    /// One of [`KINDS`].
    pub kind: &'static str,
    /// Definition or declaration.
    pub role: Role,
    /// First line of the definition node.
    pub line_start: u32,
    /// Last line of the definition node.
    pub line_end: u32,
    /// The line of the name itself (where `ctags` and people point).
    pub name_line: u32,
    /// Byte range of the definition node.
    pub byte_start: u32,
    /// End of the byte range (exclusive).
    pub byte_end: u32,
    /// The declaration head without its body, whitespace collapsed.
    pub signature: String,
    /// The index of the enclosing symbol in the same extraction.
    pub parent: Option<u32>,
    /// `pub`, `public`, `private`, ... where the language has it.
    pub visibility: Option<String>,
    /// The first paragraph of the doc comment.
    pub doc: Option<String>,
    /// `blake3("stable_id:v1|lang|kind|qualified_name|signature")`, 32 hex digits: survives
    /// line moves, changes with the API.
    pub stable_id: String,
}

/// Something that went wrong while extracting, kept with the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line, when it concerns one.
    pub line: Option<u32>,
    /// What happened.
    pub message: String,
}

/// Everything extracted from one blob.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extraction {
    /// The symbols, ordered by position.
    pub symbols: Vec<Symbol>,
    /// The references, ordered by position.
    pub occurrences: Vec<Occurrence>,
    /// Syntax errors and cut-offs.
    pub diagnostics: Vec<Diagnostic>,
    /// True when some of the file did not parse, so some symbols may be missing.
    pub partial: bool,
    /// True when the content says it is generated (`@generated`, `DO NOT EDIT`); set by the
    /// indexer, which reads the content's head.
    pub generated: bool,
    /// Where a parse of the file may start and stop (see [`Outline`]); full extractions only.
    pub outline: Option<Outline>,
}

/// The key that, with the blob id and language, identifies a record: the extractor version
/// and the hash of the language's query text.
pub fn extractor_key(language: &Language) -> String {
    static KEYS: OnceLock<Vec<String>> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        lang::LANGUAGES
            .iter()
            .map(|l| {
                let mut hasher = blake3::Hasher::new();
                hasher.update(format!("extractor:v{EXTRACTOR_VERSION}|{}|", l.grammar).as_bytes());
                hasher.update(l.query.as_bytes());
                format!("{EXTRACTOR_VERSION}-{}", &hasher.finalize().to_hex()[..16])
            })
            .collect()
    });
    keys[lang::index_of(language)].clone()
}

thread_local! {
    static CURSOR: RefCell<QueryCursor> = RefCell::new(QueryCursor::new());
}

/// A definition found by the query, before nesting is resolved.
struct Found<'t> {
    node: Node<'t>,
    name_node: Node<'t>,
    kind: &'static str,
    role: Option<Role>,
    context: Option<String>,
    pattern: usize,
}

/// Extracts the symbols of `source`, written in `language`.
pub fn extract(language: &'static Language, source: &[u8]) -> Extraction {
    extract_to(language, source, true, compiled, Prior::None, None).0
}

/// The symbols of `source` without occurrences and doc comments: what history compares in
/// blobs it keeps no record of. Read with the query's definition patterns alone: the same
/// symbols (a test compares the two on every language's corpus), for less compiling and
/// matching.
pub fn definitions(language: &'static Language, source: &[u8]) -> Extraction {
    extract_to(language, source, false, compiled_definitions, Prior::None, None).0
}

/// What a parse of a source starts from.
#[derive(Clone, Copy)]
pub enum Prior<'t> {
    /// Nothing: the source is parsed whole.
    None,
    /// The tree of an earlier version of the source, already told of the edits between the two
    /// (`Tree::edit`): tree-sitter re-reads only around them.
    Edited(&'t tree_sitter::Tree),
    /// The tree of this very source, as a parse of it gave it: not parsed again.
    Parsed(&'t tree_sitter::Tree),
}

/// [`definitions`], parsed from what `prior` gives, and the tree, for the next version to be
/// parsed from. A tree parsed from an earlier version's with a syntax error is parsed again
/// whole: error recovery may differ between the two parses, and the symbols must be a whole
/// parse's. No tree when none was parsed.
///
/// With `named`, only the definitions of those names (ASCII case aside) are read, by matching
/// the query only where `source` spells one of them: a definition's name is in its text, and
/// the definitions enclosing it are matched too, so they are the ones a whole read finds (a
/// test compares the two for every definition of every language's corpus).
pub fn definitions_after(
    language: &'static Language,
    source: &[u8],
    prior: Prior<'_>,
    named: Option<&[&str]>,
) -> (Extraction, Option<tree_sitter::Tree>) {
    let Some(names) = named else {
        return extract_to(language, source, false, compiled_definitions, prior, None);
    };
    // A name of words alone is spelled as it is in the source; others (CSS's `html, body`) may
    // be cleaned of the source's spaces and are read whole.
    let word =
        |n: &&str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80);
    let ranges = names.iter().all(word).then(|| spelled(source, names));
    let (mut out, tree) = extract_to(language, source, false, compiled_definitions, prior, ranges.as_deref());
    out.symbols.retain(|s| names.iter().any(|n| s.name.eq_ignore_ascii_case(n)));
    (out, tree)
}

/// The byte ranges where `source` spells one of `names`, ASCII case aside, in order and
/// merged where they overlap.
fn spelled(source: &[u8], names: &[&str]) -> Vec<std::ops::Range<usize>> {
    let lower = source.to_ascii_lowercase();
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for name in names.iter().filter(|n| !n.is_empty()) {
        let needle = name.to_ascii_lowercase();
        out.extend(memchr::memmem::find_iter(&lower, needle.as_bytes()).map(|at| at..at + needle.len()));
    }
    out.sort_by_key(|r| r.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(out.len());
    for range in out {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// The symbols of `source` by `compiled`'s query of `language`, and the tree. The query is
/// asked for once the source is parsed: the first files of a language are parsed while its
/// query is compiled, by [`compile_ahead`]'s thread or the first of the others to need it.
fn extract_to(
    language: &'static Language,
    source: &[u8],
    full: bool,
    compiled: fn(&'static Language) -> Result<&'static Compiled, String>,
    prior: Prior<'_>,
    within: Option<&[std::ops::Range<usize>]>,
) -> (Extraction, Option<tree_sitter::Tree>) {
    let mut out = Extraction::default();
    let tree = match prior {
        Prior::Parsed(tree) => Some(tree.clone()),
        Prior::Edited(old) => parse_after(language, source, old)
            .ok()
            .filter(|t| !t.root_node().has_error())
            .or_else(|| parse(language, source, &mut out)),
        Prior::None => parse(language, source, &mut out),
    };
    let compiled = match compiled(language) {
        Ok(c) => c,
        Err(e) => {
            let mut out = Extraction { partial: true, ..Extraction::default() };
            out.diagnostics.push(Diagnostic { line: None, message: format!("query does not compile: {e}") });
            return (out, None);
        }
    };
    let Some(tree) = tree else {
        return (out, None);
    };
    let root = tree.root_node();
    if root.has_error() {
        out.partial = true;
        report_syntax_errors(root, &mut out.diagnostics);
    }
    if full {
        out.outline = Outline::of(language, &tree, source.len());
    }

    // Items hidden in the token trees of item-position macros (`cfg_rt! { pub fn ... }`) are
    // parsed as items of their own, in the file's coordinates, a few levels deep.
    let mut trees = vec![tree];
    if language.grammar == "rust" {
        while trees.len() <= MAX_MACRO_DEPTH {
            let ranges = macro_bodies(trees[trees.len() - 1].root_node());
            if ranges.is_empty() {
                break;
            }
            // Errors in a macro's body are not the file's (it need not be items): not reported.
            match parse_in(language, source, &ranges) {
                Ok(t) => trees.push(t),
                Err(_) => break,
            }
        }
    }
    let mut m = Matches::default();
    for t in &trees {
        match within {
            None => collect_matches(compiled, language, t.root_node(), source, None, &mut m),
            Some(ranges) => {
                for range in ranges {
                    collect_matches(compiled, language, t.root_node(), source, Some(range.clone()), &mut m);
                }
            }
        }
    }
    if within.is_some() {
        // A definition around several of the ranges is matched once for each.
        m.found.sort_by_key(|f| (f.node.id(), f.name_node.id(), f.pattern));
        m.found.dedup_by_key(|f| (f.node.id(), f.name_node.id(), f.pattern));
    }
    let Matches { mut found, references, locals, not_references, bindings } = m;

    // One node captured by several patterns is one symbol: a definition wins over a declaration,
    // and the first pattern wins otherwise.
    found.sort_by_key(|f| {
        (
            f.node.start_byte(),
            std::cmp::Reverse(f.node.end_byte()),
            f.role.is_none(),
            f.name_node.start_byte(),
            f.pattern,
        )
    });
    found.dedup_by(|later, earlier| {
        let same = later.node.id() == earlier.node.id() && later.name_node.id() == earlier.name_node.id();
        if same && earlier.role == Some(Role::Declaration) && later.role == Some(Role::Definition) {
            std::mem::swap(later, earlier);
        }
        same
    });

    let uses = resolve(language, source, &found, full, &mut out);
    if !full {
        return (out, trees.into_iter().next());
    }
    let mut definition_names: std::collections::HashSet<usize> =
        found.iter().filter(|f| f.role.is_some()).map(|f| f.name_node.id()).collect();
    for id in uses {
        definition_names.remove(&id);
    }
    definition_names.extend(not_references);
    let parents = parents::Parents::new(trees[0].root_node());
    out.occurrences =
        occurrences::collect(source, references, &definition_names, &locals, &bindings, &out.symbols, &parents);
    (out, trees.into_iter().next())
}

/// What the query matched, over one or more trees of the same source.
#[derive(Default)]
struct Matches<'t> {
    found: Vec<Found<'t>>,
    references: Vec<occurrences::FoundRef<'t>>,
    locals: Vec<Node<'t>>,
    not_references: Vec<usize>,
    bindings: Vec<occurrences::FoundBinding<'t>>,
}

fn collect_matches<'t>(
    compiled: &Compiled,
    language: &'static Language,
    root: Node<'t>,
    source: &'t [u8],
    within: Option<std::ops::Range<usize>>,
    into: &mut Matches<'t>,
) {
    CURSOR.with_borrow_mut(|cursor| {
        cursor.set_match_limit(4096);
        cursor.set_byte_range(within.unwrap_or(0..usize::MAX));
        let mut matches = cursor.matches(&compiled.query, root, source);
        while let Some(m) = matches.next() {
            if !compiled.accepts(m) {
                continue;
            }
            let mut def: Option<(Node<'t>, &'static str, Option<Role>)> = None;
            let mut name = None;
            let mut reference = None;
            let mut value = None;
            let mut context: Option<String> = None;
            for capture in m.captures() {
                match compiled.captures[capture.index as usize] {
                    Capture::Definition(kind) => def = Some((capture.node, kind, Some(Role::Definition))),
                    Capture::Declaration(kind) => def = Some((capture.node, kind, Some(Role::Declaration))),
                    Capture::Scope => def = Some((capture.node, "module", None)),
                    Capture::Name => name = Some(capture.node),
                    Capture::Context => {
                        // Several contexts (`a::B::f`) join in capture order.
                        let part = clean_name(node_text(capture.node, source));
                        context = Some(match context {
                            Some(before) if !before.is_empty() => {
                                format!("{before}{}{part}", language.separator)
                            }
                            _ => part,
                        });
                    }
                    Capture::Reference(kind) => reference = Some(kind),
                    Capture::LocalDefinition => into.locals.push(capture.node),
                    Capture::NotReference => into.not_references.push(capture.node.id()),
                    Capture::Value => value = Some(capture.node),
                    Capture::Ignored => {}
                }
            }
            if let Some((_, kind, _)) = &mut def {
                *kind = compiled.definition_kind(m, kind, source);
            }
            if reference == Some(RefKind::Binding) {
                into.bindings.push(occurrences::FoundBinding { name_node: name, value });
            } else if let (Some((node, kind, role)), Some(name_node)) = (def, name) {
                into.found.push(Found { node, name_node, kind, role, context, pattern: m.pattern_index });
            } else if let (Some(kind), Some(name_node)) = (reference, name) {
                into.references.push(occurrences::FoundRef { name_node, kind });
            }
        }
    });
}

/// How many levels of macros inside macros are opened.
const MAX_MACRO_DEPTH: usize = 3;

/// The insides of the token trees of macro invocations in item position (at the top of a file,
/// a module, an impl or a trait), where items hide.
fn macro_bodies(root: Node<'_>) -> Vec<tree_sitter::Range> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "macro_invocation" => {
                    let mut inner = child.walk();
                    let body = child.children(&mut inner).find(|c| c.kind() == "token_tree");
                    if let Some(body) = body
                        && body.end_byte() > body.start_byte() + 2
                    {
                        let first = body.child(0);
                        let last = body.child(body.child_count().saturating_sub(1));
                        if let (Some(open), Some(close)) = (first, last) {
                            out.push(tree_sitter::Range {
                                start_byte: open.end_byte(),
                                end_byte: close.start_byte(),
                                start_point: open.end_position(),
                                end_point: close.start_position(),
                            });
                        }
                    }
                }
                "declaration_list" | "mod_item" | "impl_item" | "trait_item" => stack.push(child),
                _ => {}
            }
        }
    }
    out.retain(|r| r.end_byte > r.start_byte);
    out.sort_by_key(|r| r.start_byte);
    out
}

fn parse(language: &'static Language, source: &[u8], out: &mut Extraction) -> Option<tree_sitter::Tree> {
    match parse_whole(language, source) {
        Ok(tree) => Some(tree),
        Err(message) => {
            out.partial = true;
            out.diagnostics.push(Diagnostic { line: None, message });
            None
        }
    }
}

fn report_syntax_errors(root: Node<'_>, diagnostics: &mut Vec<Diagnostic>) {
    const MAX_REPORTED: usize = 5;
    let mut cursor = root.walk();
    let mut stack = vec![root];
    let mut reported = 0;
    while let Some(node) = stack.pop() {
        if reported == MAX_REPORTED {
            break;
        }
        if node.is_error() || node.is_missing() {
            let line = node.start_position().row as u32 + 1;
            let message = if node.is_missing() {
                format!("syntax error: missing `{}`", node.kind())
            } else {
                "syntax error".to_owned()
            };
            diagnostics.push(Diagnostic { line: Some(line), message });
            reported += 1;
            continue;
        }
        if node.has_error() {
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
}

/// Turns query matches into symbols: nesting, qualified names, signatures, docs, visibility.
/// Returns the name nodes of field assignments that are no definition, which are uses.
fn resolve(
    language: &'static Language,
    source: &[u8],
    found: &[Found<'_>],
    docs: bool,
    out: &mut Extraction,
) -> Vec<usize> {
    // Name nodes of field assignments that define nothing: uses of the field.
    let mut uses = Vec::new();
    let exported = match found.first() {
        Some(f) if language.visibility == VisibilityRule::EsModule => visibility::exported_names(f.node, source),
        _ => HashSet::new(),
    };
    // `found` is sorted by start, outermost first, so a stack of open ranges gives each entry
    // its innermost enclosing entry.
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (found index, end byte)
    let mut qualified: Vec<String> = Vec::with_capacity(found.len());
    let mut symbol_index: Vec<Option<u32>> = Vec::with_capacity(found.len());
    // Fields seen per owner: the first definition of each is the one kept.
    let mut fields: HashSet<(Option<u32>, String)> = HashSet::new();
    for (i, f) in found.iter().enumerate() {
        let start = f.node.start_byte();
        let end = f.node.end_byte();
        while let Some(&(_, open_end)) = stack.last() {
            if start >= open_end {
                stack.pop();
            } else {
                break;
            }
        }
        // Two names on one node (`const a = 1, b = 2`) are siblings, not nested.
        let outer = |k: usize| found[k].node.id() != f.node.id();
        let enclosing = stack.iter().rev().map(|&(j, _)| j).find(|&j| outer(j));
        let mut parent = stack.iter().rev().filter(|&&(k, _)| outer(k)).find_map(|&(k, _)| symbol_index[k]);
        let name = clean_name(node_text(f.name_node, source));
        // A field assigned in a method (Python's `self.x = ...`) belongs to the method's type,
        // once; outside any type it is no definition.
        let mut member_of: Option<u32> = None;
        if f.kind == "field" {
            let function_like = |k: &str| matches!(k, "function" | "method" | "constructor");
            let mut owner = parent;
            while let Some(p) = owner.filter(|&p| function_like(out.symbols[p as usize].kind)) {
                owner = out.symbols[p as usize].parent;
            }
            if owner != parent {
                if owner.is_none() || !fields.insert((owner, name.clone())) {
                    uses.push(f.name_node.id());
                    qualified.push(String::new());
                    symbol_index.push(None);
                    continue;
                }
                parent = owner;
                member_of = owner;
            } else {
                fields.insert((parent, name.clone()));
            }
        }
        let own = match &f.context {
            Some(context) if !context.is_empty() => {
                format!("{context}{}{name}", language.separator)
            }
            _ => name.clone(),
        };
        let qualified_name = match (member_of, enclosing) {
            (Some(owner), _) => format!("{}{}{own}", out.symbols[owner as usize].qualified_name, language.separator),
            (None, Some(j)) if !qualified[j].is_empty() => {
                format!("{}{}{own}", qualified[j], language.separator)
            }
            _ => own,
        };
        qualified.push(qualified_name.clone());
        // A type alias holds the members of its object type (TypeScript's `type A = {x: 1}`);
        // C's `typedef struct {...} t` does not: the struct is its own definition.
        let alias_with_members = f.kind == "type" && !matches!(language.name, "c" | "cpp");
        if f.role.is_none() || lang::is_container_kind(f.kind) || alias_with_members {
            stack.push((i, end));
        }

        let Some(role) = f.role else {
            symbol_index.push(None);
            continue;
        };
        if name.is_empty() {
            symbol_index.push(None);
            continue;
        }
        // An attribute defined by assigning it (`self.app = app`) reads as the assignment.
        let head = match f.node.parent() {
            Some(p) if f.kind == "field" && p.child_by_field_name("left").is_some_and(|l| l.id() == f.node.id()) => p,
            _ => f.node,
        };
        let signature = signature::of(head, source, MAX_SIGNATURE_CHARS);
        let visibility = visibility::of(language, f.node, &name, &signature, &exported, source);
        let doc = if docs { doc::of(language, f.node, source) } else { None };
        let stable_id = stable_id(language.name, f.kind, &qualified_name, &signature);
        symbol_index.push(Some(out.symbols.len() as u32));
        out.symbols.push(Symbol {
            name,
            qualified_name,
            kind: f.kind,
            role,
            line_start: f.node.start_position().row as u32 + 1,
            line_end: end_line(f.node),
            name_line: f.name_node.start_position().row as u32 + 1,
            byte_start: start as u32,
            byte_end: end as u32,
            signature,
            parent,
            visibility,
            doc,
            stable_id,
        });
    }
    uses
}

/// The last line a node covers, not counting a trailing newline that ends it.
fn end_line(node: Node<'_>) -> u32 {
    let end = node.end_position();
    let row = if end.column == 0 && end.row > node.start_position().row { end.row - 1 } else { end.row };
    row as u32 + 1
}

pub(crate) fn node_text<'s>(node: Node<'_>, source: &'s [u8]) -> &'s str {
    std::str::from_utf8(&source[node.byte_range()]).unwrap_or("")
}

/// A name as written, without the quotes of a string name and surrounding whitespace.
fn clean_name(text: &str) -> String {
    let trimmed = text.trim();
    let unquoted = ['"', '\'', '`']
        .iter()
        .find_map(|q| trimmed.strip_prefix(*q).and_then(|t| t.strip_suffix(*q)))
        .unwrap_or(trimmed);
    let mut name = String::with_capacity(unquoted.len());
    for (i, word) in unquoted.split_whitespace().enumerate() {
        if i > 0 {
            name.push(' ');
        }
        name.push_str(word);
    }
    name
}

/// Splits a qualified name or a query for one (`a::b.c#d`, `Index.find`) into its segments.
pub fn name_segments(qualified: &str) -> Vec<&str> {
    qualified
        .split(['.', ':', '#', '\\', '/', '>', ' '])
        .map(|s| s.trim_start_matches('-'))
        .filter(|s| !s.is_empty())
        .collect()
}

/// Whether `qualified` ends with the segments of `query`, case-insensitively, on segment
/// boundaries (`geometry::Index::find` ends with `Index.find`, `MyIndex::find` does not).
pub fn qualified_suffix(qualified: &str, query: &[&str]) -> bool {
    let have = name_segments(qualified);
    have.len() >= query.len()
        && have[have.len() - query.len()..].iter().zip(query).all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// The identity of a symbol that survives moves and changes with its API (DESIGN.md).
pub fn stable_id(language: &str, kind: &str, qualified_name: &str, signature: &str) -> String {
    let normalised: String = signature.split_whitespace().collect::<Vec<_>>().join(" ");
    let input = format!("stable_id:v1|{language}|{kind}|{qualified_name}|{normalised}");
    blake3::hash(input.as_bytes()).to_hex()[..32].to_owned()
}

#[cfg(test)]
pub(crate) mod tests;
