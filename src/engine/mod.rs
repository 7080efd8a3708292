//! The engine: the API boundary. The command line and the MCP server call these functions
//! and render what they return; neither holds logic of its own.
//!
//! Response types derive `Serialize` so that both boundaries emit the same shapes; they carry
//! no formatting. Errors carry a stable code from [`crate::error::ErrorCode`] and a remedy.

pub mod across;
mod diff;
mod doctor;
mod errors;
mod explain;
mod fulltext;
mod graph;
mod history;
mod jobs;
mod locate;
mod outline;
pub mod registry;
mod related;
mod resolve;
mod search;
mod seed;
mod snapshot;
mod source;
mod status;
mod symbol_history;
mod sync;
mod watch;
mod xray;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use diff::{DiffRequest, DiffResponse};
pub use doctor::DoctorResponse;
pub use explain::{Counted, ExplainResponse, FileContextResponse};
pub use graph::{
    CallSite, Caller, Direction, GraphDefinition, GraphEdge, GraphNode, GraphRequest, GraphResponse, Reference,
    ReferencesResponse,
};
pub use history::{HistoryIndexResponse, HistoryState, LogCommit, LogMode, LogRequest, LogResponse};
pub use jobs::JobState;
pub use locate::{LocateRequest, LocateResponse, LocateResult};
pub use outline::{OutlineRequest, OutlineResponse, OutlineSymbol, ViewSymbol};
pub use related::{FileRequest, Import, Importer, ImportersResponse, ImportsResponse, RelatedTest, TestsForResponse};
pub use search::{ContextResponse, SearchResponse, Strategy};
pub use snapshot::InspectResponse;
pub use source::{SourceRequest, SourceResponse};
pub use status::{StatusResponse, ViewStatus};
pub use symbol_history::{
    CompareSymbolResponse, SymbolAt, SymbolEvent, SymbolHistoryRequest, SymbolHistoryResponse, SymbolVersion,
};
pub use sync::{RefEntry, RefsResponse};
pub use watch::WatchState;
pub use xray::{BatchControl, BatchResponse, BatchRun, ExploreRequest, ExploreResponse, XrayResponse};

use crate::error::ErrorCode;
use crate::git::ObjectId;
use crate::indexer::{self, IndexOptions, Indexer, ViewReport};
use crate::store::{Store, StoreState, ViewRow};
use crate::view::{Scope, Workspace};

/// The version of the JSON shapes. Bumped when a field changes meaning or disappears;
/// adding a field does not bump it.
pub const PROTOCOL_VERSION: &str = "1";

/// An error a user or agent can act on.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Error {
    /// The stable code.
    pub code: ErrorCode,
    /// What happened.
    pub message: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
}

