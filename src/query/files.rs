//! File-level answers (`search --files`): which files to read for a question or a pasted
//! issue. Evidence from every hit in a file is aggregated into one file score:
//!
//! 1. the file as a whole document: BM25 over the view's files, computed at query time from
//!    the snippet postings (snippets partition a file, so their term frequencies add up to the
//!    file's) and the path postings, with document frequencies counted in the view itself;
//! 2. symbols whose names hold the query's terms (symbol documents, BM25), and paths that
//!    hold them (weighed by their rarity among the view's paths);
//! 3. definitions of the identifiers and stack-frame functions the text names;
//! 4. files the text names (paths, `file.py:123`, stack frames), matched by path suffix;
//! 5. lines that hold a quoted message or a template that produces it;
//! 6. lines that hold an option the text names (`--failed-first`), as written.
//!
//! The lists are fused by weighted reciprocal rank, then the path priors the ranker already
//! has (tests, vendored code, docs and examples down) and a prior against files that are not
//! code apply. Each file answers with its score, its best lines and the symbols that matched.
//!
//! Architecture invariant: every posting counted belongs to a file version of the one view
//! asked about; nothing here depends on another view's documents.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use roaring::RoaringBitmap;
use tantivy::postings::Postings;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, TERMINATED, Term};

use super::clues::Clues;
use super::rank::path_class;
use super::words::TermGroup;
use super::{Details, Explain, LineHit, QueryError, SearchContext, SearchOutput, SearchRequest, SearchResult};
use crate::index::tokenizer::code_tokens;
use crate::index::{DocKind, TopInView};

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// A term in the path counts as this many terms of the content.
const PATH_WEIGHT: f64 = 3.0;
/// The reciprocal-rank constant for file lists (small: few lists, short heads).
const RRF_K: f64 = 20.0;
/// Files that are prose, data or configuration answer a question about code rarely.
const NOT_CODE_PRIOR: f64 = 0.3;
/// TypeScript declaration files mostly restate what code elsewhere defines.
const DECLARATIONS_PRIOR: f64 = 0.6;
/// The weight of the path-terms list.
const PATH_LIST_WEIGHT: f64 = 0.5;
/// Files kept from each evidence list.
const LIST_DEPTH: usize = 200;

/// One file's score and where it came from.
#[derive(Clone, Debug, Default)]
pub(crate) struct FileEvidence {
    /// Fused score.
    pub score: f64,
    /// Reasons, for `--explain`.
    pub reasons: Vec<String>,
    /// Lines found by messages or templates (1-based).
    pub message_lines: Vec<u32>,
    /// Symbols named by the query that the file defines (ordinals).
    pub named_symbols: Vec<u32>,
}

