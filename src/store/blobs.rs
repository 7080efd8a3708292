//! `blobs/`: zstd copies of contents that are in no git object store (dirty worktree files),
//! so a record's lines can still be shown after the file changes again.

use std::path::{Path, PathBuf};

use super::StoreError;
use crate::git::ObjectId;

fn path_of(dir: &Path, blob_id: ObjectId) -> PathBuf {
    let hex = blob_id.to_hex();
    dir.join("blobs").join(&hex[..2]).join(format!("{}.zst", &hex[2..]))
}

/// Stores `data` under its blob id, unless already there. Written to a temporary name first
/// and renamed, so a reader never sees half a file.
pub fn put(dir: &Path, blob_id: ObjectId, data: &[u8]) -> Result<(), StoreError> {
    let path = path_of(dir, blob_id);
    if path.exists() {
        return Ok(());
    }
    let io = |e| StoreError::Io { path: path.clone(), source: e };
    let parent = path.parent().expect("a blob path has a parent because it is built under blobs/");
    std::fs::create_dir_all(parent).map_err(io)?;
    let compressed = zstd::encode_all(data, 3).map_err(io)?;
    crate::replace::replace(&path, &compressed).map_err(io)
}

/// The content stored under `blob_id`, if any.
pub fn get(dir: &Path, blob_id: ObjectId) -> Option<Vec<u8>> {
    let compressed = std::fs::read(path_of(dir, blob_id)).ok()?;
    zstd::decode_all(&compressed[..]).ok()
}

/// Removes the content stored under `blob_id`, if any.
pub fn remove(dir: &Path, blob_id: ObjectId) {
    let _ = std::fs::remove_file(path_of(dir, blob_id));
}
