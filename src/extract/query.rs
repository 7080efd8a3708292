//! The language queries compiled: each capture's meaning, the predicates tree-sitter leaves
//! to its caller (checked here, cheaper to compile than the patterns they stand for), one
//! compile per language and process, and what a query's source says without compiling it.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use tree_sitter::{Query, QueryPredicateArg};

use super::RefKind;
use super::patterns;
use crate::lang::{self, KINDS, Language};

/// `kind` as one of [`KINDS`], when it is one.
fn known_kind(kind: &str) -> Option<&'static str> {
    KINDS.iter().copied().find(|known| *known == kind)
}

/// A compiled query with the meaning of each capture index.
pub(super) struct Compiled {
    pub(super) query: Query,
    pub(super) captures: Vec<Capture>,
    /// Per pattern, the conditions on node kinds tree-sitter leaves to its caller.
    kinds: Vec<Vec<KindCondition>>,
    /// Per pattern, the kind its definition takes instead when a capture's text matches.
    kind_if_match: Vec<Option<KindIfMatch>>,
}

/// `(#kind-if-match? @capture "regex" kind)`: the pattern's definition is of `kind` when the
/// captured text matches, else of its capture's kind. One pattern instead of a pair with
/// `#match?` and `#not-match?`: Python's module-level constants and variables, three such
/// pairs, were half of its definition query's compile (24.5 against 13.2 ms), which every
/// `history` pays before it reads a file.
struct KindIfMatch {
    capture: u32,
    regex: regex::Regex,
    kind: &'static str,
}

/// `(#kind-is? @capture kind...)`: the captured node is of one of the kinds;
/// `(#parent-is? ...)`, `(#grandparent-is? ...)`: its parent, its parent's parent is. They
/// stand for alternations that tree-sitter analyses one by one when it compiles a query, at a
/// cost that grows with the grammar: a copy of a pattern per parent kind (C++'s
/// namespace-scope declarations under seven parents took 0.5 s of a 0.8 s compile), a list of
/// thirty operator tokens (Swift: 0.3 s).
struct KindCondition {
    capture: u32,
    /// 0: the node, 1: its parent, 2: its parent's parent.
    up: u8,
    kinds: Vec<String>,
}

impl Compiled {
    /// Whether the match holds the conditions tree-sitter leaves to its caller.
    pub(super) fn accepts(&self, m: &tree_sitter::QueryMatch<'_, '_>) -> bool {
        self.kinds[m.pattern_index].iter().all(|condition| {
            m.captures().iter().filter(|c| c.index == condition.capture).all(|c| {
                let node = (0..condition.up).try_fold(c.node, |n, _| n.parent());
                node.is_some_and(|n| condition.kinds.iter().any(|k| k == n.kind()))
            })
        })
    }

