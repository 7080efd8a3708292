//! `history NAME` (a symbol's steps through the commits) and the comparison of a symbol
//! between two refs: the facade over `history::symbols`.

use serde::Serialize;

use super::history::{HistoryState, LogCommit, boundary_note, history_metadata, invalid, log_commit, tip_of};
use super::{Engine, Error, Metadata, PROTOCOL_VERSION};
use crate::error::ErrorCode;
use crate::git::ObjectId;
use crate::history::walk::Graph;
use crate::query::pathspec::Pathspecs;

/// A `history NAME` question.
#[derive(Clone, Debug, Default)]
pub struct SymbolHistoryRequest {
    /// The name, bare or qualified.
    pub name: String,
    /// The commit to walk from (default `HEAD`).
    pub at: Option<String>,
    /// Git pathspecs, resolved against the root.
    pub pathspecs: Vec<String>,
    /// `--since`.
    pub since: Option<String>,
    /// `--until`.
    pub until: Option<String>,
    /// `--first-parent`.
    pub first_parent: bool,
    /// The definition's text at each step.
    pub show: bool,
    /// At most this many events (0: all).
    pub limit: usize,
}

/// The symbol on one side of an event.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolAt {
    /// Path.
    pub path: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Kind.
    pub kind: String,
    /// Name.
    pub name: String,
    /// Qualified name.
    pub qualified_name: String,
    /// Signature.
    pub signature: String,
    /// The definition's text (`--show`), capped at 8000 bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One step of a symbol's history.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolEvent {
    /// The commit.
    pub commit: LogCommit,
    /// `added`, `modified`, `moved`, `renamed` or `deleted`.
    pub change: &'static str,
    /// Whether the signature changed (modified, renamed).
    pub signature_changed: bool,
    /// Before (none when added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<SymbolAt>,
    /// After (none when deleted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<SymbolAt>,
}

/// The answer of `history NAME`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolHistoryResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The ref walked from, as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// Its commit.
    pub commit: Option<String>,
    /// The name asked.
    pub name: String,
    /// The steps, newest first.
    pub events: Vec<SymbolEvent>,
    /// The oldest commit where it was added (within the indexed history).
    pub first_commit: Option<String>,
    /// The newest commit where it existed: the ref's own commit, or the parent of the commit
    /// that deleted it.
    pub last_commit: Option<String>,
    /// Whether it exists at the ref (after the newest step).
    pub exists_at_ref: bool,
    /// How much history answered.
    pub history: HistoryState,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

impl Engine {
    /// The history of a symbol: each commit that added, modified, moved, renamed or deleted it.
    pub fn symbol_history(&self, request: &SymbolHistoryRequest) -> Result<SymbolHistoryResponse, Error> {
        use crate::history::symbols::{Instance, SymbolQuery, symbol_history};
        let repo = self.history_git()?.local();
        if request.name.trim().is_empty() {
            return Err(invalid("give the symbol's name (`Cart.total`, `parse_config`)".to_owned()));
        }
        let at = request.at.clone().unwrap_or_else(|| "HEAD".to_owned());
        let tip = tip_of(&repo, &at)?;
        let store = self.open_store(true)?;
        // The files history reads are parsed with their languages' definition queries, whose
        // compiling (Python's 13 ms) would otherwise wait for the first of them: the languages
        // that define the name in a stored record start compiling now, beside the history's
        // sync and graph. A guess: a language not named waits as before.
        let last = crate::extract::name_segments(&request.name).last().copied().unwrap_or_default();
        crate::extract::compile_definitions_ahead(
            store.languages_defining(last)?.iter().filter_map(|l| crate::lang::by_name(l)).collect(),
        );
        let (added, index) = self.history_up_to(&store, &[tip], false)?;
        let graph = Graph::load(&store, false)?;
        let walk =
            self.walk_options(request.since.as_ref(), request.until.as_ref(), None, request.first_parent, false)?;
        let pathspecs = Pathspecs::new(&request.pathspecs).map_err(invalid)?;
        let max = self.ws.max_file_size();
        let record_key = move |lang: &str| crate::indexer::record_key(lang, max);
        let query = SymbolQuery {
            name: &request.name,
            walk: &walk,
            pathspecs: &pathspecs,
            record_key: &record_key,
            max_file_size: max,
            limit: if request.limit == 0 { usize::MAX } else { request.limit },
            show: request.show,
        };
        let found = symbol_history(&store, &repo, &graph, &index, tip, &query)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let side = |i: &Instance| SymbolAt {
            path: i.path.clone(),
            line_start: i.symbol.line_start,
            line_end: i.symbol.line_end,
            kind: i.symbol.kind.clone(),
            name: i.symbol.name.clone(),
            qualified_name: i.symbol.qualified_name.clone(),
            signature: i.symbol.signature.clone(),
            text: i.text.clone(),
        };
        let events: Vec<SymbolEvent> = found
            .events
            .iter()
            .map(|e| {
                Ok(SymbolEvent {
                    commit: log_commit(&store, e.commit)?,
                    change: e.kind.as_str(),
                    signature_changed: match (&e.before, &e.after) {
                        (Some(b), Some(a)) => b.symbol.signature != a.symbol.signature,
                        _ => false,
                    },
                    before: e.before.as_ref().map(side),
                    after: e.after.as_ref().map(side),
                })
            })
            .collect::<Result<_, Error>>()?;
        let exists = found.events.first().is_some_and(|e| e.after.is_some());
        let first_commit = found
            .events
            .iter()
            .rev()
            .find(|e| e.kind == crate::history::symbols::EventKind::Added)
            .map(|e| e.commit.oid.to_hex());
        let last_commit = match found.events.first() {
            Some(_) if exists => Some(tip.to_hex()),
            Some(e) => e.commit.parents.first().map(ObjectId::to_hex),
            None => None,
        };
        let state = HistoryState {
            commits_indexed: graph.len() as u64,
            commits_walked: 0,
            commits_checked: found.checked as u64,
            boundary: found.boundary,
            shallow: repo.is_shallow(),
            commits_added: added,
        };
        let mut notes = Vec::new();
        if events.is_empty() {
            notes.push(format!(
                "no commit in the indexed history added, changed or removed a definition named `{}`",
                request.name
            ));
        }
        if found.boundary {
            notes.push(boundary_note(state.shallow));
        }
        if found.missing_blobs > 0 {
            notes.push(format!(
                "{} changed files are missing from the object store (a partial clone?): steps in them may be missing",
                found.missing_blobs
            ));
        }
        Ok(SymbolHistoryResponse {
            codecompass_protocol_version: PROTOCOL_VERSION,
            scope: at,
            commit: Some(tip.to_hex()),
            name: request.name.clone(),
            events,
            first_commit,
            last_commit,
            exists_at_ref: exists,
            metadata: history_metadata(tip, !state.boundary && found.missing_blobs == 0, notes),
            history: state,
        })
    }
}

