//! The symbol graph's MCP tools: `find_references`, `get_call_graph`, `get_file_context`,
//! `get_related_tests`, `explain_symbol`. One table ([`TOOLS`]) gives each its name,
//! description, schemas and handler; `tools.rs` lists and runs them with the others.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::tools::{Common, TableTool, confine, freshness, input, json_of, parse, relaxed, scope};
use super::workspaces::Workspace;
use crate::engine::{
    Direction, Error, ExplainResponse, FileContextResponse, FileRequest, GraphRequest, GraphResponse,
    ReferencesResponse, TestsForResponse,
};

/// `find_references`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReferencesParams {
    /// The symbol: bare (`find`) or qualified (`Index::find`, `Greeter.greet`).
    pub name: String,
    /// Only this language.
    pub lang: Option<String>,
    /// Only uses in files under this path.
    pub path: Option<String>,
    /// At most this many uses (default 50).
    pub limit: Option<usize>,
    /// Only locations and confidence (much smaller answers).
    pub compact: Option<bool>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `get_call_graph`.
/// Which way a call graph goes.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GraphDirection {
    /// Callers.
    Up,
    /// Callees.
    Down,
    /// Both.
    Both,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallGraphParams {
    /// The symbol: bare or qualified.
    pub name: String,
    /// Callers (`up`, the default), callees (`down`) or both.
    pub direction: Option<GraphDirection>,
    /// Levels to follow (default 1, at most 5).
    pub depth: Option<u32>,
    /// At most this many symbols (default 50, at most 500).
    pub max_nodes: Option<usize>,
    /// Only this language.
    pub lang: Option<String>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `get_file_context`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FileContextParams {
    /// The file, relative to the repository root.
    pub path: String,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `get_related_tests`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RelatedTestsParams {
    /// A symbol name or a repository-relative file path.
    pub target: String,
    /// At most this many test files (default 20).
    pub limit: Option<usize>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `explain_symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExplainParams {
    /// The symbol: bare or qualified.
    pub name: String,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// Every graph tool.
pub const TOOLS: &[TableTool] = &[
    TableTool {
        name: "find_references",
        title: "Find references",
        description: "Every use of a symbol (calls, type uses, names), grouped by file, the definition first, \
                      each with its line, the symbol it sits in and how it was tied to the definition \
                      (resolved, import, same_package, unique_name, ambiguous with candidates). Use it before \
                      changing a function's signature.",
        input: input::<ReferencesParams>,
        output: relaxed::<ReferencesResponse>,
        handler: find_references,
    },
    TableTool {
        name: "get_call_graph",
        title: "Call graph",
        description: "Who calls a symbol (direction=up), what it calls (down) or both, depth levels deep, with \
                      every call site; calls to libraries are listed as external.",
        input: input::<CallGraphParams>,
        output: relaxed::<GraphResponse>,
        handler: get_call_graph,
    },
    TableTool {
        name: "get_file_context",
        title: "A file in context",
        description: "One file in context: its outline, what it imports (resolved to files), who imports it and \
                      its tests.",
        input: input::<FileContextParams>,
        output: relaxed::<FileContextResponse>,
        handler: get_file_context,
    },
    TableTool {
        name: "get_related_tests",
        title: "Related tests",
        description: "The tests of a symbol or a file: test files that use it, import its file, or are named \
                      after it (test_x.py, x_test.go, x.spec.ts, XTest.java). Use it to know what to run after \
                      an edit.",
        input: input::<RelatedTestsParams>,
        output: relaxed::<TestsForResponse>,
        handler: get_related_tests,
    },
    TableTool {
        name: "explain_symbol",
        title: "Explain a symbol",
        description: "A symbol in one answer: definition, signature, doc, how many callers and callees (the top \
                      few named), how many uses, and where it is tested.",
        input: input::<ExplainParams>,
        output: relaxed::<ExplainResponse>,
        handler: explain_symbol,
    },
];

/// The uses a `find_references` call asks for.
pub(super) fn references_request(p: &ReferencesParams, fresh: crate::engine::Freshness) -> GraphRequest {
    GraphRequest {
        name: p.name.clone(),
        lang: p.lang.clone(),
        path: p.path.clone(),
        scope: scope(&p.common),
        limit: p.limit.unwrap_or(50).clamp(1, 5000),
        depth: 1,
        freshness: fresh,
    }
}

fn find_references(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: ReferencesParams = parse(args)?;
    let request = references_request(&p, freshness(ws));
    let compact = p.compact.unwrap_or(false);
    Ok(ws.engine.references(&request).map(|r| {
        let mut value = json_of(&r);
        if compact && let Some(results) = value.get_mut("results").and_then(Value::as_array_mut) {
            for r in results {
                if let Some(m) = r.as_object_mut() {
                    m.retain(|k, _| ["path", "line", "kind", "confidence"].contains(&k.as_str()));
                }
            }
        }
        value
    }))
}

fn get_call_graph(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: CallGraphParams = parse(args)?;
    let direction = match p.direction.unwrap_or(GraphDirection::Up) {
        GraphDirection::Up => Direction::Up,
        GraphDirection::Down => Direction::Down,
        GraphDirection::Both => Direction::Both,
    };
    let request = GraphRequest {
        name: p.name,
        lang: p.lang,
        path: None,
        scope: scope(&p.common),
        limit: p.max_nodes.unwrap_or(50).clamp(1, 500),
        depth: p.depth.unwrap_or(1).clamp(1, 5),
        freshness: freshness(ws),
    };
    Ok(ws.engine.call_graph(&request, direction).map(|r| json_of(&r)))
}

fn get_file_context(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: FileContextParams = parse(args)?;
    Ok(confine(&ws.engine, &p.path)
        .and_then(|path| ws.engine.file_context(&path, &scope(&p.common), freshness(ws)))
        .map(|r| json_of(&r)))
}

fn get_related_tests(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: RelatedTestsParams = parse(args)?;
    // A path inside the workspace is a file; anything else is a symbol name.
    let target = if p.target.contains('/') { confine(&ws.engine, &p.target) } else { Ok(p.target.clone()) };
    Ok(target.and_then(|target| {
        ws.engine
            .tests_for(&FileRequest {
                target,
                scope: scope(&p.common),
                limit: p.limit.unwrap_or(20).clamp(1, 500),
                freshness: freshness(ws),
            })
            .map(|r| json_of(&r))
    }))
}

fn explain_symbol(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: ExplainParams = parse(args)?;
    Ok(ws.engine.explain_symbol(&p.name, &scope(&p.common), freshness(ws)).map(|r| json_of(&r)))
}

/// A concise text rendering of a graph tool's answer; `None` for other tools.
pub fn text_of(name: &str, value: &Value) -> Option<String> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let list = |v: &Value, k: &str| v.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = String::new();
    for note in list(value.get("metadata").unwrap_or(&Value::Null), "notes") {
        out.push_str(&format!("note: {}\n", note.as_str().unwrap_or("")));
    }
    match name {
        "find_references" => {
            for d in list(value, "definitions") {
                out.push_str(&format!(
                    "{}:{}: definition {} {}\n",
                    s(&d, "path"),
                    n(&d, "line"),
                    s(&d, "kind"),
                    s(&d, "qualified_name")
                ));
            }
            out.push_str(&format!("{} use(s) in {} file(s)\n", n(value, "total_matches"), n(value, "files")));
            for r in list(value, "results") {
                let caller = r.get("caller").map_or(String::new(), |c| format!(" in {}", s(c, "qualified_name")));
                out.push_str(&format!(
                    "{}:{}: {} [{} {}]{caller}\n",
                    s(&r, "path"),
                    n(&r, "line"),
                    s(&r, "text"),
                    s(&r, "kind"),
                    s(&r, "confidence")
                ));
            }
        }
        "get_call_graph" => {
            let nodes = list(value, "nodes");
            let label = |id: u64| {
                nodes
                    .get(id as usize)
                    .map_or(String::new(), |x| format!("{} {}:{}", s(x, "qualified_name"), s(x, "path"), n(x, "line")))
            };
            for e in list(value, "edges") {
                out.push_str(&format!(
                    "{} -> {} [{}]\n",
                    label(n(&e, "from")),
                    label(n(&e, "to")),
                    s(&e, "confidence")
                ));
            }
            let external: Vec<String> =
                list(value, "external").iter().filter_map(|x| x.as_str().map(str::to_owned)).collect();
            if !external.is_empty() {
                out.push_str(&format!("external: {}\n", external.join(", ")));
            }
        }
        _ => return None,
    }
    Some(out)
}
