//! `log -S STRING` and `log -G REGEX`: the walk's commits whose changed files can hold the
//! pattern (from the commits' trigram documents) are checked as git checks them, reading only
//! their changed blobs.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::fts::{CommitIndex, key_of};
use super::pickaxe::{self, Pickaxe};
use super::walk::{Graph, Walk, WalkOptions};
use crate::git::{DiffAttribute, GitRepo, LocalRepo, ObjectId};
use crate::query::pathspec::Pathspecs;
use crate::query::prefilter::Prefilter;
use crate::store::{ChangeRow, CommitRow, Store, StoreError};

/// A commit `log -S/-G` keeps, with the files that made it match.
#[derive(Clone, Debug)]
pub struct PickaxeHit<'g> {
    /// The commit.
    pub commit: &'g CommitRow,
    /// The paths whose change matched.
    pub paths: Vec<String>,
}

/// What a pickaxe search found, and how much it read.
pub struct PickaxeOutcome<'g> {
    /// The commits, in `git log`'s order.
    pub hits: Vec<PickaxeHit<'g>>,
    /// Whether the walk reached commits that are not stored.
    pub boundary: bool,
    /// Commits walked.
    pub walked: usize,
    /// Commits whose blobs were read.
    pub checked: usize,
    /// Blobs that were not in the object store (a partial clone): their commits may be missing.
    pub missing_blobs: usize,
}

/// Errors of a pickaxe search.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The commits' index failed.
    #[error(transparent)]
    Fulltext(#[from] crate::index::FtsError),
    /// Reading git failed.
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
}

/// A pickaxe question.
pub struct PickaxeQuery<'a> {
    /// What to look for.
    pub pickaxe: &'a Pickaxe,
    /// Which commits.
    pub walk: &'a WalkOptions,
    /// Only changes under these paths (and git's simplification of merges through them).
    pub pathspecs: &'a Pathspecs,
    /// At most this many commits.
    pub limit: usize,
    /// Only the first N commits the walk shows before the pickaxe looks: `--reverse` with
    /// `--max-count`, for which git cuts the walk first (so few or none of them may match).
    pub shown_first: Option<usize>,
}

/// The prefilter of a pickaxe: the trigrams a changed line must hold, or none for a string
/// that spans lines (its count can change without any changed line holding it whole).
fn prefilter(pickaxe: &Pickaxe) -> Prefilter {
    match pickaxe {
        Pickaxe::Count(needle) if needle.bytes().contains(&b'\n') => Prefilter::Any,
        Pickaxe::Count(needle) => {
            let text = String::from_utf8_lossy(needle.bytes());
            let matcher = crate::query::Matcher::new(&text, true, needle.ignores_case());
            matcher.map(|m| m.prefilter().clone()).unwrap_or(Prefilter::Any)
        }
        Pickaxe::Grep(matcher) => matcher.prefilter().clone(),
    }
}

/// Candidate commits checked at once, in parallel (their order is kept).
const BATCH: usize = 32;
/// Contents one search keeps for the next commit that has them.
const CACHE_BYTES: usize = 32 << 20;