/// A symbol at one commit, for a comparison.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SymbolVersion {
    /// The ref as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// Its commit.
    pub commit: Option<String>,
    /// Path.
    pub path: String,
    /// First line.
    pub line_start: u32,
    /// Last line.
    pub line_end: u32,
    /// Qualified name.
    pub qualified_name: String,
    /// Signature.
    pub signature: String,
    /// The definition's text.
    pub text: String,
}

/// The answer of `compare_symbol_between_commits`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct CompareSymbolResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The name asked.
    pub name: String,
    /// At the first ref (none: not defined there).
    pub from: Option<SymbolVersion>,
    /// At the second ref (none: not defined there).
    pub to: Option<SymbolVersion>,
    /// Whether the signature differs.
    pub signature_changed: bool,
    /// Whether the text differs.
    pub text_changed: bool,
    /// A unified diff of the two texts.
    pub diff: String,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

impl Engine {
    /// A symbol's definition at two refs, with a diff of the two.
    pub fn compare_symbol(&self, name: &str, from: &str, to: &str) -> Result<CompareSymbolResponse, Error> {
        let at = |reference: &str| -> Result<Option<SymbolVersion>, Error> {
            let scope = crate::view::Scope::Ref(reference.to_owned());
            let located = self.locate(&super::LocateRequest {
                name: name.to_owned(),
                kind: None,
                lang: None,
                scope: scope.clone(),
                limit: 1,
                freshness: super::Freshness::Strict,
            })?;
            let Some(best) = located.results.into_iter().next() else {
                return Ok(None);
            };
            let source = self.read_source(&super::SourceRequest {
                path: Some(best.path.clone()),
                symbol: None,
                line_start: Some(best.line_start),
                line_end: Some(best.line_end),
                expand: 0,
                collapse: false,
                scope,
                freshness: super::Freshness::Strict,
            })?;
            Ok(Some(SymbolVersion {
                scope: reference.to_owned(),
                commit: located.commit,
                path: best.path,
                line_start: best.line_start,
                line_end: best.line_end,
                qualified_name: best.qualified_name,
                signature: best.signature,
                text: source.text,
            }))
        };
        let (before, after) = (at(from)?, at(to)?);
        let text = |v: &Option<SymbolVersion>| v.as_ref().map(|v| format!("{}\n", v.text)).unwrap_or_default();
        let (old, new) = (text(&before), text(&after));
        let input = imara_diff::intern::InternedInput::new(old.as_str(), new.as_str());
        let diff =
            imara_diff::diff(imara_diff::Algorithm::Histogram, &input, imara_diff::UnifiedDiffBuilder::new(&input));
        let mut notes = Vec::new();
        for (side, reference) in [(&before, from), (&after, to)] {
            if side.is_none() {
                notes.push(format!("no definition named `{name}` at `{reference}`"));
            }
        }
        Ok(CompareSymbolResponse {
            codecompass_protocol_version: PROTOCOL_VERSION,
            name: name.to_owned(),
            signature_changed: before.as_ref().map(|v| &v.signature) != after.as_ref().map(|v| &v.signature),
            text_changed: old != new,
            from: before,
            to: after,
            diff,
            metadata: Metadata::fresh(format!("{from}..{to}"), notes),
        })
    }
}
