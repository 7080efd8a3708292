//! Garbage collection: drops views no tracked ref or worktree reaches (after a grace period
//! of non-use), then the file versions, full-text documents, records and blobs no remaining
//! view needs.
//!
//! Safe while readers run: everything deleted is unreachable from every view that stays. The
//! refs, views and file versions dropped go in one transaction (a reader sees all or nothing
//! of them), with the full-text documents of the removed file versions listed in
//! `gc_pending_documents` and deleted afterwards, so a crash in between only delays them to the
//! next gc. The records and blobs no file version needs any more follow in transactions of
//! bounded size, each with a record's symbols and references, so the write-ahead log stays
//! small (a store re-derived a few times over holds millions of such rows) and a crash keeps
//! what was done; the next gc finds the rest. The single-writer lock is held throughout, so
//! no index run adds a file version needing a record while it is being dropped.

use std::collections::HashSet;

use roaring::RoaringBitmap;
use rusqlite::params;

use super::{IndexError, Indexer};
use crate::index::FullText;
use crate::store;

/// What dropping file versions does with the full-text segments once their documents are
/// deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Segments {
    /// Merged into one when there are several (gc): a query then looks each term up once.
    Compact,
    /// Merged into one, even a single one: no file keeps the deleted documents (a seeded
    /// store dropping content its own repository does not hold).
    Rewrite,
    /// Left as they are, the documents deleted (a seeded store whose dropped content its own
    /// repository holds too: the donor's files stay shared, not copied).
    Keep,
}

/// What gc freed.
#[derive(Clone, Debug, Default, serde::Serialize, schemars::JsonSchema)]
pub struct GcReport {
    /// Refs whose branch, tag or worktree is gone, or unused commit names.
    pub refs_dropped: u64,
    /// Views no ref reaches and unused for the grace period.
    pub views_dropped: u64,
    /// File versions no view holds.
    pub file_versions_dropped: u64,
    /// File versions whose full-text documents were deleted.
    pub documents_dropped: u64,
    /// Records no file version needs (including those of older extractors).
    pub records_dropped: u64,
    /// Their symbols.
    pub symbols_dropped: u64,
    /// Blobs nothing refers to.
    pub blobs_dropped: u64,
    /// Views kept.
    pub views_kept: u64,
    /// Background jobs that had ended before the grace period.
    pub jobs_dropped: u64,
    /// Full-text segments merged into one (0: there was one or none).
    pub segments_merged: u64,
    /// Bytes of free pages the database file gave back when it was rewritten without them
    /// (0: too few were free to be worth it).
    pub bytes_compacted: u64,
    /// Bytes of the store before and after.
    pub bytes_before: u64,
    /// After.
    pub bytes_after: u64,
    /// Wall time.
    pub duration_ms: u64,
}

/// A transaction of gc dropping records is committed, and the write-ahead log emptied, once
/// the log has grown past this. Smaller transactions cost more in all: each writes the pages
/// the records share (the symbols' index by name) again, so that 39 transactions of 2,048
/// records each made the kernel's gc 45 s slower than one (docs/speed.md).
const LOG_BYTES_PER_TRANSACTION: u64 = 512 << 20;
/// How many records are dropped between two looks at the log's size.
const RECORDS_PER_LOOK: usize = 256;

/// The records no file version needs under the current extractors and size limit (those of an
/// older limit or extractor, of blobs only dropped file versions held): what gc drops.
pub fn unneeded_records(conn: &rusqlite::Connection, max_file_size: u64) -> Result<Vec<i64>, store::StoreError> {
    let needed: HashSet<(i64, String, String)> = {
        let mut stmt = conn.prepare("SELECT blob, lang, skip FROM file_versions")?;
        stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))?
            .filter_map(Result::ok)
            .map(|(blob, lang, skip)| {
                let record_lang = if skip.is_some() { String::new() } else { lang };
                let key = super::record_key(&record_lang, max_file_size);
                (blob, record_lang, key)
            })
            .collect()
    };
    let mut stmt = conn.prepare("SELECT id, blob, lang, extractor FROM records")?;
    let doomed = stmt
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?
        .filter_map(Result::ok)
        .filter_map(|(id, key)| (!needed.contains(&key)).then_some(id))
        .collect();
    Ok(doomed)
}

