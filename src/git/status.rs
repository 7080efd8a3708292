//! The working tree against `HEAD`: which paths differ, and what each now holds.
//!
//! `git status` answers in two halves (HEAD to index, index to worktree); a worktree view needs
//! one answer per path: the content the file has on disk now. So the paths either half names are
//! collected, and each is then read from disk, passed through the repository's clean filters
//! (`core.autocrlf`, `.gitattributes`) and hashed, which gives exactly the id `git hash-object`
//! would give. Paths whose content turns out equal to `HEAD` are dropped by the caller.
//!
//! A file behind a filter driver (`filter=`, as Git LFS uses), `ident` or
//! `working-tree-encoding` holds other bytes on disk than its blob, so `git grep` on the
//! working tree finds other lines than at `HEAD`. Such paths are always read and hashed as they
//! are on disk, never through the filter: the worktree view searches what the user sees. Line
//! ending conversions are not counted: they change no line's text but its `\r`.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use gix::bstr::{BString, ByteSlice};

use super::{FileMode, GitError, LocalRepo, ObjectId, boxed, other};

/// Indexes with fewer entries are compared with the working tree on one thread.
const SERIAL_STATUS_BELOW: usize = 2_000;

/// One path of the working tree whose state may differ from `HEAD`.
#[derive(Clone, Debug)]
pub struct WorktreeChange {
    /// The path relative to the worktree root.
    pub path: Vec<u8>,
    /// What is on disk now: the blob id, the mode and the content (after clean filters);
    /// `None` when the file is gone.
    pub now: Option<(ObjectId, FileMode, Vec<u8>)>,
}

