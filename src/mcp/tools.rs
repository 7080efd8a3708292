//! The MCP tools: their descriptions and schemas (their parameters are in `params.rs`), and
//! how each maps onto the engine. The answers are the command line's `--json` shapes.

use std::path::Path;
use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::workspaces::Workspace;
use crate::engine::{
    ContextResponse, DiffRequest, DiffResponse, Engine, Error, Freshness, LocateRequest, LocateResponse,
    OutlineRequest, OutlineResponse, RefsResponse, SearchResponse, SourceRequest, SourceResponse, Strategy,
};
use crate::error::ErrorCode;
use crate::query::{Detail, Explain, Mode, SearchRequest};
use crate::quote::quote_path;
use crate::view::Scope;

pub use super::params::{
    AggregateParam, Common, CommonParams, ContextParams, ContextStrategy, DetailLevel, DiffParams, ExplainLevel,
    FilterParams, GroupBy, Health, IndexStatus, LocateParams, OutlineParams, ReadSourceParams, SearchMode,
    SearchParams, SyncAnswer, SyncParams, WorkspaceHealth,
};

/// A tool's description and schemas.
pub struct ToolSpec {
    /// Its name.
    pub name: &'static str,
    /// Its name for people.
    pub title: &'static str,
    /// When to use it.
    pub description: &'static str,
    /// Its input schema.
    pub input: std::sync::Arc<JsonObject>,
    /// Its output schema.
    pub output: std::sync::Arc<JsonObject>,
}

fn schema<T: JsonSchema>() -> serde_json::Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>();
    match serde_json::to_value(schema) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    }
}

