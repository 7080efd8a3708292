//! The file version of each document of a segment as runs: documents are added a file version
//! at a time, so a segment's `fv` column is a staircase of about one step per file version.
//!
//! Every query filters its matching documents by file version. Read from the column, that
//! costs opening it (its code keeps a line per 512 documents: 13,000 lines to decode on the
//! kernel's segment) and, for a common word, touching every page of it (8 MB there). The runs
//! of the same segment are the start of each step and its file version: 131,850 of them for
//! the kernel's 78,344 file versions (the writer's indexing threads may each take part of a
//! file version's documents), 1 MB read at once. They sit beside the segment's files in
//! `runs-<segment>.bin` (a name Tantivy does not manage, so it never deletes it, and that
//! [`super::commit_files`] does not count as part of a commit), are written when an index run,
//! `gc` or a snapshot's import ends, and are a pure function of the segment's immutable column.
//! A segment without its runs file, or with one that fails its checksum or does not fit the
//! segment, is read from the column, as before: the runs file never changes an answer.

use std::path::{Path, PathBuf};

use tantivy::columnar::Column;
use tantivy::index::SegmentId;
use tantivy::{DocId, Index, SegmentReader};

use super::FtsError;

const MAGIC: &[u8; 8] = b"CCFVRUN1";
const PREFIX: &str = "runs-";
const SUFFIX: &str = ".bin";
/// A document without a file version (none is written so; a column may still say so).
const NONE: u32 = u32::MAX;
/// The header: magic, the segment's id (32 hex digits), its document count, the runs' count.
const HEADER: usize = 8 + 32 + 4 + 4;
/// The checksum's length: a CRC32 of the content, as Tantivy's files end with (the file is
/// read whole on every query's path; a cryptographic hash of it took 1% of a kernel search).
const CHECK: usize = 4;

/// A segment's file versions as runs of consecutive documents: the runs file's bytes, read
/// where they lie (no copy into other vectors: this is on every query's path).
#[derive(Debug)]
pub struct Runs {
    /// The file: the header, the first document of each run (strictly increasing from 0),
    /// each run's file version ([`NONE`]: none), the checksum.
    bytes: Bytes,
    /// How many runs.
    n: usize,
}

/// A runs file's bytes: mapped from the file where a query reads it (a kernel search reads
/// about 1 MB of them; read into fresh memory, every page of it was a fault and a copy, 13% of
/// the process's page faults), or the tests' own.
#[derive(Debug)]
enum Bytes {
    Mapped(memmap2::Mmap),
    #[cfg(test)]
    Owned(Vec<u8>),
}

#[cfg(test)]
impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes::Owned(bytes)
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            #[cfg(test)]
            Bytes::Owned(bytes) => bytes,
        }
    }
}

/// The runs of a segment's `fv` column over its `max_doc` documents: the first document of
/// each and its file version.
fn of_column(column: &Column<u64>, max_doc: DocId) -> (Vec<u32>, Vec<u32>) {
    let (mut starts, mut fvs) = (Vec::new(), Vec::new());
    for doc in 0..max_doc {
        let fv = column.first(doc).map_or(NONE, |fv| fv as u32);
        if fvs.last() != Some(&fv) {
            starts.push(doc);
            fvs.push(fv);
        }
    }
    (starts, fvs)
}

/// The file's bytes: a header naming the segment (so that a file copied over another
/// segment's name is not believed), the runs, and a checksum of both.
fn encode(starts: &[u32], fvs: &[u32], segment: &str, max_doc: DocId) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + 8 * starts.len() + CHECK);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&segment_bytes(segment));
    out.extend_from_slice(&max_doc.to_le_bytes());
    out.extend_from_slice(&(starts.len() as u32).to_le_bytes());
    for v in starts.iter().chain(fvs) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let check = crc32fast::hash(&out);
    out.extend_from_slice(&check.to_le_bytes());
    out
}