impl LocalRepo {
    /// The paths of the working tree that may differ from `HEAD`, each hashed as
    /// `git hash-object` would. Untracked files count unless ignored; submodules never do;
    /// paths a sparse checkout leaves out are gone.
    ///
    /// `refreshed` names where this worktree keeps the stats of files found unchanged by
    /// content (see [`refreshed_index`]); `None` keeps nothing. `only` limits the answer to
    /// those paths and what lies below them (the paths a watcher saw change): the same answer
    /// as the whole walk for them, nothing for the others. `head_tree` is `HEAD`'s tree as the
    /// caller resolved it (`None`: unborn).
    pub fn worktree_changes(
        &self,
        refreshed: Option<&Path>,
        only: Option<&BTreeSet<BString>>,
        head_tree: Option<ObjectId>,
    ) -> Result<Vec<WorktreeChange>, GitError> {
        let Some(workdir) = self.repo.workdir().map(Path::to_owned) else {
            return Ok(Vec::new());
        };
        if only.is_some_and(BTreeSet::is_empty) {
            return Ok(Vec::new());
        }
        let wanted = |path: &[u8]| only.is_none_or(|set| within(set, path));
        let started = filetime::FileTime::now();
        let real = self.repo.index_or_empty().map_err(other("reading the index"))?;
        // Below a few thousand files, comparing them (and reading the kept copy) on this thread
        // is quicker than starting threads to share the work (stop 35: 0.3 ms of a 9 ms search
        // at 236 and 868 files; at 78,000 the threads save 16 ms).
        let serial = real.entries().len() < SERIAL_STATUS_BELOW;
        let (kept, kept_path) = match refreshed.and_then(|prefix| refreshed_index(prefix, &real, serial)) {
            Some((index, path)) => (Some(index), Some(path)),
            None => (None, None),
        };
        let mut touched: BTreeSet<BString> = BTreeSet::new();
        // Literal pathspecs: a path is never read as a pattern.
        let patterns: Vec<BString> = only
            .into_iter()
            .flatten()
            .map(|path| {
                let mut spec = BString::from(":(literal)");
                spec.extend_from_slice(path);
                spec
            })
            .collect();
        let mut note = |item: gix::status::Item| {
            // Stat-only updates and ignored directory entries carry no content change.
            if let gix::status::Item::IndexWorktree(ref inner) = item
                && inner.summary().is_none()
            {
                return;
            }
            touched.insert(item.location().to_owned());
        };
        // The index says it was written from `HEAD`'s tree and not changed since: nothing is
        // staged, and the half comparing `HEAD` with the index (which reads every tree of
        // `HEAD`) is skipped.
        let head_tree = head_tree.map_or_else(|| gix::ObjectId::empty_tree(self.repo.object_hash()), ObjectId::to_gix);
        if nothing_staged(&real, head_tree) {
            // Only the index against the files: on this thread, with no thread to relay it.
            let mut kept = kept;
            let stats = {
                let index: &gix::index::State = match &kept {
                    Some(kept) => kept,
                    None => &real,
                };
                self.index_worktree(index, &patterns, serial, &mut |item| note(gix::status::Item::IndexWorktree(item)))?
            };
            // Files compared by content and found unchanged: their stats go into the kept copy,
            // stamped with the time this status began (a file changed since is read again).
            if let (Some(path), Some(kept)) = (&kept_path, kept.as_mut())
                && !stats.is_empty()
            {
                let entries = kept.entries_mut();
                for (at, stat) in stats {
                    entries[at].stat = stat;
                }
                if kept.write(gix::index::write::Options::default()).is_ok() {
                    stamp_as_only_copy(path, started);
                }
            }
        } else {
            let mut platform = self
                .repo
                .status(gix::progress::Discard)
                .map_err(other("computing status"))?
                .untracked_files(gix::status::UntrackedFiles::Files)
                .index_worktree_submodules(SUBMODULES);
            if serial {
                platform = platform.index_worktree_options_mut(|o| o.thread_limit = Some(1));
            }
            if let Some(index) = kept {
                platform = platform.index(gix::worktree::IndexPersistedOrInMemory::InMemory(index));
            }
            let mut iter = platform.into_iter(patterns).map_err(other("computing status"))?;
            for item in iter.by_ref() {
                note(item.map_err(other("computing status"))?);
            }
            if let (Some(path), Some(mut outcome)) = (&kept_path, iter.into_outcome())
                && outcome.has_changes()
                && matches!(outcome.write_changes(), Some(Ok(_)))
            {
                stamp_as_only_copy(path, started);
            }
        }
        // A sparse checkout leaves paths out of the working tree (skip-worktree): they are not
        // on disk, so, as for `git grep`, not in the worktree's view.
        let index = real;
        for entry in index.entries() {
            if entry.flags.contains(gix::index::entry::Flags::SKIP_WORKTREE) && wanted(entry.path(&index)) {
                touched.insert(entry.path(&index).to_owned());
            }
        }
        let converted = self.converted_paths(&index)?;
        touched.extend(converted.iter().filter(|p| wanted(p)).cloned());
        drop(index);
        if touched.is_empty() {
            return Ok(Vec::new());
        }

        let (mut pipeline, index) = self.repo.filter_pipeline(None).map_err(other("preparing filters"))?;
        let mut changes = Vec::with_capacity(touched.len());
        for rela in touched {
            let rela_path = rela
                .to_path()
                .map_err(|e| GitError::Other { context: "a worktree path", source: gix::Error::from_error(e) })?;
            let full = workdir.join(rela_path);
            let now = match std::fs::symlink_metadata(&full) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => None,
                Err(e) => {
                    return Err(GitError::Io { path: full, source: e });
                }
                Ok(meta) if meta.is_dir() => None,
                Ok(meta) if meta.file_type().is_symlink() => {
                    let target =
                        std::fs::read_link(&full).map_err(|e| GitError::Io { path: full.clone(), source: e })?;
                    let data: Vec<u8> = gix::path::into_bstr(target)
                        .map_err(|e| GitError::Other { context: "a symlink target", source: e })?
                        .into_owned()
                        .into();
                    Some((ObjectId::for_blob(&data), FileMode::Symlink, data))
                }
                Ok(meta) if converted.contains(&rela) => {
                    let data = std::fs::read(&full).map_err(|e| GitError::Io { path: full.clone(), source: e })?;
                    Some((ObjectId::for_blob(&data), mode_of(&meta), data))
                }
                Ok(meta) => {
                    let file =
                        std::fs::File::open(&full).map_err(|e| GitError::Io { path: full.clone(), source: e })?;
                    let mut data = Vec::with_capacity(meta.len() as usize);
                    let mut converted =
                        pipeline.convert_to_git(file, rela_path, &index).map_err(other("applying clean filters"))?;
                    converted.read_to_end(&mut data).map_err(|e| GitError::Io { path: full.clone(), source: e })?;
                    Some((ObjectId::for_blob(&data), mode_of(&meta), data))
                }
            };
            changes.push(WorktreeChange { path: rela.into(), now });
        }
        Ok(changes)
    }
}

