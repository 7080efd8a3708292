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

use super::contents::Contents;
use super::recall::{STOPWORDS, group_recall, parse_terms, phrase_holds, recall_query};
use super::words::TermGroup;
use super::{Detail, Details, Explain, Mode, QueryError, SearchContext, SearchOutput, SearchRequest, SearchResult};
use crate::extract::Role;
use crate::index::tokenizer::code_tokens;
use crate::index::{DocKind, Hit, TopInView};

mod shape;
use shape::{Shaping, shape};

/// Documents recalled per list before fusion.
const RECALL: usize = 200;
/// The RRF constant.
const RRF_K: f64 = 60.0;
/// A question's score in a source directory, and under tests, docs or vendored code.
const CLASS_UP: f64 = 1.2;
const CLASS_DOWN: f64 = 0.5;
/// Best whole files whose units gain a file-level rank in a question of words.
const FILE_COHERENCE_DEPTH: usize = 30;

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
    let test_file =
        file.starts_with("test_") || file.contains("_test.") || file.contains(".test.") || file.contains(".spec.");
    if test_file || dirs.iter().any(|s| DOWN.contains(s) || down.iter().any(|d| d == s)) {
        1
    } else if dirs.iter().any(|s| UP.contains(s) || up.iter().any(|u| u == s)) {
        -1
    } else {
        0
    }
}

/// Languages whose files are data, configuration or prose rather than code.
const NOT_CODE: &[&str] = &["markdown", "json", "yaml", "toml", "xml", "html", "css"];

/// Whether a language (by name, `""` for none) is code.
pub(crate) fn is_code_language(lang: &str) -> bool {
    !lang.is_empty() && !NOT_CODE.contains(&lang)
}

/// Whether a path holds code, by its name.
pub(crate) fn is_code_path(path: &str) -> bool {
    crate::lang::detect_by_path(path.as_bytes()).is_some_and(|l| is_code_language(l.name))
}

/// Groups past which a strict pass (most groups required) is not worth trying.
const STRICT_GROUPS: usize = 8;
/// Fewer documents than this from the strict pass, and documents with any word are added
/// (a strict pass that found something is the better answer: AND first, OR when it fails).
const FEW_STRICT: usize = 1;

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
    /// The symbol, when already known.
    symbol: Option<crate::store::SymbolRow>,
}

