//! Records shared between repositories: before a build parses blobs this store has no record
//! of, it copies the records other registered repositories' stores hold for the same blob ids
//! (a fork, a vendored copy, a monorepo split). A record is keyed by blob id, language and
//! extractor key, so a copy is exactly what parsing here would write; what is not found is
//! parsed as always. Views stay this store's own: answers never come from another
//! repository's views. (A new store may start as a copy of another registered one, file
//! versions and documents included: see `seed.rs`.)

use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::PathBuf;

use super::{Entry, IndexError, Indexer};
use crate::git::ObjectId;
use crate::progress;

/// Where records may be copied from: found on first need.
#[derive(Default)]
pub(super) struct Donors<'a> {
    find: Option<Box<dyn Fn() -> Vec<PathBuf> + 'a>>,
    found: OnceCell<Vec<PathBuf>>,
}

impl<'a> Donors<'a> {
    pub(super) fn new(find: Box<dyn Fn() -> Vec<PathBuf> + 'a>) -> Donors<'a> {
        Donors { find: Some(find), found: OnceCell::new() }
    }

    /// Whether the repository is registered, and so shares records with the others.
    pub(super) fn registered(&self) -> bool {
        self.find.is_some()
    }

    fn stores(&self) -> &[PathBuf] {
        self.found.get_or_init(|| self.find.as_ref().map(|f| f()).unwrap_or_default())
    }
}

impl Indexer<'_> {
    /// Copies from the donors the records of `entries`' blobs this store has none of; returns
    /// how many blobs got records so. A donor that cannot be read is skipped, said so.
    pub(super) fn share_records(&self, entries: &[Entry]) -> Result<u64, IndexError> {
        if !self.donors.registered() || self.options.reparse || entries.is_empty() {
            return Ok(0);
        }
        let oids: Vec<ObjectId> = entries.iter().map(|e| e.blob_id).collect::<HashSet<_>>().into_iter().collect();
        let mut wanted = self.store.blobs_without_records(&oids)?;
        let before = wanted.len();
        for donor in self.donors.stores() {
            if wanted.is_empty() {
                break;
            }
            // A donor whose list of blobs holds none of them is not opened.
            if crate::store::record_blobs::count_held(donor, &wanted) == Some(0) {
                continue;
            }
            match self.store.adopt_records(donor, &wanted) {
                Ok(0) => {}
                Ok(_) => wanted = self.store.blobs_without_records(&wanted)?,
                Err(e) => progress::note(&format!("warning: records of {} not shared: {e}", donor.display())),
            }
        }
        Ok((before - wanted.len()) as u64)
    }
}
