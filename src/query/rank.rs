//! Ranked search: recall from symbol, snippet and file documents (and exact symbol names
//! from the store), fuse with reciprocal rank fusion, then a deterministic rerank.
//!
//! The rerank orders by: match tier (exact symbol name > qualified name > signature > path >
//! body), definition before declaration, path class (by whole path segment: `src`, `lib`, ...
//! up; `tests`, `vendor`, `docs`, ... down; `contest` is not `test`), then the fused score,
//! diversified across files, then path and line for determinism.

use std::collections::HashMap;
use std::sync::Arc;

use roaring::RoaringBitmap;
use tantivy::Term;
use tantivy::query::{
    BooleanQuery, BoostQuery, FuzzyTermQuery, Occur, PhraseQuery, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};

use super::{
    Classified, Detail, Explain, Intent, LineHit, Mode, QueryError, SearchContext, SearchOutput,
    SearchRequest, SearchResult, Suggestion, SymbolCache,
};
use crate::extract::Role;
use crate::index::tokenizer::code_tokens;
use crate::index::{DocKind, Hit, TopInView};

/// Documents recalled per list before fusion.
const RECALL: usize = 200;
/// The RRF constant.
const RRF_K: f64 = 60.0;

/// Path segments that push a result down or up (configurable: `codecompass.rankDown`,
/// `codecompass.rankUp` in git config add to these).
const DOWN: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "mocks",
    "__mocks__",
    "fixtures",
    "testdata",
    "generated",
    "vendor",
    "third_party",
    "examples",
    "example",
    "docs",
    "doc",
    "benches",
];
const UP: &[&str] = &["src", "lib", "app", "internal", "core", "pkg"];

/// -1 up, 0 neutral, 1 down: by whole path segment.
pub(crate) fn path_class(path: &str, up: &[String], down: &[String]) -> i8 {
    let segments: Vec<&str> = path.split('/').collect();
    let dirs = &segments[..segments.len().saturating_sub(1)];
    let file = segments.last().copied().unwrap_or("");
    let test_file = file.starts_with("test_")
        || file.contains("_test.")
        || file.contains(".test.")
        || file.contains(".spec.");
    if test_file
        || dirs
            .iter()
            .any(|s| DOWN.contains(s) || down.iter().any(|d| d == s))
    {
        1
    } else if dirs
        .iter()
        .any(|s| UP.contains(s) || up.iter().any(|u| u == s))
    {
        -1
    } else {
        0
    }
}

/// Words and quoted phrases of a query, in order.
fn parse_terms(query: &str) -> (Vec<String>, Vec<String>) {
    let mut words = Vec::new();
    let mut phrases = Vec::new();
    let mut rest = query;
    while let Some(open) = rest.find('"') {
        words.push(rest[..open].to_owned());
        let after = &rest[open + 1..];
        match after.find('"') {
            Some(close) => {
                phrases.push(after[..close].to_owned());
                rest = &after[close + 1..];
            }
            None => {
                rest = after;
            }
        }
    }
    words.push(rest.to_owned());
    let words = words
        .iter()
        .flat_map(|w| w.split_whitespace().map(str::to_owned))
        .collect();
    (words, phrases)
}

const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "are",
    "was",
    "were",
    "be",
    "of",
    "in",
    "on",
    "at",
    "to",
    "for",
    "from",
    "by",
    "with",
    "and",
    "or",
    "how",
    "what",
    "where",
    "which",
    "who",
    "why",
    "when",
    "do",
    "does",
    "did",
    "we",
    "i",
    "you",
    "it",
    "this",
    "that",
    "there",
    "here",
    "can",
    "get",
    "find",
    "show",
    "me",
    "our",
    "my",
    "into",
    "function",
    "functions",
    "method",
    "methods",
    "code",
    "file",
    "files",
    "implement",
    "implemented",
    "implements",
    "defined",
    "define",
    "called",
    "used",
    "use",
    "uses",
    "handle",
    "handled",
    "should",
    "would",
];

