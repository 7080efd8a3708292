//! Which paths git treats as binary by their attributes, as `git grep` decides it: the `diff`
//! attribute unset (`-diff`, or the built-in `binary` macro) makes a file binary whatever it
//! holds; `diff=NAME` does when `diff.NAME.binary` is true. Any other file is binary by its
//! content alone (a NUL in its first 8000 bytes), which the index knows per blob.
//!
//! The in-tree `.gitattributes` files are the view's own (the caller reads them from the view
//! it answers from), so an answer at a ref does not depend on what is checked out; git reads
//! them from the working tree or the index whatever the ref. Besides them, git's global files
//! (the system file, `core.attributesFile` or its default) and `info/attributes` are read, in
//! git's order of precedence.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gix::attrs::search::{MetadataCollection, Outcome};
use gix::bstr::ByteSlice;

use super::LocalRepo;

/// What the `diff` attribute says of one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffAttribute {
    /// Binary whatever the content: `-diff`, `binary`, or a driver configured `binary`.
    Binary,
    /// Text whatever the content: `diff` set.
    Text,
    /// Decided by the content.
    Content,
}

/// The attribute rules of one view that can decide a path is binary.
pub struct BinaryAttributes {
    search: gix::attrs::Search,
    /// Made for the attributes the rules name (it keeps what it needs of them).
    outcome: Outcome,
    case: gix::glob::pattern::Case,
    /// The diff drivers the rules name that are configured `binary`.
    binary_drivers: HashSet<Vec<u8>>,
}

impl LocalRepo {
    /// The `diff` rules of git's global attribute files, `info/attributes` and `in_tree` (each
    /// `.gitattributes` of the view: its repository-relative path and its content). `None` when
    /// no line of them can make a file binary (see [`may_make_binary`]).
    pub fn binary_attributes(&self, in_tree: &[(Vec<u8>, Vec<u8>)]) -> Option<BinaryAttributes> {
        let global: Vec<(PathBuf, Vec<u8>)> = self
            .repo
            .attribute_global_paths()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|path| std::fs::read(&path).ok().map(|text| (path, text)))
            .collect();
        let info_path = self.repo.common_dir().join("info").join("attributes");
        let info = std::fs::read(&info_path).ok();
        let config = self.repo.config_snapshot();
        let texts = || {
            global
                .iter()
                .map(|(_, t)| t.as_slice())
                .chain(info.as_deref())
                .chain(in_tree.iter().map(|(_, t)| t.as_slice()))
        };
        let mut binary_drivers = HashSet::new();
        for name in
            texts().flat_map(|text| text.split(|b| b.is_ascii_whitespace())).filter_map(|w| w.strip_prefix(b"diff="))
        {
            if !binary_drivers.contains(name)
                && config.boolean(format!("diff.{}.binary", name.to_str_lossy()).as_str()).unwrap_or(false)
            {
                binary_drivers.insert(name.to_vec());
            }
        }
        if !texts().flat_map(|text| text.lines()).any(|line| may_make_binary(line, &binary_drivers)) {
            return None;
        }

        let mut collection = MetadataCollection::default();
        let mut buf = Vec::new();
        // The built-in `binary` macro first, then the global files (lowest precedence).
        let mut search =
            gix::attrs::Search::new_globals(std::iter::empty::<PathBuf>(), &mut buf, &mut collection).ok()?;
        for (path, text) in &global {
            search.add_patterns_buffer(text, path.clone(), None, &mut collection, true).ok()?;
        }
        // In-tree files, shallower first: a deeper one overrides, and only the top-level one
        // may define macros, as in git.
        let mut files: Vec<&(Vec<u8>, Vec<u8>)> = in_tree.iter().collect();
        let depth = |path: &[u8]| path.iter().filter(|&&b| b == b'/').count();
        files.sort_by(|(a, _), (b, _)| (depth(a), a).cmp(&(depth(b), b)));
        for (path, text) in files {
            let Ok(relative) = path.to_path() else { continue };
            let top_level = !path.contains(&b'/');
            search
                .add_patterns_buffer(text, relative.to_owned(), Some(Path::new("")), &mut collection, top_level)
                .ok()?;
        }
        // `info/attributes` last: it overrides everything.
        if let Some(text) = &info {
            search.add_patterns_buffer(text, info_path, None, &mut collection, true).ok()?;
        }
        let mut outcome = Outcome::default();
        outcome.initialize_with_selection(&collection, ["diff"]);
        let case = if config.boolean("core.ignoreCase").unwrap_or(false) {
            gix::glob::pattern::Case::Fold
        } else {
            gix::glob::pattern::Case::Sensitive
        };
        Some(BinaryAttributes { search, outcome, case, binary_drivers })
    }
}

