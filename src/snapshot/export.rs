//! `snapshot export`: a consistent copy of the store, trimmed to tree views, packed.
//!
//! Consistency: the SQLite state and the Tantivy commit must belong together (documents for
//! every file version a view holds). Under the write lock, for a moment, a read transaction
//! pins the SQLite state and the files of the last Tantivy commit are hard-linked into a
//! scratch directory; then the lock is released and the online backup copies the pinned
//! state while other processes go on reading and writing. Segment files are never modified
//! in place, so the links keep exactly that commit.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use super::manifest::{
    FORMAT_NAME, FTS_PREFIX, Manifest, ManifestView, RepositoryIdentity, SNAPSHOT_FORMAT_VERSION, STORE_ENTRY,
};
use super::{SnapshotError, archive};
use crate::git::{LocalRepo, ObjectId};
use crate::store::{self, Store, StoreError, StoreState, WriteLock};

/// What an export wrote.
#[derive(Clone, Debug, Serialize)]
pub struct ExportReport {
    /// The snapshot file.
    pub file: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The size of the store it was taken from.
    pub store_bytes: u64,
    /// The views it holds.
    pub views: Vec<ManifestView>,
    /// Entries besides the manifest.
    pub entries: usize,
    /// Full-text documents of file versions left out (see [`Manifest::extra_documents`]).
    pub extra_documents: u64,
    /// Wall time.
    pub duration_ms: u64,
}

/// A scratch directory inside the store, removed on drop.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The prefix of export scratch directories inside a store.
pub(super) const SCRATCH_PREFIX: &str = "snapshot-export-";

