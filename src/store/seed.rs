//! A new store seeded from another repository's (a fork, a clone kept beside the original):
//! the donor's database is copied as of one read and its full-text files are linked, so the
//! new store starts with the file versions, records and documents of every blob the two share
//! instead of parsing and writing them again. What belongs to the donor's repository rather
//! than to content (refs, views, history, jobs) is forgotten, and the caller drops the file
//! versions its own repository does not have (see `indexer::seed`).
//!
//! Full-text documents are keyed by file version id, so the database and the full-text files
//! must be copied as one state: both are read under the donor's write lock. Tantivy never
//! writes a file twice (a commit writes new files and renames `meta.json` into place), so a
//! hard link is a copy that neither side can change under the other; the small files this
//! store rewrites in place (`verified`) and the two Tantivy renames (`meta.json`,
//! `.managed.json`) are copied.

use std::path::Path;

use roaring::RoaringBitmap;
use rusqlite::Connection;

use super::{DB_FILE, Store, StoreError, WriteLock};
use crate::git::ObjectId;

/// What a donor holds of the files a new store wants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    /// Wanted files (path and blob) the donor holds with their full-text documents.
    pub shared: u64,
    /// File versions with documents the donor holds in all.
    pub documented: u64,
}

/// The files a new store wants (path, blob), held where donors' stores can be compared with
/// them. The donors are only read.
pub struct Wanted {
    conn: Connection,
}

impl Wanted {
    /// Holds `wanted`.
    pub fn new(wanted: &[(Vec<u8>, ObjectId)]) -> Result<Wanted, StoreError> {
        let conn = Connection::open_in_memory()?;
        fill_wanted(&conn, wanted)?;
        Ok(Wanted { conn })
    }

    /// What the store in `donor` holds of the wanted files: those it holds with their full-text
    /// documents.
    pub fn overlap(&self, donor: &Path) -> Result<Overlap, StoreError> {
        self.with_donor(donor, |conn| {
            // A store of another schema or index format is never seeded from.
            if super::Store::classify_schema(conn, "donor").0 != super::StoreState::Compatible {
                return Ok(Overlap { shared: 0, documented: 0 });
            }
            let shared: i64 = conn.query_row(
                "SELECT count(*) FROM temp.cc_seed_wanted w CROSS JOIN donor.blobs b ON b.oid = w.oid
                 CROSS JOIN donor.file_versions f ON f.blob = b.id AND f.path = w.path WHERE f.fts_key IS NOT NULL",
                [],
                |r| r.get(0),
            )?;
            let documented: i64 =
                conn.query_row("SELECT count(*) FROM donor.file_versions WHERE fts_key IS NOT NULL", [], |r| r.get(0))?;
            Ok(Overlap { shared: shared.max(0) as u64, documented: documented.max(0) as u64 })
        })
    }

