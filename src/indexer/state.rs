//! What decides whether a view is current: the blobs it was built without, the derivation
//! it was built under (size limit and extractor keys), and a working tree's state against
//! `HEAD` with its fingerprint.

use std::collections::BTreeSet;

use gix::bstr::BString;

use super::{IndexError, TEXT_EXTRACTOR};
use crate::extract;
use crate::git::{GitError, IndexSnapshot, LocalRepo, ObjectId};
use crate::lang;
use crate::progress;
use crate::store::{self, Store};
use crate::view::Workspace;
use crate::view::ignore_rules::IGNORE_FILE;

/// Whether some blob `view` was built without is in the object store now; with `fetch`
/// (`codecompass.fetchMissing`), after asking the promisor remote for them.
pub fn gaps_filled(store: &Store, repo: &LocalRepo, view: &store::ViewRow, fetch: bool) -> Result<bool, IndexError> {
    if view.missing == 0 {
        return Ok(false);
    }
    let missing = store.view_missing(view.id)?;
    if fetch && !missing.iter().any(|blob| repo.has_object(*blob)) {
        fetch_missing(repo, &missing, "blobs");
    }
    Ok(missing.into_iter().any(|blob| repo.has_object(blob)))
}

/// Asks a partial clone's promisor remote for `ids` in one request (`codecompass.fetchMissing`;
/// a tree comes with every tree under it, without their blobs: a clone made with
/// `--filter=tree:0` has only the trees git has read), saying so, `what` naming them ("blobs",
/// "trees"); returns how many are here afterwards. What cannot be fetched stays missing, and
/// whatever needs it says so.
pub(super) fn fetch_missing(repo: &LocalRepo, ids: &[crate::git::ObjectId], what: &str) -> usize {
    if ids.is_empty() {
        return 0;
    }
    progress::note(&format!("fetching {} missing {what} (codecompass.fetchMissing)", ids.len()));
    match repo.fetch_objects(ids) {
        Ok(arrived) => {
            if arrived < ids.len() {
                progress::note(&format!("{} {what} are still missing after the fetch", ids.len() - arrived));
            }
            arrived
        }
        Err(e) => {
            progress::note(&format!("warning: could not fetch missing {what}: {e}"));
            0
        }
    }
}

/// The start of the names of the copies of git's index a worktree keeps in the store (see
/// `git::status`), `refreshed-<worktree>`; each copy adds `-<checksum of the index>`.
pub(super) fn refreshed_index_name(worktree_key: &str) -> String {
    format!("refreshed-{}", worktree_key.replace(':', "-"))
}

/// The file in the store remembering the trees of the commits `HEAD` pointed at (see
/// [`crate::git::LocalRepo::head_remembered`]).
pub const HEAD_TREES: &str = "head-trees";

/// The extractor key of records of `lang` (`""` for plain text) under a size limit: what
/// else than the blob decides a record's content.
pub fn record_key(lang: &str, max_file_size: u64) -> String {
    let base = match lang::by_name(lang) {
        Some(language) if !lang.is_empty() => extract::extractor_key(language),
        _ => TEXT_EXTRACTOR.to_owned(),
    };
    format!("{base}|max={max_file_size}")
}

/// What besides the blobs shapes a view: the size limit and every language's extractor key
/// (extractor version and query). A view built under another derivation would answer from
/// records that are not there (after `codecompass.maxFileSize` changed, or a new version
/// changed a query), so it is re-derived before it answers as fresh.
pub fn derivation(max_file_size: u64) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(record_key("", max_file_size).as_bytes());
    for language in lang::LANGUAGES {
        hasher.update(b"\n");
        hasher.update(record_key(language.name, max_file_size).as_bytes());
    }
    format!("d1-{}", &hasher.finalize().to_hex()[..16])
}

/// What a working tree holds now, against `HEAD`, and its fingerprint: the worktree view is
/// current exactly when its stored fingerprint equals this one.
pub struct WorktreeState {
    /// `HEAD`'s commit and tree; `None` on an unborn branch.
    pub head: Option<crate::git::Resolved>,
    /// Paths that may differ from `HEAD`, hashed.
    pub changes: Vec<crate::git::WorktreeChange>,
    /// The `.codecompassignore` on disk.
    pub disk_rules: Vec<u8>,
    /// A digest of all the above and of the configuration that shapes records.
    pub fingerprint: String,
}

impl WorktreeState {
    /// Starts compiling the queries of the languages of the files found changed, for a view
    /// found stale with this state: the index run that follows parses the ones never seen,
    /// and reaches their extraction after storing them, opening the full-text writer and
    /// parsing, which the compile now overlaps (see `extract::compile_ahead`).
    pub fn compile_ahead(&self) {
        let changed = self.changes.iter().filter(|c| c.now.is_some());
        crate::extract::compile_ahead(changed.filter_map(|c| parsed_language(&c.path)).collect());
    }
}

/// The language a file at `path` is parsed as, when the path alone says it (see
/// `Indexer::new_file_version`).
pub(super) fn parsed_language(path: &[u8]) -> Option<&'static lang::Language> {
    crate::view::ignore_rules::builtin_skip(path).is_none().then(|| lang::detect_by_path(path)).flatten()
}

/// Computes the state of the workspace's working tree. Needs no lock: it only reads.
///
/// A checkout running at the same time replaces files and the index under the walk: a read
/// that fails is tried again a few times, then reported as [`IndexError::WorktreeChanging`].
pub fn worktree_state(ws: &Workspace) -> Result<WorktreeState, IndexError> {
    Ok(worktree_state_since(ws, None)?.0)
}

