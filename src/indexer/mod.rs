//! The indexing pipeline: scope -> tree -> diff against the nearest indexed view -> new
//! (path, blob) pairs -> filters -> parse never-seen blobs in parallel -> write records and
//! file versions -> publish the view.
//!
//! Architecture invariant: a blob is parsed only when no record exists for (blob, language,
//! extractor key); a view is derived from another by the files that differ, never by scanning
//! what did not change; the view switches last, in one transaction.

mod content;
mod gc;
mod history;
mod jobs;
mod seed;
mod shared;
mod state;
mod worktree;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use roaring::RoaringBitmap;

use crate::git::{FileMode, GitError, LocalRepo, ObjectId, TreeFile};
use crate::index::FullText;
use crate::lang;
use crate::progress;
use crate::store::{self, Store, StoreError};
use crate::view::ignore_rules::{self, IGNORE_FILE, IgnoreRules};
use crate::view::{self, Scope, Workspace};

pub use content::{TEXT_EXTRACTOR, is_binary};
pub use gc::{GcReport, unneeded_records};
pub use history::{HistoryOptions, HistoryReport, history_lacks_git_diff, history_lacks_gitlinks};
use jobs::Job;
pub use seed::{SeedReport, seed};
pub use state::{
    HEAD_TREES, WorktreeMemory, WorktreeState, derivation, gaps_filled, record_key, worktree_state,
    worktree_state_since,
};

/// What went wrong while indexing.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading a file of a plain directory failed.
    #[error("cannot read {path}: {source}")]
    Io { path: std::path::PathBuf, source: std::io::Error },
    /// The full-text index failed.
    #[error(transparent)]
    Fulltext(#[from] crate::index::FtsError),
    /// A worker thread panicked (a bug).
    #[error("an indexing thread panicked")]
    WorkerPanicked,
    /// A ref was asked of a workspace that is not a repository.
    #[error("{path} is not a git repository, so `--ref` cannot be used there")]
    NotARepository { path: std::path::PathBuf },
    /// Reading the working tree failed again and again while files moved under it.
    #[error("the working tree kept changing while it was read (a checkout or rebase running?): {source}")]
    WorktreeChanging { source: GitError },
    /// History was asked of a directory that is not a git repository.
    #[error("history needs a git repository; this directory is indexed as it is (`--live`)")]
    NoHistory,
}

/// How an index run behaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct IndexOptions {
    /// Rebuild views from their full file lists instead of deriving them; records of blobs
    /// already parsed by this extractor are still reused unless `reparse` is set.
    pub force: bool,
    /// Parse every blob again (with `force`): replaces nothing, since records are keyed by
    /// content, but proves the extractor from scratch.
    pub reparse: bool,
}

/// What one view's build did.
#[derive(Clone, Debug, Default)]
pub struct ViewReport {
    /// The scope as named: `worktree`, `live`, or the ref.
    pub scope: String,
    /// The name stored in `refs` (`refs/heads/main`, `worktree:<id>`, `live`).
    pub ref_name: String,
    /// The view key.
    pub view_key: String,
    /// The commit, for repositories.
    pub commit: Option<ObjectId>,
    /// The tree (HEAD's tree for a worktree view).
    pub tree: Option<ObjectId>,
    /// File versions in the view.
    pub files: u64,
    /// Symbols over the whole view.
    pub symbols: u64,
    /// Files added, removed or changed against the view it was derived from.
    pub files_changed: u64,
    /// Blobs parsed in this run (never seen by this extractor before).
    pub blobs_parsed: u64,
    /// Blobs of changed files whose records already existed.
    pub blobs_reused: u64,
    /// Blobs whose records were copied from another registered repository's store (the same
    /// blob there) instead of parsed.
    pub blobs_shared: u64,
    /// Symbols written in this run.
    pub symbols_extracted: u64,
    /// Blobs not parsed, by reason (`binary`, `too_large`, ...).
    pub skipped: BTreeMap<String, u64>,
    /// Blobs missing from the object store (a partial or shallow clone): their files are in
    /// the view but have no records.
    pub missing_objects: u64,
    /// The view it was derived from, if any.
    pub base: Option<String>,
    /// Nothing to do: the view was already current.
    pub up_to_date: bool,
    /// Wall time.
    pub duration_ms: u64,
}

