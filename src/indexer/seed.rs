//! A repository's first index seeded from another registered repository's store: a fork
//! shares most of its files with its original, path for path and blob for blob, and its first
//! build would otherwise write the full-text documents of every one of them again (records are
//! shared blob by blob, see `shared.rs`; documents are keyed by file version, so they can only
//! come with the file versions, that is with the whole store).
//!
//! The donor's store is copied into a staging directory beside the new store (see
//! `store::seed`), everything of the donor's repository is forgotten there (refs, views,
//! history), and the file versions this repository's trees do not hold are dropped with their
//! documents and the records only they needed, as gc drops them: the new store never keeps
//! another repository's content. Deleted documents stay in the segment files, masked, until
//! the files are rewritten: that merge of the whole index is made only when a dropped file
//! version's blob is missing from this repository's own objects; otherwise the donor's
//! segment files stay linked (what they hold besides is this repository's content too: the
//! old versions of the files a fork changed are in its history). The staged store is then
//! renamed into place, the full-text index first and the database last, like a snapshot
//! install. The build that follows finds the shared files' file versions, records and
//! documents, and writes only what differs.

use std::path::{Path, PathBuf};

use super::gc::{GcReport, Segments};
use super::{IndexError, IndexOptions, Indexer};
use crate::git::ObjectId;
use crate::store::staged::{self, Staging};
use crate::store::{self, Store, StoreError, WriteLock};
use crate::view::Workspace;

/// A donor is used when it holds at least this share of the wanted files...
const MIN_SHARED: f64 = 0.5;
/// ...and no more than this many file versions with documents for each one shared (the rest
/// is copied only to be dropped).
const MAX_DOCUMENTED_PER_SHARED: u64 = 2;

/// What seeding did.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SeedReport {
    /// The repository whose store the new one was seeded from.
    pub donor: String,
    /// Files of the trees being indexed the donor held with their documents.
    pub files_shared: u64,
    /// Files of those trees.
    pub files_wanted: u64,
    /// Files of those trees the donor lacks (with their documents): the build parses them.
    pub files_unshared: u64,
    /// The donor's file versions dropped because this repository's trees do not hold them.
    pub file_versions_dropped: u64,
    /// Whether the full-text index was rewritten (its segments merged) so that no file keeps
    /// the documents of content this repository does not hold; otherwise the donor's segment
    /// files stay shared, with the dropped file versions' documents deleted.
    pub rewritten: bool,
    /// Wall time of the copy and the drop.
    pub duration_ms: u64,
}

