//! `sync`, background syncs for hooks and watchers, and `refs`.
//!
//! A sync brings up to date the views people and agents ask about: this worktree, `HEAD`, the
//! default branch, the branch of every linked worktree, and the refs matching
//! `codecompass.refs`. Background syncs coalesce: while one runs, others only leave a note
//! (`sync.pending`) that makes the running one go round once more.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{Engine, Error, IndexResponse, PROTOCOL_VERSION};
use crate::error::ErrorCode;
use crate::indexer::IndexOptions;
use crate::store::{self, Store, StoreState};
use crate::view::{self, Scope};

const SYNC_LOCK: &str = "sync.lock";
const SYNC_PENDING: &str = "sync.pending";
const SYNC_LOG: &str = "sync.log";
/// The log is cut to its last half when it grows past this.
const MAX_LOG_BYTES: u64 = 1024 * 1024;

impl Engine {
    /// The scopes a sync brings up to date.
    pub fn sync_scopes(&self) -> Vec<Scope> {
        let ws = self.workspace();
        let Some(repo) = ws.git() else { return vec![Scope::Worktree] };
        let local = repo.local();
        // HEAD's branch first: after a checkout it is searchable as soon as its tree view is
        // derived, before the status walk the worktree view needs.
        let mut scopes = Vec::new();
        let head = local.head().ok().flatten().map(|_| local.head_ref_name().unwrap_or_else(|| "HEAD".to_owned()));
        if let Some(head) = &head {
            scopes.push(Scope::Ref(head.clone()));
        }
        if ws.has_worktree() {
            scopes.push(Scope::Worktree);
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        names.extend(view::default_branch(&local));
        for (_, head) in view::worktree_heads(repo.common_dir()) {
            if local.resolve(&head).is_ok() {
                names.insert(head);
            }
        }
        names.extend(view::configured_refs(&local));
        scopes.extend(names.into_iter().filter(|n| head.as_ref() != Some(n)).map(Scope::Ref));
        scopes
    }

    /// Brings every synced view up to date; `force` rebuilds them from their full file lists.
    pub fn sync(&self, force: bool) -> Result<IndexResponse, Error> {
        self.sync_with(force, None)
    }

    /// Like [`Engine::sync`], with the working tree's state already computed.
    pub(crate) fn sync_with(
        &self,
        force: bool,
        worktree: Option<crate::indexer::WorktreeState>,
    ) -> Result<IndexResponse, Error> {
        let scopes = self.sync_scopes();
        let mut response = self.index_scopes(&scopes, IndexOptions { force, reparse: force }, worktree)?;
        response.history = self.sync_history(&scopes)?;
        Ok(response)
    }

    /// Starts a sync in a detached process and returns at once. Used by hooks and by the
    /// `balanced` freshness policy; never fails the caller.
    pub fn spawn_background_sync(&self) -> bool {
        self.spawn_detached(&["sync", "--coalesce", "--quiet"]).is_ok()
    }

    /// Starts this program with `args` on this workspace in a detached process (its own process
    /// group, output to the sync log) and returns without waiting.
    pub(crate) fn spawn_detached(&self, args: &[&str]) -> std::io::Result<()> {
        let exe = std::env::current_exe()?;
        let dir = self.workspace().store_dir().to_owned();
        std::fs::create_dir_all(&dir)?;
        let log = OpenOptions::new().create(true).append(true).open(dir.join(SYNC_LOG))?;
        let err = log.try_clone()?;
        let mut command = std::process::Command::new(exe);
        command
            .arg("--dir")
            .arg(self.workspace().root())
            .arg("--store")
            .arg(&dir)
            .args(args)
            .stdin(std::process::Stdio::null())
            .stdout(log)
            .stderr(err);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group: a Ctrl-C aimed at the git command does not reach it.
            command.process_group(0);
        }
        let mut child = command.spawn()?;
        // Reaped when it ends, so a long-lived parent (the MCP server) keeps no zombie.
        std::thread::spawn(move || child.wait());
        Ok(())
    }

    /// Runs syncs until no other process asked for one meanwhile. Returns `false` when
    /// another process is already syncing (it was asked to go round once more).
    pub fn coalesced_sync(&self) -> Result<bool, Error> {
        let dir = self.workspace().store_dir().to_owned();
        std::fs::create_dir_all(&dir).map_err(|e| Error::new(ErrorCode::Io, e.to_string()))?;
        let pending = dir.join(SYNC_PENDING);
        // The note is left before the lock is tried, never after failing to take it: a sync
        // that holds the lock looks for notes after it lets go of the lock, so a request that
        // finds the lock taken is always seen, and one made after that look finds the lock
        // free. (Left after the failed try, a note written just after the holder's last look
        // stayed unread: the branch a commit moved stayed stale until the next sync.)
        let _ = File::create(&pending);
        loop {
            let Some(lock) = try_lock(&dir.join(SYNC_LOCK))? else {
                // Another sync runs: the note makes it go round once more.
                crate::failpoint::hit("sync.lock_busy");
                return Ok(false);
            };
            loop {
                let _ = std::fs::remove_file(&pending);
                let started = std::time::Instant::now();
                let result = self.sync(false);
                log_line(
                    &dir,
                    &match &result {
                        Ok(r) => format!(
                            "sync: {} views, {} blobs parsed, {} ms",
                            r.views.len(),
                            r.total.blobs_parsed,
                            started.elapsed().as_millis()
                        ),
                        Err(e) => format!("sync failed: {e}"),
                    },
                );
                if !pending.exists() {
                    break;
                }
            }
            crate::failpoint::hit("sync.before_unlock");
            drop(lock);
            // A request that arrived between the last check and the unlock is not lost.
            if !pending.exists() {
                return Ok(true);
            }
        }
    }
}

