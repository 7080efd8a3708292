//! The store: SQLite (WAL) holding content-addressed records, file versions, views and refs.
//!
//! Useful for: everything that must survive a process and be shared by all branches,
//! worktrees and processes of one repository. Not useful for: full-text ranking (that is the
//! Tantivy index) or file content (read from git, or from `blobs/` for dirty files).
//!
//! Writes follow one rule: records and file versions are immutable and content-addressed, so
//! they may be committed in many small transactions; a view is switched in one transaction,
//! last. A reader therefore sees either the old view or the new one, never half of one.
//! One process writes at a time ([`WriteLock`]); readers never wait.

mod batch;
pub mod blobs;
mod classify;
mod history;
mod lock;
pub mod occurrences;
pub mod record_blobs;
mod rows;
mod schema;
pub mod seed;
pub mod shared;
pub mod staged;
mod symbols;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

pub use batch::Batch;
pub use history::{ChangeRow, ChangedSide, CommitDetails, CommitRow, NewChange, SUBMODULE};
pub use lock::WriteLock;
pub use rows::*;
pub use schema::STORE_SCHEMA_VERSION;
pub use symbols::NamedSymbol;

use crate::extract::{self, Outline};
use crate::git::ObjectId;

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("store database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A file of the store could not be read or written.
    #[error("store I/O error at {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// The store was written by an incompatible version or is damaged.
    #[error("the index at {path} is {state}: {detail}")]
    Incompatible { path: PathBuf, state: StoreState, detail: String },
    /// Another process holds the write lock.
    #[error("another process (pid {pid}) is writing the index")]
    Busy { pid: u32 },
}

/// How an existing store relates to this build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreState {
    /// Readable and writable by this build.
    Compatible,
    /// No store yet.
    NotIndexed,
    /// Written by another schema version: rebuild with `index --force`.
    ReindexRequired,
    /// Unreadable.
    Corrupt,
}

impl StoreState {
    /// The stable spelling used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            StoreState::Compatible => "compatible",
            StoreState::NotIndexed => "not_indexed",
            StoreState::ReindexRequired => "reindex_required",
            StoreState::Corrupt => "corrupt",
        }
    }
}

impl std::fmt::Display for StoreState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The total size of the files under `path` (0 when it does not exist).
pub fn dir_size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else { return 0 };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// How long a connection waits for another writer before giving up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
/// Free pages below this are left in the database file (see [`Store::vacuum_if_sparse`]).
const SPARSE_MIN_BYTES: u64 = 1 << 20;
/// A view's last use is noted at most this often.
const TOUCH_EVERY_SECS: i64 = 60;
/// The write-ahead log's size above which [`Store::settle_log`] empties it. Reading a log again
/// costs a later process about 0.3 ms a MiB; emptying it, a write and a sync of the database
/// (10.7 ms for a log of 1.7 MiB, measured on ripgrep's store).
const SETTLE_LOG_BYTES: u64 = 1 << 20;

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// An open store.
pub struct Store {
    dir: PathBuf,
    conn: Connection,
    /// The full-text index format version the store was made with.
    index_format: u32,
}

pub const DB_FILE: &str = "store.sqlite";

/// One file version with its blob.
const FILE_INFO_SQL: &str = "SELECT fv.id, fv.path, b.oid, fv.mode, fv.lang, fv.skip, b.size FROM file_versions fv
     JOIN blobs b ON b.id = fv.blob WHERE fv.id = ?1";
/// A blob's record for a language and an extractor.
const RECORD_SQL: &str = "SELECT r.id, r.status, r.skip_reason, r.line_count, r.diagnostics FROM records r
     JOIN blobs b ON b.id = r.blob WHERE b.oid = ?1 AND r.lang = ?2 AND r.extractor = ?3";

impl Store {
    /// Whether a store exists in `dir` (its database file); says nothing of its state.
    pub fn exists(dir: &Path) -> bool {
        dir.join(DB_FILE).exists()
    }

