//! File contents a search reads to shape its results: each blob read once per search, its
//! lines found without reading the file from its start for each result.

use std::collections::HashMap;

use super::SearchContext;

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
/// large file each take their lines without reading the file from its start.
pub(crate) struct Content {
    bytes: Vec<u8>,
    line_starts: std::cell::OnceCell<Vec<usize>>,
}

impl Content {
    fn new(bytes: Vec<u8>) -> Content {
        Content { bytes, line_starts: std::cell::OnceCell::new() }
    }

    /// The whole file.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Up to `count` lines from line `from` (0-based), each without its `\n`, as
    /// `split(b'\n')` gives them.
    pub(crate) fn lines(&self, from: usize, count: usize) -> impl Iterator<Item = &[u8]> {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0).chain(memchr::memchr_iter(b'\n', &self.bytes).map(|at| at + 1)).collect()
        });
        starts.iter().skip(from).take(count).map(move |&start| {
            let end = memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |n| start + n);
            &self.bytes[start..end]
        })
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
