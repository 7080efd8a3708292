//! `references`, `callers`, `callees` and `graph`: the symbol graph of one view, computed when
//! asked from the per-blob references (`crate::graph` resolves them).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, ResolvedScope, metadata};
use crate::error::ErrorCode;
use crate::extract::{RefKind, name_segments as segments};
use crate::graph::{Confidence, Def, Use, ViewGraph};
use crate::query::ContentReader;
use crate::store::Store;
use crate::view::Scope;

/// What a graph command is asked: a name in a view, with filters.
#[derive(Clone, Debug)]
pub struct GraphRequest {
    /// The name, bare (`find`) or qualified (`Index::find`, `Greeter.greet`).
    pub name: String,
    /// Only definitions and references in this language.
    pub lang: Option<String>,
    /// Only references in files under this path (a directory or file prefix).
    pub path: Option<String>,
    /// The scope.
    pub scope: Scope,
    /// At most this many references (`references`) or nodes (`graph`).
    pub limit: usize,
    /// How many call levels (`callers`, `callees`, `graph`).
    pub depth: u32,
    /// How hard to try for freshness.
    pub freshness: Freshness,
}

/// A definition a graph answer is about.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GraphDefinition {
    /// Repository-relative path.
    pub path: String,
    /// The line of the name.
    pub line: u32,
    /// First line of the definition.
    pub line_start: u32,
    /// Last line of the definition.
    pub line_end: u32,
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// Language.
    pub language: String,
    /// Declaration head.
    pub signature: String,
}

/// The symbol a reference sits in.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Caller {
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// The line of its name.
    pub line: u32,
}

/// One use of a name.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Reference {
    /// Repository-relative path.
    pub path: String,
    /// Line (1-based).
    pub line: u32,
    /// Column of the name (1-based, in bytes).
    pub column: u32,
    /// `call`, `type`, `name`, or `import_name` (a name a Python `from m import` brings in).
    pub kind: &'static str,
    /// The line's text.
    pub text: String,
    /// The symbol the use sits in; absent at the top level of a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller: Option<Caller>,
    /// How the use was tied to the definition: `resolved` (same file), `import`,
    /// `same_package`, `unique_name`, `ambiguous` (see `candidates`) or `unresolved` (no
    /// definition in the view: a library or a builtin).
    pub confidence: &'static str,
    /// For `ambiguous`: every definition it could mean, as `path:line`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// Otherwise the definition it means, as `path:line` (of several a name has).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
}

/// The answer of `references`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ReferencesResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The query.
    pub query: String,
    /// The definitions the name means in this view.
    pub definitions: Vec<GraphDefinition>,
    /// The uses, grouped by file (files that hold a definition first), by line.
    pub results: Vec<Reference>,
    /// Uses found before the limit.
    pub total_matches: usize,
    /// Files with uses.
    pub files: usize,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// A node of a call graph: a definition, or the top level of a file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GraphNode {
    /// Index in `nodes`.
    pub id: usize,
    /// Name (the path, for a file's top level).
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind (`file` for a file's top level).
    pub kind: String,
    /// Repository-relative path.
    pub path: String,
    /// The line of its name.
    pub line: u32,
    /// Language.
    pub language: String,
    /// Call levels from the root (0 for the root).
    pub depth: u32,
}

/// Where a call happens.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CallSite {
    /// Repository-relative path.
    pub path: String,
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

/// A call from one node to another.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GraphEdge {
    /// The caller's node id.
    pub from: usize,
    /// The callee's node id.
    pub to: usize,
    /// As in `references`; an `ambiguous` call is shown to every candidate it could mean.
    pub confidence: &'static str,
    /// Every call site.
    pub sites: Vec<CallSite>,
}

/// The answer of `callers`, `callees` and `graph`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct GraphResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The query.
    pub query: String,
    /// `up` (callers), `down` (callees) or `both`.
    pub direction: &'static str,
    /// Levels followed.
    pub depth: u32,
    /// The roots (the definitions of the name) first, then each level.
    pub nodes: Vec<GraphNode>,
    /// Calls between nodes.
    pub edges: Vec<GraphEdge>,
    /// Callees with no definition in the view (libraries, builtins), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub external: Vec<String>,
    /// Whether the node limit cut the graph.
    pub truncated: bool,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// Which way a call graph goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Callers.
    Up,
    /// Callees.
    Down,
    /// Both.
    Both,
}

