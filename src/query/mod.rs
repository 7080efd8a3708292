//! Search: parse the query, route it by intent, recall from symbol, snippet and file
//! documents restricted to one view, verify exactly where the mode is exact, fuse (RRF),
//! rerank deterministically, merge duplicates, then shape to the requested detail and budget.
//!
//! Architecture invariant: every document considered belongs to a file version of the one
//! view asked about (the collectors test the view's bitmap per document); exact modes never
//! answer from the index alone.

mod budget;
pub mod clues;
mod contents;
mod details;
mod exact;
mod files;
pub mod grep;
pub mod intent;
pub mod merit;
mod messages;
pub mod pathspec;
pub mod prefilter;
pub(crate) mod rank;
mod recall;
mod reg_newline;
mod words;

pub use exact::{candidate_ids, candidates as candidate_files};

use std::sync::Arc;
use std::time::{Duration, Instant};

use roaring::RoaringBitmap;
use serde::Serialize;

pub use budget::estimate_tokens;
pub(crate) use budget::fit_budget;
pub use contents::ContentReader;
pub(crate) use details::Details;
pub use grep::{LineMatch, Matcher, PatternError};
pub use intent::{Classified, Intent};

use crate::index::FullText;
use crate::store::{FileInfo, Store, StoreError, ViewRow};

/// What went wrong in a search.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The full-text index failed.
    #[error("full-text index error: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// The pattern is invalid or too large.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// An argument is invalid.
    #[error("{0}")]
    Invalid(String),
}

/// How to interpret the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Route by intent.
    Auto,
    /// Words: every term must match (a quoted phrase as a phrase).
    Fts,
    /// A Rust regex, line by line, exact.
    Regex,
    /// A definition by name.
    Symbol,
    /// A file by path.
    Path,
    /// An exact string, line by line.
    Literal,
}

impl Mode {
    /// The stable spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Fts => "fts",
            Mode::Regex => "regex",
            Mode::Symbol => "symbol",
            Mode::Path => "path",
            Mode::Literal => "literal",
        }
    }
}

/// How much to say per result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// Path, lines, kind, name.
    Location,
    /// Plus qualified name, signature, visibility.
    Signature,
    /// Plus a body preview, the parent and related symbols.
    Context,
}

/// Whether to explain the ranking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explain {
    /// No.
    Off,
    /// The deciding reasons.
    Basic,
    /// Every signal with its value.
    Full,
}

/// Which files may answer.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    /// Only these languages.
    pub langs: Vec<String>,
    /// Not these languages.
    pub exclude_langs: Vec<String>,
    /// Only paths matching one of these globs.
    pub paths: Vec<String>,
    /// Not paths matching any of these globs.
    pub excludes: Vec<String>,
    /// Only these extensions (without the dot).
    pub exts: Vec<String>,
    /// Git pathspecs, resolved against the root ([`pathspec::resolve`]): only paths some
    /// include matches (when one is given) and no exclude does.
    pub pathspecs: Vec<String>,
}

impl Filters {
    /// Whether nothing is filtered.
    pub fn is_empty(&self) -> bool {
        self.langs.is_empty()
            && self.exclude_langs.is_empty()
            && self.paths.is_empty()
            && self.excludes.is_empty()
            && self.exts.is_empty()
            && self.pathspecs.is_empty()
    }
}

/// A search question.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    /// The query text.
    pub query: String,
    /// How to interpret it.
    pub mode: Mode,
    /// At most this many results (line matches in exact modes).
    pub limit: usize,
    /// Lines of context around line matches.
    pub context: usize,
    /// How much per result.
    pub detail: Detail,
    /// Only the essential fields.
    pub compact: bool,
    /// Edit distance for fuzzy term matching (0 to 2).
    pub fuzzy: u8,
    /// Match case exactly (the default for regex, literal and symbol lookups is smart case).
    pub case_sensitive: bool,
    /// Ignore case (regex and literal).
    pub ignore_case: bool,
    /// Ranking explanations.
    pub explain: Explain,
    /// Fit whole results into this many estimated tokens.
    pub max_tokens: Option<usize>,
    /// File filters.
    pub filters: Filters,
    /// Stop verifying after this long.
    pub timeout: Duration,
    /// Rank files rather than symbols, snippets and lines (`--files`, `group_by: "file"`).
    pub files: bool,
    /// What `git grep`'s flags ask of exact search.
    pub grep: GrepOptions,
    /// Give each ranked result its [`merit::Merit`], and the answer its words' statistics, for
    /// a ranking across repositories.
    pub comparable: bool,
}