/// Output schemas list every field but require none: partial answers (while indexing) and
/// compact ones leave fields out.
pub(super) fn relaxed<T: JsonSchema>() -> std::sync::Arc<JsonObject> {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("required");
                for (_, child) in map.iter_mut() {
                    strip(child);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = Value::Object(schema::<T>());
    strip(&mut value);
    if let Value::Object(map) = &mut value {
        map.insert("type".into(), json!("object"));
    }
    match value {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => std::sync::Arc::new(JsonObject::new()),
    }
}

pub(super) fn input<T: JsonSchema>() -> std::sync::Arc<JsonObject> {
    let mut map = schema::<T>();
    map.insert("type".into(), json!("object"));
    std::sync::Arc::new(map)
}

/// What a tool does to its world, for clients deciding what to allow: every tool reads the
/// repository and never changes it; all but `sync_repo` only answer (they may refresh the
/// index cache on the way, as any query does), `sync_repo` rewrites that cache; none deletes
/// anything a user made, every one can be repeated, and none reaches beyond the machine.
pub fn annotations(spec: &ToolSpec) -> rmcp::model::ToolAnnotations {
    rmcp::model::ToolAnnotations::with_title(spec.title)
        .read_only(spec.name != "sync_repo")
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// How a table tool runs: its arguments and workspace in, its answer (or the engine's
/// error) out; `Err(String)` for arguments that do not parse.
pub type Handler = fn(Option<&JsonObject>, &Arc<Workspace>) -> Result<Result<Value, Error>, String>;

/// A tool declared in a table (`graph_tools`, `xray_tools`): its spec and how to run it.
pub struct TableTool {
    /// Its name.
    pub name: &'static str,
    /// Its title.
    pub title: &'static str,
    /// What it does, for the agent choosing it.
    pub description: &'static str,
    /// Its input schema.
    pub input: fn() -> Arc<JsonObject>,
    /// Its output schema.
    pub output: fn() -> Arc<JsonObject>,
    /// How it runs.
    pub handler: Handler,
}

/// The tables of tools beside the core ones.
const TABLES: &[&[TableTool]] = &[super::graph_tools::TOOLS, super::xray_tools::TOOLS, super::history_tools::TOOLS];

fn table_tool(name: &str) -> Option<&'static TableTool> {
    TABLES.iter().flat_map(|t| t.iter()).find(|t| t.name == name)
}

/// Every tool.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "search_code",
            title: "Search code",
            description: "Search code by name, words, path, exact text or regex; path:line answers ranked, \
                          definitions first. mode=regex|literal gives every matching line (like git grep). A \
                          question of any length works: paste the whole issue, traceback or log line. \
                          group_by=file answers which files to read for it.",
            input: input::<SearchParams>(),
            output: relaxed::<SearchResponse>(),
        },
        ToolSpec {
            name: "locate_symbol",
            title: "Locate a symbol's definition",
            description: "Find where a symbol (function, class, method, constant, ...) is defined, by exact or \
                          qualified name (`Cart::total`, `Greeter.greet`). Fastest way to jump to a definition.",
            input: input::<LocateParams>(),
            output: relaxed::<LocateResponse>(),
        },
        ToolSpec {
            name: "get_code_context",
            title: "Gather code context within a token budget",
            description: "Gather the code that answers a question, whole results fitted into a token budget \
                          (max_tokens): the relevant symbols of the best files. Use it to load context before \
                          editing; pasting the issue text as the question is fine.",
            input: input::<ContextParams>(),
            output: relaxed::<ContextResponse>(),
        },
        ToolSpec {
            name: "get_file_outline",
            title: "Outline a file",
            description: "List the symbols of one file, nested, with lines and signatures: see a file's structure \
                          without reading it.",
            input: input::<OutlineParams>(),
            output: relaxed::<OutlineResponse>(),
        },
        ToolSpec {
            name: "read_source",
            title: "Read source",
            description: "Read a symbol's definition (by name) or a line range of a file. At most 200 lines per \
                          symbol and 500 per call; expand adds lines around, collapse folds nested bodies.",
            input: input::<ReadSourceParams>(),
            output: relaxed::<SourceResponse>(),
        },
        ToolSpec {
            name: "diff_context",
            title: "Symbols changed on a branch",
            description: "What changed on a branch (or the working tree) since its merge base with another ref: \
                          files, and symbols added, modified (signature or body), deleted or moved.",
            input: input::<DiffParams>(),
            output: relaxed::<DiffResponse>(),
        },
        ToolSpec {
            name: "list_refs",
            title: "List refs and their freshness",
            description: "List branches, tags and worktrees with their commits, what is indexed and whether it \
                          is fresh.",
            input: input::<CommonParams>(),
            output: relaxed::<RefsResponse>(),
        },
        ToolSpec {
            name: "index_status",
            title: "Index status",
            description: "Index state of a workspace: whether it is indexed, indexing progress, views, refs and \
                          interrupted jobs.",
            input: input::<CommonParams>(),
            output: relaxed::<IndexStatus>(),
        },
        ToolSpec {
            name: "health_check",
            title: "Server health",
            description: "Whether the server is ready, indexing or warming, with every workspace's state.",
            input: input::<CommonParams>(),
            output: relaxed::<Health>(),
        },
        ToolSpec {
            name: "list_repos",
            title: "List the repositories served",
            description: "The registered repositories this server answers for (started with --all-repos or \
                          --repo), by alias, each with its path and whether it is still there. Pass an alias as \
                          `repo` to any tool; a glob (`svc-*`, `*`) asks several at once in search_code, \
                          locate_symbol and find_references.",
            input: input::<CommonParams>(),
            output: relaxed::<super::repos::ListReposAnswer>(),
        },
        ToolSpec {
            name: "sync_repo",
            title: "Bring the index up to date",
            description: "Bring the index up to date now (the working tree, HEAD, the default branch, linked \
                          worktrees, or only `ref` when given). Sends progress when the client asks for it.",
            input: input::<SyncParams>(),
            output: relaxed::<SyncAnswer>(),
        },
    ]
    .into_iter()
    .chain(TABLES.iter().flat_map(|t| t.iter()).map(|t| ToolSpec {
        name: t.name,
        title: t.title,
        description: t.description,
        input: (t.input)(),
        output: (t.output)(),
    }))
    .collect()
}