impl Unit {
    /// A symbol of `fv`, read whole, as a unit of its own.
    fn of_symbol(fv: u32, symbol: crate::store::SymbolRow) -> Unit {
        Unit {
            fv,
            line_start: symbol.line_start,
            line_end: symbol.line_end,
            ord: Some(symbol.ord),
            kind: DocKind::Symbol,
            rrf: 0.0,
            tier: 4,
            declaration: symbol.role == Role::Declaration,
            reasons: Vec::new(),
            symbol: Some(symbol),
        }
    }
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

/// The view's current symbols named `last` (ASCII case aside; with `parts`, only those whose
/// qualified name ends with them), as the ranking orders its first list: the exact spelling
/// first, definitions before declarations, then by file version, line and ordinal; at most
/// [`RECALL`]. Their keys come from the name index alone, and a spelling's symbols are read in
/// file-version order only until they hold enough definitions: any later symbol of that
/// spelling ranks below them. A common name (`flags`: 5,747 symbols in the kernel) read whole
/// was most of its search.
fn exact_names(
    ctx: &SearchContext<'_>,
    last: &str,
    parts: &[String],
    allowed: &RoaringBitmap,
) -> Result<Vec<Unit>, QueryError> {
    let mut keys = super::details::current_named(ctx.store, last, allowed, ctx.max_file_size)?;
    keys.sort_by_key(|k| (k.name != last, k.fv, k.ord));
    let mut out: Vec<Unit> = Vec::new();
    for spelling in keys.chunk_by(|a, b| (a.name != last) == (b.name != last)) {
        let needed = RECALL.saturating_sub(out.len());
        if needed == 0 {
            break;
        }
        let mut units = Vec::new();
        let mut definitions = 0;
        for file in spelling.chunk_by(|a, b| a.fv == b.fv) {
            if definitions >= needed {
                break;
            }
            for (fv, symbol) in super::details::named_rows(ctx.store, file)? {
                if parts.len() > 1 && !segments(&symbol.qualified_name).ends_with(parts) {
                    continue;
                }
                let unit = Unit::of_symbol(fv, symbol);
                definitions += usize::from(!unit.declaration);
                units.push(unit);
            }
        }
        units.sort_by_key(|u| (u.declaration, u.fv, u.line_start, u.ord));
        out.extend(units);
    }
    out.truncate(RECALL);
    Ok(out)
}

/// Runs a ranked search in `mode` (`Fts`, `Symbol`, `Path`, or `Auto` for natural language).
pub(crate) fn ranked(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    query: &str,
    mode: Mode,
    allowed: &Arc<RoaringBitmap>,
) -> Result<SearchOutput, QueryError> {
    let natural = mode == Mode::Auto;
    let wordy = matches!(mode, Mode::Auto | Mode::Fts);
    // In a pasted text, quotes are what it quotes (a message, a path in a traceback), not
    // phrases it insists on: only a short query's quotes are phrases.
    let pasted = wordy && super::intent::is_long_text(query);
    let (mut words, phrases) = if pasted { (Vec::new(), Vec::new()) } else { parse_terms(query) };
    let mut lists: Vec<Vec<Unit>> = Vec::new();
    let collector = |limit| TopInView { bitmap: allowed.clone(), limit, columns: ctx.columns.clone() };
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
        symbol: None,
    };
    let kinds: &[DocKind] = match mode {
        Mode::Symbol => &[DocKind::Symbol, DocKind::Snippet],
        Mode::Path => &[DocKind::File],
        _ => &[DocKind::Symbol, DocKind::Snippet, DocKind::File],
    };
    let mut notes = Vec::new();
    let mut clue_report = None;
    let mut groups: Vec<TermGroup> = Vec::new();
    let query_words = words.join(" ");
    let mut text_clues = None;
    // The words a ranking across repositories weighs each result by (see `merit`).
    let mut merit_words = super::merit::QueryWords::default();
    if wordy {
        // Words of any number: the clues of the text, each a weighted group, ranked as an OR
        // (a strict pass first when the question is short, so documents with every word lead).
        let clues = super::clues::extract(if pasted { query } else { &query_words });
        groups = super::words::groups(&clues);
        if natural {
            let kept: Vec<TermGroup> =
                groups.iter().filter(|g| !STOPWORDS.contains(&g.label.as_str())).cloned().collect();
            if !kept.is_empty() {
                groups = kept;
            }
        }
        if request.comparable {
            merit_words = super::merit::of_groups(&groups);
        }
        let f = ctx.fulltext.fields();
        let dropped = super::words::keep_rarest(&mut groups, super::words::MAX_GROUPS, |t| {
            ctx.searcher.doc_freq(&Term::from_field_text(f.body, t)).unwrap_or(0)
        });
        if !dropped.is_empty() {
            notes.push(format!(
                "the query has more than {} distinct terms; the {} most common were left out",
                super::words::MAX_GROUPS,
                dropped.len()
            ));
        }
        if request.explain != Explain::Off {
            clue_report = Some(super::ClueReport::of(&clues, &groups, &dropped));
        }
        words = groups.iter().map(|g| g.label.clone()).collect();
        let n = groups.len();
        // Paths answer short questions; in a long one every path shares some word with it.
        let kinds: &[DocKind] = if n > 2 { &kinds[..kinds.len().min(2)] } else { kinds };
        let strict = if mode == Mode::Fts || n <= 2 { n } else { n.div_ceil(2) };
        // One list per kind: documents with most of the words first; then, when those are
        // few or the question is long, documents with any of them.
        for &kind in kinds {
            let mut list: Vec<Unit> = Vec::new();
            if n <= STRICT_GROUPS
                && let Some(q) = group_recall(ctx, kind, &groups, &phrases, strict, request.fuzzy)
            {
                list.extend(ctx.search(&*q, &collector(RECALL))?.iter().map(to_unit));
            }
            lists.push(list);
        }
        let found: usize = lists.iter().map(Vec::len).sum();
        if n > 1 && (n > STRICT_GROUPS || found < FEW_STRICT) {
            for (list, &kind) in lists.iter_mut().zip(kinds) {
                let Some(q) = group_recall(ctx, kind, &groups, &phrases, 1, request.fuzzy) else { continue };
                let key = |u: &Unit| (u.fv, u.line_start, u.ord.unwrap_or(u32::MAX));
                let seen: std::collections::HashSet<(u32, u32, u32)> = list.iter().map(key).collect();
                for hit in ctx.search(&*q, &collector(RECALL))?.iter() {
                    let unit = to_unit(hit);
                    if list.len() < RECALL && !seen.contains(&key(&unit)) {
                        list.push(unit);
                    }
                }
            }
        }
        // Definitions of the names the text gives (identifiers, stack-frame functions) are the
        // surest signal a paste carries.
        let mut named_keys = super::files::named_definitions(ctx, &clues, allowed)?;
        named_keys.truncate(RECALL);
        let named: Vec<Unit> = super::details::named_rows(ctx.store, &named_keys)?
            .into_iter()
            .map(|(fv, symbol)| Unit::of_symbol(fv, symbol))
            .collect();
        if !named.is_empty() {
            lists.insert(0, named);
        }
        // Lines that hold a message the text quotes, or produce it from a template.
        if pasted && !clues.messages.is_empty() {
            let deadline = std::time::Instant::now() + request.timeout;
            let lines: Vec<Unit> = super::messages::find(ctx, &clues.messages, allowed, deadline)?
                .into_iter()
                .take(RECALL)
                .map(|hit| Unit {
                    fv: hit.fv,
                    line_start: hit.line,
                    line_end: hit.line,
                    ord: None,
                    kind: DocKind::Snippet,
                    rrf: 0.0,
                    tier: 4,
                    declaration: false,
                    reasons: Vec::new(),
                    symbol: None,
                })
                .collect();
            if !lines.is_empty() {
                lists.insert(0, lines);
            }
        }
        text_clues = Some(clues);
    } else {
        // A name or a path has few words: a query of thousands (repeated or not) would build
        // a query as large; the same words once each, and at most as many as a question keeps.
        let mut seen = std::collections::HashSet::new();
        words.retain(|w| seen.insert(w.to_lowercase()));
        if words.len() > super::words::MAX_GROUPS {
            notes.push(format!(
                "the query has {} distinct words; only the first {} were searched",
                words.len(),
                super::words::MAX_GROUPS
            ));
            words.truncate(super::words::MAX_GROUPS);
        }
        if request.comparable {
            merit_words = super::merit::of_names(&words);
        }
        for &kind in kinds {
            if let Some(q) = recall_query(ctx, kind, &words, &phrases, request.fuzzy) {
                let hits = ctx.search(&*q, &collector(RECALL))?;
                lists.push(hits.iter().map(to_unit).collect());
            }
        }
    }
    // Exact names from the store: the surest signal for a symbol-like query.
    let mut details = Details::new(ctx.store, ctx.max_file_size);
    if matches!(mode, Mode::Symbol | Mode::Fts | Mode::Auto) && !query.contains(' ') {
        let parts = segments(query);
        let last = query.rsplit(['.', ':', '#', '\\', '/', '>']).next().unwrap_or(query);
        let exact = exact_names(ctx, last, &parts, allowed)?;
        lists.insert(0, exact);
    }
    // Path mode: also plain substring matches of the path.
    if mode == Mode::Path {
        let needle = query.trim_start_matches("./").to_lowercase();
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let mut by_path = Vec::new();
        let mut lower = Vec::new();
        ctx.store.for_each_path_in(allowed, |id, path| {
            lower.clear();
            if path.is_ascii() {
                lower.extend(path.iter().map(u8::to_ascii_lowercase));
            } else {
                lower.extend_from_slice(String::from_utf8_lossy(path).to_lowercase().as_bytes());
            }
            if finder.find(&lower).is_some() {
                by_path.push((path.len(), id));
            }
        })?;
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
                    symbol: None,
                })
                .collect(),
        );
    }

    // Fuse: reciprocal rank over the lists, one unit per (file, range, kind, symbol).
    let mut fused: HashMap<(u32, u32, u32, u8, Option<u32>), Unit> = HashMap::new();
    for (list_index, list) in lists.into_iter().enumerate() {
        for (rank, unit) in list.into_iter().enumerate() {
            let key = (unit.fv, unit.line_start, unit.line_end, unit.kind as u8, unit.ord);
            let symbol = unit.symbol.clone();
            let entry = fused.entry(key).or_insert(unit);
            if entry.symbol.is_none() {
                entry.symbol = symbol;
            }
            entry.rrf += 1.0 / (RRF_K + rank as f64 + 1.0);
            if request.explain == Explain::Full {
                entry.reasons.push(format!("list {list_index} rank {}", rank + 1));
            }
        }
    }
    let mut units: Vec<Unit> = fused.into_values().collect();

    // Tiers from what matched.
    let query_lower = query.to_lowercase();
    let word_tokens: Vec<String> = if wordy {
        // Whole identifiers are also present as their parts; the parts are what text shows.
        groups
            .iter()
            .filter(|g| !matches!(g.source, super::words::Source::Identifier | super::words::Source::Frame))
            .map(|g| g.label.clone())
            .collect()
    } else {
        words.iter().flat_map(|w| code_tokens(w)).filter(|t| t.position_length == 1).map(|t| t.text).collect()
    };
    let qparts = segments(query);
    details.prefetch_symbols(
        units.iter().filter(|u| u.symbol.is_none() && u.kind == DocKind::Symbol).filter_map(|u| Some((u.fv, u.ord?))),
    )?;
    for unit in &mut units {
        match (unit.kind, unit.ord) {
            (DocKind::Symbol, Some(ord)) => {
                if unit.symbol.is_none() {
                    unit.symbol = details.symbol(unit.fv, ord)?.cloned();
                }
                let Some(s) = &unit.symbol else { continue };
                unit.declaration = s.role == Role::Declaration;
                unit.tier = if s.name == query {
                    0
                } else if s.name.to_lowercase() == query_lower
                    || (qparts.len() > 1 && segments(&s.qualified_name).ends_with(&qparts))
                {
                    1
                } else {
                    let signature = format!("{} {}", s.qualified_name, s.signature).to_lowercase();
                    if !word_tokens.is_empty() && word_tokens.iter().all(|t| signature.contains(t.as_str())) {
                        2
                    } else {
                        4
                    }
                };
            }
            (DocKind::File, _) => {
                let Some(info) = details.info(unit.fv)? else {
                    continue;
                };
                let lower = info.path_str().to_lowercase();
                let name = lower.rsplit('/').next().unwrap_or(&lower);
                unit.tier = if lower.contains(&query_lower)
                    || name == query_lower
                    || (!word_tokens.is_empty() && word_tokens.iter().all(|t| lower.contains(t.as_str())))
                {
                    3
                } else {
                    4
                };
            }
            _ => unit.tier = 4,
        }
    }
    if mode == Mode::Symbol && !query.contains(' ') && !units.iter().any(|u| u.kind == DocKind::Symbol && u.tier <= 1) {
        notes.push(format!("no definition named `{}`; showing near names", crate::quote::shown_query(query)));
    }

    // Quoted phrases: keep only units whose text holds every phrase.
    if !phrases.is_empty() {
        let mut contents = Contents::default();
        let mut verified = Vec::with_capacity(units.len());
        for unit in units {
            let Some(info) = details.info(unit.fv)?.cloned() else { continue };
            let text = match unit.kind {
                DocKind::File => info.path_str(),
                _ => match contents.get(ctx, &info) {
                    Some(content) => content
                        .lines(
                            unit.line_start.saturating_sub(1) as usize,
                            (unit.line_end + 1).saturating_sub(unit.line_start) as usize,
                        )
                        .map(|l| String::from_utf8_lossy(l).into_owned())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    None => continue,
                },
            };
            if phrases.iter().all(|p| phrase_holds(&text, p)) {
                verified.push(unit);
            }
        }
        units = verified;
    }

    // Merge near-duplicate regions of one file: a unit inside a better one is folded into it.
    // Equal scores end on the file, the line and the kind (a symbol before the snippet of the
    // same lines), so the order never depends on a hash map's.
    units.sort_by_key(|u| {
        (u.tier, u.declaration, std::cmp::Reverse(ordered(u.rrf)), u.fv, u.line_start, u.kind as u8, u.ord, u.line_end)
    });
    let mut kept: Vec<Unit> = Vec::new();
    let mut suppressed = 0u64;
    for unit in units {
        let overlapping = kept.iter_mut().find(|k| {
            k.fv == unit.fv && k.kind != DocKind::File && unit.kind != DocKind::File && overlap(k, &unit) >= 0.5
        });
        match overlapping {
            Some(k) => {
                k.rrf += unit.rrf;
                suppressed += 1;
            }
            None => kept.push(unit),
        }
    }

    // File coherence: a question's answer tends to sit in the files that match it as a whole,
    // so units of the best whole-file matches gain a file-level rank.
    if wordy && groups.len() >= 3 {
        let files = super::files::whole_file_bm25(ctx, &groups, allowed)?;
        let named = match &text_clues {
            Some(clues) => super::files::named_files(ctx, clues, allowed)?,
            None => Vec::new(),
        };
        for (source, list) in
            [("whole-file", files.iter().map(|&(fv, _)| fv).collect::<Vec<_>>()), ("named file", named)]
        {
            let rank_of: HashMap<u32, usize> =
                list.iter().take(FILE_COHERENCE_DEPTH).enumerate().map(|(i, &fv)| (fv, i)).collect();
            for unit in &mut kept {
                if let Some(&rank) = rank_of.get(&unit.fv) {
                    unit.rrf += 1.0 / (RRF_K + rank as f64 + 1.0);
                    if request.explain == Explain::Full {
                        unit.reasons.push(format!("{source} rank {}", rank + 1));
                    }
                }
            }
        }
    }

    // Final order: tier, role, path class, score diversified across files, path, line.
    let up = ctx_config(ctx, "codecompass.rankUp");
    let down = ctx_config(ctx, "codecompass.rankDown");
    let mut paths: HashMap<u32, String> = HashMap::new();
    for unit in &kept {
        if let Some(info) = details.info(unit.fv)? {
            paths.insert(unit.fv, info.path_str());
        }
    }
    let mut classes: HashMap<u32, (i8, String)> = HashMap::new();
    for (fv, path) in &paths {
        classes.insert(*fv, (path_class(path, &up, &down), path.clone()));
    }
    let mut sorted_paths: Vec<&String> = paths.values().collect();
    sorted_paths.sort();
    let path_rank: HashMap<&str, usize> = sorted_paths.iter().enumerate().map(|(i, p)| (p.as_str(), i)).collect();
    // A name or a path sorts by standing first; a question in words by its score, the path
    // class weighing on the score instead, so a strong match in a neutral directory beats a
    // weak one under `src/`.
    if wordy {
        for unit in &mut kept {
            let class = classes.get(&unit.fv).map_or(0, |c| c.0);
            unit.rrf *= match class {
                -1 => CLASS_UP,
                1 => CLASS_DOWN,
                _ => 1.0,
            };
        }
    }
    let class_of = |fv: u32| if wordy { 0 } else { classes.get(&fv).map_or(0, |c| c.0) };
    let path_rank_of = |fv: u32| paths.get(&fv).and_then(|p| path_rank.get(p.as_str()).copied()).unwrap_or(usize::MAX);
    // Ties always end on the path and the line, so equal scores never take a hash map's order.
    let sort_key = |u: &Unit| {
        let rank = path_rank_of(u.fv);
        let standing = (u.tier, u.declaration, class_of(u.fv), if wordy { 0 } else { rank });
        (standing, std::cmp::Reverse(ordered(u.rrf)), rank, u.line_start)
    };
    kept.sort_by_cached_key(sort_key);
    // Within a group of equal standing, a file's second and later results yield to other
    // files' results of close score: greedy, on integer keys, stopping once enough are chosen.
    let wanted = request.limit * 3 + 10;
    let mut ordered_units: Vec<Unit> = Vec::with_capacity(kept.len().min(wanted));
    let mut per_file: HashMap<u32, i32> = HashMap::new();
    let total = kept.len();
    let mut remaining: std::collections::VecDeque<Unit> = kept.into();
    while let Some(front) = remaining.front() {
        if ordered_units.len() >= wanted {
            break;
        }
        let group = (front.tier, front.declaration, class_of(front.fv));
        let mut best = 0;
        let mut best_score = f64::MIN;
        for (i, u) in remaining.iter().enumerate() {
            if (u.tier, u.declaration, class_of(u.fv)) != group || i > 64 {
                break;
            }
            let adjusted = u.rrf * 0.8f64.powi(per_file.get(&u.fv).copied().unwrap_or(0));
            if adjusted > best_score {
                best_score = adjusted;
                best = i;
            }
        }
        let unit = remaining.remove(best).expect("best indexes an element");
        *per_file.entry(unit.fv).or_default() += 1;
        ordered_units.push(unit);
    }

    // Identical content at several paths: one result, the others in `also_at`.
    let mut shaped: Vec<SearchResult> = Vec::new();
    let mut first_of: HashMap<(crate::git::ObjectId, u32, u32, u8), usize> = HashMap::new();
    let mut shaping = Shaping {
        ctx,
        request,
        word_tokens: &word_tokens,
        merit_words: &merit_words,
        classes: &classes,
        contents: Contents::default(),
    };
    for unit in ordered_units {
        let Some(info) = details.info(unit.fv)?.cloned() else {
            continue;
        };
        let key = (info.blob_id, unit.line_start, unit.line_end, unit.kind as u8);
        if let Some(&index) = first_of.get(&key) {
            shaped[index].also_at.push(info.path_str());
            suppressed += 1;
            continue;
        }
        if shaped.len() >= request.limit {
            continue;
        }
        first_of.insert(key, shaped.len());
        // Parents and neighbours need the whole file's symbols: only for what is shown.
        let symbols = if request.detail >= Detail::Context && !request.compact {
            details.all_symbols(unit.fv)?
        } else {
            Vec::new()
        };
        shaped.push(shape(&mut shaping, &unit, &info, &symbols));
    }
    let truncated = total > shaped.len() + suppressed as usize;
    let mut output = SearchOutput::empty(match mode {
        Mode::Auto => "fts",
        other => other.as_str(),
    });
    output.results = shaped;
    output.total_candidates = total;
    output.truncated = truncated;
    output.suppressed_duplicate_count = suppressed;
    output.clues = clue_report;
    output.notes = notes;
    output.word_stats = request.comparable.then(|| super::merit::stats(ctx, &merit_words));
    if let Some(budget) = request.max_tokens {
        super::budget::fit_budget(&mut output, budget);
    }
    Ok(output)
}

pub(crate) fn ctx_config(ctx: &SearchContext<'_>, key: &str) -> Vec<String> {
    ctx.content
        .git
        .map(|g| g.local().config_strings(key).iter().flat_map(|v| v.split(',').map(|s| s.trim().to_owned())).collect())
        .unwrap_or_default()
}

/// A non-negative score as an integer that orders the same (a negative one as 0).
pub(crate) fn ordered(x: f64) -> u64 {
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
}
