//! Which files make up the last full-text commit, whether their checksums hold, and which of
//! them were verified as they are now.
//!
//! Tantivy closes every file with a CRC32 of its content but checks it only when asked, and a
//! damaged posting list decodes into wrong documents rather than an error: a search would miss
//! lines and call its answer complete. Reading every file on every query is too slow on a large
//! index, so each verified file's stamp (length, modification time, inode) is kept in `verified`
//! beside them, and a query verifies only the files whose stamp changed since: a file rewritten
//! in place is caught by the next query; damage that leaves the stamp as it was (a failing disk)
//! is `doctor`'s to find, which reads everything.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::FtsError;

/// The stamps file, inside `fts/`. Tantivy manages only the files it wrote, so it never
/// deletes this one.
pub const STAMPS: &str = "verified";

/// How much to verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verify {
    /// Every file of the last commit.
    All,
    /// The files whose stamp differs from the one recorded when they were last verified.
    Changed,
}

/// The names of the files of the last commit in `fts` (its segments' components and their live
/// deletes, not `meta.json`), sorted; none when there is no commit.
pub fn commit_files(fts: &Path) -> std::io::Result<Vec<String>> {
    let meta_text = match std::fs::read(fts.join("meta.json")) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let meta: serde_json::Value = serde_json::from_slice(&meta_text).map_err(std::io::Error::other)?;
    // Each segment's files are `<uuid>.<component>`; its deletes are `<uuid>.<opstamp>.del`,
    // of which only the one the commit names is live.
    let mut segments: BTreeMap<String, Option<u64>> = BTreeMap::new();
    for segment in meta["segments"].as_array().into_iter().flatten() {
        let Some(id) = segment["segment_id"].as_str() else { continue };
        segments.insert(id.replace('-', ""), segment["deletes"]["opstamp"].as_u64());
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(fts)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some((uuid, rest)) = name.split_once('.') else { continue };
        let Some(opstamp) = segments.get(uuid) else { continue };
        let live = match rest.strip_suffix(".del") {
            Some(stamp) => opstamp.is_some_and(|o| stamp == o.to_string()),
            None => rest != "store.temp",
        };
        if live {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// What identifies a file's state on disk: length, modification time and inode.
fn stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0u64;
    Some(format!("{} {}.{:09} {inode}", meta.len(), modified.as_secs(), modified.subsec_nanos()))
}

fn read_stamps(fts: &Path) -> HashMap<String, String> {
    let text = std::fs::read_to_string(fts.join(STAMPS)).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(name, stamp)| (name.to_owned(), stamp.to_owned()))
        .collect()
}

/// Writes the stamps of the sound files, replacing the file at once; a reader that cannot
/// write the store verifies again next time, nothing worse.
fn write_stamps(fts: &Path, stamps: &BTreeMap<String, String>) {
    let text: String = stamps.iter().map(|(name, stamp)| format!("{name}\t{stamp}\n")).collect();
    let _ = crate::replace::replace(&fts.join(STAMPS), text.as_bytes());
}

/// The files of the last commit of `index` (in `fts`) whose checksum fails or that cannot be
/// read, sorted: empty when all are sound. With `record`, the stamps of the sound files are
/// written for the next [`Verify::Changed`].
pub(super) fn damaged(
    index: &tantivy::Index,
    fts: &Path,
    scope: Verify,
    record: bool,
) -> Result<Vec<String>, FtsError> {
    let files = commit_files(fts).map_err(|e| FtsError::Io { path: fts.to_owned(), source: e })?;
    let known = if scope == Verify::Changed { read_stamps(fts) } else { HashMap::new() };
    let mut sound = BTreeMap::new();
    let mut damaged = Vec::new();
    let mut checked = false;
    for name in files {
        let Some(now) = stamp(&fts.join(&name)) else {
            damaged.push(name);
            continue;
        };
        if known.get(&name) == Some(&now) {
            sound.insert(name, now);
            continue;
        }
        checked = true;
        if index.directory().validate_checksum(Path::new(&name)).unwrap_or(false) {
            sound.insert(name, now);
        } else {
            damaged.push(name);
        }
    }
    if record && (checked || scope == Verify::All) && damaged.is_empty() {
        write_stamps(fts, &sound);
    }
    Ok(damaged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indexed(dir: &Path) -> super::super::FullText {
        let fulltext = super::super::FullText::open(dir).unwrap();
        let mut writer = fulltext.index().writer_with_num_threads(1, 20_000_000).unwrap();
        let fields = *fulltext.fields();
        for i in 0..50u64 {
            writer.add_document(tantivy::doc!(fields.fv => i, fields.body => format!("alpha beta {i}"))).unwrap();
        }
        writer.commit().unwrap();
        writer.wait_merging_threads().unwrap();
        fulltext
    }

    #[test]
    fn a_file_changed_since_it_was_verified_is_checked_again() {
        let tmp = tempfile::tempdir().unwrap();
        let fulltext = indexed(tmp.path());
        let fts = super::super::dir_of(tmp.path());
        let files = commit_files(&fts).unwrap();
        assert!(!files.is_empty());
        assert!(fulltext.verify(Verify::Changed, true).unwrap().is_empty());
        assert_eq!(read_stamps(&fts).len(), files.len(), "every sound file is stamped");

        // Flip one byte in the middle of the largest file: its stamp changes, so a quick check
        // reads it again and finds the checksum broken.
        let largest = files.iter().max_by_key(|n| std::fs::metadata(fts.join(n)).unwrap().len()).unwrap();
        let path = fts.join(largest);
        let mut bytes = std::fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x40;
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(fulltext.verify(Verify::Changed, true).unwrap(), vec![largest.clone()]);
        assert_eq!(fulltext.verify(Verify::All, false).unwrap(), vec![largest.clone()]);

        // Damage is never stamped as sound, so it is found again.
        assert_eq!(fulltext.verify(Verify::Changed, true).unwrap(), vec![largest.clone()]);
    }

    #[test]
    fn a_truncated_file_is_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let fulltext = indexed(tmp.path());
        let fts = super::super::dir_of(tmp.path());
        let files = commit_files(&fts).unwrap();
        let path = fts.join(&files[0]);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(fulltext.verify(Verify::Changed, false).unwrap(), vec![files[0].clone()]);
    }
}