/// Whole-file BM25 of the view's files for `groups`, best first.
pub(crate) fn whole_file_bm25(
    ctx: &SearchContext<'_>,
    groups: &[TermGroup],
    allowed: &RoaringBitmap,
) -> Result<Vec<(u32, f64)>, QueryError> {
    let f = ctx.fulltext.fields();
    let mut lengths: HashMap<u32, u32> = HashMap::new();
    // Per file: (group, term frequency in the content, in the path).
    let mut frequencies: HashMap<u32, Vec<(u16, f32, f32)>> = HashMap::new();
    let snippet_kind = Term::from_field_u64(f.kind, DocKind::Snippet as u64);
    for reader in ctx.searcher.segment_readers() {
        let columns = ctx.columns.of(reader)?;
        let fvs = columns.file_versions();
        let norms = reader.get_fieldnorms_reader(f.body)?;
        let alive = reader.alive_bitset();
        // Where the last lookup ended: each posting list below reads documents in increasing
        // order from its start.
        let mut at = 0;
        let mut fv_of = |doc: u32| -> Option<u32> {
            if alive.is_some_and(|a| !a.is_alive(doc)) {
                return None;
            }
            let fv = fvs.get_at(doc, &mut at)?;
            allowed.contains(fv).then_some(fv)
        };
        // Lengths: the sum of a file's snippet lengths is its length in tokens.
        if let Some(mut postings) = reader
            .inverted_index(f.kind)?
            .read_postings(&snippet_kind, IndexRecordOption::Basic)
            .map_err(tantivy::TantivyError::from)?
        {
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if let Some(fv) = fv_of(doc) {
                    *lengths.entry(fv).or_default() += norms.fieldnorm(doc);
                }
                doc = postings.advance();
            }
        }
        for (group, g) in groups.iter().enumerate() {
            for text in &g.terms {
                for (field, in_path) in [(f.body, false), (f.path, true)] {
                    let term = Term::from_field_text(field, text);
                    let Some(mut postings) = reader
                        .inverted_index(field)?
                        .read_postings(&term, IndexRecordOption::WithFreqs)
                        .map_err(tantivy::TantivyError::from)?
                    else {
                        continue;
                    };
                    let mut doc = postings.doc();
                    while doc != TERMINATED {
                        if let Some(fv) = fv_of(doc) {
                            let tf = postings.term_freq() as f32;
                            let entries = frequencies.entry(fv).or_default();
                            let index = match entries.iter().position(|e| e.0 == group as u16) {
                                Some(i) => i,
                                None => {
                                    entries.push((group as u16, 0.0, 0.0));
                                    entries.len() - 1
                                }
                            };
                            if in_path {
                                entries[index].2 += tf;
                            } else {
                                entries[index].1 += tf;
                            }
                        }
                        doc = postings.advance();
                    }
                }
            }
        }
    }
    let files = lengths.len().max(1) as f64;
    let average = (lengths.values().map(|&l| f64::from(l)).sum::<f64>() / files).max(1.0);
    let mut document_frequency = vec![0u32; groups.len()];
    for entries in frequencies.values() {
        for e in entries {
            document_frequency[e.0 as usize] += 1;
        }
    }
    let idf: Vec<f64> = document_frequency
        .iter()
        .map(|&df| (1.0 + (files - f64::from(df) + 0.5).max(0.0) / (f64::from(df) + 0.5)).ln())
        .collect();
    let mut scores: Vec<(u32, f64)> = frequencies
        .into_iter()
        .map(|(fv, entries)| {
            let length = f64::from(lengths.get(&fv).copied().unwrap_or(0)) + 4.0;
            let norm = K1 * (1.0 - B + B * length / average);
            let score = entries
                .iter()
                .map(|&(g, tf, ptf)| {
                    let tf = f64::from(tf) + PATH_WEIGHT * f64::from(ptf);
                    f64::from(groups[g as usize].weight) * idf[g as usize] * tf * (K1 + 1.0) / (tf + norm)
                })
                .sum::<f64>();
            (fv, score)
        })
        .collect();
    scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(scores)
}

/// Files whose paths hold the query's terms (a directory, a file name, a part of one), best
/// first: each term weighs by its rarity among the view's paths. Commit subjects and issue
/// titles often name their component this way (`ignore/types: add Kconfig`).
fn path_files(ctx: &SearchContext<'_>, groups: &[TermGroup], allowed: &RoaringBitmap) -> Result<Vec<u32>, QueryError> {
    let mut term_group: HashMap<&str, usize> = HashMap::new();
    for (i, g) in groups.iter().enumerate() {
        for t in &g.terms {
            term_group.entry(t.as_str()).or_insert(i);
        }
    }
    let mut matched: Vec<(u32, Vec<usize>)> = Vec::new();
    let mut files = 0usize;
    ctx.store.for_each_path_in(allowed, |id, path| {
        files += 1;
        let path = String::from_utf8_lossy(path);
        let mut hit: Vec<usize> = crate::index::tokenizer::path_tokens(&path)
            .iter()
            .filter_map(|t| term_group.get(t.text.as_str()).copied())
            .collect();
        hit.sort_unstable();
        hit.dedup();
        if !hit.is_empty() {
            matched.push((id, hit));
        }
    })?;
    let mut frequency = vec![0usize; groups.len()];
    for (_, hit) in &matched {
        for &g in hit {
            frequency[g] += 1;
        }
    }
    let files = files.max(1) as f64;
    let mut scored: Vec<(f64, u32)> = matched
        .into_iter()
        .map(|(id, hit)| {
            let score = hit
                .iter()
                .map(|&g| f64::from(groups[g].weight) * (files / frequency[g] as f64).ln().max(0.0))
                .sum::<f64>();
            (score, id)
        })
        .filter(|&(score, _)| score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(scored.into_iter().take(LIST_DEPTH).map(|(_, id)| id).collect())
}

/// Files whose symbols' names hold the query's terms, best first.
fn symbol_files(
    ctx: &SearchContext<'_>,
    groups: &[TermGroup],
    allowed: &Arc<RoaringBitmap>,
) -> Result<Vec<u32>, QueryError> {
    let f = ctx.fulltext.fields();
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for g in groups {
        for t in &g.terms {
            for (field, boost) in [(f.name, 2.0), (f.qualified, 1.0)] {
                let q = TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs);
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost * g.weight))));
            }
        }
    }
    if clauses.is_empty() {
        return Ok(Vec::new());
    }
    let query = BooleanQuery::new(vec![
        (Occur::Must, Box::new(BooleanQuery::new(clauses)) as Box<dyn Query>),
        (Occur::Must, super::recall::kind_filter(f, DocKind::Symbol)),
    ]);
    let hits = ctx
        .search(&query, &TopInView { bitmap: allowed.clone(), limit: LIST_DEPTH * 2, columns: ctx.columns.clone() })?;
    let mut seen = HashSet::new();
    Ok(hits.iter().filter(|h| seen.insert(h.fv)).map(|h| h.fv).collect())
}

