//! The blobs a store holds records of, listed in a small file beside its database, so that an
//! index run of another registered repository can tell which stores may hold the blobs it is
//! about to parse without opening them. Every index run that meets blobs it has no record of
//! asks every registered store (see `indexer::shared`); opening one (its write-ahead log's
//! shared memory, its schema) cost about 1.4 ms apiece, asked twice, so twenty registered
//! repositories added about 25 ms to an index run after a one-line edit, in which no other
//! store holds the edited file's new blob.
//!
//! The list only ever decides what need not be asked: a blob it holds may lack a record for
//! a given language or extractor (the store is then asked and copies nothing), and a blob it
//! lacks is parsed here as it would be without sharing. A missing or unreadable list says
//! nothing, and the store is asked as before. No answer depends on it.
//!
//! The file: `CCRBLOB1`, the highest record id it covers and the number of keys (both 8 bytes,
//! little-endian), then the keys: the first 8 bytes of each blob id, big-endian, sorted and
//! distinct. Written whole beside its name and renamed over it (`crate::replace`), so a reader
//! maps the old list or the new one.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::StoreError;
use crate::git::ObjectId;

/// The file's name in a store directory.
pub const FILE: &str = "record-blobs";
const MAGIC: &[u8; 8] = b"CCRBLOB1";
const HEADER: usize = 24;

fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// A blob's key: the first 8 bytes of its id.
fn key(oid: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = oid.len().min(8);
    bytes[..n].copy_from_slice(&oid[..n]);
    u64::from_be_bytes(bytes)
}

/// A list read from bytes: the highest record id it covers and its keys, or `None` when the
/// bytes are not a whole list.
fn parse(bytes: &[u8]) -> Option<(i64, &[u8])> {
    let header = bytes.get(..HEADER)?;
    if &header[..8] != MAGIC {
        return None;
    }
    let max_record = i64::from_le_bytes(header[8..16].try_into().ok()?);
    let count = u64::from_le_bytes(header[16..24].try_into().ok()?);
    let keys = &bytes[HEADER..];
    (u64::try_from(keys.len()).ok()? == count.checked_mul(8)?).then_some((max_record, keys))
}

fn key_at(keys: &[u8], i: usize) -> u64 {
    u64::from_be_bytes(keys[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
}

fn holds(keys: &[u8], wanted: u64) -> bool {
    let (mut lo, mut hi) = (0, keys.len() / 8);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match key_at(keys, mid).cmp(&wanted) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// How many of `wanted` the store in `dir` may hold a record of, by its list; `None` when it
/// has no readable list and must be asked.
pub fn count_held<'a>(dir: &Path, wanted: impl IntoIterator<Item = &'a ObjectId>) -> Option<usize> {
    let file = std::fs::File::open(path_in(dir)).ok()?;
    // SAFETY: the list is never written in place: it is made whole beside its name and
    // renamed over it (`crate::replace`), or removed, so the mapped file keeps its bytes.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let (_, keys) = parse(&map)?;
    Some(wanted.into_iter().filter(|oid| holds(keys, key(&oid.0))).count())
}

/// Brings the list of the store in `dir` up to its records table (`conn`): the blobs of the
/// records written since it was last brought up (ids above the one it names) are added; it
/// is written whole when it is missing or unreadable, or names a record id above the table's
/// highest (records were deleted, and their ids may be given again).
pub fn sync(conn: &Connection, dir: &Path) -> Result<(), StoreError> {
    let max_record: i64 = conn.query_row("SELECT ifnull(max(id), 0) FROM records", [], |r| r.get(0))?;
    let path = path_in(dir);
    // Most runs write no record: the header and the file's length say the list is whole and
    // up to date.
    let mut header = [0u8; HEADER];
    let length = std::fs::File::open(&path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header).and_then(|()| f.metadata()))
        .map(|m| m.len());
    let count = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    if &header[..8] == MAGIC
        && header[8..16] == max_record.to_le_bytes()
        && length.ok() == count.checked_mul(8).and_then(|n| n.checked_add(HEADER as u64))
    {
        return Ok(());
    }
    let old = std::fs::read(&path).ok();
    let (since, mut keys): (i64, Vec<u64>) = match old.as_deref().and_then(parse) {
        Some((covers, keys)) if covers < max_record => (covers, (0..keys.len() / 8).map(|i| key_at(keys, i)).collect()),
        _ => (0, Vec::new()),
    };
    let mut stmt = conn.prepare("SELECT b.oid FROM records r JOIN blobs b ON b.id = r.blob WHERE r.id > ?1")?;
    for oid in stmt.query_map([since], |r| r.get::<_, Vec<u8>>(0))? {
        keys.push(key(&oid?));
    }
    keys.sort_unstable();
    keys.dedup();
    let mut bytes = Vec::with_capacity(HEADER + keys.len() * 8);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&max_record.to_le_bytes());
    bytes.extend_from_slice(&(keys.len() as u64).to_le_bytes());
    for k in keys {
        bytes.extend_from_slice(&k.to_be_bytes());
    }
    crate::replace::replace(&path, &bytes).map_err(|e| StoreError::Io { path, source: e })
}

