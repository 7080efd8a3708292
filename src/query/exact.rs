//! Exact search over one view: the trigram index picks candidate files, the real regex
//! verifies every line. Files without trigram documents (too large, not UTF-8) are always
//! verified; binaries never are, as `git grep -I` skips them: by content (a NUL in the first
//! 8000 bytes) or by attributes (`-diff`, `binary`, a diff driver configured `binary`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use roaring::RoaringBitmap;

use super::grep::{LineMatch, Matcher};
use super::prefilter::Prefilter;
use super::{LineHit, LineSink, QueryError, SearchContext, SearchOutput, SearchRequest, SearchResult, budget, grep};
use crate::git::{BinaryAttributes, DiffAttribute};
use crate::index::ViewFileVersions;
use crate::store::FileInfo;

/// Files are verified in path order, in chunks of this many, so a limit stops early and
/// the first results are always the same ones.
const CHUNK: usize = 256;

/// The outcome of an exact search.
pub struct ExactOutcome {
    /// Matching files in path order, each with its matching lines.
    pub files: Vec<(FileInfo, Vec<LineMatch>)>,
    /// Whether the trigram index narrowed the candidates.
    pub prefiltered: bool,
    /// Candidate files verified.
    pub files_scanned: u64,
    /// Whether the limit cut the results.
    pub truncated: bool,
    /// Whether the deadline stopped the search.
    pub timed_out: bool,
    /// Files whose content could not be read.
    pub unreadable: u64,
    /// With [`ExactOptions::unmatched`]: the files read that have no match, in path order.
    pub unmatched: Vec<FileInfo>,
}

/// What an exact search collects.
pub struct ExactOptions {
    /// At most this many lines in all.
    pub limit: usize,
    /// At most this many lines per file.
    pub max_count: Option<usize>,
    /// Read every file and collect those without a match (`git grep -L`).
    pub unmatched: bool,
}

/// What reading one candidate file found.
enum Verified {
    /// Not read: a binary, or the search was stopping.
    NotRead,
    /// The content could not be read.
    Unreadable,
    /// Its matching lines (none: no match).
    Lines(Vec<LineMatch>),
}

/// The files of `allowed` (the view, after filters) that can hold a match of `prefilter`, in
/// path order, and whether the trigram index narrowed them (no prefilter, or one that any
/// text passes, gives every file). Files without trigram documents (too large, not UTF-8) are
/// always candidates; symlinks never are (`git grep` searches neither their text nor what
/// they point at), nor files the view's attributes make binary.
pub fn candidates(
    ctx: &SearchContext<'_>,
    prefilter: Option<&Prefilter>,
    allowed: &Arc<RoaringBitmap>,
) -> Result<(Vec<FileInfo>, bool), QueryError> {
    // What the store's trigram terms can answer.
    let prefilter = prefilter.map(|p| p.within(ctx.store.trigram_windows())).filter(|p| !p.is_any());
    let candidates = match &prefilter {
        Some(p) => ids_holding(ctx, p, allowed)?,
        None => (**allowed).clone(),
    };
    let mut infos = ctx.store.file_infos_in(&candidates)?;
    infos.retain(|f| f.mode != 2);
    if let Some(mut rules) = binary_attributes(ctx)? {
        infos.retain(|f| rules.diff(&f.path) != DiffAttribute::Binary);
    }
    infos.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((infos, prefilter.is_some()))
}

/// The attribute rules of the view that can make a file binary, read from its own
/// `.gitattributes` files (found by the path index) and git's global ones; `None` when no
/// rule can (see [`crate::git::BinaryAttributes`]). A `.gitattributes` that cannot be read
/// counts as empty, as git counts a missing one.
fn binary_attributes(ctx: &SearchContext<'_>) -> Result<Option<BinaryAttributes>, QueryError> {
    let Some(local) = ctx.content.local() else { return Ok(None) };
    let term = tantivy::Term::from_field_text(ctx.fulltext.fields().path, ATTRIBUTES_FILE);
    let query = tantivy::query::TermQuery::new(term, tantivy::schema::IndexRecordOption::Basic);
    let found = ctx.search(
        &query,
        &ViewFileVersions { bitmap: Arc::new(ctx.view.bitmap.clone()), columns: ctx.columns.clone() },
    )?;
    let mut files = Vec::new();
    for info in ctx.store.file_infos_in(&found)? {
        let name = info.path.rsplit(|&b| b == b'/').next().unwrap_or_default();
        // git reads no `.gitattributes` through a symlink.
        if name != ATTRIBUTES_FILE.as_bytes() || info.mode == 2 {
            continue;
        }
        let text = ctx.content.read(Some(&local), &info).unwrap_or_default();
        files.push((info.path, text));
    }
    Ok(local.binary_attributes(&files))
}

/// The in-tree attributes file.
const ATTRIBUTES_FILE: &str = ".gitattributes";