pub(crate) fn try_lock(path: &Path) -> Result<Option<File>, Error> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| Error::new(ErrorCode::Io, format!("{}: {e}", path.display())))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(Error::new(ErrorCode::Io, format!("{}: {e}", path.display()))),
    }
}

/// Appends a timestamped line to the store's sync log, keeping it bounded.
pub(crate) fn log_line(dir: &Path, message: &str) {
    let path = dir.join(SYNC_LOG);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES)
        && let Ok(text) = std::fs::read(&path)
    {
        let half = &text[text.len() / 2..];
        let start = half.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
        let _ = std::fs::write(&path, &half[start..]);
    }
    if let Ok(mut file) = OpenOptions::new().create(true).append(true).open(&path) {
        let _ = writeln!(file, "{} pid {} {message}", store::now(), std::process::id());
    }
}

/// One ref or worktree in `refs`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RefEntry {
    /// `refs/heads/main`, `refs/tags/v1`, `worktree:<id>`, or a commit id.
    pub name: String,
    /// `branch`, `tag`, `remote`, `worktree` or `commit`.
    pub kind: &'static str,
    /// The commit it points at now.
    pub commit: Option<String>,
    /// That commit's tree.
    pub tree: Option<String>,
    /// The commit last indexed for it.
    pub indexed_commit: Option<String>,
    /// When (Unix seconds).
    pub indexed_at: Option<i64>,
    /// `fresh` only when it still points at the indexed commit (and, for a worktree, has no
    /// unsynced change); `stale` otherwise, including never indexed.
    pub freshness_status: &'static str,
    /// For a worktree: where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// For a worktree: its branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// Files in the indexed view.
    pub files: Option<i64>,
}

/// The answer of `refs`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RefsResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The default branch.
    pub default_branch: Option<String>,
    /// Every known ref and worktree.
    pub refs: Vec<RefEntry>,
}

impl Engine {
    /// Every known ref (local branches, tags, indexed refs) and worktree, with freshness.
    pub fn refs(&self) -> Result<RefsResponse, Error> {
        let ws = self.workspace();
        let store = match Store::classify(ws.store_dir()).0 {
            StoreState::Compatible => Some(Store::open(ws.store_dir(), false)?),
            StoreState::NotIndexed => None,
            _ => {
                return Err(Store::open(ws.store_dir(), false)
                    .err()
                    .map(Error::from)
                    .unwrap_or_else(|| Error::new(ErrorCode::IndexIncompatible, "the index is unusable")));
            }
        };
        let stored = match &store {
            Some(s) => s.refs()?,
            None => Vec::new(),
        };
        let mut out = Vec::new();
        let mut default = None;
        if let Some(repo) = ws.git() {
            let local = repo.local();
            default = view::default_branch(&local);
            let mut names: BTreeSet<String> = local
                .references()?
                .into_iter()
                .map(|(name, _)| name)
                .filter(|n| n.starts_with("refs/heads/") || n.starts_with("refs/tags/"))
                .collect();
            names.extend(stored.iter().filter(|r| r.kind == "ref").map(|r| r.name.clone()));
            for name in names {
                let now = local.resolve(&name).ok();
                let row = stored.iter().find(|r| r.name == name);
                let view = match (&store, row) {
                    (Some(s), Some(r)) => s.view_by_id(r.view)?,
                    _ => None,
                };
                let fresh = matches!((row, now), (Some(r), Some(n)) if r.commit == Some(n.commit_id));
                out.push(RefEntry {
                    kind: if name.starts_with("refs/heads/") {
                        "branch"
                    } else if name.starts_with("refs/tags/") {
                        "tag"
                    } else if name.starts_with("refs/remotes/") {
                        "remote"
                    } else {
                        "commit"
                    },
                    commit: now.map(|n| n.commit_id.to_hex()),
                    tree: now.map(|n| n.tree_id.to_hex()),
                    indexed_commit: row.and_then(|r| r.commit.map(|c| c.to_hex())),
                    indexed_at: row.map(|r| r.indexed_at),
                    freshness_status: if fresh { "fresh" } else { "stale" },
                    path: None,
                    head: None,
                    files: view.map(|v| v.files),
                    name,
                });
            }
        }
        if let Some(s) = &store {
            let status = self.status()?;
            for r in status.refs.into_iter().filter(|r| r.kind != "ref") {
                let head = s
                    .ref_row(&r.name)?
                    .and_then(|row| row.detail)
                    .and_then(|d| serde_json::from_str::<serde_json::Value>(&d).ok())
                    .and_then(|v| v.get("head").and_then(|h| h.as_str()).map(str::to_owned));
                out.push(RefEntry {
                    name: r.name,
                    kind: if r.kind == "live" { "live" } else { "worktree" },
                    commit: r.commit,
                    tree: r.tree,
                    indexed_commit: r.indexed_commit,
                    indexed_at: Some(r.indexed_at),
                    freshness_status: r.freshness_status,
                    path: r.path,
                    head,
                    files: Some(r.files),
                });
            }
        }
        Ok(RefsResponse { codecompass_protocol_version: PROTOCOL_VERSION, default_branch: default, refs: out })
    }
}
