//! `search` and `context`: the engine side of the query pipeline (scope, view, readers).

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, ResolvedScope, metadata};
use crate::error::ErrorCode;
use crate::query::{
    self, ContentReader, Detail, Intent, Mode, QueryError, SearchContext, SearchOutput, SearchRequest, SearchResult,
};
use crate::store::{Store, ViewRow};
use crate::view::Scope;

impl From<QueryError> for Error {
    fn from(e: QueryError) -> Error {
        match e {
            QueryError::Store(s) => s.into(),
            QueryError::Pattern(p) => Error::new(ErrorCode::InvalidArgument, p.to_string())
                .with_remedy("fix the pattern (Rust regex syntax), or search for a literal with --mode literal"),
            QueryError::Invalid(m) => Error::new(ErrorCode::InvalidArgument, m),
            QueryError::Tantivy(t) => {
                Error::new(ErrorCode::IndexIncompatible, format!("the full-text index cannot be read: {t}"))
                    .with_remedy("run `git codecompass index --force` to rebuild it")
            }
        }
    }
}

/// Files whose symbols lead the context of a question.
const FILES_FOR_CONTEXT: usize = 6;
/// Symbols taken from each of those files.
const SYMBOLS_PER_FILE: usize = 3;

/// The answer of `search`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SearchResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The query.
    pub query: String,
    /// What was found.
    #[serde(flatten)]
    pub output: SearchOutput,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// How `context` spends its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Many results, each short.
    Breadth,
    /// Few results, each whole.
    Depth,
}

/// The answer of `context`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ContextResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The query.
    pub query: String,
    /// The budget.
    pub max_tokens: usize,
    /// Estimated tokens returned (never over the budget).
    pub estimated_tokens: usize,
    /// Results returned.
    pub returned: usize,
    /// Results considered.
    pub total_candidates: usize,
    /// Whether some did not fit.
    pub truncated: bool,
    /// The results, whole.
    pub results: Vec<query::SearchResult>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// Runs `f` on the view of `scope` with what a search reads (store, full text, contents),
/// and touches the view.
pub(super) fn in_view<T>(
    engine: &Engine,
    scope: &Scope,
    freshness: Freshness,
    f: impl FnOnce(&SearchContext<'_>) -> Result<T, Error>,
) -> Result<(T, ResolvedScope), Error> {
    engine.open_fulltext_meanwhile();
    let (store, resolved) = engine.resolve(scope, freshness)?;
    let answer = with_context(engine, &store, &resolved.view, f)?;
    store.touch_view(resolved.view.id);
    super::across::release(store);
    Ok((answer, resolved))
}

/// [`in_view`] for an `f` that may run twice: early, on the working tree's view as last
/// published while the walk checks it (told so), and again when that view was not the one
/// resolved (see [`Engine::resolve_answering`]).
fn in_view_answering<T>(
    engine: &Engine,
    scope: &Scope,
    freshness: Freshness,
    mut f: impl FnMut(&SearchContext<'_>, bool) -> Result<T, Error>,
) -> Result<(T, ResolvedScope), Error> {
    engine.open_fulltext_meanwhile();
    let (store, resolved, answer) = engine.resolve_answering(scope, freshness, |store, view, early| {
        with_context(engine, store, view, |ctx| f(ctx, early))
    })?;
    store.touch_view(resolved.view.id);
    super::across::release(store);
    Ok((answer, resolved))
}

/// Runs `f` on `view` with what a search reads, its store reads in one snapshot.
fn with_context<T>(
    engine: &Engine,
    store: &Store,
    view: &ViewRow,
    f: impl FnOnce(&SearchContext<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let (fulltext, searcher) = engine.fulltext()?;
    let content = ContentReader {
        git: engine.workspace().git(),
        store_dir: engine.workspace().store_dir(),
        root: engine.workspace().root(),
    };
    let ctx = SearchContext {
        store,
        fulltext,
        searcher: &searcher,
        view,
        content: &content,
        max_file_size: engine.workspace().max_file_size(),
        columns: crate::index::Columns::at(fulltext.dir()),
        segment_threads: segment_threads(),
    };
    let _read = store.read_snapshot()?;
    f(&ctx)
}

/// At most this many threads collect one search's segments.
const MAX_SEGMENT_THREADS: usize = 4;

/// Threads a search of several full-text segments collects them on: one per core, at most
/// [`MAX_SEGMENT_THREADS`]; one on the threads of a pool asking several repositories at
/// once, which keep the cores busy already (see [`super::across::helper_threads`]).
fn segment_threads() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    if !super::across::helper_threads() {
        return 1;
    }
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_SEGMENT_THREADS))
}