/// The ids of the file versions of `allowed` that can hold a match of `prefilter`: those the
/// trigram index finds it in, and those without trigram documents. Binaries have file
/// documents without trigrams and are not in the scan set; with no prefilter they are still
/// candidates and are dropped when read.
pub fn candidate_ids(
    ctx: &SearchContext<'_>,
    prefilter: &Prefilter,
    allowed: &Arc<RoaringBitmap>,
) -> Result<RoaringBitmap, QueryError> {
    let prefilter = prefilter.within(ctx.store.trigram_windows());
    if prefilter.is_any() {
        return Ok((**allowed).clone());
    }
    ids_holding(ctx, &prefilter, allowed)
}

/// [`candidate_ids`] of a prefilter already within the store's trigram terms, not `Any`.
fn ids_holding(
    ctx: &SearchContext<'_>,
    prefilter: &Prefilter,
    allowed: &Arc<RoaringBitmap>,
) -> Result<RoaringBitmap, QueryError> {
    let query = prefilter.query(ctx.fulltext.fields().trigrams);
    let found = ctx.search(&*query, &ViewFileVersions { bitmap: allowed.clone(), columns: ctx.columns.clone() })?;
    Ok((found | (&ctx.view.scan_bitmap & &**allowed)) & &**allowed)
}

/// Runs `matcher` over the files of `allowed` (the view, after filters).
pub fn search(
    ctx: &SearchContext<'_>,
    matcher: &Matcher,
    allowed: &Arc<RoaringBitmap>,
    options: &ExactOptions,
    deadline: Instant,
    mut on_file: Option<&mut dyn FnMut(FileInfo, Vec<LineMatch>)>,
) -> Result<ExactOutcome, QueryError> {
    let limit = options.limit;
    let per_file = options.max_count.unwrap_or(usize::MAX).min(limit.saturating_add(1));
    // Files without a match are known only by reading every file.
    let prefilter = Some(matcher.prefilter()).filter(|_| !options.unmatched);
    let (infos, prefiltered) = candidates(ctx, prefilter, allowed)?;

    let mut outcome = ExactOutcome {
        files: Vec::new(),
        prefiltered,
        files_scanned: 0,
        truncated: false,
        timed_out: false,
        unreadable: 0,
        unmatched: Vec::new(),
    };
    let mut total = 0usize;
    let mut kept = 0usize;
    let stop = AtomicBool::new(false);
    for chunk in infos.chunks(CHUNK) {
        if Instant::now() > deadline {
            outcome.timed_out = true;
            break;
        }
        let results: Vec<(usize, Verified)> = chunk
            .par_iter()
            .enumerate()
            .map_init(
                || ctx.content.local(),
                |local, (i, info)| {
                    if stop.load(Ordering::Relaxed) || Instant::now() > deadline {
                        return (i, Verified::NotRead);
                    }
                    let Some(data) = ctx.content.read(local.as_ref(), info) else {
                        return (i, Verified::Unreadable);
                    };
                    // Skipped as `git grep -I` skips it: neither with nor without a match.
                    if crate::indexer::is_binary(&data) {
                        return (i, Verified::NotRead);
                    }
                    if !matcher.is_match(&data) {
                        return (i, Verified::Lines(Vec::new()));
                    }
                    (i, Verified::Lines(matcher.lines(&data, per_file)))
                },
            )
            .collect();
        outcome.files_scanned += chunk.len() as u64;
        for (i, verified) in results {
            match verified {
                Verified::Unreadable => outcome.unreadable += 1,
                Verified::Lines(lines) if lines.is_empty() => {
                    if options.unmatched {
                        outcome.unmatched.push(chunk[i].clone());
                    }
                }
                Verified::Lines(mut lines) => {
                    total += lines.len();
                    // Exactly `limit` lines, in path then line order; with `on_file`, handed
                    // on as each file is done instead of kept.
                    if kept == limit {
                        outcome.truncated = true;
                        continue;
                    }
                    if kept + lines.len() > limit {
                        lines.truncate(limit - kept);
                        outcome.truncated = true;
                    }
                    kept += lines.len();
                    match on_file.as_mut() {
                        Some(f) => f(chunk[i].clone(), lines),
                        None => outcome.files.push((chunk[i].clone(), lines)),
                    }
                }
                Verified::NotRead => {}
            }
        }
        if options.unmatched && outcome.unmatched.len() > limit {
            outcome.unmatched.truncate(limit);
            outcome.truncated = true;
            stop.store(true, Ordering::Relaxed);
            break;
        }
        if total > limit && !options.unmatched {
            stop.store(true, Ordering::Relaxed);
            break;
        }
    }
    if Instant::now() > deadline {
        outcome.timed_out = true;
    }
    if total > limit {
        outcome.truncated = true;
    }
    Ok(outcome)
}