/// Parses a tool's arguments.
pub fn parse<T: for<'de> Deserialize<'de>>(args: Option<&JsonObject>) -> Result<T, String> {
    let value = Value::Object(args.cloned().unwrap_or_default());
    serde_json::from_value(value).map_err(|e| e.to_string())
}

pub(super) fn scope(common: &Common) -> Scope {
    Scope::from_option(common.reference.as_deref().filter(|r| !r.is_empty()))
}

/// Turns a request path into a repository-relative one that stays inside the workspace:
/// absolute paths must be inside it, `..` may not climb out, and symlinked directories are
/// resolved before the check.
pub fn confine(engine: &Engine, path: &str) -> Result<String, Error> {
    let root = engine.workspace().root();
    let candidate = Path::new(path);
    if candidate.is_absolute() && !candidate.starts_with(root) {
        let canonical = std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.to_owned());
        if !canonical.starts_with(root) {
            return Err(Error::new(ErrorCode::PathOutsideWorkspace, format!("`{path}` is outside the workspace"))
                .with_remedy("give a path relative to the repository root"));
        }
    }
    engine.relative_path(root, path)
}

pub(super) fn freshness(ws: &Workspace) -> Freshness {
    if ws.busy() {
        // While indexing, answer from what exists instead of waiting for the writer.
        return Freshness::Current;
    }
    Freshness::configured(ws.engine.workspace(), Freshness::Balanced)
}

/// Runs a query tool. Returns the structured answer.
pub fn run(name: &str, args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let engine = &ws.engine;
    let to_value = |r: Result<Value, Error>| r;
    let value = match name {
        "search_code" => {
            let p: SearchParams = parse(args)?;
            let request = search_request(&p);
            let compact = request.compact;
            to_value(engine.search(&request, &scope(&p.common), freshness(ws)).map(|r| {
                let value = json_of(&r);
                if compact { compact_envelope(value) } else { value }
            }))
        }
        "locate_symbol" => {
            let p: LocateParams = parse(args)?;
            let request = locate_request(&p, freshness(ws));
            let detail = p.detail_level.unwrap_or(DetailLevel::Signature);
            let compact = p.compact.unwrap_or(false);
            to_value(engine.locate(&request).map(|r| shape_locate(json_of(&r), detail, compact)))
        }
        "get_code_context" => {
            let p: ContextParams = parse(args)?;
            let strategy = if p.strategy == Some(ContextStrategy::Depth) { Strategy::Depth } else { Strategy::Breadth };
            let request = SearchRequest {
                query: p.query,
                mode: Mode::Auto,
                limit: 30,
                context: 0,
                detail: Detail::Context,
                compact: false,
                fuzzy: 0,
                case_sensitive: false,
                ignore_case: false,
                explain: Explain::Off,
                max_tokens: Some(p.max_tokens),
                filters: p.filters.filters(),
                timeout: std::time::Duration::from_secs(30),
                files: false,
                grep: Default::default(),
                comparable: false,
            };
            to_value(engine.context(&request, strategy, &scope(&p.common), freshness(ws)).map(|r| json_of(&r)))
        }
        "get_file_outline" => {
            let p: OutlineParams = parse(args)?;
            match confine(engine, &p.path) {
                Err(e) => Err(e),
                Ok(path) => {
                    let request = OutlineRequest {
                        path,
                        all: p.depth.as_deref() != Some("top"),
                        scope: scope(&p.common),
                        freshness: freshness(ws),
                    };
                    engine.outline(&request).map(|r| json_of(&r))
                }
            }
        }
        "read_source" => {
            let p: ReadSourceParams = parse(args)?;
            let path = match p.path.as_deref().map(|path| confine(engine, path)).transpose() {
                Ok(path) => path,
                Err(e) => return Ok(Err(e)),
            };
            let request = SourceRequest {
                path,
                symbol: p.symbol,
                line_start: p.line_start,
                line_end: p.line_end,
                expand: p.expand.unwrap_or(0).min(200),
                collapse: p.collapse.unwrap_or(false),
                scope: scope(&p.common),
                freshness: freshness(ws),
            };
            engine.read_source(&request).map(|r| json_of(&r))
        }
        "diff_context" => {
            let p: DiffParams = parse(args)?;
            let target = match p.common.reference.clone().filter(|r| !r.is_empty()) {
                Some(r) => Scope::Ref(r),
                None if engine.workspace().has_worktree() => Scope::Worktree,
                None => Scope::Ref("HEAD".into()),
            };
            let request =
                DiffRequest { target, base: p.base, detail: p.detail_level.unwrap_or(DetailLevel::Signature).detail() };
            engine.diff(&request).map(|r| json_of(&r))
        }
        "list_refs" => {
            let _: CommonParams = parse(args)?;
            engine.refs().map(|r| json_of(&r))
        }
        _ => {
            return match table_tool(name) {
                Some(tool) => (tool.handler)(args, ws),
                None => Err(format!("unknown tool `{name}`")),
            };
        }
    };
    Ok(value)
}

