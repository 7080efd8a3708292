//! The references of a record, stored packed: one row per record in `occurrences` (a string
//! table and the references as varints, zstd-compressed when that pays), and one row per
//! distinct name in `occurrence_names` (a 64-bit hash of the name and the record), which is
//! what finds the records that may use a name. A hash may collide; readers decode the record
//! and compare the names, so a collision costs a decode, never a wrong answer.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Batch, FileInfo, Store, StoreError};
use crate::extract::{Occurrence, RefKind};

/// Compress a packed record above this size.
const COMPRESS_ABOVE: usize = 512;
const RAW: u8 = 0;
const ZSTD: u8 = 1;

/// The lookup key of a name used in a record.
pub fn name_key(name: &str) -> i64 {
    fnv(b"n", name.as_bytes())
}

/// The lookup key of one segment of an imported module or path (`slab` of `linux/slab.h`,
/// `util` of `./util.js`, `index` of `crate::index::Index`).
pub fn import_key(segment: &str) -> i64 {
    fnv(b"i", segment.as_bytes())
}

/// The segments of an import specifier under which it is found: every segment of the path,
/// without its extension.
pub fn import_segments(spec: &str) -> Vec<&str> {
    let mut out: Vec<&str> = spec
        .split(['/', '.', ':', '\\'])
        .filter(|s| !s.is_empty() && *s != "*" && !s.chars().all(|c| c == '.'))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// FNV-1a, 64 bits, with a one-byte domain. Stored, so it must never change.
fn fnv(domain: &[u8], bytes: &[u8]) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in domain.iter().chain(bytes) {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash as i64
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

fn intern<'s>(index: &mut std::collections::HashMap<&'s str, u64>, strings: &mut Vec<&'s str>, s: &'s str) -> u64 {
    *index.entry(s).or_insert_with(|| {
        strings.push(s);
        strings.len() as u64 - 1
    })
}

/// Packs references (in position order) for storage.
pub fn encode(occurrences: &[Occurrence]) -> Vec<u8> {
    let mut strings: Vec<&str> = Vec::new();
    let mut index: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    let mut ids: Vec<(u64, u64)> = Vec::with_capacity(occurrences.len());
    for o in occurrences {
        let n = intern(&mut index, &mut strings, &o.name);
        let q = if o.qualifier.is_empty() { 0 } else { intern(&mut index, &mut strings, &o.qualifier) + 1 };
        ids.push((n, q));
    }
    let mut body = Vec::with_capacity(16 + occurrences.len() * 6);
    put_varint(&mut body, strings.len() as u64);
    for s in &strings {
        put_varint(&mut body, s.len() as u64);
        body.extend_from_slice(s.as_bytes());
    }
    put_varint(&mut body, occurrences.len() as u64);
    let mut line = 0u32;
    for (o, (n, q)) in occurrences.iter().zip(ids) {
        body.push(o.kind.code());
        put_varint(&mut body, n);
        put_varint(&mut body, q);
        // Lines only grow in position order; a negative step (never made by the extractor) is
        // stored whole after a marker so decoding stays exact.
        if o.line >= line {
            put_varint(&mut body, u64::from(o.line - line) << 1);
        } else {
            put_varint(&mut body, (u64::from(o.line) << 1) | 1);
        }
        line = o.line;
        put_varint(&mut body, u64::from(o.column));
        put_varint(&mut body, o.caller.map_or(0, |c| u64::from(c) + 1));
    }
    if body.len() > COMPRESS_ABOVE
        && let Some(packed) = COMPRESSOR.with_borrow_mut(|c| c.as_mut().ok().and_then(|c| c.compress(&body).ok()))
        && packed.len() + 8 < body.len()
    {
        let mut out = Vec::with_capacity(packed.len() + 9);
        out.push(ZSTD);
        put_varint(&mut out, body.len() as u64);
        out.extend_from_slice(&packed);
        return out;
    }
    let mut out = Vec::with_capacity(body.len() + 1);
    out.push(RAW);
    out.extend_from_slice(&body);
    out
}

thread_local! {
    /// One compression context per thread, made once rather than per record.
    static COMPRESSOR: std::cell::RefCell<std::io::Result<zstd::bulk::Compressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Compressor::new(3));
    /// One decompression context per thread, made once: making one per record was a third of
    /// the time of a `callers` query that unpacks thousands of them.
    static DECOMPRESSOR: std::cell::RefCell<std::io::Result<zstd::bulk::Decompressor<'static>>> =
        std::cell::RefCell::new(zstd::bulk::Decompressor::new());
}

