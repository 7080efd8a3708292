//! The engine's full-text reader: opened once per engine, reloaded and checked per query, and
//! opened on a second thread while a query's view is being resolved.

use super::{Engine, Error, ErrorCode, Freshness, ResolvedScope, Scope};
use crate::store::Store;

fn broken(e: String) -> Error {
    Error::new(ErrorCode::IndexIncompatible, format!("the full-text index cannot be opened: {e}"))
        .with_remedy("run `git codecompass index --force` to rebuild it")
}

impl Engine {
    /// The full-text index and a reader of its last commit.
    pub(crate) fn fulltext(&self) -> Result<(&crate::index::FullText, tantivy::Searcher), Error> {
        self.open_fulltext()?;
        let (fulltext, reader) = self.fulltext.get().expect("opened just above");
        reader.reload().map_err(|e| broken(e.to_string()))?;
        // A damaged posting list decodes into wrong documents, not an error: files changed
        // since they were last verified are checked before they answer.
        let damaged = fulltext.verify(crate::index::Verify::Changed, true).map_err(|e| broken(e.to_string()))?;
        if !damaged.is_empty() {
            return Err(broken(format!("files fail their checksum: {}", damaged.join(", "))));
        }
        Ok((fulltext, reader.searcher()))
    }

    /// Opens the full-text index and its reader, once per engine.
    fn open_fulltext(&self) -> Result<(), Error> {
        if self.fulltext.get().is_some() {
            return Ok(());
        }
        // Opening creates a missing index: an empty one where documents were written would
        // answer "nothing matched" for everything.
        if !self.fulltext_exists() && self.open_store(false).is_ok_and(|s| s.has_documents().unwrap_or(true)) {
            return Err(broken("its files are missing (`fts/meta.json`)".to_owned()));
        }
        let fulltext = crate::index::FullText::open(self.ws.store_dir()).map_err(|e| broken(e.to_string()))?;
        let reader = fulltext.reader().map_err(|e| broken(e.to_string()))?;
        let _ = self.fulltext.set((fulltext, reader));
        Ok(())
    }

    fn fulltext_exists(&self) -> bool {
        crate::index::dir_of(self.ws.store_dir()).join("meta.json").exists()
    }

    /// [`Engine::resolve`], with the full-text index opened meanwhile on a second thread when
    /// it exists and is not open yet: mapping its files and reading its segments' metadata
    /// needs nothing of the view, and resolving a worktree's view walks the tree. What the
    /// second thread opened is reloaded and checked by [`Engine::fulltext`] before it answers,
    /// so a view indexed meanwhile is what the query reads. A missing index is never opened
    /// there (opening would create it).
    pub(super) fn resolve_opening_fulltext(
        &self,
        scope: &Scope,
        freshness: Freshness,
    ) -> Result<(Store, ResolvedScope), Error> {
        if self.fulltext.get().is_some() || !self.fulltext_exists() {
            return self.resolve(scope, freshness);
        }
        // On the pool the query's own parallel work uses: no thread of its own.
        rayon::in_place_scope(|s| {
            // An error opening is met again, and answered, by the query's own open.
            s.spawn(|_| drop(self.open_fulltext()));
            self.resolve(scope, freshness)
        })
    }
}