impl Indexer<'_> {
    /// Collects garbage; views used within `grace_secs` are kept even when no ref reaches
    /// them.
    pub fn gc(&self, grace_secs: i64) -> Result<GcReport, IndexError> {
        let started = std::time::Instant::now();
        let job = self.store.start_job("gc", "store")?;
        let result = self.gc_inner(grace_secs);
        match &result {
            Ok(report) => {
                let stats = serde_json::to_string(report).unwrap_or_default();
                self.store.finish_job(job, None, Some(&stats))?;
            }
            Err(e) => {
                let _ = self.store.finish_job(job, Some(&e.to_string()), None);
            }
        }
        result.map(|mut r| {
            r.duration_ms = started.elapsed().as_millis() as u64;
            r
        })
    }

    fn gc_inner(&self, grace_secs: i64) -> Result<GcReport, IndexError> {
        let mut report = GcReport { bytes_before: crate::store::dir_size(self.store.dir()), ..GcReport::default() };
        let now = store::now();
        let repo = self.ws.git().map(|g| g.local());
        let conn = self.store.conn();

        // 1. Refs whose name no longer resolves, worktrees that are gone, and commit names
        // (diff bases, `--ref <id>`) unused for the grace period.
        let mut drop_refs = Vec::new();
        for r in self.store.refs()? {
            let alive = match r.kind.as_str() {
                "ref" => match &repo {
                    Some(repo) => {
                        let is_commit_name = r.name.len() == 40 && r.name.bytes().all(|b| b.is_ascii_hexdigit());
                        if is_commit_name {
                            let used: i64 = conn
                                .query_row("SELECT last_used_at FROM views WHERE id = ?1", [r.view], |row| row.get(0))
                                .unwrap_or(0);
                            now - used.max(r.indexed_at) < grace_secs
                        } else {
                            repo.resolve(&r.name).is_ok()
                        }
                    }
                    None => false,
                },
                "worktree" => r
                    .detail
                    .as_deref()
                    .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                    .and_then(|v| v.get("path").and_then(|p| p.as_str()).map(|p| std::path::Path::new(p).is_dir()))
                    .unwrap_or(false),
                _ => true,
            };
            if !alive {
                drop_refs.push(r.name);
            }
        }

        let tx = conn.unchecked_transaction().map_err(store::StoreError::from)?;
        for name in &drop_refs {
            tx.execute("DELETE FROM refs WHERE name = ?1", [name]).map_err(store::StoreError::from)?;
        }
        report.refs_dropped = drop_refs.len() as u64;

        // 2. Views: those a ref reaches, and those used within the grace period, stay.
        let reached: HashSet<i64> = {
            let mut stmt = tx.prepare("SELECT DISTINCT view FROM refs").map_err(store::StoreError::from)?;
            stmt.query_map([], |r| r.get(0)).map_err(store::StoreError::from)?.filter_map(Result::ok).collect()
        };
        let views: Vec<(i64, i64, Vec<u8>)> = {
            let mut stmt = tx.prepare("SELECT id, last_used_at, bitmap FROM views").map_err(store::StoreError::from)?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .map_err(store::StoreError::from)?
                .filter_map(Result::ok)
                .collect()
        };
        let mut live = RoaringBitmap::new();
        for (id, last_used, bitmap) in views {
            if reached.contains(&id) || now - last_used < grace_secs {
                report.views_kept += 1;
                if let Ok(b) = RoaringBitmap::deserialize_from(&bitmap[..]) {
                    live |= b;
                }
            } else {
                tx.execute("DELETE FROM views WHERE id = ?1", [id]).map_err(store::StoreError::from)?;
                report.views_dropped += 1;
            }
        }

        // File versions of history's commits stay: `log` and `history` read them.
        live |= self.store.history_file_versions()?;
        self.drop_unreachable(tx, &live, Segments::Compact, &mut report)?;

        // 7. Kept index copies (`refreshed-<worktree>-<checksum>`, see `git::status`) of
        // worktrees no longer listed, and the temporary files of `HEAD`'s remembered trees a
        // killed process left (one being written now only fails to replace the file).
        let worktrees: HashSet<String> = self
            .store
            .refs()?
            .into_iter()
            .filter(|r| r.kind == "worktree")
            .map(|r| format!("{}-", super::state::refreshed_index_name(&r.name)))
            .collect();
        for entry in std::fs::read_dir(self.store.dir()).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let left_temporary = crate::replace::is_temporary(&name, super::state::HEAD_TREES);
            if left_temporary
                || name.starts_with(&super::state::refreshed_index_name(""))
                    && !worktrees.iter().any(|prefix| name.starts_with(prefix.as_str()))
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        match self.store.vacuum_if_sparse() {
            Ok(compacted) => report.bytes_compacted = compacted.unwrap_or(0),
            // What was dropped stays dropped; the file keeps its free pages for later rows.
            Err(e) => crate::progress::note(&format!("the store was not compacted: {e}")),
        }
        self.store.checkpoint();
        report.bytes_after = crate::store::dir_size(self.store.dir());
        Ok(report)
    }

    /// Drops, in the transaction `tx` (committed here), the file versions not in `live` and
    /// what only they needed: records of the current extractors no other file version needs,
    /// their symbols and references, blobs nothing refers to; then the full-text documents of
    /// the dropped file versions, and does with the segments what `segments` says. Adds what it
    /// dropped to `report`.
    pub(super) fn drop_unreachable(
        &self,
        tx: rusqlite::Transaction<'_>,
        live: &RoaringBitmap,
        segments: Segments,
        report: &mut GcReport,
    ) -> Result<(), IndexError> {
        let conn = self.store.conn();

        // 3. File versions no view holds; their documents are queued for deletion.
        let all_fvs: Vec<u32> = {
            let mut stmt = tx.prepare("SELECT id FROM file_versions").map_err(store::StoreError::from)?;
            stmt.query_map([], |r| r.get(0)).map_err(store::StoreError::from)?.filter_map(Result::ok).collect()
        };
        for fv in all_fvs.into_iter().filter(|fv| !live.contains(*fv)) {
            tx.execute("DELETE FROM file_versions WHERE id = ?1", [fv]).map_err(store::StoreError::from)?;
            tx.execute("INSERT OR IGNORE INTO gc_pending_documents (fv) VALUES (?1)", [fv])
                .map_err(store::StoreError::from)?;
            report.file_versions_dropped += 1;
        }

        // 4. Records no remaining file version needs under the current extractors.
        let doomed = unneeded_records(&tx, self.max_file_size)?;
        crate::failpoint::hit("gc.before_commit");
        tx.commit().map_err(store::StoreError::from)?;
        if !doomed.is_empty() {
            // Their ids may be given again to new records, which the list of the store's blobs
            // would then take for ones it covers: it is written whole by the next index run.
            store::record_blobs::forget(self.store.dir());
        }
        let mut bar = crate::progress::Bar::new("dropping records", doomed.len() as u64);
        let mut looks = doomed.chunks(RECORDS_PER_LOOK).peekable();
        while looks.peek().is_some() {
            let tx = conn.unchecked_transaction().map_err(store::StoreError::from)?;
            let mut dropped = 0;
            for batch in looks.by_ref() {
                for &id in batch {
                    report.symbols_dropped += tx
                        .prepare_cached("DELETE FROM symbols WHERE record = ?1")
                        .and_then(|mut s| s.execute([id]))
                        .map_err(store::StoreError::from)? as u64;
                    store::occurrences::delete(&tx, id)?;
                    for sql in ["DELETE FROM outlines WHERE record = ?1", "DELETE FROM records WHERE id = ?1"] {
                        tx.prepare_cached(sql).and_then(|mut s| s.execute([id])).map_err(store::StoreError::from)?;
                    }
                }
                dropped += batch.len() as u64;
                bar.inc(batch.len() as u64);
                if self.store.log_bytes() > LOG_BYTES_PER_TRANSACTION {
                    break;
                }
            }
            tx.commit().map_err(store::StoreError::from)?;
            report.records_dropped += dropped;
            crate::failpoint::hit("gc.after_records");
            self.store.settle_log();
        }
        drop(bar);

        // 5. Blobs nothing refers to, and their saved contents.
        let tx = conn.unchecked_transaction().map_err(store::StoreError::from)?;
        let orphans: Vec<(i64, Vec<u8>)> = {
            let mut stmt = tx
                .prepare(
                    "SELECT id, oid FROM blobs b WHERE NOT EXISTS (SELECT 1 FROM file_versions f WHERE f.blob = b.id)
                     AND NOT EXISTS (SELECT 1 FROM records r WHERE r.blob = b.id)",
                )
                .map_err(store::StoreError::from)?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(store::StoreError::from)?
                .filter_map(Result::ok)
                .collect()
        };
        for (id, _) in &orphans {
            tx.execute("DELETE FROM blobs WHERE id = ?1", params![id]).map_err(store::StoreError::from)?;
        }
        report.blobs_dropped = orphans.len() as u64;
        tx.commit().map_err(store::StoreError::from)?;
        for (_, oid) in orphans {
            if let Some(blob_id) = crate::git::ObjectId::from_bytes(&oid) {
                store::blobs::remove(self.store.dir(), blob_id);
            }
        }

        // 6. Documents of removed file versions (this run's and any an earlier crash left).
        let pending: Vec<u32> = {
            let mut stmt = conn.prepare("SELECT fv FROM gc_pending_documents").map_err(store::StoreError::from)?;
            stmt.query_map([], |r| r.get(0)).map_err(store::StoreError::from)?.filter_map(Result::ok).collect()
        };
        // 7. The documents deleted; the full-text index then in one segment, merged by the
        // same writer (with no merge of its own under way): each segment has its own term
        // dictionary and columns.
        let fulltext = FullText::open(self.store.dir())?;
        let merge = segments != Segments::Keep && (fulltext.segment_count()? > 1 || segments == Segments::Rewrite);
        if !pending.is_empty() || merge {
            let mut writer = fulltext.writer(0)?;
            // No merges of its own: the deletes' commit must leave the segments to `compact`.
            writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
            if !pending.is_empty() {
                for fv in &pending {
                    writer.delete_term(tantivy::Term::from_field_u64(fulltext.fields().fv, u64::from(*fv)));
                }
                writer.commit().map_err(crate::index::FtsError::from)?;
                crate::failpoint::hit("gc.after_fulltext_commit");
            }
            if merge {
                let merged = fulltext.compact(&mut writer, segments == Segments::Rewrite)?;
                if merged > 1 {
                    report.segments_merged = merged as u64;
                }
            }
            writer.wait_merging_threads().map_err(crate::index::FtsError::from)?;
            if !pending.is_empty() {
                conn.execute("DELETE FROM gc_pending_documents", []).map_err(store::StoreError::from)?;
                report.documents_dropped = pending.len() as u64;
            }
        }
        // The files just written are verified and stamped now, as an index run's are: the next
        // query would otherwise read every one of them (on the kernel, 700 MB mapped by one
        // search). Each segment gets its runs file, a store's first ones too.
        fulltext.settle();
        Ok(())
    }
}