/// Unpacks what [`encode`] packed. `None` for damaged data.
pub fn decode(data: &[u8]) -> Option<Vec<Occurrence>> {
    decode_where(data, |_, _| true)
}

/// Unpacks only the uses of the name `name` (and allocates nothing for the others).
pub fn decode_named(data: &[u8], name: &str) -> Option<Vec<Occurrence>> {
    decode_where(data, |s, kind| s == name && kind.is_use())
}

/// Unpacks only the imports.
pub fn decode_imports(data: &[u8]) -> Option<Vec<Occurrence>> {
    decode_where(data, |_, kind| kind == RefKind::Import)
}

fn decode_where(data: &[u8], wanted: impl Fn(&str, RefKind) -> bool) -> Option<Vec<Occurrence>> {
    let (&format, rest) = data.split_first()?;
    let unpacked;
    let body: &[u8] = match format {
        RAW => rest,
        ZSTD => {
            let mut at = 0;
            let len = get_varint(rest, &mut at)? as usize;
            if len > 64 << 20 {
                return None;
            }
            unpacked =
                DECOMPRESSOR.with_borrow_mut(|d| d.as_mut().ok().and_then(|d| d.decompress(&rest[at..], len).ok()))?;
            &unpacked
        }
        _ => return None,
    };
    let mut at = 0;
    let count = get_varint(body, &mut at)? as usize;
    let mut strings: Vec<&str> = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        let len = get_varint(body, &mut at)? as usize;
        let bytes = body.get(at..at.checked_add(len)?)?;
        strings.push(std::str::from_utf8(bytes).ok()?);
        at += len;
    }
    let keep: Vec<[bool; 6]> = strings
        .iter()
        .map(|s| {
            [RefKind::Import, RefKind::Call, RefKind::Type, RefKind::Name, RefKind::ImportName, RefKind::Binding]
                .map(|k| wanted(s, k))
        })
        .collect();
    let count = get_varint(body, &mut at)? as usize;
    let mut out = Vec::new();
    let mut line = 0u32;
    for _ in 0..count {
        let kind = RefKind::from_code(*body.get(at)?)?;
        at += 1;
        let name = get_varint(body, &mut at)? as usize;
        let qualifier = get_varint(body, &mut at)? as usize;
        let step = get_varint(body, &mut at)?;
        line = if step & 1 == 0 { line.checked_add(u32::try_from(step >> 1).ok()?)? } else { (step >> 1) as u32 };
        let column = u32::try_from(get_varint(body, &mut at)?).ok()?;
        let caller = match get_varint(body, &mut at)? {
            0 => None,
            c => Some(u32::try_from(c - 1).ok()?),
        };
        if !keep.get(name)?[kind.code() as usize] {
            continue;
        }
        let qualifier = match qualifier {
            0 => String::new(),
            q => (*strings.get(q - 1)?).to_owned(),
        };
        out.push(Occurrence { kind, name: strings[name].to_owned(), qualifier, line, column, caller });
    }
    Some(out)
}