/// The lookup a `locate_symbol` call asks for.
pub(super) fn locate_request(p: &LocateParams, freshness: Freshness) -> LocateRequest {
    LocateRequest {
        name: p.name.clone(),
        kind: p.kind.clone(),
        lang: p.lang.clone(),
        scope: scope(&p.common),
        limit: p.limit.unwrap_or(20).clamp(1, 1000),
        freshness,
    }
}

/// The search a `search_code` call asks for.
pub(super) fn search_request(p: &SearchParams) -> SearchRequest {
    let mode = match p.mode.unwrap_or(SearchMode::Auto) {
        SearchMode::Auto => Mode::Auto,
        SearchMode::Fts => Mode::Fts,
        SearchMode::Regex => Mode::Regex,
        SearchMode::Symbol => Mode::Symbol,
        SearchMode::Path => Mode::Path,
        SearchMode::Literal => Mode::Literal,
    };
    let exact = matches!(mode, Mode::Regex | Mode::Literal);
    let files = p.group_by == Some(GroupBy::File);
    let default_limit = if exact {
        100
    } else if files {
        10
    } else {
        20
    };
    SearchRequest {
        query: p.query.clone(),
        mode,
        limit: p.limit.unwrap_or(default_limit).clamp(1, 10_000),
        context: p.context_lines.unwrap_or(0).min(50),
        detail: p.detail_level.unwrap_or(DetailLevel::Signature).detail(),
        compact: p.compact.unwrap_or(false),
        fuzzy: p.fuzzy.unwrap_or(0),
        case_sensitive: p.case_sensitive.unwrap_or(false),
        ignore_case: p.ignore_case.unwrap_or(false),
        explain: match p.explain {
            Some(ExplainLevel::Basic) => Explain::Basic,
            Some(ExplainLevel::Full) => Explain::Full,
            Some(ExplainLevel::Off) | None => Explain::Off,
        },
        max_tokens: p.max_tokens,
        filters: p.filters.filters(),
        timeout: std::time::Duration::from_secs(30),
        files,
        grep: Default::default(),
        comparable: false,
    }
}

pub(super) fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Compact answers keep the contract's envelope (`codecompass_protocol_version`, `ref`,
/// `commit`, the metadata flags) and each result's location, and drop everything else.
fn compact_envelope(mut value: Value) -> Value {
    const KEEP_TOP: &[&str] = &["codecompass_protocol_version", "ref", "commit", "results", "metadata", "suggestion"];
    const KEEP_RESULT: &[&str] = &["path", "line_start", "line_end", "line", "name", "kind", "also_at"];
    if let Some(map) = value.as_object_mut() {
        map.retain(|k, _| KEEP_TOP.contains(&k.as_str()));
        if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("view");
        }
        if let Some(results) = map.get_mut("results").and_then(Value::as_array_mut) {
            for r in results {
                if let Some(m) = r.as_object_mut() {
                    m.retain(|k, _| KEEP_RESULT.contains(&k.as_str()));
                }
            }
        }
    }
    value
}