/// `git grep`'s flags, for regex and literal search.
#[derive(Clone, Debug, Default)]
pub struct GrepOptions {
    /// Further patterns: a line matches when it matches the query or any of these (`-e`).
    pub patterns: Vec<String>,
    /// Whole words only (`-w`).
    pub word: bool,
    /// At most this many matching lines per file (`-m`).
    pub max_count: Option<usize>,
    /// Lines of context before each match, instead of `context` (`-B`).
    pub before: Option<usize>,
    /// Lines of context after each match, instead of `context` (`-A`).
    pub after: Option<usize>,
    /// Answer the files in scope that have no match instead (`-L`).
    pub files_without_match: bool,
    /// Ignore case when no pattern has an upper-case letter (`-S`).
    pub smart_case: bool,
    /// When the search is exact, every matching line, not `limit` (the command line without
    /// `--limit`, as `git grep` prints everything).
    pub all_lines: bool,
}

/// Where a search reads from: one store, one full-text reader and one view.
pub struct SearchContext<'a> {
    /// The store.
    pub store: &'a Store,
    /// The full-text index.
    pub fulltext: &'a FullText,
    /// A searcher of the last full-text commit.
    pub searcher: &'a tantivy::Searcher,
    /// The view.
    pub view: &'a ViewRow,
    /// How to read file contents.
    pub content: &'a ContentReader<'a>,
    /// `codecompass.maxFileSize`.
    pub max_file_size: u64,
    /// The columns the query's searches read, opened once.
    pub columns: crate::index::Columns,
    /// Threads a search of several full-text segments may collect them on, this one among
    /// them (see [`crate::index::search_segments`]).
    pub segment_threads: usize,
}

impl SearchContext<'_> {
    /// Searches `query` with `collector`, on [`Self::segment_threads`] threads.
    pub fn search<C: tantivy::collector::Collector>(
        &self,
        query: &dyn tantivy::query::Query,
        collector: &C,
    ) -> tantivy::Result<C::Fruit> {
        crate::index::search_segments(self.searcher, query, collector, self.segment_threads)
    }
}

/// A line match in a response.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LineHit {
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column of the first match.
    pub column: u32,
    /// The line's text.
    pub text: String,
    /// Byte ranges of the matches in `text`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<(usize, usize)>,
    /// Lines before, for `--context`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<String>,
    /// Lines after, for `--context`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// One result.
#[derive(Clone, Debug, Serialize, Default, schemars::JsonSchema)]
pub struct SearchResult {
    /// Repository-relative path.
    pub path: String,
    /// First line (1-based).
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// A symbol kind, `snippet`, `file` or `line`.
    pub kind: String,
    /// The symbol's or file's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Qualified name (detail `signature` and up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualified_name: Option<String>,
    /// Signature (detail `signature` and up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Visibility (detail `signature` and up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<String>,
    /// Language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// `definition` or `declaration`, for symbols.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    /// The matching lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<LineHit>,
    /// The first lines of the result (detail `context`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// The enclosing symbol (detail `context`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Other symbols of the file near it (detail `context`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
    /// Other paths with identical content at these lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
    /// Fused score (higher is better).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Why it ranks where it does (`--explain`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ranking_reasons: Vec<String>,
    /// Estimated tokens of this result's text (with a budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<usize>,
    /// File results: the symbols of the file that match the query, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<MatchedSymbol>,
    /// What a ranking across repositories compares (asked for by `comparable`).
    #[serde(skip)]
    #[schemars(skip)]
    pub merit: Option<merit::Merit>,
}

/// A symbol of a file result that matches the query.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct MatchedSymbol {
    /// Qualified name.
    pub name: String,
    /// Kind.
    pub kind: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
}