impl Direction {
    fn as_str(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Both => "both",
        }
    }
}

fn suffix_matches(qualified: &str, query: &[&str]) -> bool {
    let have = segments(qualified);
    have.len() >= query.len() && have[have.len() - query.len()..].iter().zip(query).all(|(a, b)| a == b)
}

/// Whether `query` names the symbol through its module path: `billing.engine.run` for `run`
/// in `billing/engine.py` or `billing/engine/__init__.py`, `index::find` for `src/index.rs`.
fn module_qualified(path: &str, qualified: &str, query: &[&str]) -> bool {
    let stem = path.rsplit_once('.').map_or(path, |(stem, _)| stem);
    let mut module: Vec<&str> = stem.split('/').collect();
    if module.last().is_some_and(|m| matches!(*m, "__init__" | "mod" | "index" | "lib" | "main")) {
        module.pop();
    }
    let mut full = module;
    full.extend(segments(qualified));
    full.len() >= query.len() && full[full.len() - query.len()..] == *query
}

fn wanted_language(lang: Option<&str>) -> Result<Option<&'static str>, Error> {
    lang.map(|l| {
        crate::lang::by_name(l).map(|l| l.name).ok_or_else(|| {
            Error::new(ErrorCode::InvalidArgument, format!("unknown language `{l}`")).with_remedy(format!(
                "use one of: {}",
                crate::lang::LANGUAGES.iter().map(|l| l.name).collect::<Vec<_>>().join(", ")
            ))
        })
    })
    .transpose()
}

/// The request's view, its graph's inputs and the definitions its name means.
struct Target {
    store: Store,
    resolved: ResolvedScope,
    max_file_size: u64,
    /// The last segment of the name.
    name: String,
    lang: Option<&'static str>,
}

fn open(engine: &Engine, request: &GraphRequest) -> Result<Target, Error> {
    let lang = wanted_language(request.lang.as_deref())?;
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let query = request.name.trim();
    let name = segments(query).last().copied().unwrap_or(query).to_owned();
    if name.is_empty() {
        return Err(Error::new(ErrorCode::InvalidArgument, "give a name: `find`, `Index::find`, `Greeter.greet`"));
    }
    Ok(Target { store, resolved, max_file_size: engine.workspace().max_file_size(), name, lang })
}

/// The definitions `query` names among `all` (the definitions of its last segment).
pub(super) fn roots(all: &[Def], query: &str, lang: Option<&str>) -> Vec<usize> {
    let parts = segments(query.trim());
    (0..all.len())
        .filter(|&i| {
            parts.len() < 2
                || suffix_matches(&all[i].symbol.qualified_name, &parts)
                || module_qualified(&all[i].file.path, &all[i].symbol.qualified_name, &parts)
        })
        .filter(|&i| lang.is_none_or(|l| all[i].file.lang == l))
        .collect()
}

fn definition(d: &Def) -> GraphDefinition {
    GraphDefinition {
        path: d.file.path.clone(),
        line: d.symbol.name_line,
        line_start: d.symbol.line_start,
        line_end: d.symbol.line_end,
        name: d.symbol.name.clone(),
        qualified_name: d.symbol.qualified_name.clone(),
        kind: d.symbol.kind.clone(),
        language: d.file.lang.to_owned(),
        signature: d.symbol.signature.clone(),
    }
}

fn under(path: &str, prefix: Option<&str>) -> bool {
    prefix.is_none_or(|p| {
        let p = p.trim_start_matches("./").trim_end_matches('/');
        p.is_empty() || path == p || path.starts_with(&format!("{p}/"))
    })
}

/// Lines of files, read once each.
struct Lines<'e> {
    reader: ContentReader<'e>,
    local: Option<crate::git::LocalRepo>,
    cache: HashMap<u32, Rc<Vec<String>>>,
}