impl schemars::JsonSchema for ErrorCode {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorCode".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl Error {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error { code, message: message.into(), remedy: None }
    }

    /// Adds the remedy.
    pub fn with_remedy(mut self, remedy: impl Into<String>) -> Error {
        self.remedy = Some(remedy.into());
        self
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(remedy) = &self.remedy {
            write!(f, "; {remedy}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The metadata every response carries (DESIGN.md, "Interfaces").
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Metadata {
    /// `fresh`, `stale` or `syncing`.
    pub freshness_status: &'static str,
    /// `not_indexed`, `indexing`, `ready` or `failed`.
    pub indexing_status: &'static str,
    /// `complete`, `partial` or `truncated`.
    pub result_completeness: &'static str,
    /// Results left out as duplicates of others.
    pub suppressed_duplicate_count: u64,
    /// Whether a safety limit (size, time) cut the work short.
    pub safety_limit_applied: bool,
    /// What the answer was computed from.
    pub view: String,
    /// When a mode other than the one first tried answered: which, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<crate::query::Fallback>,
    /// What the answer should be read with (terms left out, no definition of that name, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Metadata {
    /// A fresh, complete answer from `view`, read with `notes`.
    pub(crate) fn fresh(view: String, notes: Vec<String>) -> Metadata {
        Metadata {
            freshness_status: "fresh",
            indexing_status: "ready",
            result_completeness: "complete",
            suppressed_duplicate_count: 0,
            safety_limit_applied: false,
            view,
            fallback: None,
            notes,
        }
    }
}

/// Where an answer comes from: the scope as named, and the view it resolved to.
#[derive(Clone, Debug)]
pub struct ResolvedScope {
    /// `worktree`, `live`, or the ref as given.
    pub name: String,
    /// The commit, for repositories.
    pub commit: Option<ObjectId>,
    /// The view.
    pub view: ViewRow,
    /// Whether the view is known to match the scope right now.
    pub fresh: bool,
    /// Whether a background sync was started for it.
    pub syncing: bool,
}

/// How much effort to spend on freshness before answering (`codecompass.freshness`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Bring the view up to date first (the command line's default).
    Strict,
    /// Answer from the last view at once and, when it is stale, sync in the background (the
    /// MCP server's default). Says `stale` when it is.
    Balanced,
    /// Answer from the last view without checking a working tree against it (no status walk:
    /// says `stale`, unless a running watcher, asked to sync, has); refs are still resolved.
    BestEffort,
    /// Answer from the last view without syncing, after checking whether it is current (the
    /// engine's own follow-up queries, and the MCP server while it indexes).
    Current,
}

impl Freshness {
    /// The policy `codecompass.freshness` asks for, or `default` when it is unset or unknown.
    pub fn configured(ws: &Workspace, default: Freshness) -> Freshness {
        let value = ws.git().and_then(|g| g.local().config_string("codecompass.freshness"));
        match value.as_deref() {
            Some("strict") => Freshness::Strict,
            Some("balanced") => Freshness::Balanced,
            Some("best_effort" | "best-effort") => Freshness::BestEffort,
            _ => default,
        }
    }
}

/// Options for opening an engine.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// Where the index lives, instead of the default.
    pub store_dir: Option<PathBuf>,
    /// What the user allowed for a directory that is not a repository.
    pub live: crate::view::live::LiveOptIn,
}

/// One workspace's engine.
pub struct Engine {
    ws: Workspace,
    /// The full-text index and its reader, opened once and reloaded per query.
    fulltext: fulltext::Slot,
}

/// The answer of `index`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct IndexResponse {
    /// One entry per view built or confirmed.
    pub views: Vec<IndexedView>,
    /// Sums over the views.
    pub total: IndexTotals,
    /// The commits a sync added to history (only once history is indexed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::indexer::HistoryReport>,
    /// The first index of a registered repository seeded from another one's store (a fork
    /// sharing most of its files): from which, and how much it shared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeded: Option<crate::indexer::SeedReport>,
}

/// One view of an `index` answer.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct IndexedView {
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The name stored in `refs`.
    pub ref_name: String,
    /// The commit id.
    pub commit: Option<String>,
    /// The tree id.
    pub tree: Option<String>,
    /// File versions in the view.
    pub files: u64,
    /// Files that changed against the view it was derived from.
    pub files_changed: u64,
    /// Blobs parsed now.
    pub blobs_parsed: u64,
    /// Blobs whose records already existed.
    pub blobs_reused: u64,
    /// Blobs whose records were copied from another registered repository (the same blob
    /// there) instead of parsed.
    pub blobs_shared: u64,
    /// Symbols in the view.
    pub symbols: u64,
    /// Symbols extracted now.
    pub symbols_extracted: u64,
    /// Blobs not parsed, by reason.
    pub skipped: std::collections::BTreeMap<String, u64>,
    /// Blobs missing from the object store.
    pub missing_objects: u64,
    /// The view it was derived from.
    pub derived_from: Option<String>,
    /// Whether it was already current.
    pub up_to_date: bool,
    /// Wall time.
    pub duration_ms: u64,
}

/// Sums of an `index` answer.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct IndexTotals {
    /// Files over all views.
    pub files: u64,
    /// Blobs parsed.
    pub blobs_parsed: u64,
    /// Blobs reused.
    pub blobs_reused: u64,
    /// Blobs whose records came from another registered repository.
    pub blobs_shared: u64,
    /// Symbols over all views.
    pub symbols: u64,
    /// Wall time.
    pub duration_ms: u64,
}