/// A file to bring into a view.
struct Entry {
    path: Vec<u8>,
    blob_id: ObjectId,
    mode: FileMode,
    /// The content, when it is not in the object store (dirty or live files).
    content: Option<Vec<u8>>,
}

/// A view under construction: where it starts and what changes.
struct Plan {
    base_key: Option<String>,
    base_bitmap: RoaringBitmap,
    base_scan_bitmap: RoaringBitmap,
    base_symbols: i64,
    removed: Vec<(Vec<u8>, ObjectId)>,
    added: Vec<Entry>,
    rules: IgnoreRules,
}

/// Builds and publishes views in one store. Holds the write lock for its lifetime.
pub struct Indexer<'a> {
    ws: &'a Workspace,
    store: &'a Store,
    options: IndexOptions,
    max_file_size: u64,
    /// One full-text writer for the whole run, opened by the first build with documents to
    /// write (`true` when it is a small run's, see `FullText::writer`): its merges finish (and
    /// obsolete segment files go) when the run ends, in [`Indexer::finish`].
    fulltext: std::cell::RefCell<Option<(FullText, tantivy::IndexWriter, bool)>>,
    /// Where records of never-seen blobs may be copied from instead of parsed (see `shared`).
    donors: shared::Donors<'a>,
    /// Symbol spans of blobs history met in this run (see `history`).
    history_spans: history::SpanCache,
    _lock: store::WriteLock,
}