impl<'e> Lines<'e> {
    fn new(engine: &'e Engine) -> Lines<'e> {
        let reader = ContentReader {
            git: engine.workspace().git(),
            store_dir: engine.workspace().store_dir(),
            root: engine.workspace().root(),
        };
        let local = reader.local();
        Lines { reader, local, cache: HashMap::new() }
    }

    fn line(&mut self, store: &Store, fv: u32, line: u32) -> String {
        let lines = self.cache.entry(fv).or_insert_with(|| {
            let data = store
                .file_infos([fv])
                .ok()
                .and_then(|mut f| f.pop())
                .and_then(|info| self.reader.read(self.local.as_ref(), &info))
                .unwrap_or_default();
            Rc::new(String::from_utf8_lossy(&data).lines().map(|l| l.trim_end().to_owned()).collect())
        });
        let text = lines.get(line as usize - 1).map_or("", |l| l.trim_start());
        text.chars().take(240).collect()
    }
}

pub(super) fn references(engine: &Engine, request: &GraphRequest) -> Result<ReferencesResponse, Error> {
    let t = open(engine, request)?;
    let graph = ViewGraph::new(&t.store, &t.resolved.view.bitmap, t.max_file_size);
    let all = graph.definitions(&t.name)?;
    let targets: HashSet<usize> = roots(&all, &request.name, t.lang).into_iter().collect();
    let mut notes = Vec::new();
    let qualified = segments(request.name.trim()).len() > 1;
    if targets.is_empty() && (qualified || !all.is_empty()) {
        // A qualified name, or a language filter, that matches none of the definitions.
        notes.push(format!(
            "no definition named `{}` in {}",
            crate::quote::shown_query(request.name.trim()),
            t.resolved.name
        ));
    } else if all.is_empty() {
        notes.push(format!(
            "no definition named `{}` in {}: showing every use, unresolved (a library or a builtin)",
            crate::quote::shown_query(&t.name),
            t.resolved.name
        ));
    }
    let mut lines = Lines::new(engine);
    let mut found: Vec<(Use, Confidence, Vec<usize>)> = Vec::new();
    // A name whose definitions the query's qualification or language excluded has no uses.
    if !targets.is_empty() || (all.is_empty() && !qualified) {
        for u in graph.uses(&t.name)? {
            if t.lang.is_some_and(|l| u.file.lang != l) || !under(&u.file.path, request.path.as_deref()) {
                continue;
            }
            if all.is_empty() {
                // An object literal's key is a use only of a member its call's type declares.
                if crate::graph::argument_key(&u.occurrence.qualifier).is_none() {
                    found.push((u, Confidence::Ambiguous, Vec::new()));
                }
                continue;
            }
            let resolution = graph.resolve(&u, &all)?;
            if resolution.targets.iter().any(|i| targets.contains(i)) {
                found.push((u, resolution.confidence, resolution.targets));
            }
        }
    }
    let defining: HashSet<u32> = targets.iter().map(|&i| all[i].file.fv).collect();
    found.sort_by(|a, b| {
        let key = |f: &(Use, Confidence, Vec<usize>)| {
            (!defining.contains(&f.0.file.fv), f.0.file.path.clone(), f.0.occurrence.line, f.0.occurrence.column)
        };
        key(a).cmp(&key(b))
    });
    let total = found.len();
    let files = found.iter().map(|f| f.0.file.fv).collect::<HashSet<_>>().len();
    let mut results = Vec::new();
    for (u, confidence, targets) in found.into_iter().take(request.limit) {
        let at = |i: usize| format!("{}:{}", all[i].file.path, all[i].symbol.name_line);
        let ambiguous = confidence == Confidence::Ambiguous;
        let caller = graph.caller_of(&u)?.map(|s| Caller {
            name: s.name,
            qualified_name: s.qualified_name,
            kind: s.kind,
            line: s.name_line,
        });
        results.push(Reference {
            path: u.file.path.clone(),
            line: u.occurrence.line,
            column: u.occurrence.column,
            kind: u.occurrence.kind.as_str(),
            text: lines.line(&t.store, u.file.fv, u.occurrence.line),
            caller,
            confidence: if all.is_empty() { "unresolved" } else { confidence.as_str() },
            candidates: if ambiguous { targets.iter().map(|&i| at(i)).collect() } else { Vec::new() },
            definition: if ambiguous { None } else { targets.first().map(|&i| at(i)) },
        });
    }
    let mut definitions: Vec<usize> = targets.into_iter().collect();
    definitions.sort_by(|&a, &b| {
        (&all[a].file.path, all[a].symbol.name_line).cmp(&(&all[b].file.path, all[b].symbol.name_line))
    });
    t.store.touch_view(t.resolved.view.id);
    super::across::release(t.store);
    let mut meta = metadata(&t.resolved, if total > results.len() { "truncated" } else { "complete" });
    meta.notes.extend(notes);
    Ok(ReferencesResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: t.resolved.name.clone(),
        commit: t.resolved.commit.map(|c| c.to_hex()),
        query: request.name.trim().to_owned(),
        definitions: definitions.iter().map(|&i| definition(&all[i])).collect(),
        results,
        total_matches: total,
        files,
        metadata: meta,
    })
}

