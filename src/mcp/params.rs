//! The MCP tools' parameters and the answers made here rather than by the engine, each with
//! its JSON schema.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::StatusResponse;
use crate::query::{Detail, Filters};

/// Parameters every tool takes.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct Common {
    /// The repository to ask (a path); default: the server's first workspace.
    pub workspace: Option<String>,
    /// A branch, tag or commit; default: the working tree as it is on disk.
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// A registered repository to ask, by alias, when the server serves the registry
    /// (`mcp --all-repos` or `--repo`); a glob (`svc-*`, `*`) asks several at once, which
    /// `search_code`, `locate_symbol` and `find_references` answer (`list_repos` names them).
    pub repo: Option<String>,
    /// Across several repositories: one ranking (`global`, the default) or each one's best
    /// with the limit shared out (`per_repo`).
    pub aggregate: Option<AggregateParam>,
}

/// How answers of several repositories become one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AggregateParam {
    /// One ranking over all of them.
    Global,
    /// Each repository's best, the limit shared between them.
    PerRepo,
}

/// How much of the ranking to explain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExplainLevel {
    /// Nothing (the default).
    Off,
    /// The main reasons.
    Basic,
    /// Every signal with its value.
    Full,
}

/// What `get_code_context` favours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextStrategy {
    /// Many short results.
    Breadth,
    /// Few whole ones.
    Depth,
}

/// How much to say per result.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DetailLevel {
    /// Path, lines, kind, name.
    Location,
    /// Plus qualified name, signature, visibility (the default).
    Signature,
    /// Plus a body preview, the parent and related symbols.
    Context,
}

impl DetailLevel {
    pub(super) fn detail(self) -> Detail {
        match self {
            DetailLevel::Location => Detail::Location,
            DetailLevel::Signature => Detail::Signature,
            DetailLevel::Context => Detail::Context,
        }
    }
}

/// Search modes.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// Route by what the query looks like (the default).
    Auto,
    /// Words; all must match; "quoted phrases" as phrases.
    Fts,
    /// A Rust regex, line by line, exact (equals `git grep -E`).
    Regex,
    /// A definition by name.
    Symbol,
    /// A file by path.
    Path,
    /// Exact text, line by line.
    Literal,
}

/// File filters of the search-like tools.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct FilterParams {
    /// Only these languages (`rust`, `python`, ...).
    pub lang: Option<Vec<String>>,
    /// Not these languages.
    pub exclude_lang: Option<Vec<String>>,
    /// Only paths matching these globs (`src/**`, `*.py`).
    pub path: Option<Vec<String>>,
    /// Not paths matching these globs.
    pub exclude: Option<Vec<String>>,
    /// Only these extensions.
    pub ext: Option<Vec<String>>,
}

impl FilterParams {
    pub(super) fn filters(&self) -> Filters {
        Filters {
            langs: self.lang.clone().unwrap_or_default(),
            exclude_langs: self.exclude_lang.clone().unwrap_or_default(),
            paths: self.path.clone().unwrap_or_default(),
            excludes: self.exclude.clone().unwrap_or_default(),
            exts: self.ext.clone().unwrap_or_default(),
            pathspecs: Vec::new(),
        }
    }
}

/// `search_code`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchParams {
    /// A name, words, a path, "quoted text" or a regex.
    pub query: String,
    /// How to read the query.
    pub mode: Option<SearchMode>,
    /// At most this many results (default 20; 100 line matches for regex and literal).
    pub limit: Option<usize>,
    /// How much per result.
    pub detail_level: Option<DetailLevel>,
    /// Only essential fields (much smaller answers).
    pub compact: Option<bool>,
    /// Lines of context around line matches.
    pub context_lines: Option<usize>,
    /// Edit distance per word, 0-2 (not with regex or literal).
    pub fuzzy: Option<u8>,
    /// Match case exactly.
    pub case_sensitive: Option<bool>,
    /// Ignore case (regex and literal).
    pub ignore_case: Option<bool>,
    /// Explain the ranking.
    pub explain: Option<ExplainLevel>,
    /// Fit whole results into this many estimated tokens.
    pub max_tokens: Option<usize>,
    /// `file`: rank files, not snippets (which files to read for a question or a pasted issue;
    /// each with its score, best lines and matching symbols; default limit 10).
    pub group_by: Option<GroupBy>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub filters: FilterParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// How `search_code` groups its results.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// Results are symbols, snippets and lines (the default).
    None,
    /// Results are files.
    File,
}

/// `locate_symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LocateParams {
    /// The name, bare (`find`) or qualified (`Index::find`, `Greeter.greet`).
    pub name: String,
    /// Only this kind (function, method, class, struct, ...).
    pub kind: Option<String>,
    /// Only this language.
    pub lang: Option<String>,
    /// At most this many results (default 20).
    pub limit: Option<usize>,
    /// How much per result.
    pub detail_level: Option<DetailLevel>,
    /// Only essential fields.
    pub compact: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `get_code_context`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContextParams {
    /// The question or name.
    pub query: String,
    /// The budget in estimated tokens (`ceil(words * 1.3)`); never exceeded.
    pub max_tokens: usize,
    /// Many short results (the default), or few whole ones.
    pub strategy: Option<ContextStrategy>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub filters: FilterParams,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `get_file_outline`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineParams {
    /// Repository-relative path of the file.
    pub path: String,
    /// `all` (nested, default) or `top`.
    pub depth: Option<String>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `read_source`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadSourceParams {
    /// Repository-relative path (or the file to look for `symbol` in).
    pub path: Option<String>,
    /// A symbol name: its definition is read (at most 200 lines).
    pub symbol: Option<String>,
    /// First line (1-based) when reading a range.
    pub line_start: Option<u32>,
    /// Last line when reading a range (at most 500 lines per call).
    pub line_end: Option<u32>,
    /// Extra lines before and after.
    pub expand: Option<u32>,
    /// Fold nested function bodies to one line each.
    pub collapse: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `diff_context`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiffParams {
    /// The ref to compare with (default: the default branch); `ref` is the side with changes.
    pub base: Option<String>,
    /// How much per symbol.
    pub detail_level: Option<DetailLevel>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `sync_repo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SyncParams {
    /// Rebuild from scratch.
    pub force: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// Tools that take only the common parameters.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CommonParams {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// The answer of `index_status` and `health_check`, per workspace.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct WorkspaceHealth {
    /// The workspace root.
    pub workspace: String,
    /// `compatible`, `not_indexed`, `reindex_required` or `corrupt`.
    pub store_state: String,
    /// `not_indexed`, `indexing`, `ready` or `failed`.
    pub indexing_status: String,
    /// The background index.
    pub progress: super::workspaces::IndexProgress,
}

/// The answer of `index_status`.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct IndexStatus {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The workspace and its background index.
    #[serde(flatten)]
    pub health: WorkspaceHealth,
    /// The store, views and refs, as `status` gives them.
    pub status: StatusResponse,
}

/// The answer of `health_check`.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct Health {
    /// `ready`, `indexing`, `warming` or `error`.
    pub status: String,
    /// CodeCompass's version.
    pub version: String,
    /// Seconds since the server started.
    pub uptime_seconds: u64,
    /// Every registered workspace.
    pub workspaces: Vec<WorkspaceHealth>,
}

/// The answer of `sync_repo`.
#[derive(Debug, serde::Serialize, JsonSchema)]
pub struct SyncAnswer {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// Views built or confirmed.
    pub views: Vec<crate::engine::IndexedView>,
    /// Sums.
    pub total: crate::engine::IndexTotals,
}