impl From<ViewReport> for IndexedView {
    fn from(r: ViewReport) -> IndexedView {
        IndexedView {
            scope: r.scope,
            ref_name: r.ref_name,
            commit: r.commit.map(|c| c.to_hex()),
            tree: r.tree.map(|t| t.to_hex()),
            files: r.files,
            files_changed: r.files_changed,
            blobs_parsed: r.blobs_parsed,
            blobs_reused: r.blobs_reused,
            blobs_shared: r.blobs_shared,
            symbols: r.symbols,
            symbols_extracted: r.symbols_extracted,
            skipped: r.skipped,
            missing_objects: r.missing_objects,
            derived_from: r.base,
            up_to_date: r.up_to_date,
            duration_ms: r.duration_ms,
        }
    }
}

impl Engine {
    /// Opens the workspace containing `path`.
    pub fn open(path: &Path, options: &EngineOptions) -> Result<Engine, Error> {
        let ws = Workspace::open(path, options.store_dir.as_deref(), options.live)?;
        Ok(Engine { ws, fulltext: fulltext::Slot::default() })
    }

    /// The workspace.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    fn open_store(&self, create: bool) -> Result<Store, Error> {
        Ok(Store::open(self.ws.store_dir(), create)?)
    }

    /// Builds or refreshes the views of `scopes`.
    pub fn index(&self, scopes: &[Scope], options: IndexOptions) -> Result<IndexResponse, Error> {
        self.index_scopes(scopes, options, None)
    }

    /// Like [`Engine::index`], with the working tree's state already computed (by a watcher,
    /// from the paths its events named); it is used for [`Scope::Worktree`].
    pub(crate) fn index_scopes(
        &self,
        scopes: &[Scope],
        options: IndexOptions,
        mut worktree: Option<indexer::WorktreeState>,
    ) -> Result<IndexResponse, Error> {
        let (store, seeded) = if options.force {
            // A forced rebuild also repairs what a plain open refuses.
            match Store::classify(self.ws.store_dir()).0 {
                StoreState::ReindexRequired | StoreState::Corrupt => self.reset_store()?,
                StoreState::Compatible if !Store::damage(self.ws.store_dir(), false).is_empty() => {
                    self.reset_store()?
                }
                _ => {}
            }
            (self.open_store(true)?, None)
        } else {
            self.open_or_seed_store(scopes)?
        };
        let force = options.force;
        let indexer = self.indexer(&store, options)?;
        let started = std::time::Instant::now();
        let mut views = Vec::new();
        for scope in scopes {
            let state = if *scope == Scope::Worktree { worktree.take() } else { None };
            views.push(IndexedView::from(indexer.index_with(scope, state)?));
        }
        indexer.finish()?;
        if force {
            // The full-text index was rebuilt from nothing: every other indexed ref is
            // re-derived now (from the views just built), so none answers from documents that
            // are gone. A ref that no longer resolves is left to gc.
            let done: std::collections::HashSet<String> = views.iter().map(|v| v.ref_name.clone()).collect();
            let others: Vec<String> = store
                .refs()?
                .into_iter()
                .filter(|r| r.kind == "ref" && !done.contains(&r.name))
                .map(|r| r.name)
                .collect();
            if !others.is_empty() {
                let indexer = self.indexer(&store, IndexOptions::default())?;
                for name in others {
                    if let Ok(report) = indexer.index(&Scope::Ref(name)) {
                        views.push(IndexedView::from(report));
                    }
                }
                indexer.finish()?;
            }
        }
        store.checkpoint();
        let mut total = IndexTotals::default();
        for v in &views {
            total.files += v.files;
            total.blobs_parsed += v.blobs_parsed;
            total.blobs_reused += v.blobs_reused;
            total.blobs_shared += v.blobs_shared;
            total.symbols += v.symbols;
        }
        total.duration_ms = started.elapsed().as_millis() as u64;
        Ok(IndexResponse { views, total, history: None, seeded })
    }

    /// An indexer of this workspace's store that, when this repository is registered
    /// (`repos add`), copies the records of blobs it meets for the first time from the other
    /// registered repositories' stores instead of parsing them.
    fn indexer<'a>(&'a self, store: &'a Store, options: IndexOptions) -> Result<Indexer<'a>, Error> {
        let indexer = Indexer::new(&self.ws, store, options)?;
        // One read of a small file decides; an unregistered repository asks nobody, so its
        // builds never look for blobs to share.
        let own = self.ws.root().to_owned();
        let Some(registry) = registry::Registry::load().ok().filter(|r| r.is_registered(&own)) else {
            return Ok(indexer);
        };
        let own_store = self.ws.store_dir().to_owned();
        Ok(indexer.with_donors(move || registry::donor_stores(&registry, &own, &own_store)))
    }

    /// Moves an unusable store aside so a fresh one can be built; the old one is deleted
    /// once the move succeeded.
    fn reset_store(&self) -> Result<(), Error> {
        let dir = self.ws.store_dir();
        let aside = dir.with_extension(format!("old-{}", std::process::id()));
        std::fs::rename(dir, &aside)
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot move {}: {e}", dir.display())))?;
        let _ = std::fs::remove_dir_all(&aside);
        Ok(())
    }

    /// Every use of a symbol in a view, tied to its definitions.
    pub fn references(&self, request: &GraphRequest) -> Result<ReferencesResponse, Error> {
        graph::references(self, request)
    }

    /// Who calls a symbol (`Up`), what it calls (`Down`), or both, `request.depth` levels deep.
    pub fn call_graph(&self, request: &GraphRequest, direction: Direction) -> Result<GraphResponse, Error> {
        graph::call_graph(self, request, direction)
    }

    /// What a file imports, resolved to files of the view.
    pub fn imports(&self, request: &FileRequest) -> Result<ImportsResponse, Error> {
        related::imports(self, request)
    }

    /// The files of the view that import a file.
    pub fn importers(&self, request: &FileRequest) -> Result<ImportersResponse, Error> {
        related::importers(self, request)
    }

    /// A symbol explained: definition, doc, callers, callees, uses and tests.
    pub fn explain_symbol(&self, name: &str, scope: &Scope, freshness: Freshness) -> Result<ExplainResponse, Error> {
        explain::explain(self, name, scope, freshness)
    }

    /// A file in context: outline, imports, importers and tests.
    pub fn file_context(&self, path: &str, scope: &Scope, freshness: Freshness) -> Result<FileContextResponse, Error> {
        explain::file_context(self, path, scope, freshness)
    }

    /// The tests of a symbol or a file.
    pub fn tests_for(&self, request: &FileRequest) -> Result<TestsForResponse, Error> {
        related::tests_for(self, request)
    }

    /// Finds where a symbol is defined.
    pub fn locate(&self, request: &LocateRequest) -> Result<LocateResponse, Error> {
        locate::run(self, request)
    }

    /// Searches the view of `scope`.
    pub fn search(
        &self,
        request: &crate::query::SearchRequest,
        scope: &Scope,
        freshness: Freshness,
    ) -> Result<SearchResponse, Error> {
        search::search(self, request, scope, freshness, None)
    }

    /// Searches the view of `scope`; when the search is exact, its line results go to `sink` a
    /// file at a time as they are verified (memory stays bounded however many lines match),
    /// and the response holds the counts (`output.streamed`).
    pub fn search_streaming(
        &self,
        request: &crate::query::SearchRequest,
        scope: &Scope,
        freshness: Freshness,
        sink: crate::query::LineSink<'_>,
    ) -> Result<SearchResponse, Error> {
        search::search(self, request, scope, freshness, Some(sink))
    }

    /// Fits whole search results into a token budget.
    pub fn context(
        &self,
        request: &crate::query::SearchRequest,
        strategy: Strategy,
        scope: &Scope,
        freshness: Freshness,
    ) -> Result<ContextResponse, Error> {
        search::context(self, request, strategy, scope, freshness)
    }

    /// Structural search: a driver picks the candidate files, a query or script runs on their
    /// syntax trees.
    pub fn xray(
        &self,
        request: &crate::xray::XrayRequest,
        filters: &crate::query::Filters,
        scope: &Scope,
        freshness: Freshness,
    ) -> Result<XrayResponse, Error> {
        xray::xray(self, request, filters, scope, freshness, None)
    }

    /// Several X-Ray scans at several refs, each answer apart; `control` sees the progress
    /// and may cancel.
    pub fn xray_batch(
        &self,
        batch: &crate::xray::Batch,
        freshness: Freshness,
        control: Option<xray::BatchControl<'_>>,
    ) -> Result<BatchResponse, Error> {
        xray::batch(self, batch, freshness, control)
    }

    /// A file's syntax tree, or what a query captures in it.
    pub fn xray_explore(&self, request: &ExploreRequest) -> Result<ExploreResponse, Error> {
        xray::explore(self, request)
    }

    /// Reads a symbol's text or a line range, within bounds.
    pub fn read_source(&self, request: &SourceRequest) -> Result<SourceResponse, Error> {
        source::run(self, request)
    }

    /// Every symbol of the view of `scope`, sorted (for comparisons and exports).
    pub fn all_symbols(&self, scope: &Scope, freshness: Freshness) -> Result<Vec<ViewSymbol>, Error> {
        outline::all_symbols(self, scope, freshness)
    }

    /// Lists the symbols of one file.
    pub fn outline(&self, request: &OutlineRequest) -> Result<OutlineResponse, Error> {
        outline::run(self, request)
    }

    /// Compares a ref (or the working tree) with the merge base of another, symbol by symbol.
    pub fn diff(&self, request: &DiffRequest) -> Result<DiffResponse, Error> {
        diff::run(self, request)
    }

    /// Drops what no tracked ref reaches (views used within `grace_days` stay) and background
    /// jobs that ended longer ago than that.
    pub fn gc(&self, grace_days: u64) -> Result<crate::indexer::GcReport, Error> {
        let store = self.open_store(false)?;
        let indexer = Indexer::new(&self.ws, &store, IndexOptions::default())?;
        let mut report = indexer.gc(grace_days as i64 * 86_400)?;
        report.jobs_dropped = self.gc_jobs(grace_days as i64 * 86_400);
        Ok(report)
    }

    /// Describes the workspace, the store and its views.
    pub fn status(&self) -> Result<StatusResponse, Error> {
        status::run(self)
    }

    /// Checks the store, the full-text index, hooks, ignore rules and jobs, and says how to
    /// fix each problem found. Only reads.
    pub fn doctor(&self, quick: bool) -> Result<DoctorResponse, Error> {
        doctor::run(self, quick)
    }

    /// Turns a user-given path (relative to `cwd`, or absolute inside the workspace) into a
    /// repository-relative path. Refuses paths that leave the workspace.
    pub fn relative_path(&self, cwd: &Path, path: &str) -> Result<String, Error> {
        let root = self.ws.root();
        let joined = if Path::new(path).is_absolute() {
            PathBuf::from(path)
        } else {
            std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned()).join(path)
        };
        // Resolve symlinks in the directories of what exists on disk, lexically what does not
        // (a file of another ref). The last component stays as named: the index answers for
        // the symlink itself, and never reads through it.
        let lexical = normalize(&joined);
        let resolved = match (lexical.parent(), lexical.file_name()) {
            (Some(parent), Some(name)) => {
                std::fs::canonicalize(parent).map_or_else(|_| lexical.clone(), |p| p.join(name))
            }
            _ => std::fs::canonicalize(&lexical).unwrap_or(lexical),
        };
        let relative = resolved.strip_prefix(root).map_err(|_| {
            Error::new(ErrorCode::PathOutsideWorkspace, format!("{path} is outside the workspace {}", root.display()))
        })?;
        let text = relative.to_string_lossy().replace('\\', "/");
        Ok(text)
    }
}

fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The metadata of an answer from `resolved`, with the given completeness.
pub fn metadata(resolved: &ResolvedScope, completeness: &'static str) -> Metadata {
    Metadata {
        freshness_status: if resolved.fresh {
            "fresh"
        } else if resolved.syncing {
            "syncing"
        } else {
            "stale"
        },
        indexing_status: "ready",
        // A view built without some blobs (a partial clone) answers partially, whatever else.
        result_completeness: if resolved.view.missing > 0 { "partial" } else { completeness },
        suppressed_duplicate_count: 0,
        safety_limit_applied: false,
        view: resolved.view.key.clone(),
        fallback: None,
        notes: if resolved.view.missing > 0 {
            vec![format!(
                "{} files of this view are missing from the object store (a partial clone?): answers leave them \
                 out until git has them (a checkout, or `git config codecompass.fetchMissing true` to fetch them \
                 while indexing) and the view is re-derived on the next query",
                resolved.view.missing
            )]
        } else {
            Vec::new()
        },
    }
}