/// Runs a pickaxe search from `tips`.
pub fn pickaxe<'g>(
    store: &Store,
    git: &GitRepo,
    graph: &'g Graph,
    index: &CommitIndex,
    tips: &[ObjectId],
    query: &PickaxeQuery<'_>,
) -> Result<PickaxeOutcome<'g>, LogError> {
    use rayon::prelude::*;
    let repo = git.local();
    // `-S` counts in binary files too: their long printable runs are indexed, which hold every
    // occurrence of a printable string as long; `-G` skips binary files, as git does.
    let binary = matches!(query.pickaxe, Pickaxe::Count(needle) if !super::pickaxe::in_printable_runs(needle.bytes()));
    let candidates: Option<HashSet<u64>> =
        index.candidates(&prefilter(query.pickaxe), store.trigram_windows(), binary)?;
    let mut simplify = |row: &CommitRow| simplify_merge(&repo, row, query.pathspecs);
    let Walk { mut commits, boundary } = graph.walk(tips, query.walk, &mut simplify);
    if let Some(n) = query.shown_first {
        let mut kept = Vec::with_capacity(n);
        for row in commits {
            if kept.len() == n {
                break;
            }
            if shown_by_walk(store, &repo, row, query.pathspecs, query.walk.first_parent)? {
                kept.push(row);
            }
        }
        commits = kept;
    }
    let mut out = PickaxeOutcome { hits: Vec::new(), boundary, walked: commits.len(), checked: 0, missing_blobs: 0 };
    // Merges show no diff unless first parents are followed (git's default).
    let to_check: Vec<&CommitRow> = commits
        .into_iter()
        .filter(|row| row.parents.len() < 2 || query.walk.first_parent)
        .filter(|row| candidates.as_ref().is_none_or(|c| c.contains(&key_of(row.oid))))
        .collect();
    let missing = std::sync::atomic::AtomicUsize::new(0);
    let cache = BlobCache::new(CACHE_BYTES);
    // `-G` skips a file its attributes make binary, with the attributes git reads for `log`:
    // the working tree's (not each commit's).
    let mut attributes = match query.pickaxe {
        Pickaxe::Grep(_) => repo.binary_attributes(&repo.worktree_attribute_files()),
        Pickaxe::Count(_) => None,
    };
    let mut known: HashMap<Vec<u8>, Option<bool>> = HashMap::new();
    let mut binary_by_attributes = |side: &Option<crate::store::ChangedSide>| -> Option<bool> {
        let (side, rules) = (side.as_ref()?, attributes.as_mut()?);
        *known.entry(side.path.clone()).or_insert_with(|| match rules.diff(&side.path) {
            DiffAttribute::Binary => Some(true),
            DiffAttribute::Text => Some(false),
            DiffAttribute::Content => None,
        })
    };
    for batch in to_check.chunks(BATCH) {
        if out.hits.len() >= query.limit {
            break;
        }
        let mut work = Vec::with_capacity(batch.len());
        for row in batch {
            let changes: Vec<ChangeRow> = store
                .commit_changes(row.id)?
                .into_iter()
                .filter(|c| query.pathspecs.is_empty() || query.pathspecs.matches(&String::from_utf8_lossy(c.path())))
                .collect();
            let binary: Vec<[Option<bool>; 2]> =
                changes.iter().map(|c| [binary_by_attributes(&c.old), binary_by_attributes(&c.new)]).collect();
            work.push((*row, changes, binary));
        }
        let found: Vec<(&'g CommitRow, Vec<String>)> = work
            .par_iter()
            .map_init(
                || git.local(),
                |repo, (row, changes, binary)| {
                    let mut lost = 0;
                    let paths = check(repo, &cache, query.pickaxe, changes, binary, &mut lost);
                    missing.fetch_add(lost, std::sync::atomic::Ordering::Relaxed);
                    (*row, paths)
                },
            )
            .collect();
        out.checked += batch.len();
        for (row, paths) in found {
            if out.hits.len() >= query.limit {
                break;
            }
            if !paths.is_empty() {
                out.hits.push(PickaxeHit { commit: row, paths });
            }
        }
    }
    out.missing_blobs = missing.into_inner();
    Ok(out)
}

/// The paths of `changes` the pickaxe keeps, after pairing renames; `binary` says, per change,
/// what the attributes make of its two sides (see [`pickaxe::Side::binary`]).
fn check(
    repo: &LocalRepo,
    cache: &BlobCache,
    pickaxe_: &Pickaxe,
    changes: &[ChangeRow],
    binary: &[[Option<bool>; 2]],
    missing: &mut usize,
) -> Vec<String> {
    // The contents of each change's sides, before and after.
    type Contents = (Option<Arc<Vec<u8>>>, Option<Arc<Vec<u8>>>);
    let mut contents: Vec<Contents> = Vec::with_capacity(changes.len());
    let mut read = |side: &Option<crate::store::ChangedSide>| -> Option<Arc<Vec<u8>>> {
        let side = side.as_ref()?;
        if side.is_gitlink() {
            return Some(Arc::new(crate::git::gitlink_text(side.blob)));
        }
        Some(cache.read(repo, side.blob).unwrap_or_else(|| {
            *missing += 1;
            Arc::new(Vec::new())
        }))
    };
    for c in changes {
        contents.push((read(&c.old), read(&c.new)));
    }
    let sides: Vec<pickaxe::Change<'_>> = changes
        .iter()
        .zip(&contents)
        .zip(binary)
        .map(|((c, (o, n)), [old_binary, new_binary])| pickaxe::Change {
            old: c.old.as_ref().zip(o.as_deref()).map(|(s, data)| side_of(s, data, *old_binary)),
            new: c.new.as_ref().zip(n.as_deref()).map(|(s, data)| side_of(s, data, *new_binary)),
        })
        .collect();
    pickaxe::matching_paths(pickaxe_, &sides)
}

