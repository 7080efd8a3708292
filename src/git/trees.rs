//! Trees as files: a tree listed, two trees diffed, each entry with its mode. Submodule entries
//! are files to history alone (see [`Gitlinks`]).

use super::{GitError, LocalRepo, NotingMissing, ObjectId, boxed, from_gix, other};

/// The kind of a file entry in a tree. Trees are never files; a submodule is one only to
/// history (see [`Gitlinks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMode {
    /// A regular file.
    Regular,
    /// A regular file with the executable bit.
    Executable,
    /// A symbolic link: the blob holds the link's target.
    Symlink,
    /// A submodule (gitlink): the id is a commit of another repository, and git's diff shows
    /// the entry as the one line [`gitlink_text`] gives.
    Gitlink,
}

/// Whether a listing or a diff of trees has submodule entries. Views, search and records
/// never do (a submodule's files are another repository's); history does, as `git log -S/-G`
/// and its pathspecs see a submodule's commit change as a file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gitlinks {
    /// Files only.
    Without,
    /// Files and submodule entries.
    With,
}

impl FileMode {
    fn from_gix(mode: gix::object::tree::EntryMode, gitlinks: Gitlinks) -> Option<FileMode> {
        use gix::object::tree::EntryKind;
        match mode.kind() {
            EntryKind::Blob => Some(FileMode::Regular),
            EntryKind::BlobExecutable => Some(FileMode::Executable),
            EntryKind::Link => Some(FileMode::Symlink),
            EntryKind::Commit if gitlinks == Gitlinks::With => Some(FileMode::Gitlink),
            EntryKind::Tree | EntryKind::Commit => None,
        }
    }
}

/// What git's diff shows for a submodule entry at commit `id`: `Subproject commit <hex>` and
/// a newline, the text `git log -S/-G` count and match in.
pub fn gitlink_text(id: ObjectId) -> Vec<u8> {
    format!("Subproject commit {}\n", id.to_hex()).into_bytes()
}

/// One file of a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeFile {
    /// The path relative to the repository root, `/`-separated, as git stores it.
    pub path: Vec<u8>,
    /// The content's id.
    pub blob_id: ObjectId,
    /// Regular, executable or symlink.
    pub mode: FileMode,
}

/// One changed file between two trees. At least one side is `Some`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeChange {
    /// The path, relative to the repository root.
    pub path: Vec<u8>,
    /// The file before the change, `None` for an addition.
    pub old: Option<(ObjectId, FileMode)>,
    /// The file after the change, `None` for a deletion.
    pub new: Option<(ObjectId, FileMode)>,
}

impl LocalRepo {
    /// Every file of the tree `tree_id`, recursively, in git's order.
    pub fn list_tree(&self, tree_id: ObjectId) -> Result<Vec<TreeFile>, GitError> {
        self.list_tree_of(tree_id, Gitlinks::Without)
    }

    /// Every file of the tree `tree_id`, and its submodule entries when `gitlinks` says so.
    pub fn list_tree_of(&self, tree_id: ObjectId, gitlinks: Gitlinks) -> Result<Vec<TreeFile>, GitError> {
        let tree = self
            .repo
            .find_tree(tree_id.to_gix())
            .map_err(|e| GitError::MissingObject { id: tree_id, source: Some(e) })?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse().breadthfirst(&mut recorder).map_err(other("listing a tree"))?;
        let mut files: Vec<TreeFile> = recorder
            .records
            .into_iter()
            .filter_map(|entry| {
                let mode = FileMode::from_gix(entry.mode, gitlinks)?;
                Some(TreeFile { path: entry.filepath.into(), blob_id: from_gix(entry.oid), mode })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The files directly in the tree `tree_id`, not recursing into subtrees.
    pub fn list_tree_root(&self, tree_id: ObjectId) -> Result<Vec<TreeFile>, GitError> {
        let tree = self
            .repo
            .find_tree(tree_id.to_gix())
            .map_err(|e| GitError::MissingObject { id: tree_id, source: Some(e) })?;
        let mut files = Vec::new();
        for entry in tree.iter() {
            let entry = entry.map_err(|e| GitError::Other { context: "reading a tree", source: boxed(e) })?;
            if let Some(mode) = FileMode::from_gix(entry.mode(), Gitlinks::Without) {
                files.push(TreeFile { path: entry.filename().to_vec(), blob_id: from_gix(entry.oid()), mode });
            }
        }
        Ok(files)
    }

    /// The files that differ between two trees. Subtrees with equal ids are skipped without
    /// being read, so the cost follows the size of the change, not of the trees. Renames are
    /// reported as a deletion plus an addition. Only trees are read: no attributes, no index
    /// (gix's diff platform builds an attribute stack from the index, or from `HEAD`'s whole
    /// tree where there is no index file, for every diff).
    pub fn diff_trees(&self, old_tree_id: ObjectId, new_tree_id: ObjectId) -> Result<Vec<TreeChange>, GitError> {
        self.diff_trees_of(old_tree_id, new_tree_id, Gitlinks::Without)
    }

    /// [`LocalRepo::diff_trees`], with the submodule entries that changed when `gitlinks` says
    /// so.
    pub fn diff_trees_of(
        &self,
        old_tree_id: ObjectId,
        new_tree_id: ObjectId,
        gitlinks: Gitlinks,
    ) -> Result<Vec<TreeChange>, GitError> {
        use gix::diff::tree::recorder::Change;
        if old_tree_id == new_tree_id {
            return Ok(Vec::new());
        }
        let find = |id: ObjectId| {
            self.repo.find_tree(id.to_gix()).map_err(|e| GitError::MissingObject { id, source: Some(e) })
        };
        let old = find(old_tree_id)?;
        let new = find(new_tree_id)?;
        let objects = NotingMissing { objects: &self.repo.objects, missing: std::cell::Cell::new(None) };
        let mut recorder = gix::diff::tree::Recorder::default();
        let diffed = gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old.data, old.id.kind()),
            gix::objs::TreeRefIter::from_bytes(&new.data, new.id.kind()),
            gix::diff::tree::State::default(),
            &objects,
            &mut recorder,
        );
        if let Err(e) = diffed {
            return Err(match objects.missing.get() {
                Some(id) => GitError::MissingObject { id: from_gix(id), source: None },
                None => GitError::Other { context: "diffing trees", source: boxed(e) },
            });
        }
        let mut changes: Vec<TreeChange> = recorder
            .records
            .into_iter()
            .filter_map(|change| {
                let (path, old, new) = match change {
                    Change::Addition { path, entry_mode, oid, .. } => {
                        (path, None, FileMode::from_gix(entry_mode, gitlinks).map(|m| (from_gix(oid), m)))
                    }
                    Change::Deletion { path, entry_mode, oid, .. } => {
                        (path, FileMode::from_gix(entry_mode, gitlinks).map(|m| (from_gix(oid), m)), None)
                    }
                    Change::Modification { path, previous_entry_mode, previous_oid, entry_mode, oid } => (
                        path,
                        FileMode::from_gix(previous_entry_mode, gitlinks).map(|m| (from_gix(previous_oid), m)),
                        FileMode::from_gix(entry_mode, gitlinks).map(|m| (from_gix(oid), m)),
                    ),
                };
                (old.is_some() || new.is_some()).then(|| TreeChange { path: path.into(), old, new })
            })
            .collect();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }
}