/// The clues found in a query of words, and the terms searched (`--explain`).
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct ClueReport {
    /// Identifiers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub identifiers: Vec<String>,
    /// Paths, with `:line` when given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Stack frames as `function at path:line`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    /// Quoted or raised messages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
    /// Option names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The terms searched, with their weights.
    pub terms: Vec<(String, f32)>,
    /// Terms left out (the most common past the cap).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
}

impl ClueReport {
    fn of(clues: &clues::Clues, groups: &[words::TermGroup], dropped: &[String]) -> ClueReport {
        ClueReport {
            identifiers: clues.identifiers.clone(),
            paths: clues
                .paths
                .iter()
                .map(|p| match p.line {
                    Some(l) => format!("{}:{l}", p.path),
                    None => p.path.clone(),
                })
                .collect(),
            frames: clues
                .frames
                .iter()
                .map(|f| {
                    format!(
                        "{} at {}{}",
                        f.function.as_deref().unwrap_or("?"),
                        f.path.as_deref().unwrap_or("?"),
                        f.line.map(|l| format!(":{l}")).unwrap_or_default()
                    )
                })
                .collect(),
            messages: clues.messages.clone(),
            options: clues.options.clone(),
            terms: groups.iter().map(|g| (g.label.clone(), g.weight)).collect(),
            dropped: dropped.to_vec(),
        }
    }
}

/// An answer given by another mode than the one first tried.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Fallback {
    /// The mode tried first.
    pub from: &'static str,
    /// The mode that answered (after what `from` found, if anything).
    pub to: &'static str,
    /// Why.
    pub reason: String,
}

/// A better way to ask, when the answer looks weak.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Suggestion {
    /// The mode to try.
    pub mode: &'static str,
    /// Why.
    pub reason: String,
    /// A command that asks it.
    pub command: String,
}

/// What a search found, before the engine adds scope and metadata.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SearchOutput {
    /// The mode that ran.
    pub mode: &'static str,
    /// The intent the router chose (auto) or the mode's intent.
    pub intent: &'static str,
    /// The router's confidence.
    pub confidence: f32,
    /// The results, best first (exact modes: by path, then line).
    pub results: Vec<SearchResult>,
    /// Results before the limit and budget.
    pub total_candidates: usize,
    /// The line results went to a sink as they were found ([`search_streaming`]), not here.
    #[serde(skip)]
    #[schemars(skip)]
    pub streamed: bool,
    /// Exact modes: the search stopped early (a limit or the deadline), so more lines may
    /// match than `total_candidates` says.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub total_is_lower_bound: bool,
    /// Whether a limit or budget cut results.
    pub truncated: bool,
    /// Results merged into others (identical content, overlapping regions).
    pub suppressed_duplicate_count: u64,
    /// Whether a safety limit (time) stopped the search.
    pub safety_limit_applied: bool,
    /// Exact modes: whether trigrams narrowed the candidates, or every file was scanned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefilter: Option<&'static str>,
    /// Exact modes: files verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_scanned: Option<u64>,
    /// Files that could not be read (missing objects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable_files: Option<u64>,
    /// With a budget: estimated tokens returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<usize>,
    /// A better query, when confidence is low.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<Suggestion>,
    /// Clues found in a query of words and the terms searched (`--explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clues: Option<ClueReport>,
    /// What the answer should be read with (reported in `metadata.notes`).
    #[serde(skip)]
    pub notes: Vec<String>,
    /// When another mode answered (reported in `metadata.fallback`).
    #[serde(skip)]
    pub fallback: Option<Fallback>,
    /// The query's words in this index, for a ranking across repositories (`comparable`).
    #[serde(skip)]
    #[schemars(skip)]
    pub word_stats: Option<merit::WordStats>,
}

impl SearchOutput {
    /// Whether anything was found: results here, or lines handed to a sink as they were found
    /// (then `results` is empty and `total_candidates` counts them).
    pub fn found(&self) -> bool {
        !self.results.is_empty() || self.streamed && self.total_candidates > 0
    }