/// Contents read by one search, kept while they fit a budget: a blob is usually the new side of
/// one candidate commit and the old side of the next one that changed its file.
struct BlobCache {
    kept: Mutex<Kept>,
    budget: usize,
}

/// What a [`BlobCache`] holds, and how many bytes.
#[derive(Default)]
struct Kept {
    blobs: HashMap<ObjectId, Arc<Vec<u8>>>,
    bytes: usize,
}

impl BlobCache {
    fn new(budget: usize) -> BlobCache {
        BlobCache { kept: Mutex::new(Kept::default()), budget }
    }

    /// The content of `blob`, `None` when the object store does not have it.
    fn read(&self, repo: &LocalRepo, blob: ObjectId) -> Option<Arc<Vec<u8>>> {
        if let Some(found) = self.kept.lock().expect("the cache lock is never poisoned").blobs.get(&blob) {
            return Some(found.clone());
        }
        let mut buf = Vec::new();
        repo.read_blob_into(blob, &mut buf).ok()?;
        let data = Arc::new(buf);
        let mut kept = self.kept.lock().expect("the cache lock is never poisoned");
        if kept.bytes + data.len() <= self.budget {
            kept.bytes += data.len();
            kept.blobs.insert(blob, data.clone());
        }
        Some(data)
    }
}

fn side_of<'a>(side: &'a crate::store::ChangedSide, data: &'a [u8], binary: Option<bool>) -> pickaxe::Side<'a> {
    // Symlinks and submodules are paired into renames only when their ids are equal, as git
    // pairs them.
    let regular = side.skip.as_deref() != Some("symlink") && !side.is_gitlink();
    pickaxe::Side { blob: side.blob, path: &side.path, regular, data, binary }
}

/// Whether git's walk shows `row` with `pathspecs` (before any pickaxe): with none, every
/// commit; else a commit that changed a file there against its parent, or a merge that equals
/// none of its parents there (its first parent alone with `first_parent`).
pub fn shown_by_walk(
    store: &Store,
    repo: &LocalRepo,
    row: &CommitRow,
    pathspecs: &Pathspecs,
    first_parent: bool,
) -> Result<bool, StoreError> {
    if pathspecs.is_empty() {
        return Ok(true);
    }
    if row.parents.len() > 1 && !first_parent {
        return Ok(simplify_merge(repo, row, pathspecs).is_none());
    }
    let touches = |c: &ChangeRow| pathspecs.matches(&String::from_utf8_lossy(c.path()));
    Ok(store.commit_changes(row.id)?.iter().any(touches))
}

/// For a merge and paths: the first parent the merge equals under those paths, which git
/// follows alone.
pub fn simplify_merge(repo: &LocalRepo, row: &CommitRow, pathspecs: &Pathspecs) -> Option<usize> {
    if pathspecs.is_empty() {
        return None;
    }
    let tree = repo.commit_tree(row.oid).ok()?;
    for (i, parent) in row.parents.iter().enumerate() {
        let Ok(parent_tree) = repo.commit_tree(*parent) else { continue };
        let Ok(changes) = repo.diff_trees_of(parent_tree, tree, crate::git::Gitlinks::With) else { continue };
        if !changes.iter().any(|c| pathspecs.matches(&String::from_utf8_lossy(&c.path))) {
            return Some(i);
        }
    }
    None
}