/// Paths a sync after events rechecks, at most: past this, walking the tree costs less than
/// matching so many pathspecs.
const MAX_RECHECKED: usize = 2_000;

/// What a watcher keeps of the working tree after a sync, so the next state can be computed
/// from the paths its events name instead of a walk of the tree.
pub struct WorktreeMemory {
    /// `HEAD`'s tree the state was computed against.
    head_tree: Option<ObjectId>,
    /// The index as read before that state's status.
    index: IndexSnapshot,
    /// The paths that state found touched.
    touched: BTreeSet<BString>,
    /// How many paths it rechecked; `None` when it walked the whole tree.
    rechecked: Option<usize>,
}

impl WorktreeMemory {
    /// How many paths the state rechecked; `None` when it walked the whole tree.
    pub fn rechecked(&self) -> Option<usize> {
        self.rechecked
    }
}

/// The state of the working tree, and what to remember of it for the next one. With `since`
/// (the memory of the last state and the worktree paths changed since, as file-system
/// events name them), only the paths that can have changed are rechecked: those, the paths the
/// last state found touched, the paths whose index entries changed and, when `HEAD` moved, the
/// paths that differ between its old and new trees. Every other path is on disk, in the index
/// and in `HEAD` what it was, so it is untouched as it was. Falls back to the whole walk when
/// `HEAD` was or becomes unborn or too many paths are to be rechecked. The answer is the
/// walk's answer exactly, provided the events named every change.
pub fn worktree_state_since(
    ws: &Workspace,
    since: Option<(&WorktreeMemory, &BTreeSet<BString>)>,
) -> Result<(WorktreeState, WorktreeMemory), IndexError> {
    let repo = ws.git().ok_or_else(|| IndexError::NotARepository { path: ws.root().to_owned() })?.local();
    let refreshed = ws.store_dir().join(refreshed_index_name(&ws.worktree_view_key()));
    let trees = ws.store_dir().join(HEAD_TREES);
    let mut attempt = 0;
    let (head, changes, memory) = loop {
        let read = if crate::failpoint::fails("worktree.read") {
            Err(GitError::Io { path: ws.root().to_owned(), source: std::io::Error::other("failpoint worktree.read") })
        } else {
            read_state(&repo, &refreshed, &trees, since)
        };
        match read {
            Ok(state) => break state,
            Err(GitError::Io { .. } | GitError::Other { .. }) if attempt < 3 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(25 << attempt));
            }
            Err(source @ (GitError::Io { .. } | GitError::Other { .. })) => {
                return Err(IndexError::WorktreeChanging { source });
            }
            Err(e) => return Err(e.into()),
        }
    };
    let disk_rules = std::fs::read(ws.root().join(IGNORE_FILE)).unwrap_or_default();
    let mut hasher = blake3::Hasher::new();
    hasher.update(head.map(|h| h.tree_id.0).unwrap_or_default().as_slice());
    hasher.update(&(disk_rules.len() as u64).to_le_bytes());
    hasher.update(&disk_rules);
    hasher.update(derivation(ws.max_file_size()).as_bytes());
    for change in &changes {
        hasher.update(&(change.path.len() as u64).to_le_bytes());
        hasher.update(&change.path);
        match &change.now {
            Some((blob_id, mode, _)) => {
                hasher.update(&blob_id.0);
                hasher.update(&[*mode as u8]);
            }
            None => {
                hasher.update(b"-");
            }
        }
    }
    let fingerprint = hasher.finalize().to_hex()[..32].to_owned();
    Ok((WorktreeState { head, changes, disk_rules, fingerprint }, memory))
}

type ReadState = (Option<crate::git::Resolved>, Vec<crate::git::WorktreeChange>, WorktreeMemory);

/// One attempt at reading `HEAD`, the index and the touched paths (all, or those `since`
/// says can have changed). `refreshed` and `trees` are the store's kept index copy and
/// remembered `HEAD` trees.
fn read_state(
    repo: &LocalRepo,
    refreshed: &std::path::Path,
    trees: &std::path::Path,
    since: Option<(&WorktreeMemory, &BTreeSet<BString>)>,
) -> Result<ReadState, GitError> {
    // The index is read before the status: a change to it meanwhile is seen by the next sync.
    let index = repo.index_snapshot()?;
    let head = repo.head_remembered(trees)?;
    let head_tree = head.map(|h| h.tree_id);
    let only = match since {
        Some((memory, changed)) => {
            let mut paths = changed.clone();
            paths.extend(memory.touched.iter().cloned());
            memory.index.differing_paths(&index, &mut paths);
            let moved = match (memory.head_tree, head_tree) {
                (Some(old), Some(new)) => {
                    repo.diff_trees(old, new)?.into_iter().for_each(|c| {
                        paths.insert(c.path.into());
                    });
                    true
                }
                (None, None) => true,
                _ => false,
            };
            // A rule file that git changed (a checkout) decides about paths nobody touched.
            let rules = paths.iter().any(|p| {
                let name = p.rsplit(|&b| b == b'/').next().unwrap_or_default();
                [b".gitignore".as_slice(), b".gitattributes", IGNORE_FILE.as_bytes()].contains(&name)
            });
            (moved && !rules && paths.len() <= MAX_RECHECKED).then_some(paths)
        }
        None => None,
    };
    let changes = repo.worktree_changes(Some(refreshed), only.as_ref(), head_tree)?;
    let touched = changes.iter().map(|c| BString::from(c.path.clone())).collect();
    let rechecked = only.as_ref().map(BTreeSet::len);
    Ok((head, changes, WorktreeMemory { head_tree, index, touched, rechecked }))
}
