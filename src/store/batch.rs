//! A write transaction: blobs, file versions, records, views and refs written together.

use rusqlite::{OptionalExtension, params};

use super::rows::{FileVersionHit, NewRecord, NewView, StoredFileVersion};
use super::{StoreError, now};
use crate::extract::Role;
use crate::git::ObjectId;

/// A write transaction.
pub struct Batch<'a> {
    pub(super) tx: rusqlite::Transaction<'a>,
}

impl Batch<'_> {
    /// The row id of a blob, creating the row when new.
    pub fn ensure_blob(&self, blob_id: ObjectId, size: i64) -> Result<i64, StoreError> {
        let existing: Option<(i64, i64)> = self
            .tx
            .prepare_cached("SELECT id, size FROM blobs WHERE oid = ?1")?
            .query_row([&blob_id.0[..]], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some((id, known)) = existing {
            if known < 0 && size >= 0 {
                self.tx.prepare_cached("UPDATE blobs SET size = ?2 WHERE id = ?1")?.execute(params![id, size])?;
            }
            return Ok(id);
        }
        self.tx
            .prepare_cached("INSERT INTO blobs (oid, size) VALUES (?1, ?2)")?
            .execute(params![&blob_id.0[..], size])?;
        Ok(self.tx.last_insert_rowid())
    }

    /// The file version `(path, blob)`, if stored.
    pub fn file_version(&self, path: &[u8], blob_row: i64) -> Result<Option<StoredFileVersion>, StoreError> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT id, lang, skip, fts_key, fts_scan FROM file_versions WHERE path = ?1 AND blob = ?2",
            )?
            .query_row(params![path, blob_row], |r| {
                Ok(StoredFileVersion {
                    id: r.get(0)?,
                    lang: r.get(1)?,
                    skip: r.get(2)?,
                    fts_key: r.get(3)?,
                    fts_scan: r.get::<_, i64>(4)? != 0,
                })
            })
            .optional()?)
    }

    /// Records that the full-text documents of `fv` were made with the record key `key`,
    /// and whether exact search must scan it (it has no trigram document).
    pub fn mark_documents(&self, fv: u32, key: &str, scan: bool) -> Result<(), StoreError> {
        self.tx
            .prepare_cached("UPDATE file_versions SET fts_key = ?2, fts_scan = ?3 WHERE id = ?1")?
            .execute(params![fv, key, i64::from(scan)])?;
        Ok(())
    }

    /// Stores a new file version and returns its id.
    pub fn insert_file_version(
        &self,
        path: &[u8],
        blob_row: i64,
        mode: u8,
        lang: &str,
        skip: Option<&str>,
    ) -> Result<u32, StoreError> {
        self.tx
            .prepare_cached("INSERT INTO file_versions (path, blob, mode, lang, skip) VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(params![path, blob_row, mode, lang, skip])?;
        Ok(self.tx.last_insert_rowid() as u32)
    }

    /// Whether a record exists for this blob, language and extractor.
    pub fn has_record(&self, blob_row: i64, lang: &str, extractor: &str) -> Result<bool, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT 1 FROM records WHERE blob = ?1 AND lang = ?2 AND extractor = ?3")?
            .query_row(params![blob_row, lang, extractor], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Writes a record and its symbols. A record already present (written by a concurrent
    /// or interrupted run) is left as it is: records are content-addressed.
    pub fn insert_record(&self, record: &NewRecord) -> Result<usize, StoreError> {
        let blob_row = self.ensure_blob(record.blob_id, record.size)?;
        let status = if record.skip_reason.is_some() {
            "skipped"
        } else if record.extraction.partial {
            "partial"
        } else if record.extraction.generated {
            "generated"
        } else {
            "ok"
        };
        let diagnostics = if record.extraction.diagnostics.is_empty() {
            None
        } else {
            let list: Vec<_> = record
                .extraction
                .diagnostics
                .iter()
                .map(|d| serde_json::json!({"line": d.line, "message": d.message}))
                .collect();
            Some(serde_json::Value::Array(list).to_string())
        };
        let inserted = self
            .tx
            .prepare_cached(
                "INSERT OR IGNORE INTO records (blob, lang, extractor, status, skip_reason, line_count, symbol_count,
                                            diagnostics, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                blob_row,
                record.lang,
                record.extractor,
                status,
                record.skip_reason,
                record.line_count,
                record.extraction.symbols.len() as i64,
                diagnostics,
                now()
            ])?;
        if inserted == 0 {
            // The record exists (a concurrent or interrupted run, or a forced re-parse): its
            // references are repaired from this extraction when they are damaged or missing.
            let id: i64 = self
                .tx
                .prepare_cached("SELECT id FROM records WHERE blob = ?1 AND lang = ?2 AND extractor = ?3")?
                .query_row(params![blob_row, record.lang, record.extractor], |r| r.get(0))?;
            self.repair_occurrences(id, &record.extraction.occurrences)?;
            return Ok(0);
        }
        let record_id = self.tx.last_insert_rowid();
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO symbols (record, ord, name, qualified_name, kind, declaration, line_start, line_end, name_line,
                                  byte_start, byte_end, signature, parent, visibility, doc, stable_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )?;
        for (ord, s) in record.extraction.symbols.iter().enumerate() {
            stmt.execute(params![
                record_id,
                ord as i64,
                s.name,
                s.qualified_name,
                s.kind,
                i64::from(s.role == Role::Declaration),
                s.line_start,
                s.line_end,
                s.name_line,
                s.byte_start,
                s.byte_end,
                s.signature,
                s.parent,
                s.visibility,
                s.doc,
                s.stable_id,
            ])?;
        }
        self.insert_occurrences(record_id, &record.extraction.occurrences)?;
        if let Some(outline) = &record.extraction.outline {
            self.tx
                .prepare_cached("INSERT OR REPLACE INTO outlines (record, data) VALUES (?1, ?2)")?
                .execute(params![record_id, outline.encode()])?;
        }
        Ok(record.extraction.symbols.len())
    }

    /// Publishes a view: stores its bitmap under `key`, replacing the previous one atomically
    /// with the rest of this transaction. Returns the view's row id.
    pub fn put_view(&self, view: &NewView<'_>) -> Result<i64, StoreError> {
        let NewView { key, kind, tree, bitmap, scan_bitmap, symbols, fingerprint } = *view;
        let serialize = |b: &roaring::RoaringBitmap| {
            let mut bytes = Vec::with_capacity(b.serialized_size());
            b.serialize_into(&mut bytes).expect("serializing into a Vec cannot fail because it does no I/O");
            bytes
        };
        let bytes = serialize(bitmap);
        let scan_bytes = serialize(scan_bitmap);
        let t = now();
        let tree = tree.map(|t| t.0.to_vec());
        self.tx
            .prepare_cached(
                "INSERT INTO views (key, kind, tree, bitmap, files, fingerprint, created_at, updated_at, last_used_at, symbols,
                                    scan_bitmap)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?7, ?8, ?9)
                 ON CONFLICT (key) DO UPDATE SET tree = ?3, bitmap = ?4, files = ?5, fingerprint = ?6,
                     updated_at = ?7, last_used_at = ?7, symbols = ?8, scan_bitmap = ?9",
            )?
            .execute(params![key, kind, tree, bytes, bitmap.len() as i64, fingerprint, t, symbols, scan_bytes])?;
        Ok(self.tx.query_row("SELECT id FROM views WHERE key = ?1", [key], |r| r.get(0))?)
    }

    /// Records the blobs view `view` was built without (replacing what was recorded).
    pub fn set_view_missing(&self, view: i64, blobs: &[ObjectId]) -> Result<(), StoreError> {
        self.tx.execute("DELETE FROM view_missing WHERE view = ?1", [view])?;
        let mut insert = self.tx.prepare_cached("INSERT OR IGNORE INTO view_missing (view, blob) VALUES (?1, ?2)")?;
        for blob in blobs {
            insert.execute(params![view, blob.0.to_vec()])?;
        }
        Ok(())
    }

    /// Points the name `name` at a view.
    pub fn put_ref(
        &self,
        name: &str,
        kind: &str,
        commit: Option<ObjectId>,
        tree: Option<ObjectId>,
        view: i64,
        detail: Option<&str>,
    ) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO refs (name, kind, commit_oid, tree, view, indexed_at, detail)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                name,
                kind,
                commit.map(|c| c.0.to_vec()),
                tree.map(|t| t.0.to_vec()),
                view,
                now(),
                detail
            ])?;
        Ok(())
    }

    /// The symbol count of the record `(blob_row, lang, extractor)`, 0 when there is none.
    pub fn record_symbol_count(&self, blob_row: i64, lang: &str, extractor: &str) -> Result<i64, StoreError> {
        Ok(self
            .tx
            .prepare_cached("SELECT symbol_count FROM records WHERE blob = ?1 AND lang = ?2 AND extractor = ?3")?
            .query_row(params![blob_row, lang, extractor], |r| r.get(0))
            .optional()?
            .unwrap_or(0))
    }

    /// The file version `(path, blob_id)`: its id, blob row, language and path skip reason.
    pub fn file_version_by_oid(&self, path: &[u8], blob_id: ObjectId) -> Result<Option<FileVersionHit>, StoreError> {
        Ok(self
            .tx
            .prepare_cached(
                "SELECT fv.id, fv.blob, fv.lang, fv.skip FROM file_versions fv JOIN blobs b ON b.id = fv.blob
                 WHERE fv.path = ?1 AND b.oid = ?2",
            )?
            .query_row(params![path, &blob_id.0[..]], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?)
    }

    /// The file versions stored for `path`: id and blob id.
    pub fn file_versions_at(&self, path: &[u8]) -> Result<Vec<(u32, ObjectId)>, StoreError> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT fv.id, b.oid FROM file_versions fv JOIN blobs b ON b.id = fv.blob WHERE fv.path = ?1",
        )?;
        let rows = stmt
            .query_map([path], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, Vec<u8>>(1)?)))?
            .filter_map(|r| r.ok())
            .filter_map(|(id, oid)| Some((id, ObjectId::from_bytes(&oid)?)))
            .collect();
        Ok(rows)
    }

    /// Makes everything written visible.
    pub fn commit(self) -> Result<(), StoreError> {
        Ok(self.tx.commit()?)
    }
}
