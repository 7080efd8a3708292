//! File contents a search reads to shape its results: each blob read once per search, its
//! lines found without reading the file from its start for each result.

use std::collections::HashMap;

use gix::bstr::ByteSlice;

use super::SearchContext;
use crate::git::{GitRepo, LocalRepo, ObjectId};
use crate::store::FileInfo;

/// File contents read once per search, by blob.
#[derive(Default)]
pub(crate) struct Contents {
    local: Option<Option<crate::git::LocalRepo>>,
    by_blob: HashMap<crate::git::ObjectId, Option<std::rc::Rc<Content>>>,
}

impl Contents {
    pub(crate) fn get(
        &mut self,
        ctx: &SearchContext<'_>,
        info: &crate::store::FileInfo,
    ) -> Option<std::rc::Rc<Content>> {
        if let Some(found) = self.by_blob.get(&info.blob_id) {
            return found.clone();
        }
        let local = self.local.get_or_insert_with(|| ctx.content.local());
        let data = ctx.content.read(local.as_ref(), info).map(|bytes| std::rc::Rc::new(Content::new(bytes)));
        self.by_blob.insert(info.blob_id, data.clone());
        data
    }
}

/// A file's bytes, with where its lines start once a line is asked for: many results in one
/// large file each take their lines without reading the file from its start. The starts are
/// found only as far as the lines asked for reach (a result near the top of a large file reads
/// no further).
pub(crate) struct Content {
    bytes: Vec<u8>,
    /// The starts of the lines found so far; the first is always 0.
    line_starts: std::cell::RefCell<Vec<usize>>,
}

impl Content {
    fn new(bytes: Vec<u8>) -> Content {
        Content { bytes, line_starts: std::cell::RefCell::new(vec![0]) }
    }

    /// The whole file.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Up to `count` lines from line `from` (0-based), each without its `\n`, as
    /// `split(b'\n')` gives them.
    pub(crate) fn lines(&self, from: usize, count: usize) -> impl Iterator<Item = &[u8]> {
        let wanted = from.saturating_add(count);
        let starts: Vec<usize> = {
            let mut starts = self.line_starts.borrow_mut();
            let last = *starts.last().expect("the first line starts at 0");
            if starts.len() < wanted && last <= self.bytes.len() {
                let missing = wanted - starts.len();
                let found = memchr::memchr_iter(b'\n', &self.bytes[last..]).take(missing).map(|at| last + at + 1);
                starts.extend(found);
                // Past the last line end: mark the end so the search is not made again.
                if starts.len() < wanted && *starts.last().expect("not empty") <= self.bytes.len() {
                    starts.push(self.bytes.len() + 1);
                }
            }
            // Only the mark past the end is beyond the bytes.
            starts.iter().skip(from).take(count).copied().take_while(|&start| start <= self.bytes.len()).collect()
        };
        starts.into_iter().map(move |start| {
            let end = memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |n| start + n);
            &self.bytes[start..end]
        })
    }
}

/// Reads file contents: the git object store, then `blobs/` for dirty files, then the
/// directory itself for a workspace that is not a repository (checked against the blob id).
pub struct ContentReader<'a> {
    /// The repository, if any.
    pub git: Option<&'a GitRepo>,
    /// The store directory (for `blobs/`).
    pub store_dir: &'a std::path::Path,
    /// The workspace root (for live files).
    pub root: &'a std::path::Path,
}

impl ContentReader<'_> {
    /// A repository handle for the calling thread.
    pub fn local(&self) -> Option<LocalRepo> {
        self.git.map(GitRepo::local)
    }

    /// The content of `info`'s blob: the file at its path in the working tree when that file
    /// has the blob's size and hashes to its id (a clean file is read without inflating a
    /// chain of pack deltas; the hash makes it right at any ref and under any filter), else
    /// the stores.
    pub fn read(&self, local: Option<&LocalRepo>, info: &FileInfo) -> Option<Vec<u8>> {
        if info.size >= 0
            && info.mode != 2
            && let Some(data) = self.read_live(&info.path, info.size as u64)
            && info.blob_id.is_blob_of(&data)
        {
            return Some(data);
        }
        self.read_blob(local, info.blob_id, &info.path)
    }

    /// The working tree's regular file at `path`, if it has `size` bytes.
    fn read_live(&self, path: &[u8], size: u64) -> Option<Vec<u8>> {
        let full = self.root.join(path.to_path().ok()?);
        let meta = std::fs::symlink_metadata(&full).ok()?;
        if !meta.is_file() || meta.len() != size {
            return None;
        }
        let data = std::fs::read(&full).ok()?;
        (data.len() as u64 == size).then_some(data)
    }

    /// The content of `blob_id`, found at `path` in the view.
    pub fn read_blob(&self, local: Option<&LocalRepo>, blob_id: ObjectId, path: &[u8]) -> Option<Vec<u8>> {
        if let Some(repo) = local {
            let mut buf = Vec::new();
            if repo.read_blob_into(blob_id, &mut buf).is_ok() {
                return Some(buf);
            }
        }
        if let Some(data) = crate::store::blobs::get(self.store_dir, blob_id) {
            return Some(data);
        }
        let data = std::fs::read(self.root.join(path.to_path().ok()?)).ok()?;
        blob_id.is_blob_of(&data).then_some(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_lines_are_those_split_gives() {
        for text in ["", "a", "a\n", "a\nb", "a\r\nbb\n\nccc\n", "\n\n"] {
            let content = Content::new(text.as_bytes().to_vec());
            let all: Vec<&[u8]> = text.as_bytes().split(|&b| b == b'\n').collect();
            for from in 0..all.len() + 2 {
                for count in 0..all.len() + 2 {
                    let expected: Vec<&[u8]> = all.iter().copied().skip(from).take(count).collect();
                    assert_eq!(content.lines(from, count).collect::<Vec<_>>(), expected, "{text:?} {from} {count}");
                }
            }
        }
    }
}
