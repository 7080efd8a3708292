//! Records copied from another store: a snapshot being merged, or the store of another
//! repository that holds the same blobs (a fork, a vendored copy). Records are keyed by blob
//! id, language and extractor key, so a record of another store for the same key is the one
//! this store would derive; only the row ids differ, and they are mapped through the blob ids.

use std::path::Path;

use rusqlite::Connection;

use super::{DB_FILE, Store, StoreError};
use crate::git::ObjectId;

/// The statements that copy into `main` the records of the attached database `from` for the
/// blob rows `sb` that `blobs` (a FROM clause) names, with their symbols and, with
/// `occurrences`, their references. The records are reached from the blobs through the
/// source's indexes (CROSS JOIN fixes that order), so a few wanted blobs never scan a store.
/// With `names`, the name index of the references is copied too (a scan of the source's: it
/// is keyed by name); without, the caller rebuilds it from the references. With `outlines`,
/// the records' outlines (a source older than them has none).
fn copy_sql(from: &str, blobs: &str, occurrences: bool, names: bool, outlines: bool) -> String {
    let records = format!("{blobs} CROSS JOIN {from}.records r ON r.blob = sb.id");
    let main_record = "CROSS JOIN main.blobs b ON b.oid = sb.oid
         CROSS JOIN main.records mr ON mr.blob = b.id AND mr.lang = r.lang AND mr.extractor = r.extractor";
    let mut sql = format!(
        "INSERT OR IGNORE INTO main.blobs (oid, size) SELECT sb.oid, sb.size {blobs};
         UPDATE main.blobs SET size = (SELECT s.size FROM {from}.blobs s WHERE s.oid = main.blobs.oid)
             WHERE size < 0 AND oid IN (SELECT sb.oid {blobs} WHERE sb.size >= 0);
         INSERT OR IGNORE INTO main.records
             (blob, lang, extractor, status, skip_reason, line_count, symbol_count, diagnostics, created_at)
             SELECT b.id, r.lang, r.extractor, r.status, r.skip_reason, r.line_count, r.symbol_count,
                    r.diagnostics, r.created_at
             {records} CROSS JOIN main.blobs b ON b.oid = sb.oid;
         INSERT OR IGNORE INTO main.symbols
             (record, ord, name, qualified_name, kind, declaration, line_start, line_end, name_line,
              byte_start, byte_end, signature, parent, visibility, doc, stable_id)
             SELECT mr.id, s.ord, s.name, s.qualified_name, s.kind, s.declaration, s.line_start, s.line_end,
                    s.name_line, s.byte_start, s.byte_end, s.signature, s.parent, s.visibility, s.doc,
                    s.stable_id
             {records} CROSS JOIN {from}.symbols s ON s.record = r.id {main_record};"
    );
    if occurrences {
        sql.push_str(&format!(
            "INSERT OR IGNORE INTO main.occurrences (record, data)
                 SELECT mr.id, o.data {records} CROSS JOIN {from}.occurrences o ON o.record = r.id {main_record};
"
        ));
    }
    if outlines {
        sql.push_str(&format!(
            "INSERT OR IGNORE INTO main.outlines (record, data)
                 SELECT mr.id, o.data {records} CROSS JOIN {from}.outlines o ON o.record = r.id {main_record};"
        ));
    }
    if occurrences && names {
        sql.push_str(&format!(
            "INSERT OR IGNORE INTO main.occurrence_names (key, record)
                 SELECT n.key, mr.id FROM {from}.occurrence_names n
                 JOIN {from}.records r ON r.id = n.record
                 JOIN {from}.blobs sb ON sb.id = r.blob
                 JOIN main.blobs b ON b.oid = sb.oid
                 JOIN main.records mr ON mr.blob = b.id AND mr.lang = r.lang AND mr.extractor = r.extractor;"
        ));
    }
    sql
}

/// The donor's blob rows of the wanted blobs.
const WANTED: &str = "FROM temp.cc_wanted w CROSS JOIN donor.blobs sb ON sb.oid = w.oid";

/// Whether the attached database `from` has every one of `tables` (a store or snapshot older
/// than an addition lacks it).
fn has_tables(conn: &Connection, from: &str, tables: &[&str]) -> Result<bool, StoreError> {
    let names = tables.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(", ");
    let found: i64 = conn.query_row(
        &format!("SELECT count(*) FROM {from}.sqlite_master WHERE type = 'table' AND name IN ({names})"),
        [],
        |r| r.get(0),
    )?;
    Ok(found == tables.len() as i64)
}