impl Runs {
    fn word(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.bytes[at..at + 4].try_into().expect("four bytes"))
    }

    fn start(&self, run: usize) -> u32 {
        self.word(HEADER + 4 * run)
    }

    /// The first run whose start is above `doc`, among runs `from..` (those before `from`
    /// start at or below it): galloping from `from`, since the next document asked for is
    /// mostly a few runs on.
    fn after(&self, doc: DocId, from: usize) -> usize {
        let (mut low, mut high, mut step) = (from, from, 1);
        while high < self.n && self.start(high) <= doc {
            low = high + 1;
            high = from + step;
            step *= 2;
        }
        let mut high = high.min(self.n);
        while low < high {
            let middle = low + (high - low) / 2;
            if self.start(middle) <= doc {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low
    }

    /// The file version of `doc`; `at` is the run the last lookup ended in (documents are
    /// mostly asked for in increasing order, so the answer is usually that run or the next).
    pub fn get(&self, doc: DocId, at: &mut usize) -> Option<u32> {
        if self.n == 0 {
            return None;
        }
        let within = |i: usize| self.start(i) <= doc && (i + 1 == self.n || doc < self.start(i + 1));
        let mut i = (*at).min(self.n - 1);
        if !within(i) {
            i = if self.start(i) <= doc {
                // Past `i`'s run, so `i + 1` exists.
                if within(i + 1) { i + 1 } else { self.after(doc, i + 1) - 1 }
            } else {
                // Run 0 starts at document 0.
                self.after(doc, 0).checked_sub(1)?
            };
        }
        *at = i;
        Some(self.word(HEADER + 4 * (self.n + i))).filter(|&fv| fv != NONE)
    }

    /// The runs in `bytes`, when they are whole, sound and of `segment`, of `max_doc`
    /// documents.
    fn decode(bytes: Bytes, segment: &str, max_doc: DocId) -> Option<Runs> {
        let body = &bytes[..bytes.len().checked_sub(CHECK)?];
        if body.len() < HEADER
            || &body[..8] != MAGIC
            || body[8..40] != segment_bytes(segment)
            || crc32fast::hash(body).to_le_bytes() != bytes[body.len()..]
        {
            return None;
        }
        let word = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("four bytes"));
        let n = word(44) as usize;
        if word(40) != max_doc || body.len() != HEADER + 8 * n {
            return None;
        }
        let runs = Runs { bytes, n };
        let sound = (n == 0 || runs.start(0) == 0)
            && (1..n).all(|i| runs.start(i - 1) < runs.start(i))
            && (n == 0 || runs.start(n - 1) < max_doc);
        sound.then_some(runs)
    }
}

/// A segment id's 32 hex digits, as the header holds them (padded or cut to 32 bytes).
fn segment_bytes(segment: &str) -> [u8; 32] {
    let mut out = [b' '; 32];
    for (o, b) in out.iter_mut().zip(segment.bytes()) {
        *o = b;
    }
    out
}

fn path_of(fts: &Path, segment: SegmentId) -> PathBuf {
    fts.join(format!("{PREFIX}{}{SUFFIX}", segment.uuid_string()))
}

/// The runs of `reader`'s segment, when its file in `fts` is there and sound.
pub fn load(fts: &Path, reader: &SegmentReader) -> Option<Runs> {
    let segment = reader.segment_id();
    let file = std::fs::File::open(path_of(fts, segment)).ok()?;
    // SAFETY: runs files are never written in place: they are made whole beside their name and
    // renamed over it (`crate::replace`), or removed, so the mapped file keeps its bytes.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    Runs::decode(Bytes::Mapped(map), &segment.uuid_string(), reader.max_doc())
}