    /// What SQLite's own check finds wrong in the store of `dir`: empty when nothing, or when
    /// there is no store. `thorough` runs `PRAGMA integrity_check` (which also compares every
    /// index with its table); otherwise `PRAGMA quick_check`, linear in the database's size.
    pub fn damage(dir: &Path, thorough: bool) -> Vec<String> {
        let db = dir.join(DB_FILE);
        if !db.exists() {
            return Vec::new();
        }
        let conn = match Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY) {
            Ok(c) => c,
            Err(e) => return vec![e.to_string()],
        };
        let rows = conn
            .prepare(if thorough { "PRAGMA integrity_check(10)" } else { "PRAGMA quick_check(10)" })
            .and_then(|mut stmt| stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>());
        let mut damage = match rows {
            Ok(rows) => rows.into_iter().filter(|r| r != "ok").collect(),
            Err(e) => vec![e.to_string()],
        };
        // Damage in the schema's own text passes that check: compare every table's columns
        // with the schema this build creates.
        if damage.is_empty() {
            damage.extend(schema_differences(&conn));
        }
        damage
    }

    /// Opens the store in `dir` for reading, or for writing when `create` is set (making it
    /// when missing). Anything but a compatible store is an [`StoreError::Incompatible`].
    pub fn open(dir: &Path, create: bool) -> Result<Store, StoreError> {
        if !Store::exists(dir) && create {
            // Two processes may find no store at once; the write lock makes one create it.
            let _lock = WriteLock::acquire(dir, true)?;
            if !Store::exists(dir) {
                Store::create(dir)?;
            }
        }
        if !Store::exists(dir) {
            let (state, detail) = Store::classify(dir);
            return Err(StoreError::Incompatible { path: dir.to_owned(), state, detail });
        }
        // One connection classifies and then serves: a query opens the database once.
        let conn = Connection::open(dir.join(DB_FILE))?;
        let (state, detail, index_format) = Store::classify_open(&conn);
        if state != StoreState::Compatible {
            return Err(StoreError::Incompatible { path: dir.to_owned(), state, detail });
        }
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "OFF")?;
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        conn.pragma_update(None, "cache_size", -65536)?;
        // Pages are read into SQLite's own cache, not mapped: the kernel maps a whole large
        // page-cache folio (up to 1 MiB here) around each page a query touches, so a mapped
        // database added 7-8 MiB to the resident size of a search on the Linux kernel's store
        // that reads a few hundred pages (same speed either way, measured).
        conn.pragma_update(None, "mmap_size", 0i64)?;
        // Graph queries cycle through more statements than the default cache of 16 holds.
        conn.set_prepared_statement_cache_capacity(64);
        // One plan per statement, whatever its parameters: otherwise a statement whose plan
        // SQLite deems value-sensitive (an equality on a column no index serves) is compiled
        // again each time the cache hands it out with new parameters (rankings look up
        // hundreds of files one by one).
        conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
        let names = schema::ADDITION_TABLES.map(|t| format!("'{t}'")).join(", ");
        let present: i64 = conn.query_row(
            &format!("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ({names})"),
            [],
            |r| r.get(0),
        )?;
        if present != schema::ADDITION_TABLES.len() as i64 {
            conn.execute_batch(schema::ADDITIONS)?;
        }
        Ok(Store { dir: dir.to_owned(), conn, index_format })
    }

    /// Writes an empty store: WAL mode (kept by the file) and the schema, under a temporary
    /// name renamed into place, so no reader ever opens a half-made database.
    fn create(dir: &Path) -> Result<(), StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Io { path: dir.to_owned(), source: e })?;
        let tmp = dir.join(format!("{DB_FILE}.new-{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        {
            let conn = Connection::open(&tmp)?;
            conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))?;
            let tx = conn.unchecked_transaction()?;
            tx.execute_batch(schema::CREATE)?;
            tx.execute_batch(schema::ADDITIONS)?;
            for (key, value) in [
                ("schema_version", STORE_SCHEMA_VERSION.to_string()),
                ("extractor_version", extract::EXTRACTOR_VERSION.to_string()),
                ("index_format_version", crate::index::INDEX_FORMAT_VERSION.to_string()),
                ("created_by", concat!("codecompass ", env!("CARGO_PKG_VERSION")).to_owned()),
            ] {
                tx.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", params![key, value])?;
            }
            tx.commit()?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        let _ = std::fs::remove_file(format!("{}-wal", tmp.display()));
        let _ = std::fs::remove_file(format!("{}-shm", tmp.display()));
        // With no database, whatever sits beside it is an orphan (a deleted store, an
        // interrupted snapshot install): a stale WAL would be replayed into the new database,
        // and full-text documents keyed by file version ids the new store will hand out again
        // would be found for the wrong files.
        let target = dir.join(DB_FILE);
        let _ = std::fs::remove_file(dir.join(format!("{DB_FILE}-wal")));
        let _ = std::fs::remove_file(dir.join(format!("{DB_FILE}-shm")));
        let fts = crate::index::dir_of(dir);
        if fts.exists() {
            std::fs::remove_dir_all(&fts).map_err(|e| StoreError::Io { path: fts.clone(), source: e })?;
        }
        std::fs::rename(&tmp, &target).map_err(|e| StoreError::Io { path: target, source: e })?;
        Ok(())
    }

    /// Which windows the trigram terms of the store's full-text indexes (the code's and the
    /// commits') were made of: what a query may ask of them.
    pub fn trigram_windows(&self) -> crate::query::prefilter::Windows {
        crate::index::trigram_windows(self.index_format)
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The SQLite connection, for the modules that own their queries.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// One read transaction for the reads made until the guard drops: they all see one state
    /// of the store and share one lock, where each statement on its own would take and release
    /// its own (a ranking looks up hundreds of rows). Nothing may be written through the store
    /// while the guard lives.
    pub fn read_snapshot(&self) -> Result<rusqlite::Transaction<'_>, StoreError> {
        Ok(self.conn.unchecked_transaction()?)
    }

    /// Takes the single-writer lock, waiting for another writer to finish when `wait`.
    pub fn lock(&self, wait: bool) -> Result<WriteLock, StoreError> {
        WriteLock::acquire(&self.dir, wait)
    }

    /// A value from `meta`.
    pub fn meta(&self, key: &str) -> Result<Option<String>, StoreError> {
        Ok(self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    }

    /// Sets a value in `meta`.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<(), StoreError> {
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", params![key, value])?;
        Ok(())
    }

    /// Starts a write transaction. Records written in it become visible when it commits;
    /// nothing refers to them until a view does.
    pub fn begin(&self) -> Result<Batch<'_>, StoreError> {
        // Immediate: the database's write lock is taken at the start, where the busy timeout
        // waits for another connection's commit; a deferred transaction that read first and
        // then writes fails at once ("database is locked") when another commit came between.
        Ok(Batch { tx: rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)? })
    }

    /// Marks jobs left `running` by a process that died as `interrupted`. Call with the write
    /// lock held, so no live process can be running one.
    pub fn mark_interrupted_jobs(&self) -> Result<usize, StoreError> {
        Ok(self
            .conn
            .execute("UPDATE jobs SET state = 'interrupted', finished_at = ?1 WHERE state = 'running'", [now()])?)
    }

    /// Records the start of a job and returns its id.
    pub fn start_job(&self, kind: &str, target: &str) -> Result<i64, StoreError> {
        self.conn.execute(
            "INSERT INTO jobs (kind, target, state, pid, started_at) VALUES (?1, ?2, 'running', ?3, ?4)",
            params![kind, target, std::process::id(), now()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Records the end of a job.
    pub fn finish_job(&self, id: i64, error: Option<&str>, stats: Option<&str>) -> Result<(), StoreError> {
        let state = if error.is_some() { "failed" } else { "published" };
        self.conn.execute(
            "UPDATE jobs SET state = ?2, finished_at = ?3, error = ?4, stats = ?5 WHERE id = ?1",
            params![id, state, now(), error, stats],
        )?;
        Ok(())
    }

    /// Jobs that were interrupted and not followed by a later success of the same kind.
    /// With `writer_alive` false, jobs still marked `running` count as interrupted too: no
    /// process holds the lock, so none can be running them.
    pub fn unresolved_interruptions(&self, writer_alive: bool) -> Result<Vec<JobRow>, StoreError> {
        let states = if writer_alive { "('interrupted')" } else { "('interrupted', 'running')" };
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, kind, target, 'interrupted', pid, started_at, finished_at, error FROM jobs j
             WHERE state IN {states} AND NOT EXISTS (
                 SELECT 1 FROM jobs k WHERE k.kind = j.kind AND k.state = 'published' AND k.id > j.id)
             ORDER BY id"
        ))?;
        let rows = stmt.query_map([], JobRow::from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The most recent jobs, newest first.
    pub fn recent_jobs(&self, limit: usize) -> Result<Vec<JobRow>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, kind, target, state, pid, started_at, finished_at, error FROM jobs ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = stmt.query_map([limit as i64], JobRow::from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The view stored under `key`.
    pub fn view(&self, key: &str) -> Result<Option<ViewRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, key, kind, tree, bitmap, files, fingerprint, created_at, updated_at, symbols, scan_bitmap,
                        (SELECT COUNT(*) FROM view_missing m WHERE m.view = views.id) FROM views WHERE key = ?1",
                [key],
                ViewRow::from_row,
            )
            .optional()?)
    }

    /// The view with row id `id`.
    pub fn view_by_id(&self, id: i64) -> Result<Option<ViewRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, key, kind, tree, bitmap, files, fingerprint, created_at, updated_at, symbols, scan_bitmap,
                        (SELECT COUNT(*) FROM view_missing m WHERE m.view = views.id) FROM views WHERE id = ?1",
                [id],
                ViewRow::from_row,
            )
            .optional()?)
    }

    /// Every tree view's key, tree id and derivation, most recently updated first.
    pub fn tree_views(&self) -> Result<Vec<(String, ObjectId, Option<String>)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT key, tree, fingerprint FROM views WHERE kind = 'tree' ORDER BY updated_at DESC, id DESC",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?, r.get::<_, Option<String>>(2)?)))?
            .filter_map(|r| r.ok())
            .filter_map(|(k, t, d)| Some((k, ObjectId::from_bytes(&t)?, d)))
            .collect();
        Ok(rows)
    }

    /// Notes that a view was used by a query (for gc's grace period, counted in days). Best
    /// effort, and never a wait: a view noted within the last minute is left alone, and when a
    /// writer holds the store the note is skipped rather than blocking the reader behind it.
    pub fn touch_view(&self, id: i64) {
        let now = now();
        let recent = self
            .conn
            .query_row("SELECT last_used_at FROM views WHERE id = ?1", [id], |r| r.get::<_, i64>(0))
            .is_ok_and(|used| (0..TOUCH_EVERY_SECS).contains(&(now - used)));
        if recent {
            return;
        }
        self.without_waiting(|| {
            let _ = self.conn.execute("UPDATE views SET last_used_at = ?2 WHERE id = ?1", params![id, now]);
        });
    }

    /// The ref stored under `name`.
    pub fn ref_row(&self, name: &str) -> Result<Option<RefRow>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT name, kind, commit_oid, tree, view, indexed_at, detail FROM refs WHERE name = ?1",
                [name],
                RefRow::from_row,
            )
            .optional()?)
    }

    /// Forgets every full-text document, for a full-text index rebuilt from nothing: every
    /// file version gets its documents again when a view next holds it, and every view is
    /// re-derived (its fingerprint cleared) before it answers as fresh. Call it holding the
    /// write lock.
    pub fn forget_documents(&self) -> Result<(), StoreError> {
        self.conn.execute_batch(
            "BEGIN IMMEDIATE;
             UPDATE file_versions SET fts_key = NULL, fts_scan = 0 WHERE fts_key IS NOT NULL OR fts_scan != 0;
             UPDATE views SET fingerprint = NULL;
             DELETE FROM gc_pending_documents;
             COMMIT;",
        )?;
        Ok(())
    }

    /// The blobs view `view` was built without (missing from the object store).
    pub fn view_missing(&self, view: i64) -> Result<Vec<ObjectId>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT blob FROM view_missing WHERE view = ?1")?;
        let rows = stmt.query_map([view], |r| r.get::<_, Vec<u8>>(0))?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows.iter().filter_map(|b| ObjectId::from_bytes(b)).collect())
    }

    /// Whether any file version has full-text documents.
    pub fn has_documents(&self) -> Result<bool, StoreError> {
        documents_written(&self.conn)
    }

    /// The id of the view `key`, without reading its bitmaps.
    pub fn view_id(&self, key: &str) -> Result<Option<i64>, StoreError> {
        Ok(self.conn.query_row("SELECT id FROM views WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    }

    /// The file versions that have full-text documents, by id.
    pub fn documented_file_versions(&self) -> Result<roaring::RoaringBitmap, StoreError> {
        let mut stmt = self.conn.prepare("SELECT id FROM file_versions WHERE fts_key IS NOT NULL")?;
        let ids = stmt.query_map([], |r| r.get::<_, u32>(0))?.collect::<Result<roaring::RoaringBitmap, _>>()?;
        Ok(ids)
    }

    /// Every stored ref, by name.
    pub fn refs(&self) -> Result<Vec<RefRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, kind, commit_oid, tree, view, indexed_at, detail FROM refs ORDER BY name")?;
        let rows = stmt.query_map([], RefRow::from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The file versions with these ids, with their record for the current extractors.
    pub fn file_infos(&self, ids: impl IntoIterator<Item = u32>) -> Result<Vec<FileInfo>, StoreError> {
        let mut stmt = self.conn.prepare_cached(FILE_INFO_SQL)?;
        let mut out = Vec::new();
        for id in ids {
            if let Some(info) = stmt.query_row([id], FileInfo::from_row).optional()? {
                out.push(info);
            }
        }
        Ok(out)
    }

    /// The file versions of `bitmap`, by one range scan when the set is large (a whole view)
    /// and by point lookups when it is small.
    pub fn file_infos_in(&self, bitmap: &roaring::RoaringBitmap) -> Result<Vec<FileInfo>, StoreError> {
        let (Some(min), Some(max)) = (bitmap.min(), bitmap.max()) else { return Ok(Vec::new()) };
        if bitmap.len() < 2000 {
            return self.file_infos(bitmap.iter());
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT fv.id, fv.path, b.oid, fv.mode, fv.lang, fv.skip, b.size FROM file_versions fv
             JOIN blobs b ON b.id = fv.blob WHERE fv.id BETWEEN ?1 AND ?2",
        )?;
        let rows = stmt
            .query_map([min, max], FileInfo::from_row)?
            .filter(|r| r.as_ref().map_or(true, |f| bitmap.contains(f.id)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// Calls `f` with the id and path of every file version of `bitmap`, without reading
    /// blobs or records: the cheap scan behind path queries.
    pub fn for_each_path_in(
        &self,
        bitmap: &roaring::RoaringBitmap,
        mut f: impl FnMut(u32, &[u8]),
    ) -> Result<(), StoreError> {
        let (Some(min), Some(max)) = (bitmap.min(), bitmap.max()) else { return Ok(()) };
        let mut stmt = self.conn.prepare_cached("SELECT id, path FROM file_versions WHERE id BETWEEN ?1 AND ?2")?;
        let mut rows = stmt.query([min, max])?;
        while let Some(row) = rows.next()? {
            let id: u32 = row.get(0)?;
            if bitmap.contains(id) {
                f(id, row.get_ref(1)?.as_bytes().map_err(rusqlite::Error::from)?);
            }
        }
        Ok(())
    }

    /// The file versions stored for `path`, any blob.
    pub fn file_versions_at(&self, path: &[u8]) -> Result<Vec<FileInfo>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT fv.id, fv.path, b.oid, fv.mode, fv.lang, fv.skip, b.size FROM file_versions fv
             JOIN blobs b ON b.id = fv.blob WHERE fv.path = ?1",
        )?;
        let rows = stmt.query_map([path], FileInfo::from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The record of `blob_id` read as `lang` by `extractor`.
    pub fn record(&self, blob_id: ObjectId, lang: &str, extractor: &str) -> Result<Option<RecordRow>, StoreError> {
        Ok(self
            .conn
            .prepare_cached(RECORD_SQL)?
            .query_row(params![&blob_id.0[..], lang, extractor], |r| {
                Ok(RecordRow {
                    id: r.get(0)?,
                    status: r.get(1)?,
                    skip_reason: r.get(2)?,
                    line_count: r.get(3)?,
                    diagnostics: r.get(4)?,
                })
            })
            .optional()?)
    }

    /// The status of a record: `ok`, `partial`, `generated` or `skipped`.
    pub fn record_status(&self, record_id: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn
            .prepare_cached("SELECT status FROM records WHERE id = ?1")?
            .query_row([record_id], |r| r.get(0))
            .optional()?)
    }

    /// The outline of the record of `blob_id` read as `lang` by `extractor`, if it has one
    /// (see [`crate::extract::Outline`]).
    pub fn outline(&self, blob_id: ObjectId, lang: &str, extractor: &str) -> Result<Option<Outline>, StoreError> {
        let data: Option<Vec<u8>> = self
            .conn
            .prepare_cached(
                "SELECT o.data FROM blobs b CROSS JOIN records r ON r.blob = b.id
                 CROSS JOIN outlines o ON o.record = r.id WHERE b.oid = ?1 AND r.lang = ?2 AND r.extractor = ?3",
            )?
            .query_row(params![&blob_id.0[..], lang, extractor], |r| r.get(0))
            .optional()?;
        Ok(data.as_deref().and_then(Outline::decode))
    }

    /// Counts for `status`: blobs, records, symbols, file versions, views.
    pub fn counts(&self) -> Result<StoreCounts, StoreError> {
        let count = |table: &str| -> Result<i64, StoreError> {
            Ok(self.conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?)
        };
        Ok(StoreCounts {
            blobs: count("blobs")?,
            records: count("records")?,
            symbols: count("symbols")?,
            file_versions: count("file_versions")?,
            views: count("views")?,
            // A store written before history existed may not have the table yet.
            commits: count("commits").unwrap_or(0),
        })
    }

    /// Rewrites the database file without its free pages (SQLite's `VACUUM`) when they are a
    /// quarter of it or more and at least [`SPARSE_MIN_BYTES`]: deleting rows leaves their
    /// pages in the file, free for later rows, so a store gc emptied would otherwise keep its
    /// size. Returns the bytes of free pages given back, `None` when too few were free. The
    /// rewrite costs about what stays (a copy of it in a file of SQLite's temporary directory,
    /// then in the write-ahead log, which the caller folds with [`Store::checkpoint`]); readers
    /// keep the state they began with.
    pub fn vacuum_if_sparse(&self) -> Result<Option<u64>, StoreError> {
        let Some((free_bytes, bytes)) = self.sparse()? else { return Ok(None) };
        crate::progress::note(&format!(
            "compacting the store: {:.0} of its {:.0} MiB are free pages",
            free_bytes as f64 / 1048576.0,
            bytes as f64 / 1048576.0
        ));
        // The copy goes to a temporary file, not to memory as this connection's temporary
        // tables do: on the kernel it is a gigabyte.
        self.conn.pragma_update(None, "temp_store", "FILE")?;
        let vacuumed = self.conn.execute_batch("VACUUM");
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        vacuumed?;
        Ok(Some(free_bytes))
    }

    /// The bytes of the database file's free pages and of the whole file, when the free pages
    /// are worth giving back: a quarter of the file or more, and at least [`SPARSE_MIN_BYTES`].
    pub fn sparse(&self) -> Result<Option<(u64, u64)>, StoreError> {
        let pragma = |name: &str| self.conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0));
        let page_size = pragma("page_size")?.max(0) as u64;
        let pages = pragma("page_count")?.max(0) as u64;
        let free = pragma("freelist_count")?.max(0) as u64;
        let free_bytes = free * page_size;
        Ok((free_bytes >= SPARSE_MIN_BYTES && free * 4 >= pages).then_some((free_bytes, pages * page_size)))
    }

    /// Flushes the write-ahead log into the database file.
    pub fn checkpoint(&self) {
        let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    /// Before a connection is left to the exit instead of closed: folds the write-ahead log
    /// into the database and empties it when it has grown past [`SETTLE_LOG_BYTES`], without
    /// waiting for other connections (what they hold is left for later). Closing the last
    /// connection does this itself; a connection left to the exit does not, and the next
    /// process that opens the store alone rebuilds its index of the log by reading and
    /// checksumming every frame: a store built by a query kept all of itself in the log, read
    /// again at the start of every later query.
    pub fn settle_log(&self) {
        if self.log_bytes() > SETTLE_LOG_BYTES {
            self.without_waiting(|| self.checkpoint());
        }
    }

    /// The size of the write-ahead log: what this connection's open transaction has written
    /// so far (its pages spill to the log as SQLite's cache fills), and what no checkpoint has
    /// folded into the database yet.
    pub fn log_bytes(&self) -> u64 {
        std::fs::metadata(self.dir.join(format!("{DB_FILE}-wal"))).map_or(0, |m| m.len())
    }

    /// Runs `work` with no wait for a lock another connection holds: what it cannot do at once
    /// fails (best-effort writes).
    fn without_waiting(&self, work: impl FnOnce()) {
        let _ = self.conn.busy_timeout(std::time::Duration::ZERO);
        work();
        let _ = self.conn.busy_timeout(BUSY_TIMEOUT);
    }
}

/// A read-only connection to the store in `dir`, for worker threads.
/// Whether any file version of the database behind `conn` has full-text documents.
pub fn documents_written(conn: &Connection) -> Result<bool, StoreError> {
    Ok(conn.query_row("SELECT EXISTS (SELECT 1 FROM file_versions WHERE fts_key IS NOT NULL)", [], |r| {
        r.get::<_, bool>(0)
    })?)
}

pub fn read_connection(dir: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open_with_flags(dir.join(DB_FILE), OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    Ok(conn)
}

/// A record as documents need it: its skip reason and symbols.
pub type RecordForDocuments = (Option<String>, Vec<crate::index::DocSymbol>);

/// The record `(blob_id, lang, key)` as documents need it: its skip reason and symbols.
pub fn record_for_documents(
    conn: &Connection,
    blob_id: ObjectId,
    lang: &str,
    key: &str,
) -> Result<Option<RecordForDocuments>, StoreError> {
    let record: Option<(i64, Option<String>)> = conn
        .prepare_cached(
            "SELECT r.id, r.skip_reason FROM records r JOIN blobs b ON b.id = r.blob
             WHERE b.oid = ?1 AND r.lang = ?2 AND r.extractor = ?3",
        )?
        .query_row(params![&blob_id.0[..], lang, key], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((id, skip)) = record else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT ord, name, qualified_name, kind, signature, doc, line_start, line_end FROM symbols
         WHERE record = ?1 ORDER BY ord",
    )?;
    let symbols = stmt
        .query_map([id], |r| {
            Ok(crate::index::DocSymbol {
                ord: r.get(0)?,
                name: r.get(1)?,
                qualified_name: r.get(2)?,
                kind: r.get(3)?,
                signature: r.get(4)?,
                doc: r.get(5)?,
                line_start: r.get(6)?,
                line_end: r.get(7)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((skip, symbols)))
}

/// The tables of `conn` whose columns differ from the schema this build creates (tables it
/// lacks that an older store may lack too, the [`schema::ADDITIONS`], are not counted).
fn schema_differences(conn: &Connection) -> Vec<String> {
    let columns = |conn: &Connection, table: &str| -> Vec<String> {
        conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))
            .and_then(|mut stmt| stmt.query_map([], |r| r.get::<_, String>(1))?.collect::<Result<Vec<_>, _>>())
            .unwrap_or_default()
    };
    let Ok(expected) = Connection::open_in_memory() else { return Vec::new() };
    if expected.execute_batch(schema::CREATE).and_then(|()| expected.execute_batch(schema::ADDITIONS)).is_err() {
        return Vec::new();
    }
    let tables: Vec<String> = expected
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut stmt| stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<Result<Vec<_>, _>>())
        .unwrap_or_default();
    let mut out = Vec::new();
    for table in tables {
        let have = columns(conn, &table);
        if have.is_empty() && schema::ADDITIONS.contains(&format!("EXISTS {table} ")) {
            continue;
        }
        if have != columns(&expected, &table) {
            out.push(format!("table `{table}` does not have the columns this build expects"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