/// The tables of a record's references.
const OCCURRENCE_TABLES: &[&str] = &["occurrences", "occurrence_names"];

/// Copies every record of the attached database `from` into `main`, in one transaction.
/// Snapshots older than references have no occurrences to copy.
pub fn copy_all_records(conn: &Connection, from: &str) -> Result<(), StoreError> {
    let tx = conn.unchecked_transaction()?;
    let occurrences = has_tables(&tx, from, OCCURRENCE_TABLES)?;
    let outlines = has_tables(&tx, from, &["outlines"])?;
    tx.execute_batch(&copy_sql(from, &format!("FROM {from}.blobs sb"), occurrences, true, outlines))?;
    tx.commit()?;
    Ok(())
}

/// A path as an SQLite URI opening it read-only.
pub(super) fn read_only_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3F"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push_str("?mode=ro");
    uri
}

impl Store {
    /// Copies from the store in `donor` (another repository's, of the same schema) the
    /// records of the blobs `wanted`; returns how many records this store gained. The donor is
    /// only read.
    pub fn adopt_records(&self, donor: &Path, wanted: &[ObjectId]) -> Result<usize, StoreError> {
        if wanted.is_empty() {
            return Ok(0);
        }
        let conn = self.conn();
        // Counted only around a copy: `count(*)` reads the whole table, and most donors asked
        // hold none of the blobs (an index run asks every registered repository's store).
        let count = |conn: &Connection| -> Result<i64, StoreError> {
            Ok(conn.query_row("SELECT count(*) FROM main.records", [], |r| r.get(0))?)
        };
        conn.execute("ATTACH DATABASE ?1 AS donor", [read_only_uri(&donor.join(DB_FILE))])?;
        let copied = (|| -> Result<i64, StoreError> {
            // A store of another schema or index format is not read (nor one that cannot say
            // which it has); checked here, where it is opened anyway, not before.
            if Store::classify_schema(conn, "donor").0 != super::StoreState::Compatible {
                return Ok(0);
            }
            let tx = conn.unchecked_transaction()?;
            tx.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS cc_wanted (oid BLOB PRIMARY KEY); DELETE FROM cc_wanted;",
            )?;
            {
                let mut insert = tx.prepare("INSERT OR IGNORE INTO cc_wanted (oid) VALUES (?1)")?;
                for oid in wanted {
                    insert.execute([oid.0.as_slice()])?;
                }
            }
            let occurrences = has_tables(&tx, "donor", OCCURRENCE_TABLES)?;
            // Driven by the wanted blobs (CROSS JOIN fixes the order): a donor is read where it
            // holds them, by its indexes, never scanned.
            let holds: bool = tx.query_row(
                &format!("SELECT EXISTS (SELECT 1 {WANTED} CROSS JOIN donor.records r ON r.blob = sb.id)"),
                [],
                |r| r.get(0),
            )?;
            let mut gained = 0;
            if holds {
                let before = count(&tx)?;
                let outlines = has_tables(&tx, "donor", &["outlines"])?;
                tx.execute_batch(&copy_sql("donor", WANTED, occurrences, false, outlines))?;
                if occurrences {
                    super::occurrences::index_names_of_wanted(&tx)?;
                }
                gained = count(&tx)? - before;
            }
            tx.execute_batch("DELETE FROM cc_wanted;")?;
            tx.commit()?;
            Ok(gained)
        })();
        let _ = conn.execute("DETACH DATABASE donor", []);
        Ok(copied?.max(0) as usize)
    }

    /// The blobs among `oids` this store holds no record of.
    pub fn blobs_without_records(&self, oids: &[ObjectId]) -> Result<Vec<ObjectId>, StoreError> {
        let mut stmt = self
            .conn()
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM records r JOIN blobs b ON b.id = r.blob WHERE b.oid = ?1)")?;
        let mut out = Vec::new();
        for oid in oids {
            let has: bool = stmt.query_row([oid.0.as_slice()], |r| r.get(0))?;
            if !has {
                out.push(*oid);
            }
        }
        Ok(out)
    }
}
