//! `imports`, `importers` and `tests-for`: how the files of one view relate.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, metadata};
use crate::error::ErrorCode;
use crate::graph::imports::{PathIndex, file_name};
use crate::graph::{self, Confidence, ViewGraph};
use crate::view::Scope;

/// A question about one file (or, for `tests-for`, a file or a symbol name).
#[derive(Clone, Debug)]
pub struct FileRequest {
    /// Repository-relative path, or a symbol name.
    pub target: String,
    /// The scope.
    pub scope: Scope,
    /// At most this many results.
    pub limit: usize,
    /// How hard to try for freshness.
    pub freshness: Freshness,
}

/// One import of a file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Import {
    /// The module or path as written.
    pub module: String,
    /// The line of the import.
    pub line: u32,
    /// The files of the view it means; empty for a package outside the view.
    pub resolved: Vec<String>,
}

/// The answer of `imports`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ImportsResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The file.
    pub path: String,
    /// Its language.
    pub language: String,
    /// Its imports, in order.
    pub imports: Vec<Import>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// A file importing another.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Importer {
    /// The importing file.
    pub path: String,
    /// The line of its import.
    pub line: u32,
    /// The module or path as it wrote it.
    pub module: String,
}

/// The answer of `importers`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ImportersResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The file imported.
    pub path: String,
    /// The files importing it, by path.
    pub importers: Vec<Importer>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// A test file related to a symbol or a file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RelatedTest {
    /// The test file.
    pub path: String,
    /// Why: `references` (it uses the symbol), `imports` (it imports the file), `naming`
    /// (its name follows a test convention for the file).
    pub reasons: Vec<&'static str>,
    /// Lines of the uses or imports.
    pub lines: Vec<u32>,
    /// The test symbols the uses sit in.
    pub symbols: Vec<String>,
}

/// The answer of `tests-for`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct TestsForResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The symbol or file asked about.
    pub query: String,
    /// `symbol` or `file`.
    pub target: &'static str,
    /// The test files, the strongest evidence first.
    pub tests: Vec<RelatedTest>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

fn not_in_view(path: &str, scope: &str) -> Error {
    Error::new(ErrorCode::FileNotFound, format!("`{path}` is not a parsed file of {scope}"))
        .with_remedy("give the path relative to the repository root; `outline` shows whether a file was parsed")
}

pub(super) fn imports(engine: &Engine, request: &FileRequest) -> Result<ImportsResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let graph = ViewGraph::new(&store, &resolved.view.bitmap, engine.workspace().max_file_size());
    let file = graph.file_at(&request.target)?.ok_or_else(|| not_in_view(&request.target, &resolved.name))?;
    let infos = store.file_infos_in(&resolved.view.bitmap)?;
    let paths: Vec<String> = infos.iter().map(|i| i.path_str()).collect();
    let index = PathIndex::new(paths.iter().map(String::as_str));
    let imports = graph
        .imports_of(&file)?
        .iter()
        .take(request.limit)
        .map(|(module, line)| Import {
            resolved: index.resolve(file.lang, &file.path, module).into_iter().map(str::to_owned).collect(),
            module: module.clone(),
            line: *line,
        })
        .collect();
    store.touch_view(resolved.view.id);
    super::across::release(store);
    Ok(ImportsResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        path: file.path.clone(),
        language: file.lang.to_owned(),
        imports,
        metadata: metadata(&resolved, "complete"),
    })
}

pub(super) fn importers(engine: &Engine, request: &FileRequest) -> Result<ImportersResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let graph = ViewGraph::new(&store, &resolved.view.bitmap, engine.workspace().max_file_size());
    let file = graph.file_at(&request.target)?.ok_or_else(|| not_in_view(&request.target, &resolved.name))?;
    let all = graph.importers(&file)?;
    let total = all.len();
    let importers: Vec<Importer> = all
        .into_iter()
        .take(request.limit)
        .map(|(f, module, line)| Importer { path: f.path.clone(), line, module })
        .collect();
    store.touch_view(resolved.view.id);
    super::across::release(store);
    Ok(ImportersResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        path: file.path.clone(),
        metadata: metadata(&resolved, if total > importers.len() { "truncated" } else { "complete" }),
        importers,
    })
}