/// The distinct lookup keys of a record's references.
fn keys(occurrences: &[Occurrence]) -> Vec<i64> {
    let mut keys: Vec<i64> = Vec::with_capacity(occurrences.len());
    for o in occurrences {
        if o.kind == RefKind::Import {
            keys.extend(import_segments(&o.name).into_iter().map(import_key));
        } else if o.kind.is_use() {
            keys.push(name_key(&o.name));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

impl Batch<'_> {
    /// Stores the references of a freshly inserted record.
    pub(super) fn insert_occurrences(&self, record_id: i64, occurrences: &[Occurrence]) -> Result<(), StoreError> {
        if occurrences.is_empty() {
            return Ok(());
        }
        self.tx
            .prepare_cached("INSERT OR REPLACE INTO occurrences (record, data) VALUES (?1, ?2)")?
            .execute(params![record_id, encode(occurrences)])?;
        let mut stmt =
            self.tx.prepare_cached("INSERT OR IGNORE INTO occurrence_names (key, record) VALUES (?1, ?2)")?;
        for key in keys(occurrences) {
            stmt.execute(params![key, record_id])?;
        }
        Ok(())
    }
}

impl Batch<'_> {
    /// Rewrites the references of an existing record when what is stored does not decode or
    /// is missing.
    pub(super) fn repair_occurrences(&self, record_id: i64, occurrences: &[Occurrence]) -> Result<(), StoreError> {
        let data: Option<Vec<u8>> = self
            .tx
            .prepare_cached("SELECT data FROM occurrences WHERE record = ?1")?
            .query_row([record_id], |r| r.get(0))
            .optional()?;
        let intact = match &data {
            Some(d) => decode(d).is_some(),
            None => occurrences.is_empty(),
        };
        if !intact {
            delete(&self.tx, record_id)?;
            self.insert_occurrences(record_id, occurrences)?;
        }
        Ok(())
    }
}

/// Indexes by name the occurrences of the records of the blobs in `temp.cc_wanted` (records
/// just copied from another store, whose name index is keyed by name and cannot be copied by
/// record).
pub(super) fn index_names_of_wanted(conn: &Connection) -> Result<(), StoreError> {
    let mut select = conn.prepare(
        "SELECT mr.id, o.data FROM temp.cc_wanted w CROSS JOIN main.blobs b ON b.oid = w.oid
         CROSS JOIN main.records mr ON mr.blob = b.id CROSS JOIN main.occurrences o ON o.record = mr.id",
    )?;
    let rows: Vec<(i64, Vec<u8>)> = select.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    let mut insert = conn.prepare_cached("INSERT OR IGNORE INTO occurrence_names (key, record) VALUES (?1, ?2)")?;
    for (record, data) in rows {
        // A copy that does not decode is indexed by nothing; `repair_occurrences` rewrites it
        // when its blob is parsed again.
        for key in decode(&data).as_deref().map(keys).unwrap_or_default() {
            insert.execute(params![key, record])?;
        }
    }
    Ok(())
}

/// Deletes the references of `record_id` (gc).
///
/// The name index is keyed by name, then record: its rows of one record are found by the
/// record's own names, each by its key. A search by record alone reads the whole index, which
/// made a gc of many records (after an extractor upgrade on a large repository) take hours.
pub fn delete(conn: &Connection, record_id: i64) -> Result<(), StoreError> {
    let data: Option<Vec<u8>> = conn
        .prepare_cached("SELECT data FROM occurrences WHERE record = ?1")?
        .query_row([record_id], |r| r.get(0))
        .optional()?;
    match data.as_deref().map(decode) {
        Some(Some(occurrences)) => {
            let mut by_key = conn.prepare_cached("DELETE FROM occurrence_names WHERE key = ?1 AND record = ?2")?;
            for key in keys(&occurrences) {
                by_key.execute(params![key, record_id])?;
            }
        }
        // References that do not decode do not say their names: the index is searched.
        Some(None) => {
            conn.prepare_cached("DELETE FROM occurrence_names WHERE record = ?1")?.execute([record_id])?;
        }
        // Names are indexed only with the references they come from.
        None => {}
    }
    conn.prepare_cached("DELETE FROM occurrences WHERE record = ?1")?.execute([record_id])?;
    Ok(())
}

impl Store {
    /// How many records' references are stored, and how many of them do not decode.
    pub fn check_occurrences(&self) -> Result<(u64, u64), StoreError> {
        let mut stmt = self.conn.prepare("SELECT data FROM occurrences")?;
        let mut rows = stmt.query([])?;
        let (mut total, mut damaged) = (0, 0);
        while let Some(row) = rows.next()? {
            total += 1;
            let data: Vec<u8> = row.get(0)?;
            if decode(&data).is_none() {
                damaged += 1;
            }
        }
        Ok((total, damaged))
    }

    /// The records whose references include the lookup key `key` ([`name_key`],
    /// [`import_key`]).
    pub fn records_using(&self, key: i64) -> Result<Vec<i64>, StoreError> {
        let mut stmt = self.conn.prepare_cached("SELECT record FROM occurrence_names WHERE key = ?1")?;
        let rows = stmt.query_map([key], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
        Ok(rows)
    }

    /// The file versions holding the blob of `record` as its language, with the record's
    /// extractor key.
    pub fn file_versions_of_record(&self, record: i64) -> Result<Vec<(FileInfo, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT fv.id, fv.path, b.oid, fv.mode, fv.lang, fv.skip, b.size, r.extractor FROM records r
             JOIN file_versions fv ON fv.blob = r.blob AND fv.lang = r.lang
             JOIN blobs b ON b.id = r.blob
             WHERE r.id = ?1",
        )?;
        let rows = stmt
            .query_map([record], |r| Ok((FileInfo::from_row(r)?, r.get::<_, String>(7)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The references of a record to `name` and its imports, from one read (see
    /// [`Store::occurrences_of`]).
    pub fn occurrences_named_and_imports(
        &self,
        record_id: i64,
        name: &str,
    ) -> Result<Option<Vec<Occurrence>>, StoreError> {
        self.occurrences_where(record_id, |d| {
            decode_where(d, |s, kind| (s == name && kind.is_use()) || kind == RefKind::Import)
        })
    }

    /// The references of a record to `name`, in position order (see [`Store::occurrences_of`]).
    pub fn occurrences_named(&self, record_id: i64, name: &str) -> Result<Option<Vec<Occurrence>>, StoreError> {
        self.occurrences_where(record_id, |d| decode_named(d, name))
    }

    /// The imports of a record, in position order (see [`Store::occurrences_of`]).
    pub fn imports_of(&self, record_id: i64) -> Result<Option<Vec<Occurrence>>, StoreError> {
        self.occurrences_where(record_id, decode_imports)
    }

    fn occurrences_where(
        &self,
        record_id: i64,
        decode: impl FnOnce(&[u8]) -> Option<Vec<Occurrence>>,
    ) -> Result<Option<Vec<Occurrence>>, StoreError> {
        let data: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT data FROM occurrences WHERE record = ?1")?
            .query_row([record_id], |r| r.get(0))
            .optional()?;
        Ok(match data {
            None => Some(Vec::new()),
            Some(d) => decode(&d),
        })
    }

    /// The references of a record, in position order; empty when it has none, `None` when
    /// the stored data is damaged.
    pub fn occurrences_of(&self, record_id: i64) -> Result<Option<Vec<Occurrence>>, StoreError> {
        let data: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT data FROM occurrences WHERE record = ?1")?
            .query_row([record_id], |r| r.get(0))
            .optional()?;
        Ok(match data {
            None => Some(Vec::new()),
            Some(d) => decode(&d),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(kind: RefKind, name: &str, qualifier: &str, line: u32, caller: Option<u32>) -> Occurrence {
        Occurrence { kind, name: name.to_owned(), qualifier: qualifier.to_owned(), line, column: 5, caller }
    }

    #[test]
    fn packed_references_decode_to_what_was_encoded() {
        let small = vec![
            occ(RefKind::Import, "os.path", "", 1, None),
            occ(RefKind::Call, "greet", "self", 4, Some(0)),
            occ(RefKind::Call, "greet", "", 4, Some(2)),
            occ(RefKind::Type, "Index", "crate::index", 9, None),
        ];
        assert_eq!(decode(&encode(&small)).as_deref(), Some(&small[..]));
        let large: Vec<Occurrence> =
            (0..500).map(|i| occ(RefKind::Name, &format!("n{}", i % 37), "obj", i / 3 + 1, Some(i % 5))).collect();
        let packed = encode(&large);
        assert_eq!(packed[0], ZSTD, "a large record is compressed");
        assert_eq!(decode(&packed), Some(large.clone()));
        let named: Vec<Occurrence> = large.iter().filter(|o| o.name == "n3").cloned().collect();
        assert_eq!(decode_named(&packed, "n3"), Some(named));
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[RAW, 0xff]), None);
        assert_eq!(decode(&[9, 0, 0]), None);
        // A damaged frame leaves the thread's decompression context fit for the next one.
        let mut damaged = packed.clone();
        let half = damaged.len() / 2;
        damaged[half..].fill(0x5a);
        assert_eq!(decode(&damaged), None);
        assert_eq!(decode(&packed), Some(large.clone()));
    }

    #[test]
    fn imports_are_found_by_each_segment_without_extension() {
        assert_eq!(import_segments("linux/slab.h"), vec!["h", "linux", "slab"]);
        assert_eq!(import_segments("./util"), vec!["util"]);
        assert_eq!(import_segments("crate::index::Index"), vec!["Index", "crate", "index"]);
        assert_ne!(name_key("greet"), import_key("greet"));
    }
}