    /// The kind of the match's definition, captured as `kind`: another when the pattern's
    /// `#kind-if-match?` holds.
    pub(super) fn definition_kind(
        &self,
        m: &tree_sitter::QueryMatch<'_, '_>,
        kind: &'static str,
        source: &[u8],
    ) -> &'static str {
        match &self.kind_if_match[m.pattern_index] {
            Some(rule)
                if m.captures()
                    .iter()
                    .any(|c| c.index == rule.capture && rule.regex.is_match(super::node_text(c.node, source))) =>
            {
                rule.kind
            }
            _ => kind,
        }
    }

    /// The kinds `#kind-if-match?` can give, pattern by pattern.
    #[cfg(test)]
    pub(super) fn kinds_if_match(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.kind_if_match.iter().flatten().map(|rule| rule.kind)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Capture {
    Definition(&'static str),
    Declaration(&'static str),
    Scope,
    Name,
    Context,
    Reference(RefKind),
    /// A name bound locally (a parameter, a local assignment): not a reference, and uses of
    /// the same name in the same symbol are not references either.
    LocalDefinition,
    /// A name that is no reference (an alias being bound, a keyword argument's name).
    NotReference,
    /// The value of a `@reference.binding`.
    Value,
    Ignored,
}

pub(super) fn parse_capture(name: &str) -> Result<Capture, String> {
    let kind = |k: &str| known_kind(k).ok_or_else(|| format!("unknown kind `{k}`"));
    Ok(match name {
        "name" => Capture::Name,
        "scope" => Capture::Scope,
        "context" => Capture::Context,
        "value" => Capture::Value,
        _ if name.starts_with('_') => Capture::Ignored,
        _ => {
            if let Some(k) = name.strip_prefix("definition.") {
                Capture::Definition(kind(k)?)
            } else if let Some(k) = name.strip_prefix("declaration.") {
                Capture::Declaration(kind(k)?)
            } else if name == "reference.none" {
                Capture::NotReference
            } else if let Some(k) = name.strip_prefix("reference.") {
                Capture::Reference(RefKind::of_capture(k))
            } else if name == "local.definition" {
                Capture::LocalDefinition
            } else if name.starts_with("doc") || name.starts_with("local.") {
                Capture::Ignored
            } else {
                return Err(format!("unknown capture `@{name}`"));
            }
        }
    })
}

/// Compiled queries, one slot per language.
type Cache = OnceLock<Vec<OnceLock<Result<Compiled, String>>>>;

/// Each language's whole query, compiled.
static WHOLE: Cache = OnceLock::new();

/// Each language's definition patterns, compiled.
static DEFINITIONS: Cache = OnceLock::new();

/// Per language, whether [`compile_ahead`] (or [`compile_definitions_ahead`]) started a thread
/// for it: asked again while that thread compiles, they start no other.
type Started = OnceLock<Vec<AtomicBool>>;
static WHOLE_STARTED: Started = OnceLock::new();
static DEFINITIONS_STARTED: Started = OnceLock::new();

/// `language`'s slot of `cache`.
fn slot(cache: &'static Cache, language: &'static Language) -> &'static OnceLock<Result<Compiled, String>> {
    let slots = cache.get_or_init(|| lang::LANGUAGES.iter().map(|_| OnceLock::new()).collect());
    &slots[lang::index_of(language)]
}

/// `language`'s slot of `cache`, compiled by `compile` the first time.
fn cached(
    cache: &'static Cache,
    language: &'static Language,
    compile: impl FnOnce() -> Result<Compiled, String>,
) -> Result<&'static Compiled, String> {
    slot(cache, language).get_or_init(compile).as_ref().map_err(Clone::clone)
}

/// Compiles `language`'s query, checking every capture name. Cached per language.
pub(super) fn compiled(language: &'static Language) -> Result<&'static Compiled, String> {
    cached(&WHOLE, language, || compile(language, language.query))
}

/// Compiles the patterns of `language`'s query that capture a definition, a declaration or a
/// scope: all [`definitions`] reads, in the query's order. Cached per language.
pub(super) fn compiled_definitions(language: &'static Language) -> Result<&'static Compiled, String> {
    let definitions = |name: &str| {
        matches!(parse_capture(name), Ok(Capture::Definition(_) | Capture::Declaration(_) | Capture::Scope))
    };
    cached(&DEFINITIONS, language, || compile(language, &patterns::only(language.query, definitions)))
}

fn compile(language: &Language, source: &str) -> Result<Compiled, String> {
    let grammar =
        codecompass_grammars::language(language.grammar).ok_or_else(|| format!("no grammar `{}`", language.grammar))?;
    let query = Query::new(&grammar, source).map_err(|e| format!("{}: {e}", language.name))?;
    let captures = query
        .capture_names()
        .iter()
        .map(|n| parse_capture(n).map_err(|e| format!("{}: {e}", language.name)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut kinds = Vec::with_capacity(query.pattern_count());
    let mut kind_if_match = Vec::with_capacity(query.pattern_count());
    for pattern in 0..query.pattern_count() {
        let mut conditions = Vec::new();
        let mut rule = None;
        for predicate in query.general_predicates(pattern) {
            let op = predicate.operator.as_ref();
            if op == "kind-if-match?" {
                let wrong = || format!("{}: `#{op}` takes a capture, a regex and a kind", language.name);
                let [
                    QueryPredicateArg::Capture(capture),
                    QueryPredicateArg::String(regex),
                    QueryPredicateArg::String(kind),
                ] = &predicate.args[..]
                else {
                    return Err(wrong());
                };
                let regex = regex::Regex::new(regex).map_err(|e| format!("{}: {e}", language.name))?;
                let kind = known_kind(kind).ok_or_else(wrong)?;
                rule = Some(KindIfMatch { capture: *capture, regex, kind });
                continue;
            }
            let wrong = || format!("{}: `#{op}` takes a capture and node kinds", language.name);
            let up = match op {
                "kind-is?" => 0,
                "parent-is?" => 1,
                "grandparent-is?" => 2,
                _ => return Err(format!("{}: unknown predicate `#{op}`", language.name)),
            };
            let Some((QueryPredicateArg::Capture(capture), rest)) = predicate.args.split_first() else {
                return Err(wrong());
            };
            let names = rest
                .iter()
                .map(|k| match k {
                    QueryPredicateArg::String(kind) => Ok(kind.to_string()),
                    QueryPredicateArg::Capture(_) => Err(wrong()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            if names.is_empty() {
                return Err(wrong());
            }
            conditions.push(KindCondition { capture: *capture, up, kinds: names });
        }
        // The node's own kind first: it is known without a walk, which a parent's kind needs.
        conditions.sort_by_key(|c| c.up);
        kinds.push(conditions);
        kind_if_match.push(rule);
    }
    Ok(Compiled { query, captures, kinds, kind_if_match })
}

/// Compiles the queries of `languages` on a thread of its own, for work about to parse files
/// of them: whoever needs one meanwhile waits for it rather than compiling it twice. The
/// thread is not waited for; none is started for a query compiled already or being compiled
/// ahead, so callers may ask for a language each time they meet a file of it.
pub fn compile_ahead(languages: Vec<&'static Language>) {
    ahead(languages, &WHOLE, &WHOLE_STARTED, compiled);
}

/// [`compile_ahead`] for the definition patterns alone, the query history parses with.
pub fn compile_definitions_ahead(languages: Vec<&'static Language>) {
    ahead(languages, &DEFINITIONS, &DEFINITIONS_STARTED, compiled_definitions);
}

fn ahead(
    mut languages: Vec<&'static Language>,
    cache: &'static Cache,
    started: &'static Started,
    compile: fn(&'static Language) -> Result<&'static Compiled, String>,
) {
    let started = started.get_or_init(|| lang::LANGUAGES.iter().map(|_| AtomicBool::new(false)).collect());
    // The first time a language is named it is taken; a repeat, here or in a later call, is not.
    languages.retain(|l| slot(cache, l).get().is_none() && !started[lang::index_of(l)].swap(true, Ordering::Relaxed));
    if languages.is_empty() {
        return;
    }
    let _ = std::thread::Builder::new().name("compile-ahead".into()).spawn(move || {
        for language in languages {
            let _ = compile(language);
        }
    });
}

/// Checks that `language`'s query compiles against its grammar and uses only known captures.
pub fn check_query(language: &'static Language) -> Result<(), String> {
    compiled(language).map(|_| ())
}

/// The kinds of definition `language`'s query can give (`function`, `class`), read from its
/// source without compiling it: history skips the files that cannot hold a definition of the
/// kind it looks for, and their languages' queries, whose compiling alone can take longer than
/// the rest of its answer.
pub fn definition_kinds(language: &'static Language) -> &'static [&'static str] {
    static KINDS_OF: OnceLock<Vec<OnceLock<Vec<&'static str>>>> = OnceLock::new();
    let slots = KINDS_OF.get_or_init(|| lang::LANGUAGES.iter().map(|_| OnceLock::new()).collect());
    slots[lang::index_of(language)].get_or_init(|| {
        let mut kinds: Vec<&'static str> = patterns::ranges(language.query)
            .into_iter()
            .flat_map(|range| {
                let pattern = &language.query[range];
                let captured =
                    patterns::captures(pattern).into_iter().filter_map(|capture| match parse_capture(capture) {
                        Ok(Capture::Definition(kind)) => Some(kind),
                        _ => None,
                    });
                let defines = captured.clone().next().is_some();
                let matched = patterns::kinds_if_match(pattern).into_iter().filter(move |_| defines);
                captured.chain(matched.filter_map(known_kind))
            })
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    })
}
