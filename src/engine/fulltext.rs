//! The engine's full-text reader: opened once per engine (started on a thread of its own while
//! a query's view is resolved); per query, reloaded when a newer commit is on disk, and its
//! changed files checked.

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use super::{Engine, Error, ErrorCode};
use crate::index::FullText;

/// Where an engine keeps its full-text index and reader once opened, and the lock whoever
/// opens them holds: a query's own open waits for an open already under way, never for one
/// whose thread has not started yet (it then opens the index itself, and that thread finds it
/// open).
#[derive(Default)]
pub(super) struct Slot {
    opened: Arc<OnceLock<(FullText, tantivy::IndexReader)>>,
    opening: Arc<Mutex<()>>,
}

impl Slot {
    /// Leaves the index and its reader, when open, for the process's exit to unmap: never
    /// taken apart (an open still under way on its own thread keeps its own reference).
    pub(super) fn leave_to_exit(&mut self) {
        std::mem::forget(std::mem::take(&mut self.opened));
    }
}

fn broken(e: String) -> Error {
    Error::new(ErrorCode::IndexIncompatible, format!("the full-text index cannot be opened: {e}"))
        .with_remedy("run `git codecompass index --force` to rebuild it")
}

/// Opens the index in `store_dir` and its reader into `opened`, unless it is open already.
fn open_into(
    opened: &OnceLock<(FullText, tantivy::IndexReader)>,
    opening: &Mutex<()>,
    store_dir: &Path,
) -> Result<(), Error> {
    let _held = opening.lock().unwrap_or_else(|p| p.into_inner());
    if opened.get().is_some() {
        return Ok(());
    }
    let fulltext = FullText::open(store_dir).map_err(|e| broken(e.to_string()))?;
    let reader = fulltext.reader().map_err(|e| broken(e.to_string()))?;
    let _ = opened.set((fulltext, reader));
    Ok(())
}

impl Engine {
    /// The full-text index and a reader of its last commit.
    pub(crate) fn fulltext(&self) -> Result<(&FullText, tantivy::Searcher), Error> {
        self.open_fulltext()?;
        let (fulltext, reader) = self.fulltext.opened.get().expect("opened just above");
        // A reader opened before the view was (re)indexed, or by an earlier query of a
        // long-lived engine, is brought to the last commit.
        if !fulltext.holds_last_commit(&reader.searcher()) {
            reader.reload().map_err(|e| broken(e.to_string()))?;
        }
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
        if self.fulltext.opened.get().is_some() {
            return Ok(());
        }
        // Opening creates a missing index: an empty one where documents were written would
        // answer "nothing matched" for everything.
        if !crate::index::exists(self.ws.store_dir())
            && self.open_store(false).is_ok_and(|s| s.has_documents().unwrap_or(true))
        {
            return Err(broken("its files are missing (`fts/meta.json`)".to_owned()));
        }
        open_into(&self.fulltext.opened, &self.fulltext.opening, self.ws.store_dir())
    }

    /// Starts opening the full-text index on a thread of its own when it exists and is not
    /// open yet, for the query's view to be resolved meanwhile: mapping its files and reading
    /// its segments' metadata needs nothing of the view, and resolving a worktree's view walks
    /// the tree. Not on rayon's pool: creating it starts a worker per core, and the idle ones
    /// spin before they sleep, taking the cores the walk needs (stop 35: 1.2 ms of a 10.4 ms
    /// search). What the thread opened is reloaded and checked by [`Engine::fulltext`] before
    /// it answers, so a view indexed meanwhile is what the query reads. A missing index is
    /// never opened there (opening would create it), nor on a pool's thread (see
    /// [`super::across::helper_threads`]).
    pub(super) fn open_fulltext_meanwhile(&self) {
        if super::across::helper_threads()
            && self.fulltext.opened.get().is_none()
            && crate::index::exists(self.ws.store_dir())
        {
            let opened = Arc::clone(&self.fulltext.opened);
            let opening = Arc::clone(&self.fulltext.opening);
            let store_dir = self.ws.store_dir().to_owned();
            // An error here is met again, and answered, by the query's own open.
            std::thread::spawn(move || drop(open_into(&opened, &opening, &store_dir)));
        }
    }
}