/// Evidence gathered per test file.
#[derive(Default)]
struct Evidence {
    references: usize,
    imports: bool,
    naming: bool,
    lines: Vec<u32>,
    symbols: Vec<String>,
}

pub(super) fn tests_for(engine: &Engine, request: &FileRequest) -> Result<TestsForResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let graph = ViewGraph::new(&store, &resolved.view.bitmap, engine.workspace().max_file_size());
    let mut found: BTreeMap<String, Evidence> = BTreeMap::new();
    let as_file = graph.file_at(&request.target)?;
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let target = if let Some(file) = as_file {
        files.push(file);
        "file"
    } else {
        let name = request.target.rsplit(['.', ':', '#']).next().unwrap_or(&request.target).to_owned();
        let all = graph.definitions(&name)?;
        let targets = super::graph::roots(&all, &request.target, None);
        if targets.is_empty() {
            notes.push(format!("no file or definition named `{}` in {}", request.target, resolved.name));
        }
        for u in graph.uses(&name)? {
            if !graph::is_test_path(&u.file.path) {
                continue;
            }
            let resolution = graph.resolve(&u, &all)?;
            if !resolution.targets.iter().any(|t| targets.contains(t)) {
                continue;
            }
            let e = found.entry(u.file.path.clone()).or_default();
            e.references += 1 + usize::from(resolution.confidence != Confidence::Ambiguous);
            e.lines.push(u.occurrence.line);
            if let Some(caller) = graph.caller_of(&u)?
                && !e.symbols.contains(&caller.qualified_name)
            {
                e.symbols.push(caller.qualified_name);
            }
        }
        for &t in &targets {
            if !files.iter().any(|f: &std::rc::Rc<graph::File>| f.fv == all[t].file.fv) {
                files.push(all[t].file.clone());
            }
        }
        "symbol"
    };
    for file in &files {
        for (importer, _, line) in graph.importers(file)? {
            if graph::is_test_path(&importer.path) {
                let e = found.entry(importer.path.clone()).or_default();
                e.imports = true;
                if !e.lines.contains(&line) {
                    e.lines.push(line);
                }
            }
        }
        // By name: test files of the view named after the file.
        let name = file_name(&file.path);
        let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
        for info in store.file_infos_in(&resolved.view.bitmap)? {
            let path = info.path_str();
            if path != file.path
                && graph::is_test_path(&path)
                && graph::tested_stem(&path).is_some_and(|s| s.to_ascii_lowercase() == stem)
                && crate::lang::detect_by_path(path.as_bytes()).map(|l| graph::family(l.name))
                    == Some(graph::family(file.lang))
            {
                found.entry(path).or_default().naming = true;
            }
        }
    }
    let mut tests: Vec<(String, Evidence)> = found.into_iter().collect();
    tests.sort_by(|a, b| {
        let rank = |e: &Evidence| (std::cmp::Reverse(e.references), !e.imports, !e.naming);
        rank(&a.1).cmp(&rank(&b.1)).then_with(|| a.0.cmp(&b.0))
    });
    let total = tests.len();
    let tests: Vec<RelatedTest> = tests
        .into_iter()
        .take(request.limit)
        .map(|(path, mut e)| {
            let mut reasons = Vec::new();
            if e.references > 0 {
                reasons.push("references");
            }
            if e.imports {
                reasons.push("imports");
            }
            if e.naming {
                reasons.push("naming");
            }
            e.lines.sort_unstable();
            e.lines.dedup();
            RelatedTest { path, reasons, lines: e.lines, symbols: e.symbols }
        })
        .collect();
    store.touch_view(resolved.view.id);
    super::across::release(store);
    let mut meta = metadata(&resolved, if total > tests.len() { "truncated" } else { "complete" });
    meta.notes.extend(notes);
    Ok(TestsForResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        query: request.target.clone(),
        target,
        tests,
        metadata: meta,
    })
}
