//! X-Ray's MCP tools: `xray_search`, `xray_explore`, `xray_search_batch`, and the background
//! jobs' `get_job` and `cancel_job`, declared in one table ([`TOOLS`]) that `tools.rs` lists
//! and runs with the others.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::tools::{Common, TableTool, confine, freshness, input, json_of, parse, relaxed, scope};
use super::workspaces::Workspace;
use crate::engine::{BatchResponse, Error, ExploreRequest, ExploreResponse, JobState, XrayResponse};
use crate::error::ErrorCode;
use crate::query::Filters;
use crate::xray::{Batch, Evaluator, Scan, ScriptLimits, XrayRequest};

/// Default time an `xray_search` call may take, in seconds.
const DEFAULT_TIMEOUT_SECONDS: f64 = 60.0;

/// `xray_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct XraySearchParams {
    /// Text every match contains: a regex (Rust syntax), or plain text with `literal`. Only
    /// the files that contain it are parsed; without it, only those holding the texts the
    /// query demands (its predicates' literals, its node kinds' keywords), else every file.
    pub driver: Option<String>,
    /// The driver is plain text.
    pub literal: Option<bool>,
    /// The driver ignores case.
    pub ignore_case: Option<bool>,
    /// A tree-sitter query; a match is reported at its `@match` capture, else at the span of
    /// its captures. Predicates: #eq?, #not-eq?, #match?, #not-match?, #any-of?, #not-any-of?.
    pub query: Option<String>,
    /// A Rhai script (instead of `query`): it gets `root`, `source`, `lang`, `file_path`,
    /// `match_positions` and returns nodes or `#{node: n, value: v}` maps. Example, functions
    /// of more than 5 parameters: `root.descendants("function_definition").filter(|f|
    /// f.field("parameters").named_children.len() > 5)`.
    pub script: Option<String>,
    /// Only these languages.
    pub lang: Option<Vec<String>>,
    /// Only paths matching these globs.
    pub path: Option<Vec<String>>,
    /// Not paths matching these globs.
    pub exclude: Option<Vec<String>>,
    /// At most this many matches (default 100).
    pub limit: Option<usize>,
    /// At most this many files parsed.
    pub max_files: Option<usize>,
    /// Stop after this many seconds (default 60); what was found is kept, marked partial.
    pub timeout_seconds: Option<f64>,
    /// Run as a background job and answer its `job_id` at once (get_job follows it).
    pub background: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `xray_search_batch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct XrayBatchParams {
    /// The scans (each with `name`, `driver`, `literal`, `query` or `script`, `lang`, `path`,
    /// `exclude`, `limit`).
    pub scans: Vec<Scan>,
    /// The refs every scan runs at; none: the working tree.
    pub refs: Option<Vec<String>>,
    /// The whole batch stops after this many seconds (default 60 unless `background`).
    pub timeout_seconds: Option<f64>,
    /// At most this many files parsed per scan and ref.
    pub max_files: Option<usize>,
    /// Run as a background job and answer its `job_id` at once (get_job follows it).
    pub background: Option<bool>,
    /// The repository to ask (a path); default: the server's first workspace.
    #[allow(dead_code, reason = "the server reads it from the raw arguments to pick the workspace")]
    pub workspace: Option<String>,
}

/// `get_job` and `cancel_job`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct JobParams {
    /// The job's id, as `background` answered it.
    pub job_id: String,
    /// The repository the job runs in; default: the server's first workspace.
    #[allow(dead_code, reason = "the server reads it from the raw arguments to pick the workspace")]
    pub workspace: Option<String>,
}

/// `xray_explore`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct XrayExploreParams {
    /// The file, relative to the repository root.
    pub path: String,
    /// Only the node of this line (1-based) and below.
    pub line: Option<u32>,
    /// Show what this tree-sitter query captures in the file instead of its nodes.
    pub query: Option<String>,
    /// Anonymous nodes too (punctuation, keywords).
    pub all: Option<bool>,
    /// At most this many nodes (default 400).
    pub max_nodes: Option<usize>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// Every X-Ray tool.
pub const TOOLS: &[TableTool] = &[
    TableTool {
        name: "xray_search",
        title: "Structural search (X-Ray)",
        description: "Find code by syntax: a driver (text every match contains) picks files through the index, \
                      then a tree-sitter query (or a sandboxed Rhai script) runs on their syntax trees. Example, \
                      open() with a literal mode: driver=\"open\", query=\"(call function: (identifier) @f (#eq? \
                      @f \\\"open\\\") arguments: (argument_list (_) (string) @mode)) @match\". xray_explore shows \
                      node kinds.",
        input: input::<XraySearchParams>,
        output: relaxed::<XrayResponse>,
        handler: xray_search,
    },
    TableTool {
        name: "xray_explore",
        title: "Show a file's syntax tree",
        description: "A file's syntax tree as xray_search sees it: node kinds, field names, positions and short \
                      texts, whole or for one line; with `query`, what each capture matches in the file. Use it \
                      to write an xray_search query.",
        input: input::<XrayExploreParams>,
        output: relaxed::<ExploreResponse>,
        handler: xray_explore,
    },
    TableTool {
        name: "xray_search_batch",
        title: "Several X-Ray scans at several refs",
        description: "Run several xray_search scans at several refs in one call, each scan's answer apart \
                      (runs: one per scan and ref). With background=true it answers a job_id at once; get_job \
                      gives progress and partial answers, cancel_job stops it.",
        input: input::<XrayBatchParams>,
        output: relaxed::<BatchResponse>,
        handler: xray_search_batch,
    },
    TableTool {
        name: "get_job",
        title: "A background job's state",
        description: "A background job's status (queued, running, done, cancelled, interrupted, failed), progress \
                      and answer: partial while it runs, final once it ends.",
        input: input::<JobParams>,
        output: relaxed::<JobState>,
        handler: get_job,
    },
    TableTool {
        name: "cancel_job",
        title: "Cancel a background job",
        description: "Ask a background job to stop; it keeps what it found so far (get_job shows it).",
        input: input::<JobParams>,
        output: relaxed::<JobState>,
        handler: cancel_job,
    },
];

fn xray_search_batch(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: XrayBatchParams = parse(args)?;
    let background = p.background.unwrap_or(false);
    let batch = Batch {
        refs: p.refs.unwrap_or_default(),
        scans: p.scans,
        timeout_seconds: p.timeout_seconds.or((!background).then_some(DEFAULT_TIMEOUT_SECONDS)),
        max_files: p.max_files,
    };
    Ok(run_batch(ws, &batch, background))
}

fn run_batch(ws: &Arc<Workspace>, batch: &Batch, background: bool) -> Result<Value, Error> {
    if background {
        ws.engine.start_job(batch).map(|s| json_of(&s))
    } else {
        ws.engine.xray_batch(batch, freshness(ws), None).map(|r| json_of(&r))
    }
}

fn get_job(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: JobParams = parse(args)?;
    Ok(ws.engine.job(&p.job_id).map(|s| json_of(&s)))
}

fn cancel_job(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: JobParams = parse(args)?;
    Ok(ws.engine.cancel_job(&p.job_id).map(|s| json_of(&s)))
}

fn xray_search(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: XraySearchParams = parse(args)?;
    let evaluator = match (p.query, p.script) {
        (Some(q), None) => Evaluator::Query(q),
        (None, Some(s)) => Evaluator::Script(s),
        (Some(_), Some(_)) => {
            return Ok(Err(Error::new(ErrorCode::InvalidArgument, "give `query` or `script`, not both")));
        }
        (None, None) => {
            return Ok(Err(Error::new(ErrorCode::InvalidArgument, "xray_search needs `query` or `script`")
                .with_remedy("xray_explore shows a file's node kinds to write a query against")));
        }
    };
    if p.background.unwrap_or(false) {
        let (query, script) = match &evaluator {
            Evaluator::Query(q) => (Some(q.clone()), None),
            Evaluator::Script(s) => (None, Some(s.clone())),
        };
        let scan = Scan {
            driver: p.driver,
            literal: p.literal.unwrap_or(false),
            ignore_case: p.ignore_case.unwrap_or(false),
            query,
            script,
            lang: p.lang.unwrap_or_default(),
            path: p.path.unwrap_or_default(),
            exclude: p.exclude.unwrap_or_default(),
            limit: Some(p.limit.unwrap_or(100).clamp(1, 5000)),
            ..Scan::default()
        };
        let batch = Batch {
            refs: p.common.reference.clone().filter(|r| !r.is_empty()).into_iter().collect(),
            scans: vec![scan],
            timeout_seconds: p.timeout_seconds,
            max_files: p.max_files,
        };
        return Ok(run_batch(ws, &batch, true));
    }
    let timeout = p.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS);
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Ok(Err(Error::new(ErrorCode::InvalidArgument, "timeout_seconds must be a positive number")));
    }
    let request = XrayRequest {
        driver: p.driver,
        literal: p.literal.unwrap_or(false),
        ignore_case: p.ignore_case.unwrap_or(false),
        evaluator,
        limit: p.limit.unwrap_or(100).clamp(1, 5000),
        max_files: p.max_files,
        timeout: Some(Duration::from_secs_f64(timeout)),
        limits: ScriptLimits::default(),
    };
    let filters = Filters {
        langs: p.lang.unwrap_or_default(),
        paths: p.path.unwrap_or_default(),
        excludes: p.exclude.unwrap_or_default(),
        ..Filters::default()
    };
    Ok(ws.engine.xray(&request, &filters, &scope(&p.common), freshness(ws)).map(|r| json_of(&r)))
}

fn xray_explore(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: XrayExploreParams = parse(args)?;
    Ok(confine(&ws.engine, &p.path).and_then(|path| {
        let request = ExploreRequest {
            path,
            line: p.line,
            query: p.query,
            all: p.all.unwrap_or(false),
            max_nodes: p.max_nodes.unwrap_or(400).clamp(1, 5000),
            scope: scope(&p.common),
            freshness: freshness(ws),
        };
        ws.engine.xray_explore(&request).map(|r| json_of(&r))
    }))
}

/// A concise text rendering of an X-Ray tool's answer; `None` for other tools.
pub fn text_of(name: &str, value: &Value) -> Option<String> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let list = |v: &Value, k: &str| v.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = String::new();
    for note in list(value, "notes").iter().chain(&list(value.get("metadata").unwrap_or(&Value::Null), "notes")) {
        out.push_str(&format!("note: {}\n", note.as_str().unwrap_or("")));
    }
    match name {
        "xray_search" => {
            out.push_str(&format!(
                "{} match(es) in {} file(s); {} candidate(s), {} parsed\n",
                n(value, "total_matches"),
                n(value, "matched"),
                n(value, "candidates"),
                n(value, "files_parsed")
            ));
            for m in list(value, "results") {
                let text = s(&m, "text");
                out.push_str(&format!(
                    "{}:{}:{}: {}",
                    s(&m, "path"),
                    n(&m, "line_start"),
                    n(&m, "column"),
                    text.lines().next().unwrap_or("")
                ));
                if let Some(v) = m.get("value") {
                    out.push_str(&format!("  => {v}"));
                }
                out.push('\n');
                for c in list(&m, "captures") {
                    out.push_str(&format!(
                        "    @{} {}:{}: {}\n",
                        s(&c, "name"),
                        n(&c, "line"),
                        n(&c, "column"),
                        s(&c, "text").lines().next().unwrap_or("")
                    ));
                }
            }
            for e in list(value, "evaluation_errors") {
                out.push_str(&format!("error: {}: {}: {}\n", s(&e, "path"), s(&e, "kind"), s(&e, "message")));
            }
        }
        "xray_explore" => {
            let ancestors: Vec<String> =
                list(value, "ancestors").iter().filter_map(|a| a.as_str().map(str::to_owned)).collect();
            if !ancestors.is_empty() {
                out.push_str(&format!("# in {}\n", ancestors.join(" > ")));
            }
            if let Some(captures) = value.get("captures").and_then(Value::as_array) {
                for c in captures {
                    out.push_str(&format!(
                        "{}:{}: @{} ({}) {}\n",
                        n(c, "line"),
                        n(c, "column"),
                        s(c, "capture"),
                        s(c, "kind"),
                        s(c, "text").lines().next().unwrap_or("")
                    ));
                }
            } else {
                for node in list(value, "nodes") {
                    let field = node.get("field").and_then(Value::as_str).map_or(String::new(), |f| format!("{f}: "));
                    let text = node.get("text").and_then(Value::as_str).map_or(String::new(), |t| format!("  {t:?}"));
                    out.push_str(&format!(
                        "{}{field}{} [{}:{}]{text}\n",
                        "  ".repeat(n(&node, "depth") as usize),
                        s(&node, "kind"),
                        n(&node, "line_start"),
                        n(&node, "column")
                    ));
                }
            }
        }
        _ => return None,
    }
    Some(out)
}