/// Submodules are never looked into: a worktree view holds no submodule's files.
const SUBMODULES: gix::status::Submodule =
    gix::status::Submodule::Given { ignore: gix::submodule::config::Ignore::All, check_dirty: false };

impl LocalRepo {
    /// git's status of `index` against the working tree (tracked files changed, untracked files
    /// found), each item handed to `visit` on this thread as found, as `git status` walks it.
    /// Returns the entries whose stats alone changed (`git status` would refresh them), by
    /// their position in `index`.
    fn index_worktree(
        &self,
        index: &gix::index::State,
        patterns: &[BString],
        serial: bool,
        visit: &mut dyn FnMut(gix::status::index_worktree::Item),
    ) -> Result<Vec<(usize, gix::index::entry::Stat)>, GitError> {
        let dirwalk = self
            .repo
            .dirwalk_options()
            .map_err(other("computing status"))?
            .emit_untracked(gix::dir::walk::EmissionMode::Matching);
        let mut stats = Vec::new();
        let mut keep = |item: gix::status::index_worktree::Item| {
            if let Some(item) = stat_update(item, &mut stats) {
                visit(item);
            }
        };
        let interrupt = std::sync::atomic::AtomicBool::new(false);
        if serial {
            self.index_worktree_serial(index, patterns, dirwalk, &interrupt, &mut keep)?;
            return Ok(stats);
        }
        let options = gix::status::index_worktree::Options {
            sorting: None,
            dirwalk_options: Some(dirwalk),
            rewrites: None,
            thread_limit: None,
        };
        self.repo
            .index_worktree_status(
                index,
                patterns,
                &mut Forward { keep: &mut keep },
                gix::status::plumbing::index_as_worktree::traits::FastEq,
                NoSubmodules,
                &mut gix::progress::Discard,
                &interrupt,
                options,
            )
            .map_err(other("computing status"))?;
        Ok(stats)
    }

