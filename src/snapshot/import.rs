//! `snapshot import`: verify everything, unpack into a staging directory beside the store,
//! then install by rename (an empty store) or merge (a populated one).
//!
//! Installing: the staged database and full-text index are renamed into the store, the
//! database last; until that rename the store is what it was (or, if it was empty, still
//! empty: an interrupted install leaves no database, and a new store never keeps an orphaned
//! full-text index, see `Store::create`).
//!
//! Merging: blob records are content-addressed, so the snapshot's blobs, records and symbols
//! are a union, written in one transaction. File version ids differ between stores, and
//! full-text documents are keyed by them, so the snapshot's views are then built in this
//! store by the indexer, by tree diff from the nearest view it has: every blob the snapshot
//! parsed has a record now, so nothing is parsed again, only documents are written.

use std::path::Path;
use std::time::Instant;

use rusqlite::{Connection, params};
use serde::Serialize;

use super::manifest::{Manifest, SNAPSHOT_FORMAT_VERSION, STORE_ENTRY};
use super::{SnapshotError, archive};
use crate::git::{LocalRepo, ObjectId};
use crate::indexer::{IndexOptions, Indexer};
use crate::store::staged::{self, Staging};
use crate::store::{self, Store, StoreError, StoreState, WriteLock};
use crate::view::{Scope, Workspace};

/// What an import did.
#[derive(Clone, Debug, Serialize)]
pub struct ImportReport {
    /// The snapshot file.
    pub file: String,
    /// `installed` (the store was empty and is now the snapshot's) or `merged`.
    pub mode: &'static str,
    /// The views of the snapshot and what became of each.
    pub views: Vec<ImportedView>,
    /// The snapshot's size in bytes.
    pub snapshot_bytes: u64,
    /// Bytes unpacked.
    pub unpacked_bytes: u64,
    /// The tool version that wrote it.
    pub snapshot_tool_version: String,
    /// When it was written (Unix seconds).
    pub snapshot_created_at: i64,
    /// Blobs parsed while merging (a merge parses none that the snapshot had).
    pub blobs_parsed: u64,
    /// Wall time.
    pub duration_ms: u64,
}

/// One view of an import.
#[derive(Clone, Debug, Serialize)]
pub struct ImportedView {
    /// The view key.
    pub key: String,
    /// The commit it was indexed at.
    pub commit: Option<String>,
    /// The names that resolved to it where it was exported.
    pub refs: Vec<String>,
    /// `installed`, `merged`, or `skipped` (its commit is not in this repository).
    pub state: &'static str,
}

