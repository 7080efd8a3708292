//! `outline`: the symbols of one file, nested.

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, metadata};
use crate::error::ErrorCode;
use crate::extract::Role;
use crate::indexer;
use crate::store::{FileInfo, Store, SymbolRow};
use crate::view::Scope;

/// An `outline` question.
#[derive(Clone, Debug)]
pub struct OutlineRequest {
    /// Repository-relative path.
    pub path: String,
    /// Top-level symbols only, or all of them nested.
    pub all: bool,
    /// The scope.
    pub scope: Scope,
    /// How hard to try for freshness.
    pub freshness: Freshness,
}

/// One symbol of an outline.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct OutlineSymbol {
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Kind.
    pub kind: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Line of the name.
    pub line: u32,
    /// Declaration head.
    pub signature: String,
    /// `definition` or `declaration`.
    pub role: &'static str,
    /// Visibility.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visibility: Option<String>,
    /// First doc paragraph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Survives moves; changes with the API.
    pub stable_id: String,
    /// Nested symbols (empty at `--depth top`).
    pub children: Vec<OutlineSymbol>,
}

/// The answer of `outline`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct OutlineResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// Repository-relative path.
    pub path: String,
    /// The file's language, `""` when none.
    pub language: String,
    /// The blob id of the file in this scope.
    pub blob: String,
    /// Lines in the file.
    pub line_count: i64,
    /// Why the file was not parsed, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Syntax errors met while parsing (the outline may miss symbols after them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<serde_json::Value>,
    /// The symbols, nested through `children`.
    pub symbols: Vec<OutlineSymbol>,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// The file version at `path` in a view.
pub(crate) fn file_in_view(
    store: &Store,
    bitmap: &roaring::RoaringBitmap,
    path: &str,
) -> Result<Option<FileInfo>, Error> {
    let path = path.trim_start_matches("./").trim_start_matches('/');
    Ok(store.file_versions_at(path.as_bytes())?.into_iter().find(|f| bitmap.contains(f.id)))
}

pub(super) fn run(engine: &Engine, request: &OutlineRequest) -> Result<OutlineResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let file = file_in_view(&store, &resolved.view.bitmap, &request.path)?.ok_or_else(|| {
        Error::new(ErrorCode::FileNotFound, format!("`{}` is not in {}", request.path, resolved.name))
            .with_remedy("give the path relative to the repository root (or to the current directory); ignored files are not indexed")
    })?;
    let record_lang = if file.skip.is_some() { "" } else { file.lang.as_str() };
    let key = indexer::record_key(record_lang, engine.workspace().max_file_size());
    let record = store.record(file.blob_id, record_lang, &key)?;
    let (symbols, line_count, skipped, diagnostics, partial) = match &record {
        Some(r) => {
            let diagnostics: Vec<serde_json::Value> =
                r.diagnostics.as_deref().and_then(|d| serde_json::from_str(d).ok()).unwrap_or_default();
            (store.symbols_of(r.id)?, r.line_count, r.skip_reason.clone(), diagnostics, r.status == "partial")
        }
        None => (Vec::new(), 0, Some("missing_object".to_owned()), Vec::new(), true),
    };
    let skipped = file.skip.clone().or(skipped);
    store.touch_view(resolved.view.id);
    super::across::release(store);
    Ok(OutlineResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        path: file.path_str(),
        language: file.lang.clone(),
        blob: file.blob_id.to_hex(),
        line_count,
        skipped,
        diagnostics,
        symbols: nest(symbols, request.all),
        metadata: metadata(&resolved, if partial { "partial" } else { "complete" }),
    })
}

fn to_outline(s: SymbolRow) -> OutlineSymbol {
    OutlineSymbol {
        name: s.name,
        qualified_name: s.qualified_name,
        kind: s.kind,
        line_start: s.line_start,
        line_end: s.line_end,
        line: s.name_line,
        signature: s.signature,
        role: if s.role == Role::Definition { "definition" } else { "declaration" },
        visibility: s.visibility,
        doc: s.doc,
        stable_id: s.stable_id,
        children: Vec::new(),
    }
}

/// Builds the tree from parent links. Symbols come ordered by position, so a parent always
/// precedes its children.
fn nest(symbols: Vec<SymbolRow>, all: bool) -> Vec<OutlineSymbol> {
    let parents: Vec<Option<u32>> = symbols.iter().map(|s| s.parent).collect();
    let mut nodes: Vec<Option<OutlineSymbol>> = symbols.into_iter().map(|s| Some(to_outline(s))).collect();
    // Attach children to parents from the last symbol backwards, so each child is complete
    // (its own children attached) before it moves into its parent.
    for i in (0..nodes.len()).rev() {
        if let Some(p) = parents[i] {
            let p = p as usize;
            if p < i {
                let child = nodes[i].take().expect("each symbol is moved once because it has one parent");
                if all && let Some(parent) = nodes[p].as_mut() {
                    parent.children.insert(0, child);
                }
            }
        }
    }
    nodes.into_iter().flatten().collect()
}

/// One symbol of a view, for whole-view comparisons.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
pub struct ViewSymbol {
    /// Path.
    pub path: String,
    /// Name line.
    pub line: u32,
    /// Kind.
    pub kind: String,
    /// Qualified name.
    pub qualified_name: String,
}

/// Every symbol of a view, sorted.
pub(super) fn all_symbols(engine: &Engine, scope: &Scope, freshness: Freshness) -> Result<Vec<ViewSymbol>, Error> {
    let (store, resolved) = engine.resolve(scope, freshness)?;
    let mut out = Vec::new();
    for file in store.file_infos_in(&resolved.view.bitmap)? {
        let lang = if file.skip.is_some() { "" } else { file.lang.as_str() };
        let key = indexer::record_key(lang, engine.workspace().max_file_size());
        if let Some(record) = store.record(file.blob_id, lang, &key)? {
            let path = file.path_str();
            for s in store.symbols_of(record.id)? {
                out.push(ViewSymbol {
                    path: path.clone(),
                    line: s.name_line,
                    kind: s.kind,
                    qualified_name: s.qualified_name,
                });
            }
        }
    }
    out.sort();
    Ok(out)
}