/// Seeds the workspace's store, which must not exist yet, from the donor (repository path,
/// store directory) that holds the most of `wanted` (path, blob: the files of the trees about
/// to be indexed), if one holds enough. `None`: nothing was seeded (no donor qualified, each
/// was busy or unreadable, or another process created the store meanwhile); the build then
/// starts from an empty store as always.
pub fn seed(
    ws: &Workspace,
    donors: &[(PathBuf, PathBuf)],
    wanted: &[(Vec<u8>, ObjectId)],
) -> Result<Option<SeedReport>, IndexError> {
    let started = std::time::Instant::now();
    if wanted.is_empty() {
        return Ok(None);
    }
    let mut best: Option<(&PathBuf, &PathBuf, u64)> = None;
    let held = store::seed::Wanted::new(wanted)?;
    let enough = MIN_SHARED * wanted.len() as f64;
    for (repo, dir) in donors {
        // A donor whose list of blobs holds too few of the wanted ones is not opened: a file
        // it holds with its documents is a blob it holds a record of.
        if store::record_blobs::count_held(dir, wanted.iter().map(|(_, oid)| oid)).is_some_and(|n| (n as f64) < enough)
        {
            continue;
        }
        match held.overlap(dir) {
            Ok(o)
                if o.shared as f64 >= enough
                    && o.documented <= MAX_DOCUMENTED_PER_SHARED * o.shared
                    && best.is_none_or(|(_, _, shared)| o.shared > shared) =>
            {
                best = Some((repo, dir, o.shared));
            }
            Ok(_) => {}
            Err(e) => crate::progress::note(&format!("warning: the index of {} not read: {e}", repo.display())),
        }
    }
    let Some((donor_repo, donor_store, shared)) = best else { return Ok(None) };
    // The build that follows parses the files the donor lacks: the queries of their languages
    // are compiled meanwhile, on the core the copy leaves idle (Rust's takes 16 ms).
    let unshared = held.unshared_paths(donor_store).unwrap_or_default();
    crate::extract::compile_ahead(unshared.iter().filter_map(|path| super::state::parsed_language(path)).collect());
    let store_dir = ws.store_dir();
    let staging = Staging::beside(store_dir, "seed");
    crate::progress::note(&format!(
        "seeding the index from {} ({shared} of {} files shared)",
        donor_repo.display(),
        wanted.len()
    ));
    match store::seed::copy_from(donor_store, staging.path()) {
        Ok(()) => {}
        Err(StoreError::Busy { .. }) => {
            crate::progress::note(&format!("{} is being indexed: not seeding from it", donor_repo.display()));
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    }
    let (dropped, rewritten) = {
        let staged = Store::open(staging.path(), false)?;
        // A copy is written in rollback mode; a store is read while it is written. Nothing
        // here needs to be durable before the copy is whole: it is synced once, below.
        staged.conn().query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0)).map_err(StoreError::from)?;
        staged.conn().pragma_update(None, "synchronous", "OFF").map_err(StoreError::from)?;
        // A deleted row's bytes stay in its page until overwritten, and a freed page stays in
        // the file: with `secure_delete`, SQLite zeroes both, so what is forgotten or dropped
        // here (the donor's refs, history, jobs' results, file versions) leaves no trace in
        // the new store's database.
        staged.conn().pragma_update(None, "secure_delete", true).map_err(StoreError::from)?;
        staged.forget_repository()?;
        let keep = staged.file_versions_of(wanted)?;
        // The dropped file versions' documents are deleted either way; their bytes stay in
        // the donor's segment files until these are rewritten, which costs a merge of the
        // whole index and copies what was linked. It is needed only for content this
        // repository does not hold in its own objects (the donor's other branches, its dirty
        // files): the old versions of the files a fork changed are in the fork's history.
        // Documents the donor's own files hold deleted already (it was seeded itself) are of
        // content no row names any more: they are rewritten away too.
        let repo = ws.git().map(|git| git.local());
        let dropped = staged.blobs_outside(&keep)?;
        // Metadata that cannot be read counts as holding some.
        let masked = crate::index::exists(staging.path())
            && crate::index::FullText::open(staging.path()).and_then(|f| f.holds_deleted_documents()).unwrap_or(true);
        let foreign = masked || dropped.iter().any(|blob| repo.as_ref().is_none_or(|repo| !repo.has_object(*blob)));
        let segments = if foreign { Segments::Rewrite } else { Segments::Keep };
        let indexer = Indexer::new(ws, &staged, IndexOptions::default())?;
        let mut report = GcReport::default();
        let tx = staged.conn().unchecked_transaction().map_err(StoreError::from)?;
        indexer.drop_unreachable(tx, &keep, segments, &mut report)?;
        staged.set_meta("seeded_from", &donor_repo.to_string_lossy())?;
        drop(indexer);
        staged.conn().query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(StoreError::from)?;
        (report.file_versions_dropped, foreign)
    };
    let staged_db = staging.path().join(store::DB_FILE);
    std::fs::File::open(&staged_db)
        .and_then(|f| f.sync_all())
        .map_err(|e| IndexError::Io { path: staged_db.clone(), source: e })?;
    crate::failpoint::hit("seed.before_install");
    if !install(store_dir, staging.path())? {
        return Ok(None);
    }
    Ok(Some(SeedReport {
        donor: donor_repo.to_string_lossy().into_owned(),
        files_shared: shared,
        files_wanted: wanted.len() as u64,
        files_unshared: unshared.len() as u64,
        file_versions_dropped: dropped,
        rewritten,
        duration_ms: started.elapsed().as_millis() as u64,
    }))
}

/// Renames the staged store into `store_dir` under its write lock (see
/// `store::staged::install`). `false`: another process made the store meanwhile, and it is left
/// as it is.
fn install(store_dir: &Path, staging: &Path) -> Result<bool, IndexError> {
    let _lock = WriteLock::acquire(store_dir, true)?;
    if Store::exists(store_dir) {
        return Ok(false);
    }
    staged::install(store_dir, staging, || {})?;
    Ok(true)
}