impl<'a> Indexer<'a> {
    /// Takes the write lock (waiting for another writer) and notes jobs a dead process left.
    pub fn new(ws: &'a Workspace, store: &'a Store, options: IndexOptions) -> Result<Indexer<'a>, IndexError> {
        let lock = store.lock(true)?;
        store.mark_interrupted_jobs()?;
        if options.force {
            // From nothing: a damaged full-text index may not even open, and documents of
            // file versions no view is re-derived for must not be trusted either.
            let fts = crate::index::dir_of(store.dir());
            match std::fs::remove_dir_all(&fts) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(IndexError::Io { path: fts, source: e }),
            }
            store.forget_documents()?;
        }
        Ok(Indexer {
            ws,
            store,
            options,
            max_file_size: ws.max_file_size(),
            fulltext: std::cell::RefCell::new(None),
            donors: shared::Donors::default(),
            history_spans: history::SpanCache::default(),
            _lock: lock,
        })
    }

    /// The same indexer, copying records of blobs it has not parsed from the stores `find`
    /// names (other registered repositories' stores), asked only when a build meets such
    /// blobs.
    pub fn with_donors(mut self, find: impl Fn() -> Vec<std::path::PathBuf> + 'a) -> Self {
        self.donors = shared::Donors::new(Box::new(find));
        self
    }

    /// Ends the run: waits for the full-text segment merges to finish, which also deletes the
    /// files of merged segments, so the index stays compact however many commits the run made.
    /// The new files are then verified and stamped, so queries need not read them again, and
    /// each new segment gets its file versions' runs file.
    pub fn finish(self) -> Result<(), IndexError> {
        if let Some((fulltext, writer, _)) = self.fulltext.borrow_mut().take() {
            writer.wait_merging_threads().map_err(crate::index::FtsError::from)?;
            fulltext.settle();
        }
        // A registered repository's store lists the blobs it holds records of, for the index
        // runs of the others (`store::record_blobs`). Failing to write the list only leaves
        // them to ask this store, as they do when it has none.
        if self.donors.registered() && store::record_blobs::sync(self.store.conn(), self.store.dir()).is_err() {
            store::record_blobs::forget(self.store.dir());
        }
        Ok(())
    }

    fn extractor_for(&self, lang: &str) -> String {
        record_key(lang, self.max_file_size)
    }

    /// Brings the view of `scope` up to date and publishes it.
    pub fn index(&self, scope: &Scope) -> Result<ViewReport, IndexError> {
        self.index_with(scope, None)
    }

    /// Like [`Indexer::index`], with the working tree's state already computed by the caller
    /// (a query that found the worktree view stale walked the tree once already). The state is
    /// used only for [`Scope::Worktree`].
    pub fn index_with(&self, scope: &Scope, state: Option<WorktreeState>) -> Result<ViewReport, IndexError> {
        let started = Instant::now();
        let job = self.store.start_job("index", &self.ws.scope_name(scope))?;
        let result = match (scope, self.ws.git()) {
            (Scope::Ref(spec), Some(_)) => self.index_ref(spec),
            (Scope::Ref(_), None) => Err(IndexError::NotARepository { path: self.ws.root().to_owned() }),
            (Scope::Worktree, Some(_)) if !self.ws.has_worktree() => self.index_ref("HEAD"),
            (Scope::Worktree, Some(_)) => match state {
                Some(state) => self.index_worktree_state(state, None),
                None => self.index_worktree(),
            },
            (Scope::Worktree, None) => self.index_live(),
        };
        match result {
            Ok(mut report) => {
                report.scope = self.ws.scope_name(scope);
                report.duration_ms = started.elapsed().as_millis() as u64;
                let stats = format!(
                    "{{\"files\":{},\"blobs_parsed\":{},\"blobs_reused\":{}}}",
                    report.files, report.blobs_parsed, report.blobs_reused
                );
                self.store.finish_job(job, None, Some(&stats))?;
                Ok(report)
            }
            Err(e) => {
                let _ = self.store.finish_job(job, Some(&e.to_string()), None);
                Err(e)
            }
        }
    }

    fn git(&self) -> LocalRepo {
        self.ws.git().expect("only called for repositories because callers match on git()").local()
    }

    fn index_ref(&self, spec: &str) -> Result<ViewReport, IndexError> {
        let repo = self.git();
        let resolved = view::resolve_ref(&repo, spec)?;
        let (commit_id, tree_id) = (resolved.target.commit_id, resolved.target.tree_id);
        let mut report = self.ensure_tree_view(&repo, commit_id, tree_id)?;
        let batch = self.store.begin()?;
        let view_id = self.store.view(&report.view_key)?.map(|v| v.id).expect("ensure_tree_view published the view");
        batch.put_ref(&resolved.name, "ref", Some(commit_id), Some(tree_id), view_id, None)?;
        batch.commit()?;
        report.ref_name = resolved.name;
        Ok(report)
    }

    /// Makes sure the view of `tree_id` exists, deriving it from the nearest indexed tree.
    fn ensure_tree_view(
        &self,
        repo: &LocalRepo,
        commit_id: ObjectId,
        tree_id: ObjectId,
    ) -> Result<ViewReport, IndexError> {
        let key = view::tree_view_key(tree_id);
        let existing = self.store.view(&key)?;
        let derivation = derivation(self.max_file_size);
        // Blobs it was built without that are here now: re-derived from nothing, so that they
        // are read (a derivation from a base would carry the gaps along).
        let filled = match &existing {
            Some(v) => gaps_filled(self.store, repo, v, self.ws.fetch_missing())?,
            None => false,
        };
        if let (Some(existing), false, false) = (&existing, self.options.force, filled)
            && existing.fingerprint.as_deref() == Some(derivation.as_str())
        {
            return Ok(ViewReport {
                view_key: key,
                commit: Some(commit_id),
                tree: Some(tree_id),
                files: existing.files as u64,
                symbols: existing.symbols as u64,
                up_to_date: true,
                ..ViewReport::default()
            });
        }
        let rebuild = self.options.force || filled;
        // A partial clone may have left a tree (`--filter=tree:0`) or the ignore file's blob on
        // its server: each object found missing is fetched and the plan made again, a few times.
        let mut fetched = 0;
        let plan = loop {
            match self.tree_plan(repo, commit_id, tree_id, rebuild) {
                Err(IndexError::Git(GitError::MissingObject { id, .. }))
                    if fetched < 3 && self.ws.fetch_missing() && state::fetch_missing(repo, &[id], "objects") == 1 =>
                {
                    fetched += 1
                }
                plan => break plan?,
            }
        };
        let mut report = self.build(Some(repo), plan, &key, "tree", Some(tree_id), Some(&derivation))?;
        report.commit = Some(commit_id);
        report.tree = Some(tree_id);
        Ok(report)
    }

    /// What building the view of `tree_id` takes: a diff from the nearest indexed tree view,
    /// or every file of the tree when `rebuild` or when there is none.
    fn tree_plan(
        &self,
        repo: &LocalRepo,
        commit_id: ObjectId,
        tree_id: ObjectId,
        rebuild: bool,
    ) -> Result<Plan, IndexError> {
        let base = if rebuild { None } else { self.nearest_tree_view(repo, commit_id)? };
        Ok(match base {
            Some((base_key, base_tree)) => {
                let changes = repo.diff_trees(base_tree, tree_id)?;
                if changes.iter().any(|c| c.path == IGNORE_FILE.as_bytes()) {
                    self.full_plan(repo, tree_id)?
                } else {
                    let base_view = self.store.view(&base_key)?.expect("nearest_tree_view returns stored views");
                    Plan {
                        base_key: Some(base_key),
                        base_bitmap: base_view.bitmap,
                        base_scan_bitmap: base_view.scan_bitmap,
                        base_symbols: base_view.symbols,
                        removed: changes.iter().filter_map(|c| Some((c.path.clone(), c.old?.0))).collect(),
                        added: changes
                            .into_iter()
                            .filter_map(|c| {
                                let (blob_id, mode) = c.new?;
                                Some(Entry { path: c.path, blob_id, mode, content: None })
                            })
                            .collect(),
                        rules: self.tree_rules(repo, tree_id)?,
                    }
                }
            }
            None => self.full_plan(repo, tree_id)?,
        })
    }

    /// The indexed tree view closest to `commit_id`: one of its first-parent ancestors if
    /// any is indexed, else the most recently built one.
    fn nearest_tree_view(
        &self,
        repo: &LocalRepo,
        commit_id: ObjectId,
    ) -> Result<Option<(String, ObjectId)>, IndexError> {
        // A view of another derivation lists records of other keys: nothing to derive from.
        let derivation = derivation(self.max_file_size);
        let views: Vec<(String, ObjectId)> = self
            .store
            .tree_views()?
            .into_iter()
            .filter(|(_, _, d)| d.as_deref() == Some(derivation.as_str()))
            .map(|(k, t, _)| (k, t))
            .collect();
        if views.is_empty() {
            return Ok(None);
        }
        let by_tree: HashMap<ObjectId, &String> = views.iter().map(|(k, t)| (*t, k)).collect();
        for ancestor in repo.ancestors(commit_id, 64).unwrap_or_default() {
            if let Ok(tree) = repo.commit_tree(ancestor)
                && let Some(key) = by_tree.get(&tree)
            {
                return Ok(Some(((*key).clone(), tree)));
            }
        }
        Ok(views.into_iter().next())
    }

    fn full_plan(&self, repo: &LocalRepo, tree_id: ObjectId) -> Result<Plan, IndexError> {
        let files = repo.list_tree(tree_id)?;
        let rules = match files.iter().find(|f| f.path == IGNORE_FILE.as_bytes()) {
            Some(f) => rules_from_blob(repo, f)?,
            None => IgnoreRules::none(),
        };
        Ok(Plan {
            base_key: None,
            base_bitmap: RoaringBitmap::new(),
            base_scan_bitmap: RoaringBitmap::new(),
            base_symbols: 0,
            removed: Vec::new(),
            added: files
                .into_iter()
                .map(|f| Entry { path: f.path, blob_id: f.blob_id, mode: f.mode, content: None })
                .collect(),
            rules,
        })
    }

    fn tree_rules(&self, repo: &LocalRepo, tree_id: ObjectId) -> Result<IgnoreRules, IndexError> {
        // The root tree lists the ignore file directly; reading one tree object is cheap.
        let files = repo.list_tree_root(tree_id)?;
        match files.into_iter().find(|f| f.path == IGNORE_FILE.as_bytes()) {
            Some(f) => rules_from_blob(repo, &f),
            None => Ok(IgnoreRules::none()),
        }
    }

    /// Applies a plan: file versions, records for never-seen blobs, full-text documents for
    /// new file versions, then the view.
    fn build(
        &self,
        repo: Option<&LocalRepo>,
        plan: Plan,
        key: &str,
        kind: &str,
        tree: Option<ObjectId>,
        fingerprint: Option<&str>,
    ) -> Result<ViewReport, IndexError> {
        let mut report = ViewReport { view_key: key.to_owned(), base: plan.base_key.clone(), ..ViewReport::default() };
        let plan_base_id = match &plan.base_key {
            Some(base) => self.store.view_id(base)?,
            None => None,
        };
        let mut bitmap = plan.base_bitmap;
        let mut scan_bitmap = plan.base_scan_bitmap;
        let mut symbols = plan.base_symbols;
        report.files_changed = (plan.removed.len() + plan.added.len()) as u64;

        // 0. Records other registered repositories hold for blobs never seen here.
        report.blobs_shared = self.share_records(&plan.added)?;

        // 1. File versions: removals, then additions. Committed before parsing: file versions
        // are immutable facts about (path, blob), harmless until a view refers to them.
        let batch = self.store.begin()?;
        for (path, blob_id) in &plan.removed {
            if let Some((id, blob_row, lang, skip)) = batch.file_version_by_oid(path, *blob_id)?
                && bitmap.remove(id)
            {
                scan_bitmap.remove(id);
                let record_lang = if skip.is_some() { "" } else { lang.as_str() };
                symbols -= batch.record_symbol_count(blob_row, record_lang, &self.extractor_for(record_lang))?;
            }
        }
        let mut jobs: Vec<Job> = Vec::new();
        let mut job_of: HashMap<(ObjectId, &'static str), usize> = HashMap::new();
        let mut reused: HashSet<(ObjectId, &'static str)> = HashSet::new();
        let mut pending_symbols: Vec<(ObjectId, &'static str)> = Vec::new();
        let mut bar = progress::Bar::new("listing files", plan.added.len() as u64);
        let mut head_buf = Vec::new();
        for entry in plan.added {
            bar.inc(1);
            if plan.rules.excludes(&entry.path) {
                continue;
            }
            let size = entry.content.as_ref().map_or(-1, |c| c.len() as i64);
            let blob_row = batch.ensure_blob(entry.blob_id, size)?;
            let existing = batch.file_version(&entry.path, blob_row)?;
            // A file version from an earlier run may have documents even without a record
            // of them: a run interrupted between the full-text commit and the publish.
            let stored_before = existing.is_some();
            let stored = match existing {
                Some(found) => found,
                None => self.new_file_version(&batch, repo, &entry, blob_row, &mut head_buf)?,
            };
            if !bitmap.insert(stored.id) {
                continue;
            }
            let record_lang: &'static str =
                if stored.skip.is_some() { "" } else { lang::by_name(&stored.lang).map_or("", |l| l.name) };
            let extractor = self.extractor_for(record_lang);
            let pair = (entry.blob_id, record_lang);
            let exists = batch.has_record(blob_row, record_lang, &extractor)?;
            let parse = !exists || self.options.reparse;
            let documents = stored.fts_key.as_deref() != Some(extractor.as_str()) || self.options.reparse;
            if parse {
                pending_symbols.push(pair);
            } else {
                symbols += batch.record_symbol_count(blob_row, record_lang, &extractor)?;
                reused.insert(pair);
                if stored.fts_scan {
                    scan_bitmap.insert(stored.id);
                }
            }
            if !parse && !documents {
                continue;
            }
            let job = *job_of.entry(pair).or_insert_with(|| {
                jobs.push(Job {
                    blob_id: entry.blob_id,
                    lang: record_lang,
                    extractor: extractor.clone(),
                    parse: false,
                    content: None,
                    documents: Vec::new(),
                });
                jobs.len() - 1
            });
            let job = &mut jobs[job];
            if parse && !job.parse {
                job.parse = true;
                // Compiling a language's query (tens of milliseconds for some) is done on
                // another core while the rest of the run reads, writes and parses: a query
                // after an edit would otherwise wait for it between its parse and extraction.
                if let Some(language) = lang::by_name(record_lang) {
                    crate::extract::compile_ahead(vec![language]);
                }
                // Not above the size limit: such a file is listed, never read again (a large
                // file behind a filter, as Git LFS makes, would fill the store for nothing).
                if let Some(data) = &entry.content
                    && data.len() as u64 <= self.max_file_size
                    && repo.is_some_and(|r| !r.has_object(entry.blob_id))
                {
                    store::blobs::put(self.store.dir(), entry.blob_id, data)?;
                }
            }
            if job.content.is_none() {
                job.content = entry.content;
            }
            if documents {
                job.documents.push(content::DocTarget {
                    fv: stored.id,
                    path: String::from_utf8_lossy(&entry.path).into_owned(),
                    lang_id: lang::by_name(&stored.lang).map_or(0, |l| lang::index_of(l) as u64 + 1),
                    snippets: stored.skip.is_none(),
                    replace: stored_before || self.options.reparse,
                });
            }
        }
        drop(bar);
        batch.commit()?;
        crate::failpoint::hit("index.after_file_versions");
        let queued: HashSet<_> = jobs.iter().filter(|j| j.parse).map(|j| (j.blob_id, j.lang)).collect();
        report.blobs_reused = reused.difference(&queued).count() as u64;

        // 2. Parse never-seen blobs and write documents for new file versions, in parallel;
        // records are written in batches, documents committed once, before the view.
        let outcome = self.process_jobs(repo, jobs, &mut report)?;
        for pair in pending_symbols {
            symbols += outcome.symbol_counts.get(&pair).copied().unwrap_or(0);
        }
        for (fv, _, scan) in &outcome.documented {
            if *scan {
                scan_bitmap.insert(*fv);
            } else {
                scan_bitmap.remove(*fv);
            }
        }
        for fv in &outcome.unreadable {
            scan_bitmap.insert(*fv);
        }

        // Blobs still missing: those of this run, and the base's it kept (a partial clone's
        // gaps are inherited until the blobs arrive and the view is re-derived).
        let mut missing = outcome.missing.clone();
        if let Some(base) = plan_base_id {
            for blob in self.store.view_missing(base)? {
                if !missing.contains(&blob) {
                    missing.push(blob);
                }
            }
        }

        // 3. Publish: the documents' marks and the view switch in one transaction.
        crate::failpoint::hit("index.before_publish");
        let batch = self.store.begin()?;
        for (fv, key, scan) in &outcome.documented {
            batch.mark_documents(*fv, key, *scan)?;
        }
        let view_id = batch.put_view(&store::NewView {
            key,
            kind,
            tree,
            bitmap: &bitmap,
            scan_bitmap: &scan_bitmap,
            symbols,
            fingerprint,
        })?;
        batch.set_view_missing(view_id, &missing)?;
        batch.commit()?;
        report.files = bitmap.len();
        report.symbols = symbols.max(0) as u64;
        Ok(report)
    }
}

impl Indexer<'_> {
    /// Stores a file version seen for the first time: its language from the path, else from
    /// the first line; a reason from the path alone not to parse it (symlinks, lock files,
    /// vendored code).
    fn new_file_version(
        &self,
        batch: &store::Batch<'_>,
        repo: Option<&LocalRepo>,
        entry: &Entry,
        blob_row: i64,
        head_buf: &mut Vec<u8>,
    ) -> Result<store::StoredFileVersion, IndexError> {
        let skip = match entry.mode {
            FileMode::Symlink => Some("symlink"),
            FileMode::Gitlink => Some(store::SUBMODULE),
            _ => ignore_rules::builtin_skip(&entry.path),
        };
        let language = match lang::detect_by_path(&entry.path) {
            _ if entry.mode == FileMode::Gitlink => None,
            Some(l) => Some(l),
            None if skip.is_none() => {
                let head: &[u8] = match (&entry.content, repo) {
                    (Some(c), _) => c,
                    (None, Some(repo)) => {
                        content::read_head(repo, entry.blob_id, self.max_file_size, head_buf);
                        head_buf
                    }
                    (None, None) => &[],
                };
                lang::detect_by_shebang(head)
            }
            None => None,
        };
        let lang = language.map_or("", |l| l.name);
        let mode = match entry.mode {
            FileMode::Regular => 0,
            FileMode::Executable => 1,
            FileMode::Symlink => 2,
            FileMode::Gitlink => 3,
        };
        let id = batch.insert_file_version(&entry.path, blob_row, mode, lang, skip)?;
        Ok(store::StoredFileVersion {
            id,
            lang: lang.to_owned(),
            skip: skip.map(str::to_owned),
            fts_key: None,
            fts_scan: false,
        })
    }
}

fn rules_from_blob(repo: &LocalRepo, file: &TreeFile) -> Result<IgnoreRules, IndexError> {
    let mut buf = Vec::new();
    repo.read_blob_into(file.blob_id, &mut buf)?;
    Ok(IgnoreRules::parse(&buf))
}

fn repo_ignore_bytes(repo: &LocalRepo, tree_id: ObjectId) -> Result<Vec<u8>, IndexError> {
    let files = repo.list_tree_root(tree_id)?;
    match files.into_iter().find(|f| f.path == IGNORE_FILE.as_bytes()) {
        Some(f) => {
            let mut buf = Vec::new();
            repo.read_blob_into(f.blob_id, &mut buf)?;
            Ok(buf)
        }
        None => Ok(Vec::new()),
    }
}