    /// The paths of the wanted files the store in `donor` does not hold with their documents:
    /// what a store seeded from it still parses.
    pub fn unshared_paths(&self, donor: &Path) -> Result<Vec<Vec<u8>>, StoreError> {
        self.with_donor(donor, |conn| {
            let mut stmt = conn.prepare(
                "SELECT w.path FROM temp.cc_seed_wanted w WHERE NOT EXISTS (
                     SELECT 1 FROM donor.blobs b CROSS JOIN donor.file_versions f
                     ON f.blob = b.id AND f.path = w.path WHERE b.oid = w.oid AND f.fts_key IS NOT NULL)",
            )?;
            let rows = stmt.query_map([], |r| r.get::<_, Vec<u8>>(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
    }

    /// `read` with the store in `donor` attached (read only) as `donor`.
    fn with_donor<T>(
        &self,
        donor: &Path,
        read: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let conn = &self.conn;
        conn.execute("ATTACH DATABASE ?1 AS donor", [super::shared::read_only_uri(&donor.join(DB_FILE))])?;
        let answer = read(conn);
        let _ = conn.execute("DETACH DATABASE donor", []);
        answer
    }
}

fn fill_wanted(conn: &Connection, wanted: &[(Vec<u8>, ObjectId)]) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    tx.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS cc_seed_wanted (path BLOB NOT NULL, oid BLOB NOT NULL,
             PRIMARY KEY (path, oid)) WITHOUT ROWID;
         DELETE FROM temp.cc_seed_wanted;",
    )?;
    {
        let mut insert = tx.prepare("INSERT OR IGNORE INTO temp.cc_seed_wanted (path, oid) VALUES (?1, ?2)")?;
        for (path, oid) in wanted {
            insert.execute(rusqlite::params![path, oid.0.as_slice()])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Copies the store in `donor` into the empty directory `staging`: the database as of one
/// read (SQLite's online backup, page by page) and the files of the full-text index's last
/// commit, linked where the filesystem allows and copied otherwise. Fails with
/// [`StoreError::Busy`] while another process writes the donor: nothing waits on another
/// repository's writer.
pub fn copy_from(donor: &Path, staging: &Path) -> Result<(), StoreError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |e| StoreError::Io { path, source: e }
    };
    std::fs::create_dir_all(staging).map_err(io(staging))?;
    let _donor_lock = WriteLock::acquire(donor, false)?;
    let target = staging.join(DB_FILE);
    {
        let conn = Connection::open_with_flags(
            donor.join(DB_FILE),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let mut copy = Connection::open(&target)?;
        // The copy is made durable once, before it is installed (see `indexer::seed`).
        copy.pragma_update(None, "synchronous", "OFF")?;
        let backup = rusqlite::backup::Backup::new(&conn, &mut copy)?;
        // All pages in one step: one read of the donor, never a mix of two states.
        while backup.step(-1)? != rusqlite::backup::StepResult::Done {}
    }
    let from = crate::index::dir_of(donor);
    let into = crate::index::dir_of(staging);
    if !from.join("meta.json").exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&into).map_err(io(&into))?;
    let mut files = crate::index::commit_files(&from).map_err(io(&from))?;
    for name in &files {
        let (source, dest) = (from.join(name), into.join(name));
        if std::fs::hard_link(&source, &dest).is_err() {
            std::fs::copy(&source, &dest).map_err(io(&source))?;
        }
    }
    for name in ["meta.json", crate::index::STAMPS] {
        match std::fs::copy(from.join(name), into.join(name)) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&from.join(name))(e)),
        }
    }
    // Tantivy deletes only the files it lists as its own: the ones linked, no others.
    files.push("meta.json".to_owned());
    let managed = serde_json::to_vec(&files)
        .map_err(|e| StoreError::Io { path: into.join(".managed.json"), source: std::io::Error::other(e) })?;
    std::fs::write(into.join(".managed.json"), managed).map_err(io(&into.join(".managed.json")))?;
    Ok(())
}

impl Store {
    /// Forgets what belongs to a repository rather than to content: refs, views (and their
    /// missing blobs), history's commits, jobs. File versions, records and documents stay.
    pub fn forget_repository(&self) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute_batch(
            "DELETE FROM refs; DELETE FROM views; DELETE FROM view_missing;
             DELETE FROM commits; DELETE FROM commit_files; DELETE FROM jobs;",
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The blobs of this store's file versions outside `kept`, each once.
    pub fn blobs_outside(&self, kept: &RoaringBitmap) -> Result<Vec<ObjectId>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT f.id, b.oid FROM file_versions f JOIN blobs b ON b.id = f.blob")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, Vec<u8>>(1)?)))?;
        let mut blobs = std::collections::BTreeSet::new();
        for row in rows {
            let (fv, oid) = row?;
            if !kept.contains(fv) {
                blobs.extend(ObjectId::from_bytes(&oid));
            }
        }
        Ok(blobs.into_iter().collect())
    }

    /// The ids of this store's file versions among `wanted` (path, blob).
    pub fn file_versions_of(&self, wanted: &[(Vec<u8>, ObjectId)]) -> Result<RoaringBitmap, StoreError> {
        fill_wanted(&self.conn, wanted)?;
        let mut stmt = self.conn.prepare(
            "SELECT f.id FROM temp.cc_seed_wanted w CROSS JOIN main.blobs b ON b.oid = w.oid
             CROSS JOIN main.file_versions f ON f.blob = b.id AND f.path = w.path",
        )?;
        let ids = stmt.query_map([], |r| r.get::<_, u32>(0))?.collect::<Result<RoaringBitmap, _>>()?;
        drop(stmt);
        self.conn.execute("DELETE FROM temp.cc_seed_wanted", [])?;
        Ok(ids)
    }
}