/// Simple English suffix variants, so `totals` meets `total` and `reserves` meets `reserve`.
fn variants(word: &str) -> Vec<String> {
    let w = word.to_lowercase();
    let mut out = vec![w.clone()];
    let mut push = |v: String| {
        if v.len() >= 3 && !out.contains(&v) {
            out.push(v);
        }
    };
    if let Some(stem) = w.strip_suffix("ies") {
        push(format!("{stem}y"));
    }
    if let Some(stem) = w.strip_suffix("es") {
        push(stem.to_owned());
    }
    if let Some(stem) = w.strip_suffix('s') {
        push(stem.to_owned());
    }
    if let Some(stem) = w.strip_suffix("ed") {
        push(stem.to_owned());
        push(format!("{stem}e"));
    }
    if let Some(stem) = w.strip_suffix("ing") {
        push(stem.to_owned());
        push(format!("{stem}e"));
    }
    out
}

/// One query word as a clause: its whole identifier, or all its parts.
fn word_clause(
    ctx: &SearchContext<'_>,
    fields: &[(Field, f32)],
    word: &str,
    fuzzy: u8,
    natural: bool,
) -> Option<Box<dyn Query>> {
    let tokens = code_tokens(word);
    if tokens.is_empty() {
        return None;
    }
    let term_query = |field: Field, text: &str| -> Box<dyn Query> {
        let term = Term::from_field_text(field, text);
        if fuzzy > 0 && text.chars().count() > usize::from(fuzzy) + 2 {
            Box::new(FuzzyTermQuery::new(term, fuzzy, true))
        } else {
            Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs))
        }
    };
    let any_field = |text: &str| -> Box<dyn Query> {
        Box::new(BooleanQuery::new(
            fields
                .iter()
                .map(|&(f, boost)| {
                    (
                        Occur::Should,
                        Box::new(BoostQuery::new(term_query(f, text), boost)) as Box<dyn Query>,
                    )
                })
                .collect(),
        ))
    };
    let _ = ctx;
    let whole = tokens
        .iter()
        .find(|t| t.position_length > 1)
        .map(|t| t.text.clone());
    let parts: Vec<String> = tokens
        .iter()
        .filter(|t| t.position_length == 1)
        .map(|t| t.text.clone())
        .collect();
    match whole {
        Some(whole) => {
            let all_parts: Box<dyn Query> = Box::new(BooleanQuery::new(
                parts.iter().map(|p| (Occur::Must, any_field(p))).collect(),
            ));
            Some(Box::new(BooleanQuery::new(vec![
                (
                    Occur::Should,
                    Box::new(BoostQuery::new(any_field(&whole), 2.0)),
                ),
                (Occur::Should, all_parts),
            ])))
        }
        None if natural && word.chars().all(char::is_alphabetic) => {
            Some(Box::new(BooleanQuery::new(
                variants(&parts[0])
                    .iter()
                    .map(|v| (Occur::Should, any_field(v)))
                    .collect(),
            )))
        }
        None => Some(any_field(&parts[0])),
    }
}

fn phrase_clause(fields: &[(Field, f32)], phrase: &str) -> Option<Box<dyn Query>> {
    let tokens: Vec<String> = code_tokens(phrase)
        .into_iter()
        .filter(|t| t.position_length == 1)
        .map(|t| t.text)
        .collect();
    match tokens.len() {
        0 => None,
        1 => Some(Box::new(BooleanQuery::new(
            fields
                .iter()
                .map(|&(f, _)| {
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(
                            Term::from_field_text(f, &tokens[0]),
                            IndexRecordOption::WithFreqs,
                        )) as Box<dyn Query>,
                    )
                })
                .collect(),
        ))),
        _ => Some(Box::new(BooleanQuery::new(
            fields
                .iter()
                .map(|&(f, _)| {
                    let terms = tokens.iter().map(|t| Term::from_field_text(f, t)).collect();
                    (
                        Occur::Should,
                        Box::new(PhraseQuery::new(terms)) as Box<dyn Query>,
                    )
                })
                .collect(),
        ))),
    }
}