/// Exact modes match case like `git grep`: exactly, unless `--ignore-case`, or `--smart-case`
/// and no pattern has an upper-case letter.
fn ignore_case(request: &SearchRequest) -> bool {
    if request.case_sensitive {
        return false;
    }
    let lower = |p: &str| !p.chars().any(char::is_uppercase);
    request.ignore_case
        || request.grep.smart_case && lower(&request.query) && request.grep.patterns.iter().all(|p| lower(p))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    pattern: &str,
    literal: bool,
    allowed: &Arc<RoaringBitmap>,
    deadline: Instant,
    mode: &'static str,
    sink: Option<LineSink<'_>>,
) -> Result<SearchOutput, QueryError> {
    let mut patterns = vec![pattern];
    patterns.extend(request.grep.patterns.iter().map(String::as_str));
    let mut matcher = Matcher::any_of(&patterns, literal, ignore_case(request))?;
    if request.grep.word {
        matcher = matcher.words_only();
    }
    let options = ExactOptions {
        limit: if request.grep.all_lines { usize::MAX } else { request.limit },
        max_count: request.grep.max_count,
        unmatched: request.grep.files_without_match,
    };
    let local = ctx.content.local();
    let (before_n, after_n) =
        (request.grep.before.unwrap_or(request.context), request.grep.after.unwrap_or(request.context));
    // One file's lines as results, with their context.
    let to_results = |info: &FileInfo, lines: Vec<grep::LineMatch>| -> Vec<SearchResult> {
        let content = if before_n + after_n > 0 { ctx.content.read(local.as_ref(), info) } else { None };
        // The lines of the file: a final line end ends the last line, it does not start another.
        let all_lines: Vec<&[u8]> = content
            .as_deref()
            .map(|c| c.strip_suffix(b"\n").unwrap_or(c).split(|&b| b == b'\n').collect())
            .unwrap_or_default();
        let language = (!info.lang.is_empty()).then(|| info.lang.clone());
        let around = |from: usize, to: usize| -> Vec<String> {
            (from..to)
                .filter_map(|i| all_lines.get(i))
                .map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
                .collect()
        };
        lines
            .into_iter()
            .map(|m| {
                let index = m.line as usize - 1;
                let before = if before_n > 0 { around(index.saturating_sub(before_n), index) } else { Vec::new() };
                let after = if after_n > 0 { around(index + 1, index + 1 + after_n) } else { Vec::new() };
                SearchResult {
                    path: info.path_str(),
                    line_start: m.line,
                    line_end: m.line,
                    kind: "line".to_owned(),
                    language: if request.compact { None } else { language.clone() },
                    lines: vec![LineHit {
                        line: m.line,
                        column: m.column,
                        text: m.text,
                        ranges: m.ranges,
                        before,
                        after,
                    }],
                    ..SearchResult::default()
                }
            })
            .collect()
    };
    let mut results = Vec::new();
    let mut total = 0usize;
    let streaming = request.max_tokens.is_none() && !request.grep.files_without_match;
    let streamed_any = streaming && sink.is_some();
    let outcome = match sink.filter(|_| streaming) {
        Some(sink) => {
            let mut on_file = |info: FileInfo, lines: Vec<grep::LineMatch>| {
                total += lines.len();
                sink(to_results(&info, lines));
            };
            search(ctx, &matcher, allowed, &options, deadline, Some(&mut on_file))?
        }
        None => search(ctx, &matcher, allowed, &options, deadline, None)?,
    };
    // An error after lines were handed on (tests cut a streamed answer short here).
    if crate::failpoint::fails("search.after_lines") {
        return Err(QueryError::Invalid("failpoint search.after_lines".to_owned()));
    }
    if request.grep.files_without_match {
        for info in &outcome.unmatched {
            total += 1;
            results.push(SearchResult {
                path: info.path_str(),
                kind: "file".to_owned(),
                language: (!info.lang.is_empty() && !request.compact).then(|| info.lang.clone()),
                ..SearchResult::default()
            });
        }
    }
    for (info, lines) in outcome.files.into_iter().filter(|_| !request.grep.files_without_match) {
        total += lines.len();
        results.extend(to_results(&info, lines));
    }
    let mut output = SearchOutput {
        mode,
        intent: "",
        confidence: 1.0,
        total_candidates: total,
        streamed: streamed_any,
        total_is_lower_bound: outcome.truncated || outcome.timed_out,
        truncated: outcome.truncated,
        results,
        suppressed_duplicate_count: 0,
        safety_limit_applied: outcome.timed_out,
        prefilter: Some(if outcome.prefiltered { "trigram" } else { "none: every file of the view was scanned" }),
        files_scanned: Some(outcome.files_scanned),
        unreadable_files: (outcome.unreadable > 0).then_some(outcome.unreadable),
        estimated_tokens: None,
        suggestion: None,
        clues: None,
        notes: Vec::new(),
        fallback: None,
        word_stats: None,
    };
    if let Some(budget) = request.max_tokens {
        budget::fit_budget(&mut output, budget);
    }
    Ok(output)
}
