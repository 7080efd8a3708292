//! `xray` and `xray explore`: the engine side of structural search (scope, view, reader); the
//! search itself is `crate::xray`.

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, metadata};
use crate::error::ErrorCode;
use crate::query::{ContentReader, Filters};
use crate::view::Scope;
use crate::xray::{ExploreTree, XrayError, XrayOutput, XrayRequest};

impl From<XrayError> for Error {
    fn from(e: XrayError) -> Error {
        match e {
            XrayError::Query { message, line, column } => {
                Error::new(ErrorCode::InvalidArgument, format!("query line {line}, column {column}: {message}"))
                    .with_remedy(
                        "fix the query (tree-sitter S-expressions: `(kind field: (kind) @capture)`); \
                         `git codecompass xray explore FILE` shows a file's node kinds and fields",
                    )
            }
            XrayError::Script { message, line, column } => {
                Error::new(ErrorCode::InvalidArgument, format!("script line {line}, column {column}: {message}"))
                    .with_remedy("fix the script (Rhai syntax); docs/xray.md lists what a script receives")
            }
            XrayError::Search(q) => q.into(),
        }
    }
}

/// The answer of `xray`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct XrayResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// What was found.
    #[serde(flatten)]
    pub output: XrayOutput,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// An `xray explore` question.
#[derive(Clone, Debug)]
pub struct ExploreRequest {
    /// Repository-relative path.
    pub path: String,
    /// Only the node of this line (1-based) and below.
    pub line: Option<u32>,
    /// Show what this query captures instead of the nodes.
    pub query: Option<String>,
    /// Anonymous nodes too.
    pub all: bool,
    /// At most this many nodes or captures.
    pub max_nodes: usize,
    /// The scope.
    pub scope: Scope,
    /// How hard to try for freshness.
    pub freshness: Freshness,
}

/// The answer of `xray explore`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ExploreResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// Repository-relative path.
    pub path: String,
    /// The tree.
    #[serde(flatten)]
    pub tree: ExploreTree,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

pub(super) fn xray(
    engine: &Engine,
    request: &XrayRequest,
    filters: &Filters,
    scope: &Scope,
    freshness: Freshness,
    control: Option<crate::xray::Control<'_>>,
) -> Result<XrayResponse, Error> {
    if request.limit == 0 {
        return Err(Error::new(ErrorCode::InvalidArgument, "--limit must be at least 1"));
    }
    let (output, resolved) =
        super::search::in_view(engine, scope, freshness, |ctx| Ok(crate::xray::run(ctx, request, filters, control)?))?;
    let completeness = if output.timed_out || output.cancelled || output.evaluation_error_count > 0 {
        "partial"
    } else if output.truncated {
        "truncated"
    } else {
        "complete"
    };
    let mut metadata = metadata(&resolved, completeness);
    metadata.safety_limit_applied = output.timed_out;
    Ok(XrayResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        output,
        metadata,
    })
}

pub(super) fn explore(engine: &Engine, request: &ExploreRequest) -> Result<ExploreResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let file = super::outline::file_in_view(&store, &resolved.view.bitmap, &request.path)?.ok_or_else(|| {
        Error::new(ErrorCode::FileNotFound, format!("`{}` is not in {}", request.path, resolved.name))
            .with_remedy("give the path relative to the repository root (or to the current directory)")
    })?;
    let language = crate::lang::by_name(&file.lang)
        .filter(|l| codecompass_grammars::NAMES.contains(&l.grammar))
        .ok_or_else(|| {
            Error::new(ErrorCode::InvalidArgument, format!("`{}` is in no language X-Ray parses", request.path))
                .with_remedy(format!(
                    "X-Ray parses {}",
                    crate::lang::LANGUAGES.iter().map(|l| l.name).collect::<Vec<_>>().join(", ")
                ))
        })?;
    let content = ContentReader {
        git: engine.workspace().git(),
        store_dir: engine.workspace().store_dir(),
        root: engine.workspace().root(),
    };
    let data = content.read(content.local().as_ref(), &file).ok_or_else(|| {
        Error::new(ErrorCode::Io, format!("the content of `{}` is not available (missing object)", request.path))
    })?;
    if crate::indexer::is_binary(&data) {
        return Err(Error::new(ErrorCode::InvalidArgument, format!("`{}` is binary", request.path)));
    }
    let tree = crate::xray::explore(
        language,
        &data,
        request.line,
        request.query.as_deref(),
        request.all,
        request.max_nodes.max(1),
    )?;
    let completeness = if tree.truncated { "truncated" } else { "complete" };
    Ok(ExploreResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        path: file.path_str(),
        metadata: metadata(&resolved, completeness),
        tree,
    })
}

