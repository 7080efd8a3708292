//! `read_source`: the text of a symbol or a line range, bounded: at most 200 lines per symbol
//! and 500 per call. `expand` adds lines around; `collapse` folds the bodies of nested
//! definitions to one line each so a large class fits.

use serde::Serialize;

use super::{Engine, Error, Freshness, Metadata, PROTOCOL_VERSION, metadata};
use crate::error::ErrorCode;
use crate::extract::Role;
use crate::query::ContentReader;
use crate::view::Scope;

/// Lines returned for one symbol at most.
pub const MAX_SYMBOL_LINES: u32 = 200;
/// Lines returned by one call at most.
pub const MAX_CALL_LINES: u32 = 500;

/// A `read_source` question: a symbol, or a path with an optional line range.
#[derive(Clone, Debug)]
pub struct SourceRequest {
    /// Repository-relative path.
    pub path: Option<String>,
    /// A symbol name (bare or qualified); its definition is read.
    pub symbol: Option<String>,
    /// First line (1-based; default 1).
    pub line_start: Option<u32>,
    /// Last line (default: the end, within the caps).
    pub line_end: Option<u32>,
    /// Extra lines of context before and after.
    pub expand: u32,
    /// Fold nested definitions' bodies to one line.
    pub collapse: bool,
    /// The scope.
    pub scope: Scope,
    /// How hard to try for freshness.
    pub freshness: Freshness,
}

/// The answer of `read_source`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SourceResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The scope as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit answered from.
    pub commit: Option<String>,
    /// Repository-relative path.
    pub path: String,
    /// First line returned.
    pub line_start: u32,
    /// Last line returned.
    pub line_end: u32,
    /// Lines in the file.
    pub total_lines: u32,
    /// The file's language.
    pub language: String,
    /// The symbol read, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The text, lines joined with `\n` (folded lines show `⋯ N lines`).
    pub text: String,
    /// Whether a cap cut the range.
    pub truncated: bool,
    /// Nested bodies folded.
    pub collapsed: u32,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

pub(super) fn run(engine: &Engine, request: &SourceRequest) -> Result<SourceResponse, Error> {
    let (store, resolved) = engine.resolve(&request.scope, request.freshness)?;
    let bitmap = &resolved.view.bitmap;
    // Which file and lines.
    let (file, mut from, mut to, cap, symbol_name, nested) = match (&request.symbol, &request.path) {
        (Some(name), _) => {
            let located = engine.locate(&super::LocateRequest {
                name: name.clone(),
                kind: None,
                lang: None,
                scope: request.scope.clone(),
                limit: 50,
                freshness: Freshness::Current,
            })?;
            let hit = located
                .results
                .iter()
                .find(|r| request.path.as_deref().is_none_or(|p| r.path == p) && r.role == "definition")
                .or_else(|| located.results.first())
                .ok_or_else(|| {
                    Error::new(ErrorCode::FileNotFound, format!("no symbol `{name}` in {}", resolved.name))
                        .with_remedy("check the name with locate_symbol or search_code")
                })?;
            let file = super::outline::file_in_view(&store, bitmap, &hit.path)?
                .ok_or_else(|| Error::new(ErrorCode::Internal, "a located file is not in its view"))?;
            (file, hit.line_start, hit.line_end, MAX_SYMBOL_LINES, Some(hit.qualified_name.clone()), Some(hit.line))
        }
        (None, Some(path)) => {
            let file = super::outline::file_in_view(&store, bitmap, path)?.ok_or_else(|| {
                Error::new(ErrorCode::FileNotFound, format!("`{path}` is not in {}", resolved.name))
                    .with_remedy("give a repository-relative path; get_file_outline and search_code list files")
            })?;
            let from = request.line_start.unwrap_or(1).max(1);
            let to = request.line_end.unwrap_or(u32::MAX);
            (file, from, to, MAX_CALL_LINES, None, None)
        }
        (None, None) => {
            return Err(Error::new(ErrorCode::InvalidArgument, "read_source needs `path` or `symbol`"));
        }
    };
    let _ = nested;
    if to < from {
        return Err(Error::new(ErrorCode::InvalidArgument, format!("line_end {to} is before line_start {from}")));
    }
    let content = ContentReader {
        git: engine.workspace().git(),
        store_dir: engine.workspace().store_dir(),
        root: engine.workspace().root(),
    };
    let local = content.local();
    let data = content.read(local.as_ref(), &file).ok_or_else(|| {
        Error::new(ErrorCode::Io, format!("the content of `{}` is not available (missing object)", file.path_str()))
    })?;
    if crate::indexer::is_binary(&data) {
        return Err(Error::new(ErrorCode::InvalidArgument, format!("`{}` is binary", file.path_str())));
    }
    let text = String::from_utf8_lossy(&data);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len() as u32;
    from = from.saturating_sub(request.expand).max(1);
    to = to.saturating_add(request.expand).min(total.max(1));
    let mut truncated = false;
    // Folding nested definitions, when asked, before capping.
    let mut folds: Vec<(u32, u32)> = Vec::new();
    if request.collapse {
        let lang = if file.skip.is_some() { "" } else { file.lang.as_str() };
        let key = crate::indexer::record_key(lang, engine.workspace().max_file_size());
        if let Some(record) = store.record(file.blob_id, lang, &key)? {
            let symbols = store.symbols_of(record.id)?;
            let mut inner: Vec<(u32, u32)> = symbols
                .iter()
                .filter(|s| s.role == Role::Definition && s.line_start > from && s.line_end <= to)
                .filter(|s| matches!(s.kind.as_str(), "function" | "method" | "constructor"))
                .filter(|s| s.line_end > s.line_start + 1)
                .map(|s| (s.line_start + 1, s.line_end - 1))
                .collect();
            inner.sort_unstable();
            for (a, b) in inner {
                if folds.last().is_none_or(|&(_, end)| a > end) && b >= a {
                    folds.push((a, b));
                }
            }
        }
    }
    let mut out = Vec::new();
    let mut shown = 0u32;
    let mut line = from;
    let mut last = from;
    while line <= to {
        if shown == cap {
            truncated = true;
            break;
        }
        if let Some(&(a, b)) = folds.iter().find(|&&(a, _)| a == line) {
            out.push(format!("⋯ {} lines", b - a + 1));
            last = b;
            line = b + 1;
            shown += 1;
            continue;
        }
        out.push(lines.get(line as usize - 1).copied().unwrap_or("").to_owned());
        last = line;
        line += 1;
        shown += 1;
    }
    store.touch_view(resolved.view.id);
    super::across::release(store);
    Ok(SourceResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        scope: resolved.name.clone(),
        commit: resolved.commit.map(|c| c.to_hex()),
        path: file.path_str(),
        line_start: from,
        line_end: last,
        total_lines: total,
        language: file.lang.clone(),
        symbol: symbol_name,
        text: out.join("\n"),
        truncated,
        collapsed: folds.len() as u32,
        metadata: metadata(&resolved, if truncated { "truncated" } else { "complete" }),
    })
}
