//! History's extract side: the commits reachable from some tips that are not stored yet, each
//! with the files it changed against its first parent as file versions and one document in the
//! commits' index (its message, the paths and the names of the symbols whose lines it changed,
//! the trigrams of those lines). Blobs are parsed in memory for the names, from their records
//! when they have one; no record is stored for a blob only history holds, and no view is built
//! per commit. Only new commits and their changed blobs cost anything.

use std::collections::HashMap;

use serde::Serialize;

use super::{Entry, IndexError, Indexer};
use crate::git::{CommitInfo, FileMode, Gitlinks, LocalRepo, ObjectId, TreeChange};
use crate::history::fts::{CommitDoc, CommitIndex, Scan};
use crate::history::pickaxe;
use crate::store::{self, StoreError};
use crate::{lang, progress};

/// How far back to index.
#[derive(Clone, Copy, Debug, Default)]
pub struct HistoryOptions {
    /// At most this many new commits (the newest).
    pub max_count: Option<usize>,
    /// Not commits older than this (commit time, seconds since the epoch).
    pub since: Option<i64>,
    /// Also go on below the oldest commits stored (an earlier run's `--max-count` or
    /// `--since`), not only down to them from the tips.
    pub deepen: bool,
}

/// What an index run of history did.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct HistoryReport {
    /// Commits stored by this run.
    pub commits_added: u64,
    /// Commits stored in all.
    pub commits_total: u64,
    /// Files the new commits changed (against their first parents).
    pub files_changed: u64,
    /// Changed files parsed (in memory) for the symbols their lines hold.
    pub blobs_parsed: u64,
    /// Whether `--max-count` or `--since` stopped the walk before the root commits.
    pub cut: bool,
    /// Whether the walk met a shallow clone's boundary (parents that are not here).
    pub shallow_boundary: bool,
    /// Wall time.
    pub duration_ms: u64,
}

/// Above this size a changed file's diff is not written into its commit's document: the
/// commit is then always checked by `log -S/-G`.
const DIFF_LIMIT: usize = 4 << 20;
/// Commits per transaction and full-text commit.
const CHUNK: usize = 256;
/// A run that adds at least this many commits ends with the commits' index in one segment...
const MERGE_AFTER_COMMITS: u64 = 1_000;
/// ...and so does one that leaves more segments than this.
const MAX_SEGMENTS: usize = 8;

/// A changed file as stored: the file version ids and what the document needs.
struct Side {
    fv: u32,
    path: Vec<u8>,
    blob: ObjectId,
    record_lang: &'static str,
    /// A submodule entry: its text is [`crate::git::gitlink_text`], not a blob's.
    gitlink: bool,
}

/// What one run of history keeps between its chunks.
struct Run<'r> {
    repo: &'r LocalRepo,
    /// Commits' trees met (each commit's own, and parents' read for a diff).
    trees: HashMap<ObjectId, ObjectId>,
    head_buf: Vec<u8>,
}

/// The `meta` key saying that every stored commit's changes include its submodule entries.
/// A store whose history an earlier build indexed lacks it: [`Indexer::record_history_gitlinks`]
/// adds what those commits lack.
const GITLINKS_KEY: &str = "history_gitlinks";

/// Whether `store` holds history an earlier build stored without submodule entries (see
/// [`Indexer::record_history_gitlinks`]).
pub fn history_lacks_gitlinks(store: &store::Store) -> Result<bool, StoreError> {
    Ok(store.meta(GITLINKS_KEY)?.as_deref() != Some("1") && store.history_count()? > 0)
}

/// The meta key that says history's documents hold the lines git's diff changes.
const GIT_DIFF_KEY: &str = "history_git_diff";

/// Whether `store` holds history an earlier build stored with the changed lines of another
/// diff than git's (see [`Indexer::record_history_git_diff`]).
pub fn history_lacks_git_diff(store: &store::Store) -> Result<bool, StoreError> {
    Ok(store.meta(GIT_DIFF_KEY)?.as_deref() != Some("1") && store.history_count()? > 0)
}