    /// The same two halves as gix's status, one after the other on this thread: the tracked
    /// files against their entries, then the walk for untracked files. gix runs them on two
    /// threads of their own, which a small index does not repay (the threads' start and the
    /// hand-over of each item cost more than the overlap saves).
    fn index_worktree_serial(
        &self,
        index: &gix::index::State,
        patterns: &[BString],
        dirwalk: gix::dirwalk::Options,
        interrupt: &std::sync::atomic::AtomicBool,
        keep: &mut dyn FnMut(gix::status::index_worktree::Item),
    ) -> Result<(), GitError> {
        use gix::worktree::stack::state::attributes::Source;
        let fail = || other("computing status");
        let workdir = self.repo.workdir().ok_or_else(|| fail()(boxed(gix::error::message("no working tree"))))?;
        let (pathspec, _) = self
            .repo
            .pathspec(false, patterns, true, index, Source::WorktreeThenIdMapping)
            .map_err(fail())?
            .into_parts();
        let stack = self.repo.attributes_only(index, Source::WorktreeThenIdMapping).map_err(fail())?.detach();
        let (filter, stack) = gix::filter::Pipeline::new(&self.repo, stack).map_err(fail())?.into_parts();
        let options = gix::status::plumbing::index_as_worktree::Options {
            fs: self.repo.filesystem_options().map_err(fail())?,
            thread_limit: Some(1),
            stat: self.repo.stat_options().map_err(fail())?,
            fscache: false,
        };
        let context =
            gix::status::plumbing::index_as_worktree::Context { pathspec, stack, filter, should_interrupt: interrupt };
        let objects = self.repo.objects.clone().into_arc().map_err(|e| fail()(boxed(e)))?;
        gix::status::plumbing::index_as_worktree(
            index,
            workdir,
            &mut Forward { keep: &mut *keep },
            gix::status::plumbing::index_as_worktree::traits::FastEq,
            NoSubmodules,
            objects,
            &mut gix::progress::Discard,
            context,
            options,
        )
        .map_err(fail())?;
        self.repo.dirwalk(index, patterns, interrupt, dirwalk, &mut Forward { keep }).map_err(fail())?;
        Ok(())
    }
}
/// Hands each item of a status on as found, whichever half found it: the tracked files
/// against their entries (as gix's status reports them, or its comparison alone), or the walk
/// for untracked files.
struct Forward<'a> {
    keep: &'a mut dyn FnMut(gix::status::index_worktree::Item),
}

impl<'index> gix::status::plumbing::index_as_worktree_with_renames::VisitEntry<'index> for Forward<'_> {
    type ContentChange = ();
    type SubmoduleStatus = gix::submodule::Status;

    fn visit_entry(
        &mut self,
        entry: gix::status::plumbing::index_as_worktree_with_renames::Entry<'index, (), gix::submodule::Status>,
    ) {
        (self.keep)(entry.into());
    }
}

impl<'index> gix::status::plumbing::index_as_worktree::VisitEntry<'index> for Forward<'_> {
    type ContentChange = ();
    type SubmoduleStatus = gix::submodule::Status;

    fn visit_entry(
        &mut self,
        _entries: &'index [gix::index::Entry],
        entry: &'index gix::index::Entry,
        entry_index: usize,
        rela_path: &'index gix::bstr::BStr,
        status: gix::status::plumbing::index_as_worktree::EntryStatus<(), gix::submodule::Status>,
    ) {
        (self.keep)(gix::status::index_worktree::Item::Modification {
            entry: entry.clone(),
            entry_index,
            rela_path: rela_path.to_owned(),
            status,
        });
    }
}

impl gix::dir::walk::Delegate for Forward<'_> {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        collapsed_directory_status: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        (self.keep)(gix::status::index_worktree::Item::DirectoryContents {
            entry: entry.to_owned(),
            collapsed_directory_status,
        });
        std::ops::ControlFlow::Continue(())
    }
}

/// The status of a submodule, as [`SUBMODULES`] asks for it: never looked into, so never
/// changed. gix's own implementation reads `.gitmodules` to find that out.
#[derive(Clone, Copy)]
struct NoSubmodules;

impl gix::status::plumbing::index_as_worktree::traits::SubmoduleStatus for NoSubmodules {
    type Output = gix::submodule::Status;

    fn status(
        &mut self,
        _entry: &gix::index::Entry,
        _rela_path: &gix::bstr::BStr,
    ) -> gix::Result<Option<gix::submodule::Status>> {
        Ok(None)
    }
}

/// `item`, unless it only says that an entry's stats changed (`git status` would write them
/// into the index): those are kept in `stats` by the entry's position, with the stats an
/// entry changed behind a matching stat gets (size zero, so that the next status reads it).
fn stat_update(
    item: gix::status::index_worktree::Item,
    stats: &mut Vec<(usize, gix::index::entry::Stat)>,
) -> Option<gix::status::index_worktree::Item> {
    use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
    if let gix::status::index_worktree::Item::Modification { entry_index, status, entry, .. } = &item {
        match status {
            EntryStatus::NeedsUpdate(stat) => {
                stats.push((*entry_index, *stat));
                return None;
            }
            EntryStatus::Change(Change::Modification { set_entry_stat_size_zero: true, .. }) => {
                let mut stat = entry.stat;
                stat.size = 0;
                stats.push((*entry_index, stat));
            }
            _ => {}
        }
    }
    Some(item)
}