/// Exports the store in `store_dir` to `output`. `keep` limits it to these view keys (and
/// what they need); without it every tree view is exported. Worktree and `live` views are
/// never exported: they describe one machine's files.
pub fn export(
    store_dir: &Path,
    repo: &LocalRepo,
    output: &Path,
    keep: Option<&BTreeSet<String>>,
) -> Result<ExportReport, SnapshotError> {
    let started = Instant::now();
    let (state, detail) = Store::classify(store_dir);
    if state != StoreState::Compatible {
        return Err(StoreError::Incompatible { path: store_dir.to_owned(), state, detail }.into());
    }
    crate::store::staged::remove_leftovers(store_dir, SCRATCH_PREFIX);
    let store_bytes = crate::store::dir_size(store_dir);
    let scratch = Scratch(store_dir.join(format!("{SCRATCH_PREFIX}{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&scratch.0);
    let fts_copy = scratch.0.join("fts");
    std::fs::create_dir_all(&fts_copy).map_err(SnapshotError::io(&fts_copy))?;

    // 1. Pin a pair of states: SQLite (a read transaction) and Tantivy (links to one commit).
    let source = Connection::open_with_flags(store_dir.join(STORE_ENTRY), OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(StoreError::from)?;
    source.busy_timeout(std::time::Duration::from_secs(60)).map_err(StoreError::from)?;
    let (fts_files, index_format) = {
        let _lock = WriteLock::acquire(store_dir, true)?;
        source.execute_batch("BEGIN").map_err(StoreError::from)?;
        // A read starts the snapshot; until then a WAL reader has none.
        source.query_row("SELECT count(*) FROM views", [], |r| r.get::<_, i64>(0)).map_err(StoreError::from)?;
        // The format the store's documents were written in, which may be older than this
        // build's (see `index::OLDEST_INDEX_FORMAT_VERSION`): what the manifest says.
        let (_, _, format) = Store::classify_open(&source);
        (link_fulltext_commit(&crate::index::dir_of(store_dir), &fts_copy)?, format)
    };
    crate::failpoint::hit("snapshot.export_after_pin");

    // 2. Copy the pinned SQLite state.
    let copy_path = scratch.0.join(STORE_ENTRY);
    let mut copy = Connection::open(&copy_path).map_err(StoreError::from)?;
    // As in the store: rows are deleted in whatever order trimming finds them.
    copy.pragma_update(None, "foreign_keys", "OFF").map_err(StoreError::from)?;
    {
        let backup = rusqlite::backup::Backup::new(&source, &mut copy).map_err(StoreError::from)?;
        // One step copies every page within the pinned read transaction.
        loop {
            match backup.step(-1).map_err(StoreError::from)? {
                rusqlite::backup::StepResult::Done => break,
                rusqlite::backup::StepResult::More => {}
                _ => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
    }
    source.execute_batch("COMMIT").map_err(StoreError::from)?;
    drop(source);

    // 3. Trim it to tree views (or the views asked for) and what they need.
    let trimmed = trim(&copy, keep)?;
    if trimmed.views.is_empty() {
        return Err(SnapshotError::NothingToExport);
    }
    // A copy in rollback-journal mode is one self-contained file.
    let mode: String = copy.query_row("PRAGMA journal_mode=DELETE", [], |r| r.get(0)).map_err(StoreError::from)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(StoreError::Sqlite(rusqlite::Error::InvalidQuery).into());
    }
    if trimmed.vacuum {
        copy.execute_batch("VACUUM").map_err(StoreError::from)?;
    }
    drop(copy);

    // 4. Describe and pack.
    let mut files = vec![archive::describe(&scratch.0, STORE_ENTRY)?];
    for name in &fts_files {
        files.push(archive::describe(&scratch.0, &format!("{FTS_PREFIX}{name}"))?);
    }
    let roots = repo.root_commits()?;
    let manifest = Manifest {
        format: FORMAT_NAME.to_owned(),
        format_version: SNAPSHOT_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        created_at: store::now(),
        schema_version: store::STORE_SCHEMA_VERSION,
        extractor_version: crate::extract::EXTRACTOR_VERSION,
        index_format_version: index_format,
        repository: RepositoryIdentity { root_commits: roots.iter().map(ObjectId::to_hex).collect() },
        views: trimmed.views.clone(),
        limited_to_refs: keep.is_some(),
        extra_documents: trimmed.extra_documents,
        files,
        signature: None,
    };
    let mut manifest = manifest;
    if let Some(key) = super::manifest::signing_key(repo) {
        manifest.signature = Some(manifest.signature_with(&key));
    }
    let bytes = archive::write(output, &manifest, &scratch.0)?;
    Ok(ExportReport {
        file: output.to_string_lossy().into_owned(),
        bytes,
        store_bytes,
        views: trimmed.views,
        entries: manifest.files.len(),
        extra_documents: trimmed.extra_documents,
        duration_ms: started.elapsed().as_millis() as u64,
    })
}

/// Hard-links (or copies, where links are not possible) the files of the last Tantivy commit
/// from `fts` into `into`, and writes a `.managed.json` listing them so Tantivy's own garbage
/// collection keeps managing them after import. Returns the file names, sorted; none when
/// there is no index yet. Call with the write lock held: no writer changes `meta.json` then.
fn link_fulltext_commit(fts: &Path, into: &Path) -> Result<Vec<String>, SnapshotError> {
    let meta_path = fts.join("meta.json");
    let meta_text = match std::fs::read(&meta_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SnapshotError::Io { path: meta_path, source: e }),
    };
    let mut names = crate::index::commit_files(fts).map_err(SnapshotError::io(fts))?;
    for name in &names {
        let (from, to) = (fts.join(name), into.join(name));
        if std::fs::hard_link(&from, &to).is_err() {
            std::fs::copy(&from, &to).map_err(SnapshotError::io(&from))?;
        }
    }
    std::fs::write(into.join("meta.json"), &meta_text).map_err(SnapshotError::io(into.join("meta.json")))?;
    names.push("meta.json".to_owned());
    let managed = serde_json::to_string(&names).expect("a list of names serializes");
    std::fs::write(into.join(".managed.json"), format!("{managed}\n")).map_err(SnapshotError::io(into))?;
    names.push(".managed.json".to_owned());
    names.sort();
    Ok(names)
}

/// What trimming the copy kept.
struct Trimmed {
    views: Vec<ManifestView>,
    extra_documents: u64,
    vacuum: bool,
}

fn sql(e: rusqlite::Error) -> SnapshotError {
    SnapshotError::Store(StoreError::Sqlite(e))
}

/// Trims the copied store: no jobs, no worktree or `live` views or refs, only the views in
/// `keep` when given; then the file versions, records and blobs nothing kept needs. File
/// versions dropped are queued in `gc_pending_documents`, so the importer's next `gc`
/// deletes their documents.
fn trim(conn: &Connection, keep: Option<&BTreeSet<String>>) -> Result<Trimmed, SnapshotError> {
    let tx = conn.unchecked_transaction().map_err(sql)?;
    tx.execute("DELETE FROM jobs", []).map_err(sql)?;
    // History's commits stay behind: their documents are not in the snapshot, and a restored
    // store indexes history again on its first `log`.
    tx.execute_batch("DELETE FROM commit_files; DELETE FROM commits;").map_err(sql)?;
    tx.execute("DELETE FROM views WHERE kind != 'tree'", []).map_err(sql)?;
    if let Some(keep) = keep {
        let keys: Vec<String> = {
            let mut stmt = tx.prepare("SELECT key FROM views").map_err(sql)?;
            stmt.query_map([], |r| r.get(0)).map_err(sql)?.collect::<Result<_, _>>().map_err(sql)?
        };
        for key in keys.iter().filter(|k| !keep.contains(*k)) {
            tx.execute("DELETE FROM views WHERE key = ?1", [key]).map_err(sql)?;
        }
    }
    tx.execute("DELETE FROM refs WHERE kind != 'ref' OR view NOT IN (SELECT id FROM views)", []).map_err(sql)?;

    let mut views = Vec::new();
    let mut live = roaring::RoaringBitmap::new();
    {
        let mut stmt =
            tx.prepare("SELECT id, key, tree, bitmap, files, symbols FROM views ORDER BY key").map_err(sql)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<Vec<u8>>>(2)?,
                    r.get::<_, Vec<u8>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, i64>(5)?,
                ))
            })
            .map_err(sql)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql)?;
        let mut refs_of = tx
            .prepare("SELECT name, commit_oid FROM refs WHERE view = ?1 ORDER BY indexed_at DESC, name")
            .map_err(sql)?;
        for (id, key, tree, bitmap, files, symbols) in rows {
            let bitmap = roaring::RoaringBitmap::deserialize_from(&bitmap[..]).map_err(|e| {
                sql(rusqlite::Error::FromSqlConversionFailure(3, rusqlite::types::Type::Blob, Box::new(e)))
            })?;
            live |= bitmap;
            let names: Vec<(String, Option<Vec<u8>>)> = refs_of
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(sql)?
                .collect::<Result<_, _>>()
                .map_err(sql)?;
            let commit = names.iter().find_map(|(_, c)| c.as_deref().and_then(ObjectId::from_bytes));
            views.push(ManifestView {
                key,
                tree: tree.as_deref().and_then(ObjectId::from_bytes).map(|t| t.to_hex()).unwrap_or_default(),
                commit: commit.map(|c| c.to_hex()),
                refs: names.into_iter().map(|(n, _)| n).collect(),
                files,
                symbols,
            });
        }
    }

    let all: Vec<u32> = {
        let mut stmt = tx.prepare("SELECT id FROM file_versions").map_err(sql)?;
        stmt.query_map([], |r| r.get(0)).map_err(sql)?.collect::<Result<_, _>>().map_err(sql)?
    };
    let total = all.len() as u64;
    let mut dropped = 0u64;
    {
        let mut delete = tx.prepare("DELETE FROM file_versions WHERE id = ?1").map_err(sql)?;
        let mut queue = tx.prepare("INSERT OR IGNORE INTO gc_pending_documents (fv) VALUES (?1)").map_err(sql)?;
        for fv in all.into_iter().filter(|fv| !live.contains(*fv)) {
            delete.execute([fv]).map_err(sql)?;
            queue.execute([fv]).map_err(sql)?;
            dropped += 1;
        }
    }
    if dropped > 0 {
        tx.execute_batch(
            "DELETE FROM symbols WHERE record IN (SELECT r.id FROM records r
                 WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = r.blob));
             DELETE FROM occurrences WHERE record IN (SELECT r.id FROM records r
                 WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = r.blob));
             DELETE FROM occurrence_names WHERE record IN (SELECT r.id FROM records r
                 WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = r.blob));
             DELETE FROM outlines WHERE record IN (SELECT r.id FROM records r
                 WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = r.blob));
             DELETE FROM records WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = records.blob);
             DELETE FROM blobs WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = blobs.id)
                 AND NOT EXISTS (SELECT 1 FROM records r WHERE r.blob = blobs.id);",
        )
        .map_err(sql)?;
    }
    let extra_documents: u64 =
        tx.query_row("SELECT count(*) FROM gc_pending_documents", [], |r| r.get::<_, i64>(0)).map_err(sql)? as u64;
    tx.commit().map_err(sql)?;
    // Compact when much was dropped or much is free: the snapshot should not carry dead pages.
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0)).map_err(sql)?;
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).map_err(sql)?;
    let vacuum = keep.is_some() || dropped * 20 > total || free * 10 > pages;
    Ok(Trimmed { views, extra_documents, vacuum })
}