    /// An empty answer of `mode`.
    pub(crate) fn empty(mode: &'static str) -> SearchOutput {
        SearchOutput {
            mode,
            intent: "",
            confidence: 1.0,
            results: Vec::new(),
            total_candidates: 0,
            streamed: false,
            total_is_lower_bound: false,
            truncated: false,
            suppressed_duplicate_count: 0,
            safety_limit_applied: false,
            prefilter: None,
            files_scanned: None,
            unreadable_files: None,
            estimated_tokens: None,
            suggestion: None,
            clues: None,
            notes: Vec::new(),
            fallback: None,
            word_stats: None,
        }
    }
}

/// Glob matching with `**`, by whole path or by file name for patterns without `/`.
fn glob_set(patterns: &[String]) -> Result<Option<globset::GlobSet>, QueryError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = globset::GlobSetBuilder::new();
    for p in patterns {
        let glob = globset::GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|e| QueryError::Invalid(format!("invalid glob `{p}`: {e}")))?;
        builder.add(glob);
        if !p.contains('/') {
            let anywhere = format!("**/{p}");
            builder.add(
                globset::GlobBuilder::new(&anywhere)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| QueryError::Invalid(format!("invalid glob `{p}`: {e}")))?,
            );
        }
        // A directory pattern covers what is under it.
        let under = format!("{}/**", p.trim_end_matches('/'));
        if let Ok(g) = globset::GlobBuilder::new(&under).literal_separator(true).build() {
            builder.add(g);
        }
    }
    Ok(Some(builder.build().map_err(|e| QueryError::Invalid(e.to_string()))?))
}

/// Filters made ready to check one file at a time.
pub struct FileFilter {
    langs: Vec<&'static str>,
    exclude_langs: Vec<&'static str>,
    paths: Option<globset::GlobSet>,
    excludes: Option<globset::GlobSet>,
    exts: Vec<String>,
    pathspecs: pathspec::Pathspecs,
}

impl FileFilter {
    /// Compiles `filters`; an unknown language or a bad glob is an error.
    pub fn new(filters: &Filters) -> Result<FileFilter, QueryError> {
        let resolve = |names: &[String]| -> Result<Vec<&'static str>, QueryError> {
            names
                .iter()
                .map(|n| {
                    crate::lang::by_name(n).map(|l| l.name).ok_or_else(|| {
                        QueryError::Invalid(format!(
                            "unknown language `{n}`; known: {}",
                            crate::lang::LANGUAGES.iter().map(|l| l.name).collect::<Vec<_>>().join(", ")
                        ))
                    })
                })
                .collect()
        };
        Ok(FileFilter {
            langs: resolve(&filters.langs)?,
            exclude_langs: resolve(&filters.exclude_langs)?,
            paths: glob_set(&filters.paths)?,
            excludes: glob_set(&filters.excludes)?,
            exts: filters.exts.iter().map(|e| e.trim_start_matches('.').to_ascii_lowercase()).collect(),
            pathspecs: pathspec::Pathspecs::new(&filters.pathspecs).map_err(QueryError::Invalid)?,
        })
    }

    /// Whether `info` passes.
    pub fn passes(&self, info: &FileInfo) -> bool {
        let path = info.path_str();
        if !self.langs.is_empty() && !self.langs.contains(&info.lang.as_str()) {
            return false;
        }
        if self.exclude_langs.contains(&info.lang.as_str()) {
            return false;
        }
        if self.paths.as_ref().is_some_and(|g| !g.is_match(&path))
            || self.excludes.as_ref().is_some_and(|g| g.is_match(&path))
        {
            return false;
        }
        if !self.pathspecs.matches(&path) {
            return false;
        }
        if !self.exts.is_empty() {
            let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
            if !self.exts.contains(&ext) {
                return false;
            }
        }
        true
    }
}

/// The view's file versions that pass the filters.
pub fn allowed_files(store: &Store, view: &ViewRow, filters: &Filters) -> Result<Arc<RoaringBitmap>, QueryError> {
    if filters.is_empty() {
        return Ok(Arc::new(view.bitmap.clone()));
    }
    let filter = FileFilter::new(filters)?;
    let mut out = RoaringBitmap::new();
    for info in store.file_infos_in(&view.bitmap)? {
        if filter.passes(&info) {
            out.insert(info.id);
        }
    }
    Ok(Arc::new(out))
}

/// Receives the line results of an exact search one file at a time, in path order.
pub type LineSink<'a> = &'a mut dyn FnMut(Vec<SearchResult>);