/// Results an early search holds back until its view is known to answer, at most; past
/// them it declines (it would hold a whole huge answer in memory) and the search runs again
/// once the view is resolved, printing as it goes.
const EARLY_HELD_RESULTS: usize = 10_000;

fn run_search(
    engine: &Engine,
    request: &SearchRequest,
    scope: &Scope,
    freshness: Freshness,
    mut sink: Option<query::LineSink<'_>>,
) -> Result<(SearchOutput, ResolvedScope), Error> {
    let ((output, held), resolved) = in_view_answering(engine, scope, freshness, |ctx, early| {
        if !early || sink.is_none() {
            let sink = sink.as_mut().map(|s| &mut **s as query::LineSink<'_>);
            return Ok((guarded(|| query::search_streaming(ctx, request, sink))?, Vec::new()));
        }
        // Lines found early are held, not printed: the view they come from may be stale.
        let (mut held, mut count, mut over) = (Vec::new(), 0, false);
        let mut hold = |batch: Vec<query::SearchResult>| {
            count += batch.len();
            over |= count > EARLY_HELD_RESULTS;
            if !over {
                held.push(batch);
            }
        };
        let output = guarded(|| query::search_streaming(ctx, request, Some(&mut hold)))?;
        if over {
            return Err(Error::new(ErrorCode::Internal, "too many lines to hold back"));
        }
        Ok((output, held))
    })?;
    if let Some(sink) = sink {
        for batch in held {
            sink(batch);
        }
    }
    Ok((output, resolved))
}

/// `search`, with a panic deep in the full-text engine's decoders (damaged files) made the
/// answer it is: damaged, with its remedy; never a crash.
fn guarded(search: impl FnOnce() -> Result<SearchOutput, query::QueryError>) -> Result<SearchOutput, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(search))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Error::new(ErrorCode::IndexIncompatible, format!("the full-text index is damaged: {what}"))
                .with_remedy("run `git codecompass index --force` to rebuild it")
        })?
        .map_err(Error::from)
}

fn metadata_of(resolved: &ResolvedScope, output: &SearchOutput) -> Metadata {
    let completeness = if output.safety_limit_applied || output.unreadable_files.is_some() {
        "partial"
    } else if output.truncated {
        "truncated"
    } else {
        "complete"
    };
    let mut m = metadata(resolved, completeness);
    m.suppressed_duplicate_count = output.suppressed_duplicate_count;
    m.safety_limit_applied = output.safety_limit_applied;
    m.fallback = output.fallback.clone();
    m.notes.extend(output.notes.iter().cloned());
    m
}

pub(super) fn search(
    engine: &Engine,
    request: &SearchRequest,
    scope: &Scope,
    freshness: Freshness,
    sink: Option<query::LineSink<'_>>,
) -> Result<SearchResponse, Error> {
    let (output, resolved) = run_search(engine, request, scope, freshness, sink)?;
    Ok(SearchResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        query: request.query.clone(),
        metadata: metadata_of(&resolved, &output),
        output,
    })
}

