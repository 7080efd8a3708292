//! A registered repository's first index seeded from another registered repository's store
//! (see `indexer::seed`).

use super::{Engine, Error, registry};
use crate::indexer::SeedReport;
use crate::store::{Store, StoreState};
use crate::view::Scope;

impl Engine {
    /// Seeds this workspace's store from a registered repository's when it does not exist
    /// yet, this repository is registered, and another registered store holds most of the
    /// files of `scopes`' trees (a fork, a second clone). `None` whenever not, and when seeding
    /// failed (said so): the store is then built from nothing, as it would have been.
    pub(super) fn seed_new_store(&self, scopes: &[Scope]) -> Option<SeedReport> {
        match self.try_seed(scopes) {
            Ok(seeded) => seeded,
            Err(e) => {
                crate::progress::note(&format!("warning: the index was not seeded from another repository's: {e}"));
                None
            }
        }
    }

    fn try_seed(&self, scopes: &[Scope]) -> Result<Option<SeedReport>, Error> {
        let own_store = self.ws.store_dir();
        if Store::exists(own_store) || Store::classify(own_store).0 != StoreState::NotIndexed {
            return Ok(None);
        }
        let Some(git) = self.ws.git() else { return Ok(None) };
        let own = self.ws.root().to_owned();
        let Some(registry) = registry::Registry::load().ok().filter(|r| r.is_registered(&own)) else {
            return Ok(None);
        };
        let repo = git.local();
        let mut trees = Vec::new();
        for scope in scopes {
            let resolved = match scope {
                Scope::Worktree => repo.head().ok().flatten(),
                Scope::Ref(name) => repo.resolve(name).ok(),
            };
            if let Some(r) = resolved
                && !trees.contains(&r.tree_id)
            {
                trees.push(r.tree_id);
            }
        }
        let mut wanted = Vec::new();
        for tree in trees {
            wanted.extend(
                repo.list_tree(tree)
                    .map_err(crate::indexer::IndexError::from)?
                    .into_iter()
                    .map(|f| (f.path, f.blob_id)),
            );
        }
        let donors = registry::donors(&registry, &own, own_store);
        if donors.is_empty() {
            return Ok(None);
        }
        Ok(crate::indexer::seed(&self.ws, &donors, &wanted)?)
    }
}