impl Indexer<'_> {
    /// Stores the commits reachable from `tips` that are not stored yet (oldest first, so an
    /// interrupted run leaves no hole a later run would not fill).
    pub fn index_history(&self, tips: &[ObjectId], options: HistoryOptions) -> Result<HistoryReport, IndexError> {
        let started = std::time::Instant::now();
        let git = self.ws.git().ok_or(IndexError::NoHistory)?;
        let repo = git.local();
        self.record_history_gitlinks()?;
        self.record_history_git_diff()?;
        let known = self.store.history_known()?;
        let mut tips = tips.to_vec();
        if options.deepen {
            // Parents of stored commits that are not stored: where an earlier run stopped.
            for row in self.store.history_commits(false)?.0 {
                tips.extend(row.parents.iter().filter(|p| !known.contains(p) && repo.has_object(**p)));
            }
        }
        let found = repo.new_commits(&tips, |id| known.contains(&id), options.max_count, options.since)?;
        let mut report =
            HistoryReport { cut: found.cut, shallow_boundary: found.absent_parents > 0, ..HistoryReport::default() };
        let commits: Vec<CommitInfo> = found.commits.into_iter().rev().collect();
        let index = CommitIndex::open(self.store.dir())?;
        let mut writer = index.writer()?;
        let mut bar = progress::Bar::new("indexing history", commits.len() as u64);
        let mut run =
            Run { repo: &repo, trees: commits.iter().map(|c| (c.id, c.tree_id)).collect(), head_buf: Vec::new() };
        for chunk in commits.chunks(CHUNK) {
            self.store_commits(&mut run, chunk, &index, &mut writer, &mut report, false)?;
            bar.inc(chunk.len() as u64);
        }
        drop(bar);
        // The writer merges nothing itself (see `CommitIndex::writer`): one segment at the end
        // of a run that added many commits or left many segments. Each segment keeps its own
        // dictionary of the trigrams of changed lines, most of them the same (on requests,
        // five segments held 3.3 MB of term dictionaries).
        if report.commits_added >= MERGE_AFTER_COMMITS || index.segment_count()? > MAX_SEGMENTS {
            index.merge_all(&mut writer)?;
        }
        writer.wait_merging_threads().map_err(crate::index::FtsError::from)?;
        report.commits_total = self.store.history_count()?;
        report.duration_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }

    /// Makes sure every stored commit's changes include its submodule entries: history stored
    /// by a build that left them out is read again, tree diffs only, and the commits that
    /// changed a submodule get their changes and documents again. Nothing to do (one `meta`
    /// lookup) once done, or for a store with no history (which then records them from its
    /// first commit).
    pub fn record_history_gitlinks(&self) -> Result<(), IndexError> {
        if crate::failpoint::fails("history.gitlinks") {
            return Ok(());
        }
        self.upgrade_history(GITLINKS_KEY, "finding submodule changes in history", |_, changes| {
            let gitlink = |side: &Option<(ObjectId, FileMode)>| side.is_some_and(|(_, m)| m == FileMode::Gitlink);
            changes.iter().any(|c| gitlink(&c.old) || gitlink(&c.new))
        })
    }

    /// Completes history stored by builds whose commit documents held the lines another diff
    /// changed: git's diff may remove and add a line only moved that the other kept, and
    /// `log -G` must find the commit by it. Every stored commit's text changes are diffed
    /// again; a commit where git's diff changes a line the other did not gets its document
    /// anew. Once per store (a meta key).
    pub fn record_history_git_diff(&self) -> Result<(), IndexError> {
        if crate::failpoint::fails("history.diff") {
            return Ok(());
        }
        let (mut old_buf, mut new_buf) = (Vec::new(), Vec::new());
        self.upgrade_history(GIT_DIFF_KEY, "diffing history's changes as git does", |repo, changes| {
            let blob = |side: &Option<(ObjectId, FileMode)>| match side {
                Some((id, mode)) if *mode != FileMode::Gitlink => Some(*id),
                _ => None,
            };
            let read = |id: ObjectId, buf: &mut Vec<u8>| {
                buf.clear();
                repo.object_size(id).is_ok_and(|size| size as usize <= DIFF_LIMIT)
                    && repo.read_blob_into(id, buf).is_ok()
                    && !crate::indexer::is_binary(buf)
            };
            changes.iter().any(|c| {
                let (Some(old), Some(new)) = (blob(&c.old), blob(&c.new)) else { return false };
                read(old, &mut old_buf)
                    && read(new, &mut new_buf)
                    && pickaxe::diffs_differ(&pickaxe::split_lines(&old_buf), &pickaxe::split_lines(&new_buf))
            })
        })
    }

    /// Once per store (meta `key`): the stored commits whose first-parent changes `redo`
    /// picks get their changes and documents anew, by this build. A commit whose trees
    /// cannot be read is left as it was stored.
    fn upgrade_history(
        &self,
        key: &str,
        label: &str,
        mut redo: impl FnMut(&LocalRepo, &[TreeChange]) -> bool,
    ) -> Result<(), IndexError> {
        if self.store.meta(key)?.as_deref() == Some("1") {
            return Ok(());
        }
        if self.store.history_count()? > 0 {
            let git = self.ws.git().ok_or(IndexError::NoHistory)?;
            let repo = git.local();
            let mut commits = Vec::new();
            let rows = self.store.history_commits(false)?.0;
            let mut bar = progress::Bar::new(label, rows.len() as u64);
            for row in rows {
                bar.inc(1);
                let Ok(tree) = repo.commit_tree(row.oid) else { continue };
                let parent_tree = row.parents.first().and_then(|p| repo.commit_tree(*p).ok());
                let Ok(changes) = changes_against(&repo, parent_tree, tree, Gitlinks::With) else { continue };
                if redo(&repo, &changes) {
                    commits.push(repo.commit_info(row.oid)?);
                }
            }
            drop(bar);
            if !commits.is_empty() {
                let index = CommitIndex::open(self.store.dir())?;
                let mut writer = index.writer()?;
                let mut run = Run { repo: &repo, trees: HashMap::new(), head_buf: Vec::new() };
                let mut report = HistoryReport::default();
                for chunk in commits.chunks(CHUNK) {
                    self.store_commits(&mut run, chunk, &index, &mut writer, &mut report, true)?;
                }
                writer.wait_merging_threads().map_err(crate::index::FtsError::from)?;
            }
        }
        self.store.set_meta(key, "1")?;
        Ok(())
    }

    /// Stores `chunk`'s commits (oldest first): the files each changed against its first
    /// parent as file versions, its document, then its rows. With `replace`, commits already
    /// stored get their changes and document anew.
    fn store_commits(
        &self,
        run: &mut Run<'_>,
        chunk: &[CommitInfo],
        index: &CommitIndex,
        writer: &mut tantivy::IndexWriter,
        report: &mut HistoryReport,
        replace: bool,
    ) -> Result<(), IndexError> {
        let repo = run.repo;
        let trees = &mut run.trees;
        // Submodule entries are changes too, as `git log` shows them, unless a test asks for
        // history as builds before them stored it.
        let gitlinks = if crate::failpoint::fails("history.gitlinks") { Gitlinks::Without } else { Gitlinks::With };
        // 0. A treeless partial clone (`--filter=tree:0`) has few of these trees: with
        // `codecompass.fetchMissing`, the chunk's missing ones are asked for in one request.
        if self.ws.fetch_missing() {
            let mut missing: Vec<ObjectId> = Vec::new();
            for commit in chunk {
                // The parent's tree is remembered for the diff below.
                let parent_tree = commit.parents.first().and_then(|p| match trees.get(p) {
                    Some(tree) => Some(*tree),
                    None => repo.commit_tree(*p).ok().inspect(|tree| {
                        trees.insert(*p, *tree);
                    }),
                });
                missing
                    .extend([Some(commit.tree_id), parent_tree].into_iter().flatten().filter(|t| !repo.has_object(*t)));
            }
            missing.sort_unstable();
            missing.dedup();
            super::state::fetch_missing(repo, &missing, "trees");
        }
        // 1. Tree diffs against the first parent, as file versions.
        let mut changes_of: Vec<Vec<(Option<Side>, Option<Side>)>> = Vec::with_capacity(chunk.len());
        let batch = self.store.begin()?;
        for commit in chunk {
            let parent_tree = match commit.parents.first() {
                Some(parent) => match trees.get(parent) {
                    Some(tree) => Some(*tree),
                    None => match repo.commit_tree(*parent) {
                        Ok(tree) => {
                            trees.insert(*parent, tree);
                            Some(tree)
                        }
                        // A shallow clone's boundary: git shows it as a root commit.
                        Err(crate::git::GitError::MissingObject { .. }) => None,
                        Err(e) => return Err(e.into()),
                    },
                },
                None => None,
            };
            let changes = changes_against(repo, parent_tree, commit.tree_id, gitlinks)?;
            report.files_changed += changes.len() as u64;
            let mut sides = Vec::with_capacity(changes.len());
            for change in changes {
                let mut side = |state: Option<(ObjectId, FileMode)>| -> Result<Option<Side>, IndexError> {
                    let Some((blob_id, mode)) = state else {
                        return Ok(None);
                    };
                    let blob_row = batch.ensure_blob(blob_id, -1)?;
                    let entry = Entry { path: change.path.clone(), blob_id, mode, content: None };
                    let stored = match batch.file_version(&change.path, blob_row)? {
                        Some(found) => found,
                        None => self.new_file_version(&batch, Some(repo), &entry, blob_row, &mut run.head_buf)?,
                    };
                    let record_lang: &'static str =
                        if stored.skip.is_some() { "" } else { lang::by_name(&stored.lang).map_or("", |l| l.name) };
                    Ok(Some(Side {
                        fv: stored.id,
                        path: change.path.clone(),
                        blob: blob_id,
                        record_lang,
                        gitlink: mode == FileMode::Gitlink,
                    }))
                };
                let old = side(change.old)?;
                let new = side(change.new)?;
                sides.push((old, new));
            }
            changes_of.push(sides);
        }
        batch.commit()?;

        // 2. One document per commit, in parallel (a document added again replaces the one
        // before).
        let (touched, parsed) = self.commit_documents(chunk, &changes_of, index, writer)?;
        report.blobs_parsed += parsed;
        writer.commit().map_err(crate::index::FtsError::from)?;

        // 3. The rows, last: a stored commit always has its document.
        let batch = self.store.begin()?;
        for ((commit, sides), touched) in chunk.iter().zip(&changes_of).zip(touched) {
            let ids: Vec<store::NewChange> = sides
                .iter()
                .zip(touched)
                .map(|((o, n), names)| store::NewChange {
                    old_fv: o.as_ref().map(|s| s.fv),
                    new_fv: n.as_ref().map(|s| s.fv),
                    touched: names,
                })
                .collect();
            if replace {
                batch.replace_commit_changes(commit.id, &ids)?;
            } else {
                batch.insert_commit(commit, &ids)?;
            }
        }
        batch.commit()?;
        if !replace {
            report.commits_added += chunk.len() as u64;
        }
        Ok(())
    }

    fn commit_documents(
        &self,
        chunk: &[CommitInfo],
        changes_of: &[Vec<(Option<Side>, Option<Side>)>],
        index: &CommitIndex,
        writer: &tantivy::IndexWriter,
    ) -> Result<(Vec<Touched>, u64), IndexError> {
        use rayon::prelude::*;
        let parsed = std::sync::atomic::AtomicU64::new(0);
        let git = self.ws.git().ok_or(IndexError::NoHistory)?;
        let store_dir = self.store.dir().to_owned();
        let max = self.max_file_size;
        // Most blobs are the new side of one change and the old side of the next: each is
        // parsed once per run.
        let spans = &self.history_spans;
        let touched = chunk
            .par_iter()
            .zip(changes_of.par_iter())
            .map_init(
                || (git.local(), store::read_connection(&store_dir), Vec::new(), Vec::new()),
                |(repo, conn, old_buf, new_buf), (commit, sides)| -> Result<Touched, IndexError> {
                    let conn = conn
                        .as_ref()
                        .map_err(|e| IndexError::Store(StoreError::Sqlite(super::jobs::clone_sqlite_error(e))))?;
                    let (doc, touched, n) = commit_document(repo, conn, spans, max, commit, sides, old_buf, new_buf)?;
                    parsed.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                    index.add(writer, commit.id, &doc)?;
                    Ok(touched)
                },
            )
            .collect::<Result<Vec<_>, _>>()?;
        Ok((touched, parsed.into_inner()))
    }
}

