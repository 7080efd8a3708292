//! The symbols of records: read by record and ordinal, or found by name.

use rusqlite::{OptionalExtension, params};

use super::rows::SYMBOL_COLUMNS;
use super::{Store, StoreError, SymbolRow};

/// A symbol found by its name through the name index alone, with a file version that holds
/// its record: what deciding which symbols to read needs, without reading them.
#[derive(Clone, Debug)]
pub struct NamedSymbol {
    pub record: i64,
    pub ord: u32,
    /// The name as spelled in the symbol (the lookup ignores case).
    pub name: String,
    pub fv: u32,
    pub lang: String,
    pub extractor: String,
}

impl Store {
    /// The symbols of a record, in extraction order.
    pub fn symbols_of(&self, record_id: i64) -> Result<Vec<SymbolRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {SYMBOL_COLUMNS} FROM symbols s WHERE s.record = ?1 ORDER BY s.ord"))?;
        let rows = stmt.query_map([record_id], SymbolRow::from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The symbols `ords` of a record, in one lookup; ords it does not have are left out.
    pub fn symbols_at(&self, record_id: i64, ords: &[u32]) -> Result<Vec<SymbolRow>, StoreError> {
        // One symbol: a point lookup costs less than a list.
        if let [ord] = ords {
            return Ok(self.symbol_at(record_id, *ord)?.into_iter().collect());
        }
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {SYMBOL_COLUMNS} FROM symbols s
             WHERE s.record = ?1 AND s.ord IN (SELECT value FROM json_each(?2))"
        ))?;
        let ords = serde_json::to_string(ords).expect("numbers serialize");
        let rows = stmt.query_map(params![record_id, ords], SymbolRow::from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The symbol `ord` of a record.
    pub fn symbol_at(&self, record_id: i64, ord: u32) -> Result<Option<SymbolRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {SYMBOL_COLUMNS} FROM symbols s WHERE s.record = ?1 AND s.ord = ?2"))?;
        Ok(stmt.query_row(params![record_id, ord], SymbolRow::from_row).optional()?)
    }

    /// Symbols named `name`, case-insensitively, each with every file version of its record's
    /// blob and the record's language and extraction: records of an older extraction are among
    /// them, for the caller to leave out.
    pub fn symbols_named(&self, name: &str) -> Result<Vec<(SymbolRow, u32, String, String)>, StoreError> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {SYMBOL_COLUMNS}, fv.id, r.lang, r.extractor FROM symbols s
             JOIN records r ON r.id = s.record
             JOIN file_versions fv ON fv.blob = r.blob AND fv.lang = r.lang
             WHERE s.name = ?1 COLLATE NOCASE"
        ))?;
        let rows = stmt
            .query_map([name], |r| {
                Ok((SymbolRow::from_row(r)?, r.get::<_, u32>(16)?, r.get::<_, String>(17)?, r.get::<_, String>(18)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The symbols named `name` (case-insensitively), each with every file version of its
    /// record's blob: [`Store::symbols_named`] without the symbols' rows, read from the name
    /// index (which holds each symbol's record and ordinal) and the records' and file
    /// versions' keys. A common name has thousands of symbols in as many records; reading
    /// their rows is most of the cost of reading them all.
    pub fn symbol_keys_named(&self, name: &str) -> Result<Vec<NamedSymbol>, StoreError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT s.record, s.ord, s.name, fv.id, r.lang, r.extractor FROM symbols s
             JOIN records r ON r.id = s.record
             JOIN file_versions fv ON fv.blob = r.blob AND fv.lang = r.lang
             WHERE s.name = ?1 COLLATE NOCASE",
        )?;
        let rows = stmt
            .query_map([name], |r| {
                Ok(NamedSymbol {
                    record: r.get(0)?,
                    ord: r.get(1)?,
                    name: r.get(2)?,
                    fv: r.get(3)?,
                    lang: r.get(4)?,
                    extractor: r.get(5)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }
}