/// The recall query for one document kind.
fn recall_query(
    ctx: &SearchContext<'_>,
    kind: DocKind,
    words: &[String],
    phrases: &[String],
    conjunctive: bool,
    fuzzy: u8,
    required: Option<usize>,
) -> Option<Box<dyn Query>> {
    let f = ctx.fulltext.fields();
    let fields: Vec<(Field, f32)> = match kind {
        DocKind::Symbol => vec![
            (f.name, 4.0),
            (f.qualified, 3.0),
            (f.signature, 2.0),
            (f.doc, 1.0),
        ],
        DocKind::Snippet => vec![(f.body, 1.0)],
        DocKind::File => vec![(f.path, 2.0), (f.name, 3.0)],
    };
    let mut words_clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for w in words {
        if let Some(q) = word_clause(ctx, &fields, w, fuzzy, !conjunctive) {
            words_clauses.push((
                if conjunctive {
                    Occur::Must
                } else {
                    Occur::Should
                },
                q,
            ));
        }
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if !words_clauses.is_empty() {
        let n = words_clauses.len();
        let inner: Box<dyn Query> = if conjunctive {
            Box::new(BooleanQuery::new(words_clauses))
        } else {
            // Natural language: at least half of the words (all of two), ranked by BM25.
            let required = required
                .unwrap_or(if n <= 2 { n } else { n.div_ceil(2) })
                .min(n);
            Box::new(BooleanQuery::with_minimum_required_clauses(
                words_clauses,
                required,
            ))
        };
        clauses.push((Occur::Must, inner));
    }
    for p in phrases {
        if let Some(q) = phrase_clause(&fields, p) {
            clauses.push((Occur::Must, q));
        }
    }
    if clauses.is_empty() {
        return None;
    }
    clauses.push((
        Occur::Must,
        Box::new(TermQuery::new(
            Term::from_field_u64(f.kind, kind as u64),
            IndexRecordOption::Basic,
        )),
    ));
    Some(Box::new(BooleanQuery::new(clauses)))
}

/// A result unit before shaping.
#[derive(Clone, Debug)]
struct Unit {
    fv: u32,
    line_start: u32,
    line_end: u32,
    /// Symbol ordinal for symbol units.
    ord: Option<u32>,
    kind: DocKind,
    rrf: f64,
    tier: u8,
    declaration: bool,
    reasons: Vec<String>,
}

fn tier_name(tier: u8) -> &'static str {
    match tier {
        0 => "exact symbol name",
        1 => "symbol name (case-insensitive) or qualified name",
        2 => "signature",
        3 => "path",
        _ => "body",
    }
}