/// The files `tree` changed against `parent_tree`, or all of them for a root commit (or a
/// shallow clone's boundary, whose parent is not here), as git shows them.
fn changes_against(
    repo: &LocalRepo,
    parent_tree: Option<ObjectId>,
    tree: ObjectId,
    gitlinks: Gitlinks,
) -> Result<Vec<TreeChange>, crate::git::GitError> {
    Ok(match parent_tree {
        Some(parent) => repo.diff_trees_of(parent, tree, gitlinks)?,
        None => repo
            .list_tree_of(tree, gitlinks)?
            .into_iter()
            .map(|f| TreeChange { path: f.path, old: None, new: Some((f.blob_id, f.mode)) })
            .collect(),
    })
}

/// What was read of a side of a change.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// Text (or no side: an addition or a deletion), diffed by lines.
    Text,
    /// Binary: not diffed, its printable runs are kept.
    Binary,
    /// Too large or missing from the object store.
    Unread,
}

/// Reads a side's content into `buf`.
fn read_side(repo: &LocalRepo, side: Option<&Side>, buf: &mut Vec<u8>) -> Read {
    buf.clear();
    let Some(side) = side else {
        return Read::Text;
    };
    if side.gitlink {
        buf.extend_from_slice(&crate::git::gitlink_text(side.blob));
        return Read::Text;
    }
    match repo.object_size(side.blob) {
        Ok(size) if size as usize <= DIFF_LIMIT => {}
        _ => return Read::Unread,
    }
    if repo.read_blob_into(side.blob, buf).is_err() {
        return Read::Unread;
    }
    if crate::indexer::is_binary(buf) { Read::Binary } else { Read::Text }
}