/// Runs a search.
pub fn search(ctx: &SearchContext<'_>, request: &SearchRequest) -> Result<SearchOutput, QueryError> {
    search_streaming(ctx, request, None)
}

/// Runs a search; when it turns out exact and `sink` is given (and no token budget is), line
/// results go to `sink` as each file is verified instead of into the output, so memory stays
/// bounded however many lines match. The output then holds the counts, not the results.
pub fn search_streaming(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    sink: Option<LineSink<'_>>,
) -> Result<SearchOutput, QueryError> {
    // `git grep ''` matches every line; a ranked query needs something to look for.
    if request.query.trim().is_empty() && !matches!(request.mode, Mode::Literal | Mode::Regex) {
        return Err(QueryError::Invalid("the query is empty".to_owned()));
    }
    // Exact text is taken as typed, spaces included, as `git grep` takes it.
    let query = if matches!(request.mode, Mode::Literal | Mode::Regex) { &request.query } else { request.query.trim() };
    // The full-text engine's automata go up to two edits.
    if request.fuzzy > 2 {
        return Err(QueryError::Invalid(format!("--fuzzy takes an edit distance of 0, 1 or 2, not {}", request.fuzzy)));
    }
    if request.limit == 0 {
        return Err(QueryError::Invalid("--limit must be at least 1".to_owned()));
    }
    if request.fuzzy > 0 && matches!(request.mode, Mode::Regex | Mode::Literal) {
        return Err(QueryError::Invalid("--fuzzy does not apply to regex or literal search".to_owned()));
    }
    let classified = match request.mode {
        Mode::Auto => intent::classify(query),
        Mode::Regex => Classified { intent: Intent::Regex, confidence: 1.0 },
        Mode::Literal => Classified { intent: Intent::ErrorText, confidence: 1.0 },
        Mode::Symbol => Classified { intent: Intent::Symbol, confidence: 1.0 },
        Mode::Path => Classified { intent: Intent::Path, confidence: 1.0 },
        Mode::Fts => Classified { intent: Intent::NaturalLanguage, confidence: 1.0 },
    };
    let allowed = allowed_files(ctx.store, ctx.view, &request.filters)?;
    let deadline = Instant::now() + request.timeout;
    if request.files {
        if matches!(request.mode, Mode::Regex | Mode::Literal | Mode::Path) {
            return Err(QueryError::Invalid(format!(
                "--files ranks files for a question or a name; it does not combine with --mode {}",
                request.mode.as_str()
            )));
        }
        let mut output = files::ranked_files(ctx, request, query, &allowed, deadline)?;
        output.intent = classified.intent.as_str();
        output.confidence = classified.confidence;
        return Ok(output);
    }
    let mut output = match (request.mode, classified.intent) {
        (Mode::Regex, _) | (Mode::Auto, Intent::Regex) => {
            exact::run(ctx, request, query, false, &allowed, deadline, "regex", sink)?
        }
        (Mode::Literal, _) => exact::run(ctx, request, query, true, &allowed, deadline, "literal", sink)?,
        (Mode::Auto, Intent::ErrorText) => error_text(ctx, request, unquote(query), &allowed, deadline)?,
        (Mode::Fts, _) => rank::ranked(ctx, request, query, Mode::Fts, &allowed)?,
        (Mode::Symbol, _) | (Mode::Auto, Intent::Symbol) => rank::ranked(ctx, request, query, Mode::Symbol, &allowed)?,
        (Mode::Path, _) | (Mode::Auto, Intent::Path) => rank::ranked(ctx, request, query, Mode::Path, &allowed)?,
        (Mode::Auto, Intent::NaturalLanguage) => rank::ranked(ctx, request, query, Mode::Auto, &allowed)?,
    };
    output.intent = classified.intent.as_str();
    output.confidence = classified.confidence;
    if output.suggestion.is_none() {
        output.suggestion = budget::suggest(query, classified, &output);
    }
    Ok(output)
}

/// Answers fewer than this many from exact text are topped up by a ranked word search.
const FEW_EXACT: usize = 3;