/// Whether a line of an attributes file can make some file binary: it unsets `diff`, uses or
/// defines with `binary` (the built-in macro, or a macro of that name), or names a diff driver
/// configured `binary`. A line that only sets `diff=cpp` (as the Linux kernel's do) cannot, and
/// a search then spends nothing on attributes.
fn may_make_binary(line: &[u8], binary_drivers: &HashSet<Vec<u8>>) -> bool {
    let line = line.trim_start();
    if line.starts_with(b"#") {
        return false;
    }
    line.split(|b| b.is_ascii_whitespace()).any(|word| match word {
        // `binary`, and the name of a macro defined or used as `[attr]binary`.
        b"-diff" => true,
        _ if word.ends_with(b"binary") => true,
        _ => word.strip_prefix(b"diff=").is_some_and(|name| binary_drivers.contains(name)),
    })
}

impl BinaryAttributes {
    /// What the `diff` attribute says of the file at `path` (repository-relative).
    pub fn diff(&mut self, path: &[u8]) -> DiffAttribute {
        self.outcome.reset();
        self.search.pattern_matching_relative_path(path.as_bstr(), self.case, Some(false), &mut self.outcome);
        let state = self.outcome.iter_selected().next().map(|m| m.assignment.state.to_owned());
        match state {
            Some(gix::attrs::State::Unset) => DiffAttribute::Binary,
            Some(gix::attrs::State::Set) => DiffAttribute::Text,
            Some(gix::attrs::State::Value(driver))
                if self.binary_drivers.contains(driver.as_ref().as_bstr().as_bytes()) =>
            {
                DiffAttribute::Binary
            }
            Some(gix::attrs::State::Value(_)) => DiffAttribute::Content,
            Some(gix::attrs::State::Unspecified) | None => DiffAttribute::Content,
        }
    }
}

impl LocalRepo {
    /// The `.gitattributes` files git reads for commands that take no tree of their own
    /// (`git log`): each one the index lists, from the working tree when it is there, else
    /// its staged blob; none through a symlink. Nothing for a bare repository.
    pub fn worktree_attribute_files(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let Ok(index) = self.repo.index_or_empty() else { return Vec::new() };
        self.attribute_files_of(&index, false)
    }

    /// The `.gitattributes` files `index` lists (with `symlinks`, also those that are
    /// symlinks), each read from the working tree when it is there, else as its staged blob
    /// (empty when neither can be read).
    pub(super) fn attribute_files_of(&self, index: &gix::index::State, symlinks: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
        let workdir = self.repo.workdir();
        let mut files = Vec::new();
        for entry in index.entries() {
            let path = entry.path(index);
            if path.rsplit(|&b| b == b'/').next() != Some(b".gitattributes".as_slice())
                || (!symlinks && entry.mode != gix::index::entry::Mode::FILE)
            {
                continue;
            }
            let on_disk = path.to_path().ok().zip(workdir).and_then(|(p, w)| std::fs::read(w.join(p)).ok());
            let text = on_disk.or_else(|| {
                let mut buf = Vec::new();
                self.read_blob_into(super::from_gix(entry.id), &mut buf).ok().map(|_| buf)
            });
            files.push((path.to_vec(), text.unwrap_or_default()));
        }
        files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lines_that_can_make_a_file_binary_count() {
        let drivers: HashSet<Vec<u8>> = [b"opaque".to_vec()].into();
        let can = |line: &str| may_make_binary(line.as_bytes(), &drivers);
        for line in ["*.ai binary", "yarn.lock -diff", "*.dat diff=opaque", "[attr]nodiff -diff -merge", "x mybinary"] {
            assert!(can(line), "{line}");
        }
        for line in ["*.c   diff=cpp", "* text=auto eol=lf", "# *.ai binary", "*.txt diff", "*.md !diff", ""] {
            assert!(!can(line), "{line}");
        }
    }
}