pub(super) fn context(
    engine: &Engine,
    request: &SearchRequest,
    strategy: Strategy,
    scope: &Scope,
    freshness: Freshness,
) -> Result<ContextResponse, Error> {
    let budget =
        request.max_tokens.ok_or_else(|| Error::new(ErrorCode::InvalidArgument, "context needs --max-tokens"))?;
    let mut request = request.clone();
    request.detail = Detail::Context;
    request.limit = match strategy {
        Strategy::Breadth => request.limit.max(30),
        Strategy::Depth => request.limit.clamp(1, 8),
    };
    let (mut output, resolved) = run_search(engine, &request, scope, freshness, None)?;
    let lines_per_result = if strategy == Strategy::Depth { 200 } else { 6 };
    if request.mode == Mode::Auto && query::intent::classify(&request.query).intent == Intent::NaturalLanguage {
        // A question: the relevant symbols of the files that answer it lead.
        let file_request = SearchRequest {
            files: true,
            limit: FILES_FOR_CONTEXT,
            detail: Detail::Signature,
            max_tokens: None,
            ..request.clone()
        };
        let (files, _) = run_search(engine, &file_request, scope, freshness, None)?;
        let mut lead: Vec<SearchResult> = Vec::new();
        for (rank, file) in files.results.iter().enumerate() {
            let reason = format!("a symbol of the file ranked {} for the question", rank + 1);
            for s in file.symbols.iter().take(SYMBOLS_PER_FILE) {
                lead.push(SearchResult {
                    path: file.path.clone(),
                    line_start: s.line_start,
                    line_end: s.line_end,
                    kind: s.kind.clone(),
                    name: Some(s.name.rsplit(['.', ':']).next().unwrap_or(&s.name).to_owned()),
                    qualified_name: Some(s.name.clone()),
                    language: file.language.clone(),
                    ranking_reasons: vec![reason.clone()],
                    ..SearchResult::default()
                });
            }
            if file.symbols.is_empty()
                && let Some(best) = file.lines.first()
            {
                lead.push(SearchResult {
                    path: file.path.clone(),
                    line_start: best.line.saturating_sub(3).max(1),
                    line_end: best.line + 3,
                    kind: "snippet".to_owned(),
                    language: file.language.clone(),
                    ranking_reasons: vec![reason.clone()],
                    ..SearchResult::default()
                });
            }
        }
        let overlaps = |a: &SearchResult, b: &SearchResult| {
            a.path == b.path && a.line_start <= b.line_end && b.line_start <= a.line_end
        };
        output.results.retain(|r| !lead.iter().any(|l| overlaps(l, r)));
        output.total_candidates += lead.len();
        lead.append(&mut output.results);
        output.results = lead;
    }
    // Previews: whole bodies (capped) for depth, the first lines for breadth.
    let local = engine.workspace().git().map(|g| g.local());
    let store = crate::store::Store::open(engine.workspace().store_dir(), false)?;
    let content = ContentReader {
        git: engine.workspace().git(),
        store_dir: engine.workspace().store_dir(),
        root: engine.workspace().root(),
    };
    let bitmap = &resolved.view.bitmap;
    for r in &mut output.results {
        if strategy == Strategy::Depth || r.preview.is_none() {
            if let Some(info) = super::outline::file_in_view(&store, bitmap, &r.path)?
                && let Some(data) = content.read(local.as_ref(), &info)
            {
                let text = String::from_utf8_lossy(&data);
                let from = r.line_start.saturating_sub(1) as usize;
                let to = (r.line_end as usize).min(from + lines_per_result).max(from + 1);
                r.preview = Some(text.lines().skip(from).take(to - from).collect::<Vec<_>>().join("\n"));
            }
        } else if let Some(p) = &mut r.preview {
            *p = p.lines().take(lines_per_result).collect::<Vec<_>>().join("\n");
        }
    }
    let total = output.total_candidates;
    crate::query::fit_budget(&mut output, budget);
    let truncated = output.truncated || total > output.results.len();
    Ok(ContextResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        query: request.query.clone(),
        max_tokens: budget,
        estimated_tokens: output.estimated_tokens.unwrap_or(0),
        returned: output.results.len(),
        total_candidates: total,
        truncated,
        metadata: metadata_of(&resolved, &output),
        results: output.results,
    })
}