/// One scan at one ref in a batch's answer: the answer, or why there is none.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct BatchRun {
    /// The scan's name.
    pub scan: String,
    /// The ref as asked (`worktree` for the working tree).
    pub asked_ref: String,
    /// The answer, as `xray --json` gives it.
    #[serde(flatten)]
    pub answer: Option<XrayResponse>,
    /// Why this scan did not run at this ref (the other runs still did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

/// The answer of a batch.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct BatchResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// One per scan and ref, scans in order, each at every ref in order.
    pub runs: Vec<BatchRun>,
    /// Runs the batch asks for (scans × refs); more than `runs` holds when it stopped early.
    pub runs_total: usize,
    /// Matches in all runs.
    pub total_matches: u64,
    /// Whether the batch's time limit stopped it.
    pub timed_out: bool,
    /// Whether it was cancelled.
    pub cancelled: bool,
    /// `complete`, `truncated` (a limit cut a run), or `partial` (a run failed, stopped early
    /// or had evaluation errors, or runs are missing).
    pub result_completeness: &'static str,
}

/// Called before each run and after each round of files of a run, with the runs so far and
/// the current run's answer so far; `false` cancels the batch.
pub type BatchControl<'a> = &'a dyn Fn(&BatchResponse, Option<&XrayOutput>) -> bool;

pub(super) fn batch(
    engine: &Engine,
    batch: &crate::xray::Batch,
    freshness: Freshness,
    control: Option<BatchControl<'_>>,
) -> Result<BatchResponse, Error> {
    batch.validate().map_err(|m| Error::new(ErrorCode::InvalidArgument, m))?;
    let started = std::time::Instant::now();
    let deadline = batch.timeout_seconds.map(|t| started + std::time::Duration::from_secs_f64(t));
    let refs: Vec<Option<&str>> =
        if batch.refs.is_empty() { vec![None] } else { batch.refs.iter().map(|r| Some(r.as_str())).collect() };
    let mut response = BatchResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        runs: Vec::new(),
        runs_total: batch.scans.len() * refs.len(),
        total_matches: 0,
        timed_out: false,
        cancelled: false,
        result_completeness: "complete",
    };
    'scans: for (i, scan) in batch.scans.iter().enumerate() {
        for reference in &refs {
            let now = std::time::Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                response.timed_out = true;
                break 'scans;
            }
            if control.is_some_and(|c| !c(&response, None)) {
                response.cancelled = true;
                break 'scans;
            }
            let (request, filters) = scan
                .request(batch, deadline.map(|d| d - now))
                .map_err(|m| Error::new(ErrorCode::InvalidArgument, m))?;
            let scope = Scope::from_option(*reference);
            let so_far = &response;
            let per_round = |output: &XrayOutput| control.is_none_or(|c| c(so_far, Some(output)));
            let result = xray(engine, &request, &filters, &scope, freshness, Some(&per_round));
            let asked_ref = reference.unwrap_or("worktree").to_owned();
            let run = match result {
                Ok(answer) => {
                    response.total_matches += answer.output.total_matches;
                    response.timed_out |= answer.output.timed_out;
                    response.cancelled |= answer.output.cancelled;
                    BatchRun { scan: scan.label(i), asked_ref, answer: Some(answer), error: None }
                }
                Err(e) => BatchRun { scan: scan.label(i), asked_ref, answer: None, error: Some(e) },
            };
            response.runs.push(run);
            if response.cancelled {
                break 'scans;
            }
        }
    }
    response.result_completeness = completeness(&response);
    Ok(response)
}

fn completeness(response: &BatchResponse) -> &'static str {
    let run_state = |r: &BatchRun| r.answer.as_ref().map_or("partial", |a| a.metadata.result_completeness);
    if response.runs.len() < response.runs_total || response.runs.iter().any(|r| run_state(r) == "partial") {
        "partial"
    } else if response.runs.iter().any(|r| run_state(r) == "truncated") {
        "truncated"
    } else {
        "complete"
    }
}