/// `locate` has no detail levels of its own: the boundary trims its results.
fn shape_locate(value: Value, detail: DetailLevel, compact: bool) -> Value {
    if compact {
        return compact_envelope(value);
    }
    let mut value = value;
    let keep: &[&str] = match detail {
        DetailLevel::Location => &["path", "line_start", "line_end", "line", "name", "kind"],
        _ => return value,
    };
    if let Some(results) = value.get_mut("results").and_then(Value::as_array_mut) {
        for r in results {
            if let Some(map) = r.as_object_mut() {
                map.retain(|k, _| keep.contains(&k.as_str()));
            }
        }
    }
    value
}

/// A concise text rendering of an answer, for clients that show text.
pub fn text_of(name: &str, value: &Value) -> String {
    let graph_text = super::graph_tools::text_of(name, value).or_else(|| super::xray_tools::text_of(name, value));
    let mut out = String::new();
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    match name {
        _ if graph_text.is_some() => out = graph_text.unwrap_or_default(),
        "search_code" | "get_code_context" | "locate_symbol" => {
            let results = value.get("results").and_then(Value::as_array).cloned().unwrap_or_default();
            out.push_str(&format!("{} result(s) in {}\n", results.len(), str_of(value, "ref")));
            let metadata = value.get("metadata");
            if let Some(reason) =
                metadata.and_then(|m| m.get("fallback")).and_then(|f| f.get("reason")).and_then(Value::as_str)
            {
                out.push_str(&format!("note: {reason}\n"));
            }
            for note in metadata.and_then(|m| m.get("notes")).and_then(Value::as_array).cloned().unwrap_or_default() {
                out.push_str(&format!("note: {}\n", note.as_str().unwrap_or("")));
            }
            for r in &results {
                let name = r.get("qualified_name").or_else(|| r.get("name")).and_then(Value::as_str).unwrap_or("");
                out.push_str(&format!(
                    "{}:{}: {} {}",
                    quote_path(&str_of(r, "path")),
                    num(r, "line_start"),
                    str_of(r, "kind"),
                    name
                ));
                if let Some(sig) = r.get("signature").and_then(Value::as_str) {
                    out.push_str(&format!("  {sig}"));
                }
                out.push('\n');
                for s in r.get("symbols").and_then(Value::as_array).cloned().unwrap_or_default().iter().take(5) {
                    out.push_str(&format!("  {}: {} {}\n", num(s, "line_start"), str_of(s, "kind"), str_of(s, "name")));
                }
                for l in r.get("lines").and_then(Value::as_array).cloned().unwrap_or_default().iter().take(3) {
                    out.push_str(&format!("  {}: {}\n", num(l, "line"), str_of(l, "text").trim()));
                }
                if let Some(preview) = r.get("preview").and_then(Value::as_str) {
                    for line in preview.lines().take(40) {
                        out.push_str(&format!("  | {line}\n"));
                    }
                }
            }
        }
        "get_file_outline" => {
            fn walk(symbols: &[Value], depth: usize, out: &mut String) {
                for s in symbols {
                    let get = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or("");
                    out.push_str(&format!(
                        "{}{}: {} {}  {}\n",
                        "  ".repeat(depth),
                        s.get("line").and_then(Value::as_u64).unwrap_or(0),
                        get("kind"),
                        get("name"),
                        get("signature")
                    ));
                    walk(&s.get("children").and_then(Value::as_array).cloned().unwrap_or_default(), depth + 1, out);
                }
            }
            out.push_str(&format!("{}\n", quote_path(&str_of(value, "path"))));
            walk(&value.get("symbols").and_then(Value::as_array).cloned().unwrap_or_default(), 0, &mut out);
        }
        "read_source" => {
            let start = num(value, "line_start");
            out.push_str(&format!("{}:{}-{}\n", quote_path(&str_of(value, "path")), start, num(value, "line_end")));
            for (i, line) in str_of(value, "text").lines().enumerate() {
                out.push_str(&format!("{:>5}  {line}\n", start as usize + i));
            }
        }
        _ => out.push_str(&serde_json::to_string_pretty(value).unwrap_or_default()),
    }
    if out.len() > 20_000 {
        let mut cut = 20_000;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n… (cut; the structured content has everything)");
    }
    out
}