/// A node key: file version and symbol ord (`u32::MAX` for a file's top level).
type NodeKey = (u32, u32);

struct Builder<'g, 's> {
    graph: &'g ViewGraph<'s>,
    nodes: Vec<GraphNode>,
    /// Definitions behind nodes (none for a file's top level).
    defs: Vec<Option<Def>>,
    index: HashMap<NodeKey, usize>,
    edges: HashMap<(usize, usize), GraphEdge>,
    external: std::collections::BTreeSet<String>,
    limit: usize,
    truncated: bool,
}

impl Builder<'_, '_> {
    fn node_of_def(&mut self, d: &Def, depth: u32) -> Option<usize> {
        if let Some(&i) = self.index.get(&d.key()) {
            return Some(i);
        }
        if self.nodes.len() >= self.limit {
            self.truncated = true;
            return None;
        }
        let id = self.nodes.len();
        self.nodes.push(GraphNode {
            id,
            name: d.symbol.name.clone(),
            qualified_name: d.symbol.qualified_name.clone(),
            kind: d.symbol.kind.clone(),
            path: d.file.path.clone(),
            line: d.symbol.name_line,
            language: d.file.lang.to_owned(),
            depth,
        });
        self.defs.push(Some(d.clone()));
        self.index.insert(d.key(), id);
        Some(id)
    }

    fn node_of_top_level(&mut self, u: &Use, depth: u32) -> Option<usize> {
        let key = (u.file.fv, u32::MAX);
        if let Some(&i) = self.index.get(&key) {
            return Some(i);
        }
        if self.nodes.len() >= self.limit {
            self.truncated = true;
            return None;
        }
        let id = self.nodes.len();
        self.nodes.push(GraphNode {
            id,
            name: u.file.path.clone(),
            qualified_name: u.file.path.clone(),
            kind: "file".to_owned(),
            path: u.file.path.clone(),
            line: 1,
            language: u.file.lang.to_owned(),
            depth,
        });
        self.defs.push(None);
        self.index.insert(key, id);
        Some(id)
    }

    fn edge(&mut self, from: usize, to: usize, confidence: Confidence, u: &Use) {
        let edge = self.edges.entry((from, to)).or_insert_with(|| GraphEdge {
            from,
            to,
            confidence: confidence.as_str(),
            sites: Vec::new(),
        });
        // The edge is as sure as its surest call.
        if confidence < confidence_of(edge.confidence) {
            edge.confidence = confidence.as_str();
        }
        edge.sites.push(CallSite { path: u.file.path.clone(), line: u.occurrence.line, column: u.occurrence.column });
    }

    /// The callers of node `id`; returns the nodes added.
    fn up(&mut self, id: usize, depth: u32) -> Result<Vec<usize>, Error> {
        let Some(target) = self.defs[id].clone() else {
            return Ok(Vec::new());
        };
        let all = self.graph.definitions(&target.symbol.name)?;
        let Some(me) = all.iter().position(|d| d.key() == target.key()) else {
            return Ok(Vec::new());
        };
        let mut added = Vec::new();
        for u in self.graph.uses(&target.symbol.name)? {
            if self.truncated {
                break;
            }
            if u.occurrence.kind != RefKind::Call {
                continue;
            }
            let resolution = self.graph.resolve(&u, &all)?;
            if !resolution.targets.contains(&me) {
                continue;
            }
            let caller = match self.graph.caller_of(&u)? {
                Some(symbol) => {
                    let d = Def { file: u.file.clone(), symbol };
                    let known = self.index.contains_key(&d.key());
                    let node = self.node_of_def(&d, depth);
                    if !known && let Some(n) = node {
                        added.push(n);
                    }
                    node
                }
                None => self.node_of_top_level(&u, depth),
            };
            if let Some(from) = caller {
                self.edge(from, id, resolution.confidence, &u);
            }
        }
        Ok(added)
    }