/// Splits qualified names into comparable segments.
fn segments(q: &str) -> Vec<String> {
    q.split(['.', ':', '#', '\\', '/', '>', ' '])
        .map(|s| s.trim_start_matches('-').to_lowercase())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Runs a ranked search in `mode` (`Fts`, `Symbol`, `Path`, or `Auto` for natural language).
pub(crate) fn ranked(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    query: &str,
    mode: Mode,
    allowed: &Arc<RoaringBitmap>,
) -> Result<SearchOutput, QueryError> {
    let (mut words, phrases) = parse_terms(query);
    let natural = mode == Mode::Auto;
    if natural {
        let kept: Vec<String> = words
            .iter()
            .filter(|w| !STOPWORDS.contains(&w.to_lowercase().as_str()))
            .cloned()
            .collect();
        if !kept.is_empty() {
            words = kept;
        }
    }
    let conjunctive = !natural;
    let mut lists: Vec<Vec<Unit>> = Vec::new();
    let collector = |limit| TopInView {
        bitmap: allowed.clone(),
        limit,
    };
    let to_unit = |h: &Hit| Unit {
        fv: h.fv,
        line_start: h.line_start,
        line_end: h.line_end,
        ord: (h.kind == DocKind::Symbol).then_some(h.ord),
        kind: h.kind,
        rrf: 0.0,
        tier: 4,
        declaration: false,
        reasons: Vec::new(),
    };
    let kinds: &[DocKind] = match mode {
        Mode::Symbol => &[DocKind::Symbol, DocKind::Snippet],
        Mode::Path => &[DocKind::File],
        _ => &[DocKind::Symbol, DocKind::Snippet, DocKind::File],
    };
    for &kind in kinds {
        if let Some(q) = recall_query(
            ctx,
            kind,
            &words,
            &phrases,
            conjunctive,
            request.fuzzy,
            None,
        ) {
            let hits = ctx.searcher.search(&*q, &collector(RECALL))?;
            lists.push(hits.iter().map(to_unit).collect());
        }
    }
    // A question that no document answers with half its words is asked again with any word.
    if natural && lists.iter().all(Vec::is_empty) && words.len() > 1 {
        lists.clear();
        for &kind in kinds {
            if let Some(q) =
                recall_query(ctx, kind, &words, &phrases, false, request.fuzzy, Some(1))
            {
                let hits = ctx.searcher.search(&*q, &collector(RECALL))?;
                lists.push(hits.iter().map(to_unit).collect());
            }
        }
    }
    // Exact names from the store: the surest signal for a symbol-like query.
    let mut cache = SymbolCache::new(ctx.store, ctx.max_file_size);
    if matches!(mode, Mode::Symbol | Mode::Fts | Mode::Auto) && !query.contains(' ') {
        let parts = segments(query);
        let last = query
            .rsplit(['.', ':', '#', '\\', '/', '>'])
            .next()
            .unwrap_or(query);
        let mut exact = Vec::new();
        for (symbol, fv, _, _) in ctx.store.symbols_named(last)? {
            if !allowed.contains(fv) {
                continue;
            }
            // The record must be the current one for the file version.
            let Some((_, symbols)) = cache.file(fv)? else {
                continue;
            };
            if !symbols
                .iter()
                .any(|s| s.record == symbol.record && s.ord == symbol.ord)
            {
                continue;
            }
            if parts.len() > 1 && !segments(&symbol.qualified_name).ends_with(&parts) {
                continue;
            }
            exact.push(Unit {
                fv,
                line_start: symbol.line_start,
                line_end: symbol.line_end,
                ord: Some(symbol.ord),
                kind: DocKind::Symbol,
                rrf: 0.0,
                tier: 4,
                declaration: symbol.role == Role::Declaration,
                reasons: Vec::new(),
            });
        }
        exact.sort_by_key(|u| (u.declaration, u.fv, u.line_start));
        lists.insert(0, exact);
    }
    // Path mode: also plain substring matches of the path.
    if mode == Mode::Path {
        let needle = query.trim_start_matches("./").to_lowercase();
        let mut by_path = Vec::new();
        for info in ctx.store.file_infos(allowed.iter())? {
            if info.path_str().to_lowercase().contains(&needle) {
                by_path.push((info.path.len(), info.id));
            }
        }
        by_path.sort();
        lists.insert(
            0,
            by_path
                .into_iter()
                .take(RECALL)
                .map(|(_, fv)| Unit {
                    fv,
                    line_start: 1,
                    line_end: 1,
                    ord: None,
                    kind: DocKind::File,
                    rrf: 0.0,
                    tier: 3,
                    declaration: false,
                    reasons: Vec::new(),
                })
                .collect(),
        );
    }

    // Fuse: reciprocal rank over the lists, one unit per (file, range, kind, symbol).
    let mut fused: HashMap<(u32, u32, u32, u8, Option<u32>), Unit> = HashMap::new();
    for (list_index, list) in lists.into_iter().enumerate() {
        for (rank, unit) in list.into_iter().enumerate() {
            let key = (
                unit.fv,
                unit.line_start,
                unit.line_end,
                unit.kind as u8,
                unit.ord,
            );
            let entry = fused.entry(key).or_insert(unit);
            entry.rrf += 1.0 / (RRF_K + rank as f64 + 1.0);
            if request.explain == Explain::Full {
                entry
                    .reasons
                    .push(format!("list {list_index} rank {}", rank + 1));
            }
        }
    }
    let mut units: Vec<Unit> = fused.into_values().collect();

    // Tiers from what matched.
    let query_lower = query.to_lowercase();
    let word_tokens: Vec<String> = words
        .iter()
        .flat_map(|w| code_tokens(w))
        .filter(|t| t.position_length == 1)
        .map(|t| t.text)
        .collect();
    let qparts = segments(query);
    for unit in &mut units {
        let Some((info, symbols)) = cache.file(unit.fv)? else {
            continue;
        };
        let path = info.path_str();
        match (unit.kind, unit.ord) {
            (DocKind::Symbol, Some(ord)) => {
                let Some(s) = symbols.iter().find(|s| s.ord == ord) else {
                    continue;
                };
                unit.declaration = s.role == Role::Declaration;
                unit.tier = if s.name == query {
                    0
                } else if s.name.to_lowercase() == query_lower
                    || (qparts.len() > 1 && segments(&s.qualified_name).ends_with(&qparts))
                {
                    1
                } else {
                    let signature = format!("{} {}", s.qualified_name, s.signature).to_lowercase();
                    if !word_tokens.is_empty()
                        && word_tokens.iter().all(|t| signature.contains(t.as_str()))
                    {
                        2
                    } else {
                        4
                    }
                };
            }
            (DocKind::File, _) => {
                let lower = path.to_lowercase();
                let name = lower.rsplit('/').next().unwrap_or(&lower);
                unit.tier = if lower.contains(&query_lower)
                    || name == query_lower
                    || (!word_tokens.is_empty()
                        && word_tokens.iter().all(|t| lower.contains(t.as_str())))
                {
                    3
                } else {
                    4
                };
            }
            _ => unit.tier = 4,
        }
    }

    // Merge near-duplicate regions of one file: a unit inside a better one is folded into it.
    units.sort_by(|a, b| {
        (
            a.tier,
            a.declaration,
            std::cmp::Reverse(ordered(a.rrf)),
            a.fv,
            a.line_start,
        )
            .cmp(&(
                b.tier,
                b.declaration,
                std::cmp::Reverse(ordered(b.rrf)),
                b.fv,
                b.line_start,
            ))
    });
    let mut kept: Vec<Unit> = Vec::new();
    let mut suppressed = 0u64;
    for unit in units {
        let overlapping = kept.iter_mut().find(|k| {
            k.fv == unit.fv
                && k.kind != DocKind::File
                && unit.kind != DocKind::File
                && overlap(k, &unit) >= 0.5
        });
        match overlapping {
            Some(k) => {
                k.rrf += unit.rrf;
                suppressed += 1;
            }
            None => kept.push(unit),
        }
    }

    // Final order: tier, role, path class, score diversified across files, path, line.
    let up = ctx_config(ctx, "codecompass.rankUp");
    let down = ctx_config(ctx, "codecompass.rankDown");
    let mut classes = HashMap::new();
    for unit in &kept {
        if let Some((info, _)) = cache.file(unit.fv)? {
            classes.insert(
                unit.fv,
                (path_class(&info.path_str(), &up, &down), info.path_str()),
            );
        }
    }
    let mut ordered_units: Vec<Unit> = Vec::with_capacity(kept.len());
    let mut per_file: HashMap<u32, u32> = HashMap::new();
    let mut remaining = kept;
    while !remaining.is_empty() {
        let best = (0..remaining.len())
            .min_by(|&i, &j| {
                let key = |u: &Unit| {
                    let (class, path) = classes.get(&u.fv).cloned().unwrap_or((0, String::new()));
                    let seen = per_file.get(&u.fv).copied().unwrap_or(0);
                    let adjusted = u.rrf * 0.8f64.powi(seen as i32);
                    (
                        u.tier,
                        u.declaration,
                        class,
                        std::cmp::Reverse(ordered(adjusted)),
                        path,
                        u.line_start,
                    )
                };
                key(&remaining[i]).cmp(&key(&remaining[j]))
            })
            .expect("remaining is not empty");
        let unit = remaining.swap_remove(best);
        *per_file.entry(unit.fv).or_default() += 1;
        ordered_units.push(unit);
    }

    // Identical content at several paths: one result, the others in `also_at`.
    let mut shaped: Vec<SearchResult> = Vec::new();
    let mut first_of: HashMap<(crate::git::ObjectId, u32, u32, u8), usize> = HashMap::new();
    let total = ordered_units.len();
    for unit in ordered_units {
        let Some((info, symbols)) = cache.file(unit.fv)?.cloned() else {
            continue;
        };
        let key = (
            info.blob_id,
            unit.line_start,
            unit.line_end,
            unit.kind as u8,
        );
        if let Some(&index) = first_of.get(&key) {
            shaped[index].also_at.push(info.path_str());
            suppressed += 1;
            continue;
        }
        if shaped.len() >= request.limit {
            continue;
        }
        first_of.insert(key, shaped.len());
        shaped.push(shape(
            ctx,
            request,
            &unit,
            &info,
            &symbols,
            &word_tokens,
            &classes,
        ));
    }
    let truncated = total > shaped.len() + suppressed as usize;
    let mut output = SearchOutput {
        mode: match mode {
            Mode::Auto => "fts",
            other => other.as_str(),
        },
        intent: "",
        confidence: 1.0,
        results: shaped,
        total_candidates: total,
        truncated,
        suppressed_duplicate_count: suppressed,
        safety_limit_applied: false,
        prefilter: None,
        files_scanned: None,
        unreadable_files: None,
        estimated_tokens: None,
        suggestion: None,
    };
    if let Some(budget) = request.max_tokens {
        fit_budget(&mut output, budget);
    }
    Ok(output)
}

fn ctx_config(ctx: &SearchContext<'_>, key: &str) -> Vec<String> {
    ctx.content
        .git
        .map(|g| {
            g.local()
                .config_strings(key)
                .iter()
                .flat_map(|v| v.split(',').map(|s| s.trim().to_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn ordered(x: f64) -> u64 {
    (x * 1e12) as u64
}

fn overlap(a: &Unit, b: &Unit) -> f64 {
    let start = a.line_start.max(b.line_start);
    let end = a.line_end.min(b.line_end);
    if end < start {
        return 0.0;
    }
    let shared = f64::from(end - start + 1);
    let smaller = f64::from((a.line_end - a.line_start + 1).min(b.line_end - b.line_start + 1));
    shared / smaller
}

fn shape(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    unit: &Unit,
    info: &crate::store::FileInfo,
    symbols: &[crate::store::SymbolRow],
    word_tokens: &[String],
    classes: &HashMap<u32, (i8, String)>,
) -> SearchResult {
    let mut result = SearchResult {
        path: info.path_str(),
        line_start: unit.line_start,
        line_end: unit.line_end,
        kind: match unit.kind {
            DocKind::File => "file".to_owned(),
            DocKind::Snippet => "snippet".to_owned(),
            DocKind::Symbol => String::new(),
        },
        language: (!info.lang.is_empty() && !request.compact).then(|| info.lang.clone()),
        ..SearchResult::default()
    };
    let symbol = unit
        .ord
        .and_then(|ord| symbols.iter().find(|s| s.ord == ord));
    if let Some(s) = symbol {
        result.kind = s.kind.clone();
        result.name = Some(s.name.clone());
        result.role = Some(if s.role == Role::Definition {
            "definition"
        } else {
            "declaration"
        });
        if request.detail >= Detail::Signature && !request.compact {
            result.qualified_name = Some(s.qualified_name.clone());
            result.signature = Some(s.signature.clone());
            result.visibility = s.visibility.clone();
        }
        if request.detail >= Detail::Context && !request.compact {
            result.parent = s
                .parent
                .and_then(|p| symbols.iter().find(|x| x.ord == p))
                .map(|p| p.qualified_name.clone());
            result.related = symbols
                .iter()
                .filter(|x| x.ord != s.ord && (x.parent == s.parent || x.parent == Some(s.ord)))
                .take(8)
                .map(|x| x.qualified_name.clone())
                .collect();
        }
    } else if unit.kind == DocKind::File {
        result.name = Some(
            result
                .path
                .rsplit('/')
                .next()
                .unwrap_or(&result.path)
                .to_owned(),
        );
    }
    if !request.compact {
        result.score = Some((unit.rrf * 1e4).round() / 1e4);
        // Matching lines inside the unit, for display and highlighting.
        if unit.kind != DocKind::File
            && (!word_tokens.is_empty() || request.detail >= Detail::Context)
        {
            let local = ctx.content.local();
            if let Some(content) = ctx.content.read(local.as_ref(), info) {
                let text = String::from_utf8_lossy(&content);
                let lines: Vec<&str> = text.lines().collect();
                let from = unit.line_start.saturating_sub(1) as usize;
                let to = (unit.line_end as usize).min(lines.len());
                for (i, line) in lines.iter().enumerate().take(to).skip(from) {
                    if result.lines.len() == 5 {
                        break;
                    }
                    let lower = line.to_lowercase();
                    let ranges: Vec<(usize, usize)> = word_tokens
                        .iter()
                        .filter_map(|t| lower.find(t.as_str()).map(|a| (a, a + t.len())))
                        .filter(|&(a, b)| line.is_char_boundary(a) && line.is_char_boundary(b))
                        .collect();
                    if let Some(&(first, _)) = ranges.iter().min() {
                        result.lines.push(LineHit {
                            line: i as u32 + 1,
                            column: first as u32 + 1,
                            text: line.chars().take(500).collect(),
                            ranges,
                            before: Vec::new(),
                            after: Vec::new(),
                        });
                    }
                }
                if request.detail >= Detail::Context {
                    let end = to.min(from + 15);
                    result.preview = Some(
                        lines
                            .get(from..end)
                            .map(|l| l.join("\n"))
                            .unwrap_or_default(),
                    );
                }
            }
        }
    }
    if request.explain != Explain::Off {
        let (class, _) = classes.get(&unit.fv).cloned().unwrap_or((0, String::new()));
        result
            .ranking_reasons
            .push(format!("tier {}: {}", unit.tier, tier_name(unit.tier)));
        result.ranking_reasons.push(if unit.declaration {
            "declaration".into()
        } else {
            "definition or text".into()
        });
        result.ranking_reasons.push(match class {
            -1 => "path up (source directory)".into(),
            1 => "path down (tests, vendored, docs or examples)".into(),
            _ => "path neutral".into(),
        });
        result
            .ranking_reasons
            .push(format!("fused score {:.4}", unit.rrf));
        if request.explain == Explain::Full {
            result.ranking_reasons.extend(unit.reasons.iter().cloned());
        }
    }
    result
}

/// Tokens of a text by the budget's estimate: `ceil(words * 1.3)`.
pub fn estimate_tokens(text: &str) -> usize {
    (text.split_whitespace().count() as f64 * 1.3).ceil() as usize
}

/// The text a result contributes to a budget.
fn result_text(r: &SearchResult) -> String {
    let mut text = format!(
        "{}:{}-{} {} {}",
        r.path,
        r.line_start,
        r.line_end,
        r.kind,
        r.name.as_deref().unwrap_or("")
    );
    for part in [&r.qualified_name, &r.signature, &r.preview]
        .into_iter()
        .flatten()
    {
        text.push(' ');
        text.push_str(part);
    }
    for l in &r.lines {
        text.push(' ');
        text.push_str(&l.text);
        for c in l.before.iter().chain(&l.after) {
            text.push(' ');
            text.push_str(c);
        }
    }
    text
}

/// Keeps whole results, in order, while their estimated tokens fit the budget; never over.
pub(crate) fn fit_budget(output: &mut SearchOutput, budget: usize) {
    let mut used = 0usize;
    let mut kept = Vec::new();
    let before = output.results.len();
    for mut r in output.results.drain(..) {
        let cost = estimate_tokens(&result_text(&r));
        if used + cost > budget {
            continue;
        }
        used += cost;
        r.estimated_tokens = Some(cost);
        kept.push(r);
    }
    if kept.len() < before {
        output.truncated = true;
    }
    output.results = kept;
    output.estimated_tokens = Some(used);
}

/// A better query when the answer looks weak.
pub(crate) fn suggest(
    query: &str,
    classified: Classified,
    output: &SearchOutput,
) -> Option<Suggestion> {
    let quoted = |q: &str| {
        if q.contains(' ') || q.contains('\'') {
            format!("\"{}\"", q.replace('"', "\\\""))
        } else {
            q.to_owned()
        }
    };
    let weak = output.results.is_empty() || classified.confidence < 0.6;
    if !weak {
        return None;
    }
    if classified.intent == Intent::Symbol || (!query.contains(' ') && output.mode != "regex") {
        return Some(Suggestion {
            mode: "symbol",
            reason: if output.results.is_empty() {
                "nothing matched; a definition lookup tolerates case and qualified names".into()
            } else {
                "the query looks like a name; locate answers with definitions only".into()
            },
            command: format!("git codecompass locate {}", quoted(query)),
        });
    }
    if output.results.is_empty() && output.mode != "literal" && output.mode != "regex" {
        return Some(Suggestion {
            mode: "literal",
            reason: "no document has every word; an exact search finds the text as written".into(),
            command: format!(
                "git codecompass search --mode regex {}",
                quoted(&regex::escape(query))
            ),
        });
    }
    if output.results.is_empty() {
        return Some(Suggestion {
            mode: "fts",
            reason: "no line matches exactly; a word search tolerates order and case".into(),
            command: format!("git codecompass search --mode fts {}", quoted(query)),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_classes_go_by_whole_segments() {
        let none: Vec<String> = Vec::new();
        assert_eq!(path_class("src/cart.rs", &none, &none), -1);
        assert_eq!(path_class("tests/cart.rs", &none, &none), 1);
        assert_eq!(path_class("src/contest/cart.rs", &none, &none), -1);
        assert_eq!(path_class("contest/cart.rs", &none, &none), 0);
        assert_eq!(path_class("pkg/cart_test.go", &none, &none), 1);
        assert_eq!(path_class("lib/vendor/x.js", &none, &none), 1);
        assert_eq!(path_class("tools/x.py", &none, &["tools".to_owned()]), 1);
    }

    #[test]
    fn budget_is_never_exceeded() {
        let result = |words: usize| SearchResult {
            path: "a".into(),
            kind: "line".into(),
            lines: vec![LineHit {
                line: 1,
                column: 1,
                text: vec!["w"; words].join(" "),
                ranges: vec![],
                before: vec![],
                after: vec![],
            }],
            ..SearchResult::default()
        };
        for budget in [0, 5, 13, 50, 200] {
            let mut output = SearchOutput {
                mode: "regex",
                intent: "regex",
                confidence: 1.0,
                results: vec![result(10), result(3), result(40), result(1)],
                total_candidates: 4,
                truncated: false,
                suppressed_duplicate_count: 0,
                safety_limit_applied: false,
                prefilter: None,
                files_scanned: None,
                unreadable_files: None,
                estimated_tokens: None,
                suggestion: None,
            };
            fit_budget(&mut output, budget);
            let used: usize = output
                .results
                .iter()
                .map(|r| r.estimated_tokens.unwrap())
                .sum();
            assert!(used <= budget);
            assert_eq!(output.estimated_tokens, Some(used));
        }
        assert_eq!(estimate_tokens("one two three"), 4);
        assert_eq!(estimate_tokens(""), 0);
    }

    #[test]
    fn terms_and_phrases() {
        let (words, phrases) = parse_terms("parse \"config file\" loader");
        assert_eq!(words, ["parse", "loader"]);
        assert_eq!(phrases, ["config file"]);
    }
}