/// Per changed file of a commit: the name hashes of the symbols whose lines it changed.
type Touched = Vec<Vec<u32>>;

/// The names and line ranges of a blob's symbols.
type Spans = std::sync::Arc<Vec<(String, u32, u32)>>;

/// Blobs' spans met in one index run (bounded: cleared when it grows past a limit).
#[derive(Default)]
pub(super) struct SpanCache(std::sync::Mutex<HashMap<(ObjectId, &'static str), Spans>>);

impl SpanCache {
    const LIMIT: usize = 100_000;

    fn get_or(
        &self,
        key: (ObjectId, &'static str),
        make: impl FnOnce() -> Result<(Spans, bool), IndexError>,
    ) -> Result<(Spans, bool), IndexError> {
        if let Some(found) = self.0.lock().expect("the cache lock is never poisoned").get(&key) {
            return Ok((found.clone(), false));
        }
        let (spans, parsed) = make()?;
        let mut map = self.0.lock().expect("the cache lock is never poisoned");
        if map.len() >= Self::LIMIT {
            map.clear();
        }
        map.insert(key, spans.clone());
        Ok((spans, parsed))
    }
}

#[allow(clippy::too_many_arguments)]
fn commit_document(
    repo: &LocalRepo,
    conn: &rusqlite::Connection,
    cache: &SpanCache,
    max_file_size: u64,
    commit: &CommitInfo,
    sides: &[(Option<Side>, Option<Side>)],
    old_buf: &mut Vec<u8>,
    new_buf: &mut Vec<u8>,
) -> Result<(CommitDoc, Touched, u64), IndexError> {
    let mut doc = CommitDoc { message: commit.message.clone(), ..CommitDoc::default() };
    let mut parsed = 0u64;
    let mut names: Vec<String> = Vec::new();
    let mut touched_of: Touched = Vec::with_capacity(sides.len());
    // A test asks for the documents earlier builds stored (see `record_history_git_diff`).
    let old_diff = crate::failpoint::fails("history.diff");
    for (old, new) in sides {
        let mut touched_here: Vec<u32> = Vec::new();
        let path = new.as_ref().or(old.as_ref()).map(|s| String::from_utf8_lossy(&s.path)).unwrap_or_default();
        doc.paths.push_str(&path);
        doc.paths.push('\n');
        let read = [read_side(repo, old.as_ref(), old_buf), read_side(repo, new.as_ref(), new_buf)];
        if read != [Read::Text, Read::Text] {
            // Not diffed: a side that cannot be read makes the commit a candidate of every
            // search; a binary side leaves its printable runs.
            if read.contains(&Read::Unread) {
                doc.scan = Scan::Always;
            } else {
                for side in [&*old_buf, &*new_buf] {
                    pickaxe::push_printable_runs(side, &mut doc.lines);
                }
                if doc.scan == Scan::None {
                    doc.scan = Scan::Binary;
                }
            }
            touched_of.push(touched_here);
            continue;
        }
        let (old_lines, new_lines) = (pickaxe::split_lines(old_buf), pickaxe::split_lines(new_buf));
        // The lines git's diff removes and adds: `log -G` reads them (and a string whose count
        // changed is on one of them, as on those of any diff), and a definition holding one
        // was touched. Builds before stop 51 took another diff's (a test asks for their
        // documents, see `record_history_git_diff`).
        let changed = if old_diff {
            pickaxe::changed_lines_of_ranges(&old_lines, &new_lines)
        } else {
            crate::history::xdiff::changed(&old_lines, &new_lines)
        };
        for (lines, changed) in [(&old_lines, &changed.0), (&new_lines, &changed.1)] {
            for (line, _) in lines.iter().zip(changed).filter(|(_, c)| **c) {
                pickaxe::push_line(line, &mut doc.lines);
            }
        }
        // How many changed lines come before each line, per side: a definition was touched
        // when its lines hold one.
        let before_each = |changed: &[bool]| -> Vec<u32> {
            std::iter::once(0)
                .chain(changed.iter().scan(0u32, |n, &c| {
                    *n += u32::from(c);
                    Some(*n)
                }))
                .collect()
        };
        let has_symbols = [old, new].iter().any(|side| side.as_ref().is_some_and(|s| !s.record_lang.is_empty()));
        let counts = if has_symbols { [before_each(&changed.0), before_each(&changed.1)] } else { [vec![0], vec![0]] };
        // The symbols whose lines changed, on either side: from the blob's record, else parsed.
        for (side, is_new) in [(old, false), (new, true)] {
            let Some(side) = side else { continue };
            if side.record_lang.is_empty() {
                continue;
            }
            let key = super::record_key(side.record_lang, max_file_size);
            let data: &[u8] = if is_new { new_buf } else { old_buf };
            let (symbols, fresh) = cache.get_or((side.blob, side.record_lang), || {
                Ok(match store::record_for_documents(conn, side.blob, side.record_lang, &key)? {
                    Some((_, symbols)) => {
                        (Spans::new(symbols.into_iter().map(|s| (s.name, s.line_start, s.line_end)).collect()), false)
                    }
                    None => {
                        let defs = crate::history::defs::parse(side.record_lang, data, max_file_size);
                        (Spans::new(defs.into_iter().map(|d| (d.name, d.line_start, d.line_end)).collect()), true)
                    }
                })
            })?;
            parsed += u64::from(fresh);
            for (name, line_start, line_end) in symbols.iter() {
                let (line_start, line_end) = (*line_start, *line_end);
                // The symbol's 1-based lines against the changed lines before each 0-based one.
                let count = &counts[usize::from(is_new)];
                let at = |line: u32| count[(line as usize).min(count.len() - 1)];
                let touched = line_start >= 1 && at(line_end) > at(line_start - 1);
                if touched {
                    let hash = crate::history::name_hash(name);
                    if !touched_here.contains(&hash) {
                        touched_here.push(hash);
                    }
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
            }
        }
        touched_of.push(touched_here);
    }
    doc.symbols = names.join("\n");
    Ok((doc, touched_of, parsed))
}