/// The symbols defining the identifiers and frame functions the text names, in the order
/// found (keys only: [`super::details::named_rows`] reads the ones wanted).
pub(crate) fn named_definitions(
    ctx: &SearchContext<'_>,
    clues: &Clues,
    allowed: &RoaringBitmap,
) -> Result<Vec<crate::store::NamedSymbol>, QueryError> {
    let mut names: Vec<String> = Vec::new();
    for frame in clues.frames.iter().rev() {
        if let Some(function) = &frame.function {
            names.push(function.clone());
        }
    }
    names.extend(clues.identifiers.iter().cloned());
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for name in names.iter().take(32) {
        let last = name.rsplit(['.', ':', '#', '\\', '/', '>']).next().unwrap_or(name);
        if last.len() < 3 || !seen.insert(last.to_owned()) {
            continue;
        }
        out.extend(super::details::current_named(ctx.store, last, allowed, ctx.max_file_size)?);
    }
    Ok(out)
}

/// Files the text names: a path matches when it ends with the named path at a segment
/// boundary (absolute paths from a traceback match by their longest repository suffix).
pub(crate) fn named_files(
    ctx: &SearchContext<'_>,
    clues: &Clues,
    allowed: &RoaringBitmap,
) -> Result<Vec<u32>, QueryError> {
    let mut wanted: Vec<String> = Vec::new();
    for frame in clues.frames.iter().rev() {
        if let Some(p) = &frame.path {
            wanted.push(p.clone());
        }
    }
    wanted.extend(clues.paths.iter().map(|p| p.path.clone()));
    let wanted: Vec<String> = wanted
        .iter()
        .map(|p| p.replace('\\', "/").trim_start_matches("./").to_lowercase())
        .filter(|p| !p.is_empty())
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    // Best (longest) match per wanted path, by segments shared at the end.
    let mut best: Vec<Vec<(usize, u32)>> = vec![Vec::new(); wanted.len()];
    ctx.store.for_each_path_in(allowed, |id, path| {
        let path = String::from_utf8_lossy(path).to_lowercase();
        for (i, w) in wanted.iter().enumerate() {
            let shared = path.rsplit('/').zip(w.rsplit('/')).take_while(|(a, b)| a == b).count();
            if shared > 0 {
                best[i].push((shared, id));
            }
        }
    })?;
    let mut out = Vec::new();
    for mut candidates in best {
        candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let Some(&(top, _)) = candidates.first() else { continue };
        // Every file sharing the longest suffix (a bare `mod.rs` names several).
        for (shared, id) in candidates.into_iter().take_while(|c| c.0 == top).take(5) {
            let _ = shared;
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    Ok(out)
}

/// Ranks files for the query (`search --files`).
pub(crate) fn ranked_files(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    query: &str,
    allowed: &Arc<RoaringBitmap>,
    deadline: Instant,
) -> Result<SearchOutput, QueryError> {
    let clues = super::clues::extract(query);
    let mut groups = super::words::groups(&clues);
    let f = ctx.fulltext.fields();
    let dropped = super::words::keep_rarest(&mut groups, super::words::MAX_GROUPS, |t| {
        ctx.searcher.doc_freq(&Term::from_field_text(f.body, t)).unwrap_or(0)
    });
    let mut lists: Vec<(&'static str, f64, Vec<u32>)> = Vec::new();
    let bm25 = whole_file_bm25(ctx, &groups, allowed)?;
    let bm25_scores: HashMap<u32, f64> = bm25.iter().copied().collect();
    lists.push(("whole-file BM25", 1.0, bm25.iter().take(LIST_DEPTH).map(|&(fv, _)| fv).collect()));
    lists.push(("symbol names", 0.6, symbol_files(ctx, &groups, allowed)?));
    lists.push(("path terms", PATH_LIST_WEIGHT, path_files(ctx, &groups, allowed)?));
    let definitions = named_definitions(ctx, &clues, allowed)?;
    let mut defining: Vec<u32> = Vec::new();
    for key in &definitions {
        if !defining.contains(&key.fv) {
            defining.push(key.fv);
        }
    }
    lists.push(("defines a name in the text", 1.2, defining));
    lists.push(("named in the text", 1.5, named_files(ctx, &clues, allowed)?));
    let message_hits = super::messages::find(ctx, &clues.messages, allowed, deadline)?;
    let mut message_files: Vec<u32> = Vec::new();
    for hit in &message_hits {
        if !message_files.contains(&hit.fv) {
            message_files.push(hit.fv);
        }
    }
    lists.push(("holds a message of the text", 1.5, message_files));
    // Options are exact strings where they are defined (`"--failed-first"`, `cache.dir`).
    let mut option_hits = Vec::new();
    for option in clues.options.iter().filter(|o| o.len() >= 4).take(6) {
        option_hits.extend(super::messages::literal(ctx, option, allowed, deadline)?);
    }
    let mut option_files: Vec<u32> = Vec::new();
    for hit in &option_hits {
        if !option_files.contains(&hit.fv) {
            option_files.push(hit.fv);
        }
    }
    lists.push(("holds an option the text names", 0.8, option_files));

    let mut evidence: HashMap<u32, FileEvidence> = HashMap::new();
    for (name, weight, list) in &lists {
        for (rank, &fv) in list.iter().enumerate() {
            let e = evidence.entry(fv).or_default();
            e.score += weight / (RRF_K + rank as f64 + 1.0);
            if request.explain != Explain::Off {
                e.reasons.push(format!("{name}: rank {}", rank + 1));
            }
        }
    }
    for key in &definitions {
        if let Some(e) = evidence.get_mut(&key.fv) {
            e.named_symbols.push(key.ord);
        }
    }
    for hit in message_hits.iter().chain(&option_hits) {
        if let Some(e) = evidence.get_mut(&hit.fv) {
            e.message_lines.push(hit.line);
        }
    }

    // Priors: tests, vendored code, docs and examples down; files that are not code down.
    let mut details = Details::new(ctx.store, ctx.max_file_size);
    let up = super::rank::ctx_config(ctx, "codecompass.rankUp");
    let down = super::rank::ctx_config(ctx, "codecompass.rankDown");
    let mut ranked: Vec<(u32, FileEvidence, String)> = Vec::with_capacity(evidence.len());
    for (fv, mut e) in evidence {
        let Some(info) = details.info(fv)? else { continue };
        let path = info.path_str();
        let mut prior = 1.0;
        if path_class(&path, &up, &down) == 1 {
            prior *= 0.5;
            if request.explain != Explain::Off {
                e.reasons.push("prior: tests, vendored, docs or examples x0.5".into());
            }
        }
        if !super::rank::is_code_language(&info.lang) {
            prior *= NOT_CODE_PRIOR;
            if request.explain != Explain::Off {
                e.reasons.push(format!("prior: not code x{NOT_CODE_PRIOR}"));
            }
        } else if path.ends_with(".d.ts") {
            prior *= DECLARATIONS_PRIOR;
            if request.explain != Explain::Off {
                e.reasons.push(format!("prior: type declarations x{DECLARATIONS_PRIOR}"));
            }
        }
        e.score *= prior;
        ranked.push((fv, e, path));
    }
    ranked.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then_with(|| a.2.cmp(&b.2)));
    let total = ranked.len();
    let mut results = Vec::new();
    let mut contents = super::contents::Contents::default();
    for (fv, e, path) in ranked.into_iter().take(request.limit) {
        let Some(info) = details.info(fv)?.cloned() else { continue };
        let symbols = details.all_symbols(fv)?;
        results.push(shape_file(ctx, request, &groups, &info, &symbols, &e, bm25_scores.get(&fv), &mut contents, path));
    }
    let mut output = SearchOutput::empty("files");
    output.truncated = total > results.len();
    output.total_candidates = total;
    output.results = results;
    output.safety_limit_applied = Instant::now() > deadline;
    if request.explain != Explain::Off {
        output.clues = Some(super::ClueReport::of(&clues, &groups, &dropped));
    }
    if !dropped.is_empty() {
        output.notes.push(format!(
            "the text has more than {} distinct terms; the {} most common were left out",
            super::words::MAX_GROUPS,
            dropped.len()
        ));
    }
    if let Some(budget) = request.max_tokens {
        super::budget::fit_budget(&mut output, budget);
    }
    Ok(output)
}

/// A line of a file result: its score, index and the byte ranges of the terms it holds.
type ScoredLine = (f64, usize, Vec<(usize, usize)>);

/// A file as a result: the best lines (by the query terms' rarity) and the matching symbols.
#[allow(clippy::too_many_arguments)]
fn shape_file(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    groups: &[TermGroup],
    info: &crate::store::FileInfo,
    symbols: &[crate::store::SymbolRow],
    evidence: &FileEvidence,
    bm25: Option<&f64>,
    contents: &mut super::contents::Contents,
    path: String,
) -> SearchResult {
    // A term's worth: rare and strong terms more (weights already hold the source).
    let worth: HashMap<&str, f64> =
        groups.iter().flat_map(|g| g.terms.iter().map(move |t| (t.as_str(), f64::from(g.weight)))).collect();
    let score_text = |text: &str| -> (f64, Vec<(usize, usize)>) {
        let mut seen = HashSet::new();
        let mut score = 0.0;
        let mut ranges = Vec::new();
        for t in code_tokens(text) {
            if let Some(&w) = worth.get(t.text.as_str()) {
                ranges.push((t.offset_from, t.offset_to));
                if seen.insert(t.text) {
                    score += w;
                }
            }
        }
        (score, ranges)
    };
    let mut result = SearchResult {
        path,
        line_start: 1,
        line_end: 1,
        kind: "file".to_owned(),
        name: None,
        language: (!info.lang.is_empty() && !request.compact).then(|| info.lang.clone()),
        score: Some((evidence.score * 1e4).round() / 1e4),
        ..SearchResult::default()
    };
    result.name = Some(result.path.rsplit('/').next().unwrap_or(&result.path).to_owned());
    // Symbols: the ones the text names, then the ones whose names hold the most terms.
    let mut matched: Vec<(f64, &crate::store::SymbolRow)> = symbols
        .iter()
        .filter(|s| !matches!(s.kind.as_str(), "field" | "enum_member" | "variable"))
        .filter_map(|s| {
            let named = evidence.named_symbols.contains(&s.ord);
            let (score, _) = score_text(&s.qualified_name);
            (named || score > 0.0).then_some((score + if named { 100.0 } else { 0.0 }, s))
        })
        .collect();
    matched.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.line_start.cmp(&b.1.line_start)));
    result.symbols = matched
        .iter()
        .take(if request.compact { 3 } else { 8 })
        .map(|(_, s)| super::MatchedSymbol {
            name: s.qualified_name.clone(),
            kind: s.kind.clone(),
            line_start: s.line_start,
            line_end: s.line_end,
        })
        .collect();
    // Best lines: message lines first, then the lines richest in query terms.
    if let Some(content) = contents.get(ctx, info) {
        let text = String::from_utf8_lossy(content.bytes());
        let mut scored: Vec<ScoredLine> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.len() > 1000 {
                continue;
            }
            let (mut score, ranges) = score_text(line);
            if evidence.message_lines.contains(&(index as u32 + 1)) {
                score += 100.0;
            }
            if score > 0.0 {
                scored.push((score, index, ranges));
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let lines: Vec<&str> = text.lines().collect();
        for (_, index, ranges) in scored.into_iter().take(if request.compact { 1 } else { 3 }) {
            let line = lines[index];
            result.lines.push(LineHit {
                line: index as u32 + 1,
                column: ranges.first().map_or(1, |r| r.0 as u32 + 1),
                text: line.chars().take(500).collect(),
                ranges,
                before: Vec::new(),
                after: Vec::new(),
            });
        }
        if let Some(first) = result.lines.first() {
            result.line_start = first.line;
            result.line_end = first.line;
        }
    }
    if request.explain != Explain::Off {
        result.ranking_reasons = evidence.reasons.clone();
        if let Some(s) = bm25 {
            result.ranking_reasons.push(format!("whole-file BM25 {s:.3}"));
        }
        result.ranking_reasons.push(format!("fused score {:.4}", evidence.score));
    }
    if request.compact {
        result.score = None;
    }
    result
}
