//! The parallel pass of an index run: each blob parsed once (when no record exists) and its
//! file versions' documents written, records committed in batches beside the full-text writer;
//! a partial clone's missing blobs fetched first when allowed.

use std::collections::HashMap;

use super::{IndexError, Indexer, ViewReport, content};
use crate::git::{LocalRepo, ObjectId};
use crate::index::FullText;
use crate::lang;
use crate::progress;
use crate::store::{self, StoreError};

impl Indexer<'_> {
    pub(super) fn process_jobs(
        &self,
        repo: Option<&LocalRepo>,
        jobs: Vec<Job>,
        report: &mut ViewReport,
    ) -> Result<JobsOutcome, IndexError> {
        use rayon::prelude::*;
        let mut outcome = JobsOutcome::default();
        if jobs.is_empty() {
            return Ok(outcome);
        }
        if let Some(repo) = repo.filter(|_| self.ws.fetch_missing()) {
            fetch_absent(repo, &jobs);
        }
        let mut slot = self.fulltext.borrow_mut();
        let small = FullText::is_small_run(jobs.len());
        // A small run's writer (one thread) would make a large run that follows in the same
        // index run (another scope of a sync) crawl: it is replaced, once its merges are done
        // (every run commits before it returns).
        if !small
            && matches!(slot.as_ref(), Some((_, _, true)))
            && let Some((_, writer, _)) = slot.take()
        {
            writer.wait_merging_threads().map_err(crate::index::FtsError::from)?;
        }
        if slot.is_none() {
            let fulltext = FullText::open(self.store.dir())?;
            let writer = fulltext.writer(jobs.len())?;
            *slot = Some((fulltext, writer, small));
        }
        let (fulltext, writer, _) = slot.as_mut().expect("the writer was just opened");
        let fields = *fulltext.fields();
        // A large run reads its blobs through an object store of its own, so that the packs it
        // maps are unmapped when the parse ends rather than held through the commit, the merges
        // and the check that follow (on the kernel, half of its pack: the listing's size checks
        // map the rest through the workspace's store).
        let reopened = if small { None } else { self.ws.git().and_then(|g| g.reopened().ok()) };
        let git = reopened.as_ref().or(self.ws.git());
        let max = self.max_file_size;
        let store_dir = self.store.dir().to_owned();
        let total = jobs.len() as u64;
        let (tx, rx) = crossbeam_channel::bounded::<content::Processed>(256);
        let writer_ref = &*writer;
        let result = std::thread::scope(|scope| -> Result<(), IndexError> {
            let worker = scope.spawn(move || -> Result<(), IndexError> {
                jobs.into_par_iter().try_for_each_init(
                    || (git.map(|g| g.local()), store::read_connection(&store_dir), Vec::new()),
                    |(local, conn, buf), job| -> Result<(), IndexError> {
                        let conn =
                            conn.as_ref().map_err(|e| IndexError::Store(StoreError::Sqlite(clone_sqlite_error(e))))?;
                        let context = content::Context {
                            repo: local.as_ref(),
                            conn,
                            max_file_size: max,
                            fields: &fields,
                            writer: writer_ref,
                        };
                        let processed = content::process(&context, job, buf)?;
                        // A closed channel means the writer failed; its error is reported.
                        let _ = tx.send(processed);
                        Ok(())
                    },
                )
            });
            let mut bar = progress::Bar::new("parsing", total);
            let mut batch = Some(self.store.begin()?);
            let mut in_batch = 0usize;
            for processed in rx.iter() {
                bar.inc(1);
                outcome.documented.extend(processed.documented);
                outcome.unreadable.extend(processed.unreadable);
                if let Some(blob) = processed.missing {
                    report.missing_objects += 1;
                    outcome.missing.push(blob);
                }
                let Some(record) = processed.record else {
                    continue;
                };
                if let Some(reason) = record.skip_reason {
                    *report.skipped.entry(reason.to_owned()).or_default() += 1;
                }
                let pair = (record.blob_id, lang::by_name(&record.lang).map_or("", |l| l.name));
                outcome.symbol_counts.insert(pair, record.extraction.symbols.len() as i64);
                report.blobs_parsed += 1;
                report.symbols_extracted += record.extraction.symbols.len() as u64;
                let current = batch.as_ref().expect("a batch is open while records arrive");
                current.insert_record(&record)?;
                in_batch += 1;
                if in_batch >= 2000 {
                    batch.take().expect("a batch is open while records arrive").commit()?;
                    crate::failpoint::hit("index.after_record_batch");
                    batch = Some(self.store.begin()?);
                    in_batch = 0;
                }
            }
            if let Some(b) = batch.take() {
                b.commit()?;
            }
            worker.join().map_err(|_| IndexError::WorkerPanicked)??;
            Ok(())
        });
        result?;
        drop(reopened);
        writer.commit().map_err(crate::index::FtsError::from)?;
        crate::failpoint::hit("index.after_fulltext_commit");
        Ok(outcome)
    }
}

/// A blob to process: parse it (when no record exists) and/or write documents for file
/// versions that hold it.
pub(super) struct Job {
    pub(super) blob_id: ObjectId,
    pub(super) lang: &'static str,
    pub(super) extractor: String,
    pub(super) parse: bool,
    pub(super) content: Option<Vec<u8>>,
    pub(super) documents: Vec<content::DocTarget>,
}

/// What the parallel pass produced, beside the records it wrote.
#[derive(Default)]
pub(super) struct JobsOutcome {
    pub(super) symbol_counts: HashMap<(ObjectId, &'static str), i64>,
    /// File versions that got documents: id, record key, and whether they must be scanned.
    pub(super) documented: Vec<(u32, String, bool)>,
    /// File versions whose content could not be read.
    pub(super) unreadable: Vec<u32>,
    /// Blobs missing from the object store.
    pub(super) missing: Vec<ObjectId>,
}

/// The blobs of `jobs` that a partial clone does not have yet, fetched in one request.
fn fetch_absent(repo: &LocalRepo, jobs: &[Job]) {
    let absent: Vec<ObjectId> =
        jobs.iter().filter(|j| j.content.is_none() && !repo.has_object(j.blob_id)).map(|j| j.blob_id).collect();
    super::state::fetch_missing(repo, &absent, "blobs");
}

/// A store error as a SQLite one, for a worker whose read connection failed to open (the
/// original cannot be moved out of the per-thread state).
pub(super) fn clone_sqlite_error(e: &StoreError) -> rusqlite::Error {
    rusqlite::Error::InvalidPath(std::path::PathBuf::from(e.to_string()))
}