/// Imports the snapshot `file` into the workspace's store.
pub fn import(ws: &Workspace, file: &Path) -> Result<ImportReport, SnapshotError> {
    let started = Instant::now();
    let repo = ws.git().ok_or_else(|| SnapshotError::NotARepository { path: ws.root().to_owned() })?.local();
    let store_dir = ws.store_dir();
    // Nothing in the store is opened before the snapshot passed every check: even a read
    // of a WAL database leaves files behind.
    let staging = Staging::beside(store_dir, "import");
    let parent = staging.parent().to_owned();

    // 1. Everything is checked before anything is written, and written only to staging.
    let manifest = archive::unpack_verified(file, staging.path(), |m| check_manifest(m, &repo, &parent))?;
    check_staged_store(file, staging.path(), &manifest)?;
    crate::failpoint::hit("import.after_unpack");

    let mut report = ImportReport {
        file: file.to_string_lossy().into_owned(),
        mode: "installed",
        views: Vec::new(),
        snapshot_bytes: std::fs::metadata(file).map(|m| m.len()).unwrap_or(0),
        unpacked_bytes: manifest.total_size(),
        snapshot_tool_version: manifest.tool_version.clone(),
        snapshot_created_at: manifest.created_at,
        blobs_parsed: 0,
        duration_ms: 0,
    };

    // 2. Install into an empty store, under the write lock.
    {
        let _lock = WriteLock::acquire(store_dir, true)?;
        staged::remove_leftovers(store_dir, staged::FTS_ASIDE_PREFIX);
        let empty = match Store::classify(store_dir).0 {
            StoreState::NotIndexed => true,
            StoreState::Compatible => Store::open(store_dir, false)?.counts()?.views == 0,
            state => return Err(SnapshotError::StoreNotImportable { path: store_dir.to_owned(), state }),
        };
        if empty {
            install(store_dir, staging.path(), file, &repo)?;
            // A list of the blobs the store replaced held records of would be taken for the
            // new one's (`store::record_blobs`): the next index run writes it whole.
            crate::store::record_blobs::forget(store_dir);
            // The snapshot's full-text files verified and stamped here rather than by the
            // first query, and each segment's runs file written (see `index::runs`).
            if let Ok(fulltext) = crate::index::FullText::open(store_dir) {
                fulltext.settle();
            }
            report.views = manifest
                .views
                .iter()
                .map(|v| ImportedView {
                    key: v.key.clone(),
                    commit: v.commit.clone(),
                    refs: v.refs.clone(),
                    state: "installed",
                })
                .collect();
            report.duration_ms = started.elapsed().as_millis() as u64;
            return Ok(report);
        }
    }

    // 3. Or merge into a populated one (the indexer takes the lock itself).
    report.mode = "merged";
    let store = Store::open(store_dir, false)?;
    let indexer = Indexer::new(ws, &store, IndexOptions::default())?;
    let job = store.start_job("import", &file.to_string_lossy())?;
    let result = merge(&store, &indexer, &repo, staging.path(), &manifest, &mut report);
    match &result {
        Ok(()) => {
            let stats = format!("{{\"views\":{},\"blobs_parsed\":{}}}", report.views.len(), report.blobs_parsed);
            store.finish_job(job, None, Some(&stats))?;
        }
        Err(e) => {
            let _ = store.finish_job(job, Some(&e.to_string()), None);
        }
    }
    result?;
    indexer.finish()?;
    store.checkpoint();
    report.duration_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// The checks on a manifest: versions, repository identity, room to unpack.
fn check_manifest(manifest: &Manifest, repo: &LocalRepo, unpack_in: &Path) -> Result<(), SnapshotError> {
    // With a key set, only a snapshot signed with it is taken: checksums alone can be
    // recomputed by anyone who can write where snapshots are kept.
    if let Some(key) = super::manifest::signing_key(repo) {
        let expected = manifest.signature_with(&key);
        let signed = manifest.signature.as_deref().map(|s| s.as_bytes() == expected.as_bytes());
        if signed != Some(true) {
            return Err(SnapshotError::BadSignature { signed: manifest.signature.is_some() });
        }
    }
    let versions = [
        ("snapshot format version", manifest.format_version, SNAPSHOT_FORMAT_VERSION),
        ("store schema version", manifest.schema_version, store::STORE_SCHEMA_VERSION),
        ("full-text index format version", manifest.index_format_version, crate::index::INDEX_FORMAT_VERSION),
        ("extractor version", manifest.extractor_version, crate::extract::EXTRACTOR_VERSION),
    ];
    for (what, theirs, ours) in versions {
        if theirs != ours {
            return Err(SnapshotError::VersionMismatch { what, snapshot: theirs.to_string(), ours: ours.to_string() });
        }
    }
    // Same repository: one of its commits is here (cheap), or it shares a root commit.
    let has_commit = manifest
        .views
        .iter()
        .filter_map(|v| v.commit.as_deref().and_then(ObjectId::from_hex))
        .any(|c| repo.has_object(c));
    if !has_commit {
        let ours: Vec<String> = repo.root_commits()?.iter().map(ObjectId::to_hex).collect();
        let shared = manifest.repository.root_commits.iter().any(|r| ours.iter().any(|o| o.eq_ignore_ascii_case(r)));
        if !shared {
            return Err(SnapshotError::OtherRepository {
                snapshot_roots: short_list(&manifest.repository.root_commits),
                ours: short_list(&ours),
            });
        }
    }
    if let Some(available) = free_space(unpack_in) {
        // The store's own copy of what it replaces or merges is not counted: be generous.
        let needed = manifest.total_size();
        if needed > available {
            return Err(SnapshotError::NoSpace { path: unpack_in.to_owned(), needed, available });
        }
    }
    Ok(())
}

fn short_list(ids: &[String]) -> String {
    if ids.is_empty() {
        return "none".to_owned();
    }
    ids.iter().map(|i| i.chars().take(12).collect::<String>()).collect::<Vec<_>>().join(", ")
}

/// Free bytes on the filesystem holding `path`.
fn free_space(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` is plain old data, for which all-zero bytes are a valid value.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c_path` is a NUL-terminated string and `stat` a valid out-parameter that
    // lives for the whole call.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), &mut stat) };
    (rc == 0).then(|| (stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

/// The staged database must be a store this build opens, holding the views the manifest
/// names and no others.
fn check_staged_store(file: &Path, staging: &Path, manifest: &Manifest) -> Result<(), SnapshotError> {
    let (state, detail) = Store::classify(staging);
    if state != StoreState::Compatible {
        return Err(SnapshotError::BadStore { state, detail });
    }
    // Checksums say the files are the ones packed, not that they are sound: the database and
    // the full-text index are opened and checked as `doctor` would, before anything is installed.
    let damage = Store::damage(staging, true);
    if !damage.is_empty() {
        return Err(SnapshotError::BadStore { state: StoreState::Corrupt, detail: damage.join("; ") });
    }
    let conn = store::read_connection(staging)?;
    let fulltext_damage = if store::documents_written(&conn)? && !crate::index::exists(staging) {
        Some("its full-text index is missing".to_owned())
    } else {
        match crate::index::FullText::open(staging)
            .and_then(|f| f.reader().and_then(|_| f.verify(crate::index::Verify::All, true)))
        {
            Ok(files) if files.is_empty() => None,
            Ok(files) => Some(format!("full-text files fail their checksum: {}", files.join(", "))),
            Err(e) => Some(format!("its full-text index cannot be read: {e}")),
        }
    };
    if let Some(detail) = fulltext_damage {
        return Err(SnapshotError::BadStore { state: StoreState::Corrupt, detail });
    }
    let mut stmt = conn.prepare("SELECT key, kind FROM views ORDER BY key").map_err(StoreError::from)?;
    let views: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(StoreError::from)?
        .collect::<Result<_, _>>()
        .map_err(StoreError::from)?;
    let mut listed: Vec<&str> = manifest.views.iter().map(|v| v.key.as_str()).collect();
    listed.sort_unstable();
    let stored: Vec<&str> = views.iter().map(|(k, _)| k.as_str()).collect();
    if listed != stored || views.iter().any(|(_, kind)| kind != "tree") {
        return Err(SnapshotError::NotASnapshot {
            file: file.to_owned(),
            reason: "its manifest does not describe the store inside it",
        });
    }
    Ok(())
}

/// Renames the staged store into `store_dir`, which is empty (no database, or one with no
/// views). Call with the write lock held.
fn install(store_dir: &Path, staging: &Path, file: &Path, repo: &LocalRepo) -> Result<(), SnapshotError> {
    let staged_db = staging.join(STORE_ENTRY);
    {
        let conn = Connection::open(&staged_db).map_err(StoreError::from)?;
        conn.pragma_update(None, "foreign_keys", "OFF").map_err(StoreError::from)?;
        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0)).map_err(StoreError::from)?;
        rename_foreign_refs(&conn, repo)?;
        let now = store::now();
        // Imported views count as used now: gc's grace period starts at the import.
        conn.execute("UPDATE views SET last_used_at = ?1", [now]).map_err(StoreError::from)?;
        conn.execute(
            "INSERT INTO jobs (kind, target, state, pid, started_at, finished_at)
             VALUES ('import', ?1, 'published', ?2, ?3, ?3)",
            params![file.to_string_lossy(), std::process::id(), now],
        )
        .map_err(StoreError::from)?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(StoreError::from)?;
    }
    crate::failpoint::hit("import.before_install");
    staged::install(store_dir, staging, || crate::failpoint::hit("import.after_fts_install"))?;
    crate::failpoint::hit("import.after_install");
    Ok(())
}

/// Branch and tag names that do not exist here (a CI checkout has no local `main`) are
/// stored under their commit id instead: the views stay reachable as diff bases, and
/// nothing claims a name this repository does not have.
fn rename_foreign_refs(conn: &Connection, repo: &LocalRepo) -> Result<(), SnapshotError> {
    let refs: Vec<(String, Option<Vec<u8>>)> = {
        let mut stmt =
            conn.prepare("SELECT name, commit_oid FROM refs WHERE kind = 'ref'").map_err(StoreError::from)?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(StoreError::from)?
            .collect::<Result<_, _>>()
            .map_err(StoreError::from)?
    };
    for (name, commit) in refs {
        let is_commit_name = name.len() == 40 && name.bytes().all(|b| b.is_ascii_hexdigit());
        let Some(commit) = commit.as_deref().and_then(ObjectId::from_bytes) else { continue };
        if is_commit_name || repo.has_reference(&name) {
            continue;
        }
        conn.execute("UPDATE OR REPLACE refs SET name = ?2 WHERE name = ?1", params![name, commit.to_hex()])
            .map_err(StoreError::from)?;
    }
    Ok(())
}

/// Merges the staged store into a populated one: the union of blobs, records and symbols in
/// one transaction, then each view built here by the indexer (which parses nothing the
/// snapshot had).
fn merge(
    store: &Store,
    indexer: &Indexer<'_>,
    repo: &LocalRepo,
    staging: &Path,
    manifest: &Manifest,
    report: &mut ImportReport,
) -> Result<(), SnapshotError> {
    crate::failpoint::hit("import.before_merge");
    let conn = store.conn();
    let staged_db = staging.join(STORE_ENTRY);
    conn.execute("ATTACH DATABASE ?1 AS snap", [staged_db.to_string_lossy()]).map_err(StoreError::from)?;
    let merged = crate::store::shared::copy_all_records(conn, "snap");
    let _ = conn.execute("DETACH DATABASE snap", []);
    merged?;
    crate::failpoint::hit("import.after_merge_records");
    for view in &manifest.views {
        let commit = view.commit.as_deref().and_then(ObjectId::from_hex).filter(|c| repo.has_object(*c));
        let Some(commit) = commit else {
            report.views.push(ImportedView {
                key: view.key.clone(),
                commit: view.commit.clone(),
                refs: view.refs.clone(),
                state: "skipped",
            });
            continue;
        };
        // Build it under a name that still points at this commit here, else the commit id.
        let name = view
            .refs
            .iter()
            .find(|r| repo.resolve(r).is_ok_and(|now| now.commit_id == commit))
            .cloned()
            .unwrap_or_else(|| commit.to_hex());
        let built = indexer.index(&Scope::Ref(name))?;
        report.blobs_parsed += built.blobs_parsed;
        report.views.push(ImportedView {
            key: view.key.clone(),
            commit: view.commit.clone(),
            refs: view.refs.clone(),
            state: "merged",
        });
    }
    Ok(())
}