/// Removes the list of the store in `dir` (records were deleted): the next [`sync`] writes it
/// whole, and until then the store is asked.
pub fn forget(dir: &Path) {
    let _ = std::fs::remove_file(path_in(dir));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn oid(n: u8) -> ObjectId {
        let mut id = [n; 20];
        id[19] = 0xee;
        ObjectId(id)
    }

    fn add_record(store: &Store, id: &ObjectId) {
        let conn = store.conn();
        conn.execute("INSERT OR IGNORE INTO blobs (oid) VALUES (?1)", [id.0.as_slice()]).unwrap();
        conn.execute(
            "INSERT INTO records (blob, lang, extractor, status, created_at)
             SELECT id, 'rust', 'x', 'ok', 0 FROM blobs WHERE oid = ?1",
            [id.0.as_slice()],
        )
        .unwrap();
    }

    #[test]
    fn the_list_follows_the_records_and_says_nothing_when_it_cannot_be_read() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(tmp.path(), true).unwrap();
        let (a, b, c) = (oid(1), oid(2), oid(3));
        // No list yet: the store must be asked.
        assert_eq!(count_held(tmp.path(), [&a]), None);
        add_record(&store, &a);
        sync(store.conn(), tmp.path()).unwrap();
        assert_eq!(count_held(tmp.path(), [&a, &b, &c]), Some(1));
        // Records written later are added; an unchanged table leaves the file as it is.
        add_record(&store, &c);
        sync(store.conn(), tmp.path()).unwrap();
        assert_eq!(count_held(tmp.path(), [&a, &b, &c]), Some(2));
        let written = std::fs::metadata(path_in(tmp.path())).unwrap().modified().unwrap();
        sync(store.conn(), tmp.path()).unwrap();
        assert_eq!(std::fs::metadata(path_in(tmp.path())).unwrap().modified().unwrap(), written);
        // The highest records deleted and an id given again: the list is written whole, and
        // holds the new blob, not the deleted ones.
        store.conn().execute("DELETE FROM records", []).unwrap();
        add_record(&store, &b);
        sync(store.conn(), tmp.path()).unwrap();
        assert_eq!(count_held(tmp.path(), [&a, &b, &c]), Some(1));
        assert_eq!(count_held(tmp.path(), [&b]), Some(1));
        // A cut or foreign file says nothing.
        let bytes = std::fs::read(path_in(tmp.path())).unwrap();
        std::fs::write(path_in(tmp.path()), &bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(count_held(tmp.path(), [&b]), None);
        // Cut, its header still names the table's highest record: written whole again.
        sync(store.conn(), tmp.path()).unwrap();
        assert_eq!(std::fs::read(path_in(tmp.path())).unwrap(), bytes);
        std::fs::write(path_in(tmp.path()), b"not a list of blobs at all").unwrap();
        assert_eq!(count_held(tmp.path(), [&b]), None);
        // An unreadable list is written whole again.
        sync(store.conn(), tmp.path()).unwrap();
        assert_eq!(count_held(tmp.path(), [&b]), Some(1));
        forget(tmp.path());
        assert_eq!(count_held(tmp.path(), [&b]), None);
    }

    #[test]
    fn a_lookup_finds_every_key_and_no_other() {
        let mut keys: Vec<u64> = (0..1000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        keys.sort_unstable();
        let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_be_bytes()).collect();
        for k in &keys {
            assert!(holds(&bytes, *k));
            assert!(!holds(&bytes, k.wrapping_add(1)) || keys.contains(&k.wrapping_add(1)));
        }
        assert!(!holds(&[], 7));
    }
}
