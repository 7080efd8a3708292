//! The symbols of records: read by record and ordinal, or found by name.

use rusqlite::{OptionalExtension, params};

use super::rows::SYMBOL_COLUMNS;
use super::{Store, StoreError, SymbolRow};

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

    /// Symbols named `name`, case-insensitively, with the file versions that hold them.
    /// `extractors` maps a language to its current extractor key; records of other keys are
    /// stale and left out.
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
}
