//! File and symbol details of a ranking's candidates, each looked up once and only when needed.

use std::collections::HashMap;

use super::QueryError;
use crate::store::{FileInfo, Store};

/// File and symbol details, loaded once each and only when needed.
pub(crate) struct Details<'a> {
    store: &'a Store,
    max_file_size: u64,
    infos: HashMap<u32, Option<FileInfo>>,
    records: HashMap<u32, Option<i64>>,
    symbols: HashMap<(u32, u32), Option<crate::store::SymbolRow>>,
}

impl<'a> Details<'a> {
    pub(crate) fn new(store: &'a Store, max_file_size: u64) -> Details<'a> {
        Details { store, max_file_size, infos: HashMap::new(), records: HashMap::new(), symbols: HashMap::new() }
    }

    /// The file version `fv`.
    pub(crate) fn info(&mut self, fv: u32) -> Result<Option<&FileInfo>, QueryError> {
        if !self.infos.contains_key(&fv) {
            let info = self.store.file_infos([fv])?.pop();
            self.infos.insert(fv, info);
        }
        Ok(self.infos.get(&fv).and_then(Option::as_ref))
    }

    /// The current record of `fv`.
    pub(crate) fn record(&mut self, fv: u32) -> Result<Option<i64>, QueryError> {
        if let Some(r) = self.records.get(&fv) {
            return Ok(*r);
        }
        let max = self.max_file_size;
        let record = match self.info(fv)? {
            Some(info) => {
                let lang = if info.skip.is_some() { "" } else { info.lang.as_str() };
                let key = crate::indexer::record_key(lang, max);
                let (blob, lang) = (info.blob_id, lang.to_owned());
                self.store.record(blob, &lang, &key)?.map(|r| r.id)
            }
            None => None,
        };
        self.records.insert(fv, record);
        Ok(record)
    }

    /// The symbol `ord` of `fv`'s current record.
    pub(crate) fn symbol(&mut self, fv: u32, ord: u32) -> Result<Option<&crate::store::SymbolRow>, QueryError> {
        if !self.symbols.contains_key(&(fv, ord)) {
            let row = match self.record(fv)? {
                Some(record) => self.store.symbol_at(record, ord)?,
                None => None,
            };
            self.symbols.insert((fv, ord), row);
        }
        Ok(self.symbols.get(&(fv, ord)).and_then(Option::as_ref))
    }

    /// Looks up the symbols `wanted` names ((file version, ord) pairs) not looked up yet, one
    /// lookup per file: a ranking asks for a hundred or more, mostly a few files' each.
    pub(crate) fn prefetch_symbols(&mut self, wanted: impl IntoIterator<Item = (u32, u32)>) -> Result<(), QueryError> {
        let mut by_fv: HashMap<u32, Vec<u32>> = HashMap::new();
        for (fv, ord) in wanted {
            if !self.symbols.contains_key(&(fv, ord)) {
                by_fv.entry(fv).or_default().push(ord);
            }
        }
        for (fv, ords) in by_fv {
            let found = match self.record(fv)? {
                Some(record) => self.store.symbols_at(record, &ords)?,
                None => Vec::new(),
            };
            for ord in ords {
                self.symbols.insert((fv, ord), None);
            }
            for row in found {
                self.symbols.insert((fv, row.ord), Some(row));
            }
        }
        Ok(())
    }

    /// Every symbol of `fv`'s current record.
    pub(crate) fn all_symbols(&mut self, fv: u32) -> Result<Vec<crate::store::SymbolRow>, QueryError> {
        match self.record(fv)? {
            Some(record) => Ok(self.store.symbols_of(record)?),
            None => Ok(Vec::new()),
        }
    }
}

/// The view's current symbols named `name` (ASCII case aside), in the order the name index
/// gives them: keys only (see [`crate::store::Store::symbol_keys_named`]); records of an
/// older extraction, and file versions outside `allowed`, are left out.
pub(crate) fn current_named(
    store: &Store,
    name: &str,
    allowed: &roaring::RoaringBitmap,
    max_file_size: u64,
) -> Result<Vec<crate::store::NamedSymbol>, QueryError> {
    let mut current: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for key in store.symbol_keys_named(name)? {
        if !allowed.contains(key.fv) {
            continue;
        }
        let wanted =
            current.entry(key.lang.clone()).or_insert_with(|| crate::indexer::record_key(&key.lang, max_file_size));
        if key.extractor == *wanted {
            out.push(key);
        }
    }
    Ok(out)
}

/// The rows of the symbols `keys` name, in their order, each with its file version: one
/// lookup per record. A symbol its record does not have is left out.
pub(crate) fn named_rows(
    store: &Store,
    keys: &[crate::store::NamedSymbol],
) -> Result<Vec<(u32, crate::store::SymbolRow)>, QueryError> {
    let mut ords: HashMap<i64, Vec<u32>> = HashMap::new();
    for key in keys {
        let wanted = ords.entry(key.record).or_default();
        if !wanted.contains(&key.ord) {
            wanted.push(key.ord);
        }
    }
    let mut rows: HashMap<(i64, u32), crate::store::SymbolRow> = HashMap::new();
    for (record, ords) in ords {
        for row in store.symbols_at(record, &ords)? {
            rows.insert((record, row.ord), row);
        }
    }
    Ok(keys.iter().filter_map(|k| rows.get(&(k.record, k.ord)).map(|row| (k.fv, row.clone()))).collect())
}
