//! `status`: the workspace, the store, every indexed ref and whether it is fresh.

use serde::Serialize;

use super::{Engine, Error, PROTOCOL_VERSION};
use crate::indexer;
use crate::store::{self, Store, StoreState};
use crate::view::{self, Workspace};

/// One indexed ref or worktree.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ViewStatus {
    /// `HEAD`, `refs/heads/main`, `worktree:<id>`, `live`.
    pub name: String,
    /// `ref`, `worktree` or `live`.
    pub kind: String,
    /// The commit it pointed at when indexed.
    pub indexed_commit: Option<String>,
    /// The commit it points at now (refs only).
    pub commit: Option<String>,
    /// The tree indexed.
    pub tree: Option<String>,
    /// When it was indexed (Unix seconds).
    pub indexed_at: i64,
    /// Files in its view.
    pub files: i64,
    /// Symbols in its view.
    pub symbols: i64,
    /// `fresh` only when verified now; `stale` otherwise.
    pub freshness_status: &'static str,
    /// For a worktree: where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// A job that did not finish.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct JobStatus {
    /// Job id.
    pub id: i64,
    /// `index`, `sync`, ...
    pub kind: String,
    /// What it worked on.
    pub target: String,
    /// Its state.
    pub state: String,
    /// When it started.
    pub started_at: i64,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer of `status`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct StatusResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The workspace root.
    pub workspace: String,
    /// `git` or `live`.
    pub workspace_kind: &'static str,
    /// Where the index lives.
    pub store_dir: String,
    /// `compatible`, `not_indexed`, `reindex_required` or `corrupt`.
    pub store_state: &'static str,
    /// Why, when not compatible.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub store_detail: String,
    /// `not_indexed`, `indexing` or `ready`.
    pub indexing_status: &'static str,
    /// The pid of the process writing the index now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer_pid: Option<u32>,
    /// Versions.
    pub versions: Versions,
    /// Bytes on disk.
    pub store_bytes: u64,
    /// Row counts.
    pub counts: Counts,
    /// Indexed refs and worktrees.
    pub refs: Vec<ViewStatus>,
    /// Jobs interrupted and not yet followed by a success.
    pub interrupted_jobs: Vec<JobStatus>,
}

/// Version numbers.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Versions {
    /// This build.
    pub tool: &'static str,
    /// Store schema.
    pub schema: u32,
    /// Extractor.
    pub extractor: u32,
}

/// Row counts.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Distinct blobs.
    pub blobs: i64,
    /// Blob records.
    pub records: i64,
    /// Symbols.
    pub symbols: i64,
    /// File versions.
    pub file_versions: i64,
    /// Views.
    pub views: i64,
    /// Commits indexed for `log` and `history` (0 until history is first asked for).
    pub commits: i64,
}

/// Whether the ref or worktree `row` still matches what was indexed.
fn freshness(ws: &Workspace, store: &Store, row: &store::RefRow) -> (&'static str, Option<String>) {
    match row.kind.as_str() {
        "ref" => {
            let Some(repo) = ws.git() else {
                return ("stale", None);
            };
            let derivation = indexer::derivation(ws.max_file_size());
            let derived = store.view_by_id(row.view).ok().flatten().is_some_and(|v| v.fingerprint == Some(derivation));
            match repo.local().resolve(&row.name) {
                Ok(now) => {
                    let fresh = Some(now.commit_id) == row.commit && derived;
                    (if fresh { "fresh" } else { "stale" }, Some(now.commit_id.to_hex()))
                }
                Err(_) => ("stale", None),
            }
        }
        "worktree" => {
            let path = row
                .detail
                .as_deref()
                .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                .and_then(|v| v.get("path").and_then(|p| p.as_str()).map(str::to_owned));
            let Some(path) = path else {
                return ("stale", None);
            };
            let Ok(other) = Workspace::open(std::path::Path::new(&path), Some(ws.store_dir()), Default::default())
            else {
                return ("stale", None);
            };
            let Ok(state) = indexer::worktree_state(&other) else {
                return ("stale", None);
            };
            let view = store.view_by_id(row.view).ok().flatten();
            let fresh = view.is_some_and(|v| {
                v.fingerprint.as_deref() == Some(state.fingerprint.as_str()) && v.tree == state.head.map(|h| h.tree_id)
            });
            (if fresh { "fresh" } else { "stale" }, state.head.map(|h| h.commit_id.to_hex()))
        }
        _ => ("stale", None),
    }
}

pub(super) fn run(engine: &Engine) -> Result<StatusResponse, Error> {
    let ws = engine.workspace();
    let (state, detail) = Store::classify(ws.store_dir());
    let writer_pid = store::WriteLock::holder_of(ws.store_dir());
    let mut response = StatusResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        workspace: ws.root().to_string_lossy().into_owned(),
        workspace_kind: if ws.git().is_some() { "git" } else { "live" },
        store_dir: ws.store_dir().to_string_lossy().into_owned(),
        store_state: state.as_str(),
        store_detail: detail,
        indexing_status: if writer_pid.is_some() {
            "indexing"
        } else if state == StoreState::Compatible {
            "ready"
        } else {
            "not_indexed"
        },
        writer_pid,
        versions: Versions {
            tool: env!("CARGO_PKG_VERSION"),
            schema: store::STORE_SCHEMA_VERSION,
            extractor: crate::extract::EXTRACTOR_VERSION,
        },
        store_bytes: crate::store::dir_size(ws.store_dir()),
        counts: Counts::default(),
        refs: Vec::new(),
        interrupted_jobs: Vec::new(),
    };
    if state != StoreState::Compatible {
        return Ok(response);
    }
    let store = Store::open(ws.store_dir(), false)?;
    let c = store.counts()?;
    response.counts = Counts {
        blobs: c.blobs,
        records: c.records,
        symbols: c.symbols,
        file_versions: c.file_versions,
        views: c.views,
        commits: c.commits,
    };
    for row in store.refs()? {
        let view = store.view_by_id(row.view)?;
        let (freshness_status, commit) = freshness(ws, &store, &row);
        let path = row
            .detail
            .as_deref()
            .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
            .and_then(|v| v.get("path").and_then(|p| p.as_str()).map(str::to_owned));
        response.refs.push(ViewStatus {
            name: row.name.clone(),
            kind: row.kind.clone(),
            indexed_commit: row.commit.map(|c| c.to_hex()),
            commit,
            tree: row.tree.map(|t| t.to_hex()),
            indexed_at: row.indexed_at,
            files: view.as_ref().map_or(0, |v| v.files),
            symbols: view.as_ref().map_or(0, |v| v.symbols),
            freshness_status,
            path,
        });
    }
    let _ = view::tree_view_key;
    response.interrupted_jobs = store
        .unresolved_interruptions(writer_pid.is_some())?
        .into_iter()
        .map(|j| JobStatus {
            id: j.id,
            kind: j.kind,
            target: j.target,
            state: j.state,
            started_at: j.started_at,
            error: j.error,
        })
        .collect();
    Ok(response)
}