    /// The callees of node `id`; returns the nodes added.
    fn down(&mut self, id: usize, depth: u32) -> Result<Vec<usize>, Error> {
        let Some(source) = self.defs[id].clone() else {
            return Ok(Vec::new());
        };
        let occurrences = self.graph.occurrences(source.file.record)?;
        let mut added = Vec::new();
        for o in occurrences.iter().filter(|o| o.kind == RefKind::Call && o.caller == Some(source.symbol.ord)) {
            let all = self.graph.definitions(&o.name)?;
            if all.is_empty() {
                self.external.insert(o.name.clone());
                continue;
            }
            let u = Use { file: source.file.clone(), occurrence: o.clone() };
            let resolution = self.graph.resolve(&u, &all)?;
            if resolution.targets.is_empty() {
                self.external.insert(o.name.clone());
            }
            for &t in &resolution.targets {
                let known = self.index.contains_key(&all[t].key());
                let Some(to) = self.node_of_def(&all[t], depth) else { continue };
                if !known {
                    added.push(to);
                }
                self.edge(id, to, resolution.confidence, &u);
            }
        }
        Ok(added)
    }
}

fn confidence_of(name: &str) -> Confidence {
    match name {
        "resolved" => Confidence::Resolved,
        "import" => Confidence::Import,
        "same_package" => Confidence::SamePackage,
        "unique_name" => Confidence::UniqueName,
        _ => Confidence::Ambiguous,
    }
}

pub(super) fn call_graph(
    engine: &Engine,
    request: &GraphRequest,
    direction: Direction,
) -> Result<GraphResponse, Error> {
    let t = open(engine, request)?;
    let graph = ViewGraph::new(&t.store, &t.resolved.view.bitmap, t.max_file_size);
    let all = graph.definitions(&t.name)?;
    let roots = roots(&all, &request.name, t.lang);
    let mut b = Builder {
        graph: &graph,
        nodes: Vec::new(),
        defs: Vec::new(),
        index: HashMap::new(),
        edges: HashMap::new(),
        external: Default::default(),
        limit: request.limit.max(1),
        truncated: false,
    };
    let root_ids: Vec<usize> = roots.iter().filter_map(|&i| b.node_of_def(&all[i], 0)).collect();
    for (go_up, wanted) in [(true, direction != Direction::Down), (false, direction != Direction::Up)] {
        if !wanted {
            continue;
        }
        let mut frontier = root_ids.clone();
        for depth in 1..=request.depth.max(1) {
            let mut next = Vec::new();
            for id in frontier {
                next.extend(if go_up { b.up(id, depth)? } else { b.down(id, depth)? });
            }
            if next.is_empty() || b.truncated {
                break;
            }
            frontier = next;
        }
    }
    let mut edges: Vec<GraphEdge> = b.edges.into_values().collect();
    edges.sort_by_key(|e| (e.from, e.to));
    let mut notes = Vec::new();
    if roots.is_empty() {
        notes.push(format!(
            "no definition named `{}` in {}",
            crate::quote::shown_query(request.name.trim()),
            t.resolved.name
        ));
    }
    t.store.touch_view(t.resolved.view.id);
    let mut meta = metadata(&t.resolved, if b.truncated { "truncated" } else { "complete" });
    meta.notes.extend(notes);
    let response = GraphResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: t.resolved.name.clone(),
        commit: t.resolved.commit.map(|c| c.to_hex()),
        query: request.name.trim().to_owned(),
        direction: direction.as_str(),
        depth: request.depth.max(1),
        nodes: b.nodes,
        edges,
        external: b.external.into_iter().collect(),
        truncated: b.truncated,
        metadata: meta,
    };
    super::across::release(t.store);
    Ok(response)
}
