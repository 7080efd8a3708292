//! `explain_symbol` and `get_file_context`: one call that gathers what an agent reads next
//! about a symbol or a file, from the graph and the outline.

use serde::Serialize;

use super::{
    Direction, Engine, Error, FileRequest, Freshness, GraphDefinition, GraphRequest, Import, Importer, LocateRequest,
    Metadata, OutlineRequest, OutlineSymbol, PROTOCOL_VERSION, RelatedTest,
};
use crate::error::ErrorCode;
use crate::view::Scope;

/// How many callers, callees and tests an explanation names.
const TOP: usize = 8;

/// A symbol explained.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ExplainResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// The query.
    pub query: String,
    /// The definition explained (the best of `locate`).
    pub definition: GraphDefinition,
    /// Its first doc paragraph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Other definitions of the same name, as `path:line`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_definitions: Vec<String>,
    /// How many symbols call it, and the first few (`qualified_name path:line`).
    pub callers: Counted,
    /// How many symbols it calls, and the first few.
    pub callees: Counted,
    /// Uses of any kind.
    pub references: usize,
    /// Test files that use it or import its file.
    pub tests: Vec<String>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// A count and the first few of what it counts.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Counted {
    /// How many.
    pub count: usize,
    /// The first few.
    pub top: Vec<String>,
}

/// A file in context.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FileContextResponse {
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
    /// Its top-level symbols (children one level down).
    pub outline: Vec<OutlineSymbol>,
    /// What it imports, resolved to files.
    pub imports: Vec<Import>,
    /// Who imports it.
    pub importers: Vec<Importer>,
    /// Its tests.
    pub tests: Vec<RelatedTest>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

pub(super) fn explain(
    engine: &Engine,
    name: &str,
    scope: &Scope,
    freshness: Freshness,
) -> Result<ExplainResponse, Error> {
    let located = engine.locate(&LocateRequest {
        name: name.to_owned(),
        kind: None,
        lang: None,
        scope: scope.clone(),
        limit: 20,
        freshness,
    })?;
    let Some(best) = located.results.first().cloned() else {
        let hint = if located.suggestions.is_empty() {
            "search_code finds names by words".to_owned()
        } else {
            format!("did you mean: {}", located.suggestions.join(", "))
        };
        return Err(
            Error::new(ErrorCode::FileNotFound, format!("no symbol `{name}` in {}", located.scope)).with_remedy(hint)
        );
    };
    // Later steps ask about exactly this definition: its qualified name, in its language.
    let request = GraphRequest {
        name: best.qualified_name.clone(),
        lang: Some(best.language.clone()),
        path: None,
        scope: scope.clone(),
        limit: 500,
        depth: 1,
        freshness: Freshness::Current,
    };
    let in_best = |path: &str, line: u32| path == best.path && line == best.line;
    let callers = engine.call_graph(&request, Direction::Up)?;
    let callees = engine.call_graph(&request, Direction::Down)?;
    let listed = |graph: &super::GraphResponse, up: bool| -> Counted {
        let root = graph.nodes.iter().find(|n| in_best(&n.path, n.line)).map(|n| n.id);
        let others: Vec<String> = graph
            .edges
            .iter()
            .filter(|e| Some(if up { e.to } else { e.from }) == root)
            .map(|e| {
                let n = &graph.nodes[if up { e.from } else { e.to }];
                format!("{} {}:{}", n.qualified_name, n.path, n.line)
            })
            .collect();
        Counted { count: others.len(), top: others.into_iter().take(TOP).collect() }
    };
    let references = engine.references(&GraphRequest { limit: 0, ..request.clone() })?;
    let tests = engine.tests_for(&FileRequest {
        target: best.qualified_name.clone(),
        scope: scope.clone(),
        limit: TOP,
        freshness: Freshness::Current,
    })?;
    let mut metadata = located.metadata.clone();
    metadata.notes.extend(references.metadata.notes.iter().cloned());
    Ok(ExplainResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: located.scope.clone(),
        commit: located.commit.clone(),
        query: name.to_owned(),
        definition: GraphDefinition {
            path: best.path.clone(),
            line: best.line,
            line_start: best.line_start,
            line_end: best.line_end,
            name: best.name.clone(),
            qualified_name: best.qualified_name.clone(),
            kind: best.kind.clone(),
            language: best.language.clone(),
            signature: best.signature.clone(),
        },
        doc: best.doc.clone(),
        other_definitions: located.results.iter().skip(1).map(|r| format!("{}:{}", r.path, r.line)).collect(),
        callers: listed(&callers, true),
        callees: listed(&callees, false),
        references: references.total_matches,
        tests: tests.tests.iter().map(|t| t.path.clone()).collect(),
        metadata,
    })
}

pub(super) fn file_context(
    engine: &Engine,
    path: &str,
    scope: &Scope,
    freshness: Freshness,
) -> Result<FileContextResponse, Error> {
    let outline =
        engine.outline(&OutlineRequest { path: path.to_owned(), all: true, scope: scope.clone(), freshness })?;
    let file = |limit: usize| FileRequest {
        target: outline.path.clone(),
        scope: scope.clone(),
        limit,
        freshness: Freshness::Current,
    };
    let (imports, importers, tests) = if outline.skipped.is_some() {
        (Vec::new(), Vec::new(), Vec::new())
    } else {
        (
            engine.imports(&file(200))?.imports,
            engine.importers(&file(100))?.importers,
            engine.tests_for(&file(20))?.tests,
        )
    };
    // Top level and one level down: enough to see the file's shape.
    let outline_symbols = outline
        .symbols
        .iter()
        .cloned()
        .map(|mut s| {
            for child in &mut s.children {
                child.children.clear();
            }
            s
        })
        .collect();
    Ok(FileContextResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: outline.scope.clone(),
        commit: outline.commit.clone(),
        path: outline.path.clone(),
        language: outline.language.clone(),
        outline: outline_symbols,
        imports,
        importers,
        tests,
        metadata: outline.metadata.clone(),
    })
}