/// Writes the runs file of every searchable segment of `index` (in `fts`) that has no sound
/// one, and removes those of segments no longer searchable; returns how many it wrote. Runs
/// when an index run, `gc` or an import ends, under the store's lock, with no writer left: the
/// segments are the last commit's.
pub fn write_missing(index: &Index, fts: &Path) -> Result<usize, FtsError> {
    let io = |e: std::io::Error| FtsError::Io { path: fts.to_owned(), source: e };
    let segments = index.searchable_segments()?;
    let mut written = 0;
    for segment in &segments {
        let reader = SegmentReader::open(segment)?;
        if load(fts, &reader).is_some() {
            continue;
        }
        let column = reader.fast_fields().u64("fv")?;
        let (starts, fvs) = of_column(&column, reader.max_doc());
        let bytes = encode(&starts, &fvs, &segment.id().uuid_string(), reader.max_doc());
        crate::replace::replace(&path_of(fts, segment.id()), &bytes).map_err(io)?;
        written += 1;
    }
    let live: std::collections::HashSet<String> =
        segments.iter().map(|s| path_of(fts, s.id()).file_name().unwrap().to_string_lossy().into_owned()).collect();
    for entry in std::fs::read_dir(fts).map_err(io)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(PREFIX) && name.ends_with(SUFFIX) && !live.contains(&name) {
            // A reader of an older commit that misses it reads the column instead.
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    fn bytes(pairs: &[(u32, u32)], segment: &str, max_doc: u32) -> Vec<u8> {
        let starts: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let fvs: Vec<u32> = pairs.iter().map(|p| p.1).collect();
        encode(&starts, &fvs, segment, max_doc)
    }

    fn runs(pairs: &[(u32, u32)]) -> Runs {
        Runs::decode(bytes(pairs, A, 20).into(), A, 20).unwrap()
    }

    #[test]
    fn a_lookup_finds_the_run_in_any_order() {
        let r = runs(&[(0, 7), (3, 9), (4, NONE), (10, 2)]);
        let expected = |doc: u32| match doc {
            0..=2 => Some(7),
            3 => Some(9),
            4..=9 => None,
            _ => Some(2),
        };
        let mut at = 0;
        for doc in 0..20 {
            assert_eq!(r.get(doc, &mut at), expected(doc), "doc {doc} in order");
        }
        // Backwards, and jumping about from every starting run.
        for start in 0..r.n + 2 {
            for doc in (0..20).rev().chain([5, 0, 19, 3, 11, 4]) {
                let mut at = start;
                assert_eq!(r.get(doc, &mut at), expected(doc), "doc {doc} from run {start}");
            }
        }
    }

    #[test]
    fn a_file_is_read_back_only_whole_sound_and_for_its_segment() {
        let file = bytes(&[(0, 1), (5, 2), (6, 1)], A, 9);
        let r = Runs::decode(file.clone().into(), A, 9).unwrap();
        assert_eq!((0..9).map(|doc| r.get(doc, &mut 0)).collect::<Vec<_>>(), [1, 1, 1, 1, 1, 2, 1, 1, 1].map(Some));
        assert!(Runs::decode(file.clone().into(), A, 10).is_none(), "another document count");
        assert!(Runs::decode(file.clone().into(), B, 9).is_none(), "another segment's file");
        assert!(Runs::decode(file[..file.len() - 1].to_vec().into(), A, 9).is_none(), "truncated");
        for i in 0..file.len() {
            let mut damaged = file.clone();
            damaged[i] ^= 0x10;
            assert!(Runs::decode(damaged.into(), A, 9).is_none(), "byte {i} flipped");
        }
        // Checksummed but unsound: starts not from 0, not increasing, past the documents.
        for unsound in [&[(1, 1)][..], &[(0, 1), (4, 2), (4, 3)], &[(0, 1), (9, 2)]] {
            assert!(Runs::decode(bytes(unsound, A, 9).into(), A, 9).is_none(), "{unsound:?}");
        }
        let empty = Runs::decode(bytes(&[], B, 0).into(), B, 0).unwrap();
        assert_eq!(empty.n, 0);
        assert_eq!(empty.get(0, &mut 0), None);
    }
}