/// Whether the index holds exactly `head_tree`: its cache of trees (the `TREE` extension git
/// keeps up to date on commit, checkout and reset, and invalidates along the path of every
/// entry changed since) has a valid root with that id, counting every entry, none of them
/// unmerged or intent-to-add. Any doubt answers `false`.
fn nothing_staged(index: &gix::index::State, head_tree: gix::ObjectId) -> bool {
    use gix::index::entry::Flags;
    let Some(root) = index.tree() else { return false };
    let odd = Flags::INTENT_TO_ADD | Flags::STAGE_MASK;
    root.name.is_empty()
        && root.id == head_tree
        && root.num_entries.is_some_and(|n| n as usize == index.entries().len())
        && index.entries().iter().all(|e| !e.flags.intersects(odd))
}

/// Whether `path` is one of `set` or lies below one of them.
fn within(set: &BTreeSet<BString>, path: &[u8]) -> bool {
    set.contains(path) || path.iter().enumerate().any(|(i, &b)| b == b'/' && set.contains(&path[..i]))
}

/// What a watcher remembers of git's index between two syncs, to tell which paths a change of
/// the index (a checkout, `git add`, `git rm --cached`) touched without walking the tree.
pub struct IndexSnapshot(gix::worktree::Index);

impl LocalRepo {
    /// The index as it is now.
    pub fn index_snapshot(&self) -> Result<IndexSnapshot, GitError> {
        Ok(IndexSnapshot(self.repo.index_or_empty().map_err(other("reading the index"))?))
    }
}

