//! Index snapshots: a store exported as one `.tar.zst` file, restored on another machine or
//! clone, then brought up to date by tree diff.
//!
//! Useful for: CI jobs and new clones, which restore a snapshot and parse only the blobs it
//! lacks instead of indexing from scratch. Not useful for: backups of worktree state (worktree
//! views and dirty-file contents are machine-specific and never exported).
//!
//! - [`export`] copies a consistent state of the store (SQLite online backup and the Tantivy
//!   segments of one commit, paired under the write lock for a moment) and packs it with a
//!   [`Manifest`].
//! - [`import`] verifies everything before touching the store — manifest, versions,
//!   repository identity, every entry's type, path, size and checksum — unpacking into a
//!   staging directory beside the store; then installs it by rename into an empty store, or
//!   merges it into a populated one.
//! - [`inspect`] reads the manifest only.
//!
//! Architecture invariant: a snapshot that fails any check leaves the store byte-identical;
//! nothing is written inside the store directory before every check has passed.

mod archive;
mod export;
mod import;
mod manifest;

use std::path::PathBuf;

pub use export::{ExportReport, export};
pub use import::{ImportReport, ImportedView, import};
pub use manifest::{
    FORMAT_NAME, Manifest, ManifestFile, ManifestView, RepositoryIdentity, SNAPSHOT_FORMAT_VERSION, path_problem,
};

use crate::git::GitError;
use crate::indexer::IndexError;
use crate::store::StoreError;

/// What went wrong with a snapshot.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Indexing (while merging) failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// Git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// Snapshots need a git repository: their views are trees of its history.
    #[error("{path} is not a git repository; snapshots hold views of a repository's history")]
    NotARepository { path: PathBuf },
    /// There is no tree view to export.
    #[error("nothing is indexed yet, so there is nothing to export")]
    NothingToExport,
    /// The archive cannot be read to its end: truncated, or not a zstd tar at all.
    #[error("{file} cannot be read as a snapshot: {source}")]
    Unreadable { file: PathBuf, source: std::io::Error },
    /// The first entry is not a manifest, or the manifest is not one of ours.
    #[error("{file} is not a CodeCompass snapshot: {reason}")]
    NotASnapshot { file: PathBuf, reason: &'static str },
    /// The manifest does not parse.
    #[error("the manifest of {file} is malformed: {source}")]
    BadManifest { file: PathBuf, source: serde_json::Error },
    /// An entry is not a plain file at a plain path inside the layout.
    #[error("{file} holds an unsafe entry `{entry}`: {reason}")]
    UnsafeEntry { file: PathBuf, entry: String, reason: &'static str },
    /// An entry appears twice.
    #[error("{file} holds the entry `{entry}` twice")]
    DuplicateEntry { file: PathBuf, entry: String },
    /// An entry the manifest does not list.
    #[error("{file} holds an entry `{entry}` its manifest does not list")]
    UnlistedEntry { file: PathBuf, entry: String },
    /// An entry's size is not the manifest's (a decompression bomb, or damage).
    #[error("the entry `{entry}` of {file} is {found} bytes, its manifest says {expected}")]
    SizeMismatch { file: PathBuf, entry: String, expected: u64, found: u64 },
    /// An entry's content does not hash to the manifest's checksum.
    #[error("the entry `{entry}` of {file} does not match its checksum")]
    ChecksumMismatch { file: PathBuf, entry: String },
    /// The manifest lists an entry the archive does not hold (a truncated file).
    #[error("{file} lacks the entry `{entry}` its manifest lists (is it truncated?)")]
    MissingEntry { file: PathBuf, entry: String },
    /// The archive decompresses to more than its manifest accounts for.
    #[error("{file} decompresses to more than the {limit} bytes its manifest accounts for")]
    DecompressionBomb { file: PathBuf, limit: u64 },
    /// The snapshot was written with versions this build does not read.
    #[error("the snapshot has {what} {snapshot}, this build uses {ours}")]
    VersionMismatch { what: &'static str, snapshot: String, ours: String },
    /// The snapshot belongs to another repository.
    #[error(
        "the snapshot belongs to another repository (root commits {snapshot_roots}; this one has {ours}), and none of its commits are here"
    )]
    OtherRepository { snapshot_roots: String, ours: String },
    /// A signing key is set and the snapshot is not signed with it.
    #[error("{}", if *signed { "the snapshot is signed with another key" } else { "the snapshot is not signed, and a signing key is set" })]
    BadSignature { signed: bool },
    /// The store's database inside the snapshot is not a store this build can open.
    #[error("the store inside the snapshot is {state}: {detail}")]
    BadStore { state: crate::store::StoreState, detail: String },
    /// Not enough free space to unpack.
    #[error("unpacking needs {needed} bytes in {path}, only {available} are free")]
    NoSpace { path: PathBuf, needed: u64, available: u64 },
    /// The store is not one this build can import into.
    #[error("the index at {path} is {state}; a snapshot is only imported into a compatible or empty store")]
    StoreNotImportable { path: PathBuf, state: crate::store::StoreState },
}

impl SnapshotError {
    fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> SnapshotError {
        let path = path.into();
        move |source| SnapshotError::Io { path, source }
    }
}

/// Reads the manifest of the snapshot `file` without unpacking anything else.
pub fn inspect(file: &std::path::Path) -> Result<Manifest, SnapshotError> {
    archive::read_manifest_only(file)
}

/// What crashed runs left beside or inside the store in `store_dir` (staging directories of
/// imports and seeds, scratch directories of exports, a full-text index moved aside, a half-made
/// database), of processes that are gone. Runs still going are not listed.
pub fn leftovers(store_dir: &std::path::Path) -> Vec<PathBuf> {
    use crate::store::staged::{FTS_ASIDE_PREFIX, dead_leftovers, staging_prefix};
    let mut out = Vec::new();
    if let Some(parent) = store_dir.parent() {
        for what in ["import", "seed"] {
            out.extend(dead_leftovers(parent, &staging_prefix(store_dir, what)));
        }
    }
    out.extend(dead_leftovers(store_dir, export::SCRATCH_PREFIX));
    out.extend(dead_leftovers(store_dir, FTS_ASIDE_PREFIX));
    out.extend(dead_leftovers(store_dir, "store.sqlite.new-"));
    out
}
