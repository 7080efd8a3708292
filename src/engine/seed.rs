//! A registered repository's first index seeded from another registered repository's store
//! (see `indexer::seed`).

use super::{Engine, Error, registry};
use crate::indexer::SeedReport;
use crate::store::Store;
use crate::view::Scope;

impl Engine {
    /// Opens this workspace's store for writing, making it when missing: every build that
    /// may create the store (an `index`, a query's) opens it here. A missing store of a
    /// registered repository is first seeded from another registered store that holds most
    /// of the files of `scopes`' trees (a fork, a second clone); seeding that fails is said,
    /// and the store is then made empty, as it would have been.
    pub(super) fn open_or_seed_store(&self, scopes: &[Scope]) -> Result<(Store, Option<SeedReport>), Error> {
        let mut seeded = None;
        if !Store::exists(self.ws.store_dir()) {
            seeded = self.seed(scopes).unwrap_or_else(|e| {
                crate::progress::note(&format!("warning: the index was not seeded from another repository's: {e}"));
                None
            });
        }
        Ok((self.open_store(true)?, seeded))
    }

    fn seed(&self, scopes: &[Scope]) -> Result<Option<SeedReport>, Error> {
        let own_store = self.ws.store_dir();
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