impl IndexSnapshot {
    /// Adds to `out` every path whose entry differs between `self` and `newer`: added,
    /// removed, another blob, mode, stage or sparse/intent flag.
    pub fn differing_paths(&self, newer: &IndexSnapshot, out: &mut BTreeSet<BString>) {
        let (a, b) = (&*self.0, &*newer.0);
        if a.checksum().is_some() && a.checksum() == b.checksum() {
            return;
        }
        use gix::index::entry::Flags;
        let kept = Flags::SKIP_WORKTREE | Flags::INTENT_TO_ADD | Flags::STAGE_MASK;
        let key = |state: &gix::index::State, e: &gix::index::Entry| (e.path(state).to_owned(), e.stage_raw());
        let (mut i, mut j) = (0, 0);
        let (xs, ys) = (a.entries(), b.entries());
        while i < xs.len() || j < ys.len() {
            let order = match (xs.get(i), ys.get(j)) {
                (Some(x), Some(y)) => key(a, x).cmp(&key(b, y)),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            match order {
                std::cmp::Ordering::Less => {
                    out.insert(xs[i].path(a).to_owned());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.insert(ys[j].path(b).to_owned());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let (x, y) = (&xs[i], &ys[j]);
                    if x.id != y.id || x.mode != y.mode || (x.flags & kept) != (y.flags & kept) {
                        out.insert(x.path(a).to_owned());
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }
}

/// A copy of git's index, kept in the store for one worktree, that `git status` would have
/// written into `.git/index`: with the stats of files found unchanged by content. This tool
/// never writes `.git/index` (a lock on it would fail the user's own git commands).
///
/// After a clone or a checkout, files are written in the same second as the index, so git's
/// racy-clean rule makes every status read and hash every such file, until git itself
/// refreshes the index. The copy is named by the checksum of the index it was made from
/// (`PREFIX-<checksum>`), so it answers only while `.git/index` is that one; its modification
/// time is the moment its status began, which is the timestamp git's racy rule compares with:
/// a file changed since then is read again. Copies of other indexes are removed. Anything
/// unreadable is ignored: the copy is only ever a shortcut. `None` when the index has no
/// checksum (`index.skipHash`).
fn refreshed_index(
    prefix: &Path,
    real: &gix::worktree::Index,
    serial: bool,
) -> Option<(gix::index::File, std::path::PathBuf)> {
    let checksum = real.checksum()?;
    let name = prefix.file_name()?.to_str()?;
    let path = prefix.with_file_name(format!("{name}-{checksum}"));
    // Read without hashing it (that would cost as much as reading `.git/index` again): the
    // copy must hold exactly the real index's entries, only their stats may differ, and a
    // damaged stat costs a read of that file, never a wrong answer. A small index (`serial`)
    // is read on this thread: a thread to decode its extensions costs more than it saves.
    let options = gix::index::decode::Options { thread_limit: serial.then_some(1), ..Default::default() };
    let kept =
        gix::index::File::at(&path, real.object_hash(), true, options).ok().filter(|kept| same_entries(kept, real));
    let index = kept.unwrap_or_else(|| {
        let mut copy = (***real).clone();
        copy.set_path(&path);
        copy
    });
    Some((index, path))
}

/// After the kept copy at `path` was written: stamps it with the time its status began (the
/// time git's racy rule compares with) and removes the copies made from other indexes.
fn stamp_as_only_copy(path: &Path, started: filetime::FileTime) {
    let _ = filetime::set_file_mtime(path, started);
    remove_other_copies(path);
}

/// Removes the copies of the same worktree made from other indexes than the one at `path`
/// (`PREFIX-<checksum>`): done when a copy is written, never on a query that only reads.
fn remove_other_copies(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else { return };
    let Some((prefix, _)) = name.rsplit_once('-') else { return };
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let other = entry.file_name();
        let other = other.to_string_lossy();
        if other.starts_with(&format!("{prefix}-")) && other != name && !other.ends_with(".lock") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether two indexes hold the same entries (paths, ids, modes, flags), whatever their stats.
fn same_entries(a: &gix::index::State, b: &gix::index::State) -> bool {
    a.entries().len() == b.entries().len()
        && a.entries()
            .iter()
            .zip(b.entries())
            .all(|(x, y)| x.id == y.id && x.mode == y.mode && x.flags == y.flags && x.path(a) == y.path(b))
}

/// The attributes that make a file's bytes on disk differ from its blob beyond line endings.
const CONVERTING: [&str; 3] = ["filter", "ident", "working-tree-encoding"];

impl LocalRepo {
    /// The files of `index` on disk whose bytes differ from their blob beyond line endings: a
    /// configured filter driver, `ident` or `working-tree-encoding` applies to them. When no
    /// attributes file mentions any of these (the common case) no path is looked up.
    fn converted_paths(&self, index: &gix::worktree::Index) -> Result<BTreeSet<BString>, GitError> {
        let mut converted = BTreeSet::new();
        if !self.attributes_may_convert(index) {
            return Ok(converted);
        }
        let mut stack = self
            .repo
            .attributes_only(index, gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping)
            .map_err(other("reading attributes"))?;
        let mut outcome = stack.selected_attribute_matches(CONVERTING);
        let config = self.repo.config_snapshot();
        for entry in index.entries() {
            if entry.flags.contains(gix::index::entry::Flags::SKIP_WORKTREE)
                || !matches!(entry.mode, gix::index::entry::Mode::FILE | gix::index::entry::Mode::FILE_EXECUTABLE)
            {
                continue;
            }
            let path = entry.path(index);
            let platform = stack.at_entry(path, Some(entry.mode)).map_err(other("reading attributes"))?;
            outcome.reset();
            platform.matching_attributes(&mut outcome);
            let converts = outcome.iter_selected().any(|m| match (m.assignment.name.as_str(), m.assignment.state) {
                ("filter", gix::attrs::StateRef::Value(driver)) => {
                    let driver = driver.as_bstr().to_str_lossy();
                    ["clean", "smudge", "process"]
                        .iter()
                        .any(|step| config.string(format!("filter.{driver}.{step}").as_str()).is_some())
                }
                ("ident", gix::attrs::StateRef::Set) => true,
                ("working-tree-encoding", gix::attrs::StateRef::Value(_)) => true,
                _ => false,
            });
            if converts {
                converted.insert(path.to_owned());
            }
        }
        Ok(converted)
    }

    /// Whether some attributes source (a `.gitattributes` in the index, `info/attributes`, the
    /// global files) names an attribute of [`CONVERTING`].
    fn attributes_may_convert(&self, index: &gix::worktree::Index) -> bool {
        let mut sources: Vec<std::path::PathBuf> = self.repo.attribute_global_paths().unwrap_or_default();
        sources.push(self.repo.common_dir().join("info").join("attributes"));
        let mut texts: Vec<Vec<u8>> = sources.iter().filter_map(|p| std::fs::read(p).ok()).collect();
        texts.extend(self.attribute_files_of(index, true).into_iter().map(|(_, text)| text));
        texts.iter().any(|text| CONVERTING.iter().any(|name| text.find(name).is_some()))
    }
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> FileMode {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 { FileMode::Executable } else { FileMode::Regular }
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> FileMode {
    FileMode::Regular
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::GitRepo;
    use crate::git::tests::{git, write};

    /// What one status run names: the paths it hands on, the entries it would refresh.
    fn status(
        repo: &LocalRepo,
        index: &gix::index::State,
        patterns: &[BString],
        serial: bool,
    ) -> (Vec<String>, Vec<usize>) {
        let mut paths = Vec::new();
        let stats = repo
            .index_worktree(index, patterns, serial, &mut |item| {
                if item.summary().is_some() {
                    paths.push(item.rela_path().to_string());
                }
            })
            .unwrap();
        paths.sort();
        let mut refreshed: Vec<usize> = stats.into_iter().map(|(at, _)| at).collect();
        refreshed.sort();
        (paths, refreshed)
    }

    #[test]
    fn the_serial_status_names_what_the_threaded_one_names() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        let write = |path: &str, text: &str| write(dir, path, text);
        write(".gitignore", "*.log\nbuild/\n");
        for path in ["a.txt", "src/b.rs", "src/c.rs", "src/deep/d.rs", "docs/e.md", "same.txt", "touched.txt"] {
            write(path, &format!("{path} first\n"));
        }
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "one"]);
        // Past git's racy window, so that only the changes below tell the files apart.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        write("a.txt", "a.txt changed, longer\n");
        write("same.txt", "same.txt FIRST\n");
        std::fs::remove_file(dir.join("src/c.rs")).unwrap();
        write("new.txt", "untracked\n");
        write("src/deep/new/f.rs", "untracked below\n");
        write("run.log", "ignored\n");
        write("build/out.txt", "ignored dir\n");
        let touched = dir.join("touched.txt");
        filetime::set_file_mtime(&touched, filetime::FileTime::now()).unwrap();

        let repo = GitRepo::open(dir).unwrap().local();
        let index = repo.repo.index_or_empty().unwrap();
        let all = status(&repo, &index, &[], false);
        assert_eq!(all, status(&repo, &index, &[], true));
        assert_eq!(
            all.0,
            ["a.txt", "new.txt", "same.txt", "src/c.rs", "src/deep/new/f.rs"],
            "changed, deleted and untracked files; ignored ones are left out"
        );
        let at = index.entries().iter().position(|e| e.path(&index) == "touched.txt").unwrap();
        assert!(all.1.contains(&at), "the touched file is refreshed, not changed");

        let only: Vec<BString> = [":(literal)src"].iter().map(|p| BString::from(*p)).collect();
        let below = status(&repo, &index, &only, false);
        assert_eq!(below, status(&repo, &index, &only, true));
        assert_eq!(below.0, ["src/c.rs", "src/deep/new/f.rs"]);
    }
}