/// Text that reads like a message: the lines that hold it exactly and the lines whose string
/// literals produce it (placeholders as wildcards), source before tests and docs; when that
/// finds little, a ranked word search follows and the answer says so.
fn error_text(
    ctx: &SearchContext<'_>,
    request: &SearchRequest,
    message: &str,
    allowed: &Arc<RoaringBitmap>,
    deadline: Instant,
) -> Result<SearchOutput, QueryError> {
    // Every exact line is looked at before the order is decided: in path order, tests and
    // docs could fill the limit before the source that produces the message is reached.
    let wide = SearchRequest { limit: request.limit.max(1) * 10, max_tokens: None, ..request.clone() };
    let mut exact = exact::run(ctx, &wide, message, true, allowed, deadline, "literal", None)?;
    let mut found: Vec<(bool, SearchResult)> = exact.results.drain(..).map(|r| (false, r)).collect();
    let mut details = Details::new(ctx.store, ctx.max_file_size);
    for hit in messages::templates(ctx, message, allowed)? {
        let Some(info) = details.info(hit.fv)? else { continue };
        let path = info.path_str();
        if found.iter().any(|(_, r)| r.path == path && r.line_start == hit.line) {
            continue;
        }
        found.push((
            true,
            SearchResult {
                path,
                line_start: hit.line,
                line_end: hit.line,
                kind: "line".to_owned(),
                language: (!request.compact && !info.lang.is_empty()).then(|| info.lang.clone()),
                lines: vec![LineHit {
                    line: hit.line,
                    column: hit.column,
                    text: hit.text,
                    ranges: hit.ranges,
                    before: Vec::new(),
                    after: Vec::new(),
                }],
                ranking_reasons: if request.explain == Explain::Off {
                    Vec::new()
                } else {
                    vec![format!("a string template that produces the message ({:.0}% of it)", hit.coverage * 100.0)]
                },
                ..SearchResult::default()
            },
        ));
    }
    // Where a message is produced or handled beats where it is merely quoted: source first,
    // then templates before copies, then path and line.
    let up = rank::ctx_config(ctx, "codecompass.rankUp");
    let down = rank::ctx_config(ctx, "codecompass.rankDown");
    found.sort_by_cached_key(|(template, r)| {
        let quoted_only = rank::path_class(&r.path, &up, &down) == 1 || !rank::is_code_path(&r.path);
        (quoted_only, !template, r.path.clone(), r.line_start)
    });
    exact.total_candidates = exact.total_candidates.max(found.len());
    exact.truncated |= found.len() > request.limit;
    exact.results = found.into_iter().map(|(_, r)| r).take(request.limit).collect();
    if exact.results.len() >= FEW_EXACT || exact.safety_limit_applied {
        if let Some(budget) = request.max_tokens {
            budget::fit_budget(&mut exact, budget);
        }
        return Ok(exact);
    }
    let mut ranked = rank::ranked(ctx, request, message, Mode::Auto, allowed)?;
    let reason = if exact.results.is_empty() {
        "no line holds the text as written, and no string template produces it; these are ranked word matches"
            .to_owned()
    } else {
        match exact.results.len() {
            1 => "only 1 line holds the text or produces it; ranked word matches follow".to_owned(),
            n => format!("only {n} lines hold the text or produce it; ranked word matches follow"),
        }
    };
    let before = exact.results.len();
    let mut results = std::mem::take(&mut exact.results);
    for r in ranked.results.drain(..) {
        if results.len() >= request.limit {
            ranked.truncated = true;
            break;
        }
        if results
            .iter()
            .take(before)
            .any(|e| e.path == r.path && r.line_start <= e.line_start && e.line_start <= r.line_end)
        {
            continue;
        }
        results.push(r);
    }
    ranked.results = results;
    ranked.total_candidates += before;
    ranked.prefilter = exact.prefilter;
    ranked.files_scanned = exact.files_scanned;
    ranked.safety_limit_applied |= exact.safety_limit_applied;
    ranked.fallback = Some(Fallback { from: "literal", to: "fts", reason });
    Ok(ranked)
}

fn unquote(q: &str) -> &str {
    let t = q.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = t.strip_prefix(quote).and_then(|r| r.strip_suffix(quote)) {
            return inner;
        }
    }
    t
}
