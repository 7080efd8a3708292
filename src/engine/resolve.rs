//! Resolving a scope to a view: checking whether its view is current (a rev-parse for a ref,
//! a status walk or a running watcher's word for a working tree), and building or refreshing
//! it first when a query needs it so.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Engine, Error, ErrorCode, Freshness, ResolvedScope};
use crate::git::ObjectId;
use crate::indexer::{self, IndexOptions};
use crate::store::{Store, ViewRow};
use crate::view::{self, Scope};

/// What checking whether a view is current found.
enum Checked {
    /// The view answers as it is.
    Current(ResolvedScope),
    /// It must be (re)built; for a working tree, with the state the check walked for.
    Stale(Option<Walked>),
}

/// A working tree's state found by a walk, and the worktree view as it was before.
struct Walked {
    state: indexer::WorktreeState,
    seen: Published,
}

/// What tells one publish of a view from another.
#[derive(PartialEq)]
struct Published {
    fingerprint: Option<String>,
    tree: Option<ObjectId>,
    updated_at: i64,
}

impl Published {
    fn of(view: &ViewRow) -> Published {
        Published { fingerprint: view.fingerprint.clone(), tree: view.tree, updated_at: view.updated_at }
    }
}

/// The walk of a working tree a query needs, started on its own thread as the query begins,
/// while the store is opened and the view looked up: unless a running watcher answers for the
/// tree, every outcome of the check needs it. Started after the query was asked, it vouches
/// for freshness as the walk on the query's own thread did. Without one, the walk runs where
/// it is needed.
struct WalkAhead<'scope>(
    Option<std::thread::ScopedJoinHandle<'scope, Result<indexer::WorktreeState, indexer::IndexError>>>,
);

impl WalkAhead<'_> {
    /// Whether a walk was started ahead: no watcher ran when the query began (so there is
    /// none to ask), and the walk, started after the query was asked, vouches alone.
    fn started(&self) -> bool {
        self.0.is_some()
    }

    /// The state of the working tree: the walk started ahead, or one made now.
    fn state(&mut self, ws: &view::Workspace) -> Result<indexer::WorktreeState, Error> {
        let state = match self.0.take() {
            Some(walk) => walk.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => indexer::worktree_state(ws),
        };
        Ok(state?)
    }
}

impl Engine {
    /// Resolves `scope` to a view, building or refreshing it first under `Strict`. A working
    /// tree's query may then start a watcher (`codecompass.watch`), so later ones skip the walk.
    pub fn resolve(&self, scope: &Scope, freshness: Freshness) -> Result<(Store, ResolvedScope), Error> {
        let resolved = std::thread::scope(|threads| {
            let ahead = self.walks_ahead(scope, freshness).then(|| threads.spawn(|| indexer::worktree_state(&self.ws)));
            self.resolve_view(scope, freshness, &mut WalkAhead(ahead), &mut |_| {})
        });
        self.then_watch(scope, resolved)
    }

    /// `resolved`, after a working tree's view was resolved starting its watcher on demand.
    fn then_watch<T>(&self, scope: &Scope, resolved: Result<T, Error>) -> Result<T, Error> {
        if *scope == Scope::Worktree && resolved.is_ok() {
            self.watch_on_demand();
        }
        resolved
    }

    /// Whether resolving `scope` walks the working tree on a thread of its own, started before
    /// the store is opened: a working tree's view checked (not `best_effort`) in an existing
    /// store, with no watcher running to answer for it, on a thread that may start helpers.
    fn walks_ahead(&self, scope: &Scope, freshness: Freshness) -> bool {
        super::across::helper_threads()
            && *scope == Scope::Worktree
            && freshness != Freshness::BestEffort
            && self.ws.git().is_some()
            && self.ws.has_worktree()
            && Store::exists(self.ws.store_dir())
            && !self.watch_status().running
    }

    /// The view of `scope` under `freshness`; `opened` sees the store once it is open, before
    /// the view is checked.
    fn resolve_view(
        &self,
        scope: &Scope,
        freshness: Freshness,
        walk: &mut WalkAhead<'_>,
        opened: &mut dyn FnMut(&Store),
    ) -> Result<(Store, ResolvedScope), Error> {
        if !Store::exists(self.ws.store_dir()) || freshness == Freshness::Strict {
            let (store, _) = self.open_or_seed_store(std::slice::from_ref(scope))?;
            opened(&store);
            let resolved = self.refresh_or_last(&store, scope, walk)?;
            return Ok((store, resolved));
        }
        let store = self.open_store(false)?;
        opened(&store);
        let resolved = match scope {
            // `best_effort` pays no walk of the working tree: the last view answers, said to
            // be stale, unless a running watcher answers for it.
            Scope::Worktree if freshness == Freshness::BestEffort => match self.watched_worktree(&store)? {
                Some(resolved) => resolved,
                None => self.last_view(&store, scope)?,
            },
            _ => self.resolve_existing(&store, scope, walk)?,
        };
        Ok((store, resolved))
    }

    /// [`Engine::refresh`]; with files moving under the walk (a checkout running), the last
    /// indexed state of the working tree answers, said to be stale.
    fn refresh_or_last(&self, store: &Store, scope: &Scope, walk: &mut WalkAhead<'_>) -> Result<ResolvedScope, Error> {
        match self.refresh(store, scope, walk) {
            Err(e) if e.code == ErrorCode::WorktreeChanging => match self.last_view(store, scope) {
                Ok(resolved) => {
                    crate::progress::note(&format!("{}; answering from the last indexed state", e.message));
                    Ok(resolved)
                }
                Err(_) => Err(e),
            },
            result => result,
        }
    }

    /// [`Engine::resolve`], with the query's `answer` computed from a view. For a working tree
    /// that is walked, `answer` first runs (told it runs early) on the view as last published,
    /// while the walk checks it (stop 35: a one-shot search then costs the longer of the two,
    /// not their sum); when the view resolved is that one, unchanged, that answer is the one
    /// the resolved view gives, and it stands. Otherwise, or when the early run fails or
    /// declines (an error), `answer` runs on the view resolved. An early answer is never
    /// shown before the view it came from is known current (or, outside `strict`, known to be
    /// the last one): `fresh` is said exactly as without it.
    pub(super) fn resolve_answering<T>(
        &self,
        scope: &Scope,
        freshness: Freshness,
        mut answer: impl FnMut(&Store, &ViewRow, bool) -> Result<T, Error>,
    ) -> Result<(Store, ResolvedScope, T), Error> {
        if !self.walks_ahead(scope, freshness) {
            let resolved = self.resolve_view(scope, freshness, &mut WalkAhead(None), &mut |_| {});
            let (store, resolved) = self.then_watch(scope, resolved)?;
            let answered = answer(&store, &resolved.view, false)?;
            return Ok((store, resolved, answered));
        }
        let walked = AtomicBool::new(false);
        let answered = std::thread::scope(|threads| -> Result<_, Error> {
            let mut walk = WalkAhead(Some(threads.spawn(|| {
                let state = indexer::worktree_state(&self.ws);
                walked.store(true, Ordering::Release);
                state
            })));
            let mut early = None;
            let (store, resolved) = self.resolve_view(scope, freshness, &mut walk, &mut |store| {
                // A walk already done leaves an early answer nothing to overlap: the check
                // follows at once, and a view it finds stale is brought up to date sooner
                // (its early answer would have been thrown away).
                if walked.load(Ordering::Acquire) {
                    return;
                }
                if let Ok(Some(view)) = store.view(&self.ws.worktree_view_key()) {
                    early = answer(store, &view, true).ok().map(|answered| (view, answered));
                }
            })?;
            let answered = match early {
                Some((view, answered))
                    if view.id == resolved.view.id
                        && Published::of(&view) == Published::of(&resolved.view)
                        && view.bitmap == resolved.view.bitmap =>
                {
                    answered
                }
                _ => answer(&store, &resolved.view, false)?,
            };
            Ok((store, resolved, answered))
        });
        self.then_watch(scope, answered)
    }

    /// The view of `scope`, brought up to date first.
    fn refresh(&self, store: &Store, scope: &Scope, walk: &mut WalkAhead<'_>) -> Result<ResolvedScope, Error> {
        // Most queries find their view current; checking needs no lock.
        let walked = match self.check_view(store, scope, walk)? {
            Checked::Current(resolved) => return Ok(resolved),
            Checked::Stale(walked) => walked,
        };
        if let Some(Walked { state, .. }) = &walked {
            state.compile_ahead();
        }
        crate::failpoint::hit("query.after_check");
        let report = {
            let indexer = self.indexer(store, IndexOptions::default())?;
            // The state the check walked the tree for is indexed, so a query walks once, unless
            // another process published the view between the check and the lock: its state may
            // be newer than ours, so the tree is walked again.
            let state = match walked {
                Some(Walked { state, seen })
                    if store.view(&self.ws.worktree_view_key())?.as_ref().map(Published::of).as_ref()
                        == Some(&seen) =>
                {
                    Some(state)
                }
                _ => None,
            };
            let report = indexer.index_with(scope, state)?;
            indexer.finish()?;
            report
        };
        let view = store
            .view(&report.view_key)?
            .ok_or_else(|| Error::new(ErrorCode::Internal, "a view just published is missing"))?;
        Ok(ResolvedScope { name: self.ws.scope_name(scope), commit: report.commit, view, fresh: true, syncing: false })
    }

    /// The worktree view, when a running watcher answers for it: asked to sync now, it has
    /// brought every change made before the query into the view.
    fn watched_worktree(&self, store: &Store) -> Result<Option<ResolvedScope>, Error> {
        if self.watcher_flush() { self.worktree_as_indexed(store) } else { Ok(None) }
    }

    /// The worktree view as last published, said to be fresh: for a caller that knows it is.
    fn worktree_as_indexed(&self, store: &Store) -> Result<Option<ResolvedScope>, Error> {
        let key = self.ws.worktree_view_key();
        let (Some(view), Some(row)) = (store.view(&key)?, store.ref_row(&key)?) else {
            return Ok(None);
        };
        let name = self.ws.scope_name(&Scope::Worktree);
        Ok(Some(ResolvedScope { name, commit: row.commit, view, fresh: true, syncing: false }))
    }

    /// The view of `scope` if it is current, without writing anything.
    fn current_view(
        &self,
        store: &Store,
        scope: &Scope,
        walk: &mut WalkAhead<'_>,
    ) -> Result<Option<ResolvedScope>, Error> {
        Ok(match self.check_view(store, scope, walk)? {
            Checked::Current(resolved) => Some(resolved),
            Checked::Stale(_) => None,
        })
    }

    /// Whether the view of `scope` is current, without writing anything; for a working tree
    /// found stale, the state its walk found.
    fn check_view(&self, store: &Store, scope: &Scope, walk: &mut WalkAhead<'_>) -> Result<Checked, Error> {
        let name = self.ws.scope_name(scope);
        match (scope, self.ws.git()) {
            (Scope::Worktree, Some(repo)) if self.ws.has_worktree() => {
                if !walk.started()
                    && let Some(resolved) = self.watched_worktree(store)?
                {
                    return Ok(Checked::Current(resolved));
                }
                // After a checkout HEAD's tree is not the view's: stale whatever the walk would
                // find, so the indexer walks, beside deriving the new HEAD's tree view.
                let Some(view) = store.view(&self.ws.worktree_view_key())? else {
                    return Ok(Checked::Stale(None));
                };
                let trees = self.ws.store_dir().join(crate::indexer::HEAD_TREES);
                if repo.local().head_remembered(&trees).is_ok_and(|head| head.map(|h| h.tree_id) != view.tree) {
                    return Ok(Checked::Stale(None));
                }
                let state = walk.state(&self.ws)?;
                let fresh = view.fingerprint.as_deref() == Some(state.fingerprint.as_str())
                    && view.tree == state.head.map(|h| h.tree_id)
                    && !indexer::gaps_filled(store, &repo.local(), &view, false)?
                    && (view.missing == 0 || !self.ws.fetch_missing());
                if !fresh {
                    return Ok(Checked::Stale(Some(Walked { state, seen: Published::of(&view) })));
                }
                let commit = state.head.map(|h| h.commit_id);
                Ok(Checked::Current(ResolvedScope { name, commit, view, fresh, syncing: false }))
            }
            (Scope::Worktree, None) => Ok(Checked::Stale(None)),
            (_, Some(repo)) => {
                let spec = match scope {
                    Scope::Ref(r) => r.as_str(),
                    Scope::Worktree => "HEAD",
                };
                let resolved = view::resolve_ref(&repo.local(), spec)?;
                let Some(view) = store.view(&view::tree_view_key(resolved.target.tree_id))? else {
                    return Ok(Checked::Stale(None));
                };
                // Built under another size limit or extractor: its records are not the ones
                // asked for; the indexer re-derives it.
                if view.fingerprint.as_deref() != Some(indexer::derivation(self.ws.max_file_size()).as_str())
                    || indexer::gaps_filled(store, &repo.local(), &view, false)?
                    || (view.missing > 0 && self.ws.fetch_missing())
                {
                    return Ok(Checked::Stale(None));
                }
                let recorded = store.ref_row(&resolved.name)?;
                if recorded.is_none_or(|r| r.commit != Some(resolved.target.commit_id)) {
                    // The view exists but the name is not recorded against this commit: let
                    // the indexer record it (cheap: nothing to parse).
                    return Ok(Checked::Stale(None));
                }
                Ok(Checked::Current(ResolvedScope {
                    name,
                    commit: Some(resolved.target.commit_id),
                    view,
                    fresh: true,
                    syncing: false,
                }))
            }
            (Scope::Ref(_), None) => Err(Error::new(
                ErrorCode::NotARepository,
                format!("{} is not a git repository, so `--ref` cannot be used there", self.ws.root().display()),
            )),
        }
    }

    /// The last published view of `scope`, current or not.
    fn resolve_existing(&self, store: &Store, scope: &Scope, walk: &mut WalkAhead<'_>) -> Result<ResolvedScope, Error> {
        // Whether the view is current is checked (a rev-parse for a ref, a status walk for a
        // working tree), so the answer says `fresh` exactly when it is.
        if let Some(current) = self.current_view(store, scope, walk)? {
            return Ok(current);
        }
        self.last_view(store, scope)
    }

    /// The view `scope` was last indexed as, not checked against what it is now.
    fn last_view(&self, store: &Store, scope: &Scope) -> Result<ResolvedScope, Error> {
        let name = self.ws.scope_name(scope);
        let row = match scope {
            Scope::Worktree => store.ref_row(&self.ws.worktree_ref_name())?,
            Scope::Ref(r) => {
                let full = self.ws.git().and_then(|g| view::resolve_ref(&g.local(), r).ok()).map(|r| r.name);
                store.ref_row(full.as_deref().unwrap_or(r))?
            }
        };
        let row = row.ok_or_else(|| {
            Error::new(ErrorCode::NotIndexed, format!("`{name}` is not indexed yet")).with_remedy(match scope {
                Scope::Worktree => "run `git codecompass index`".to_owned(),
                Scope::Ref(r) => format!("run `git codecompass index --ref {r}`"),
            })
        })?;
        let view = store
            .view_by_id(row.view)?
            .ok_or_else(|| Error::new(ErrorCode::Internal, "a ref points to a missing view"))?;
        Ok(ResolvedScope { name, commit: row.commit, view, fresh: false, syncing: false })
    }
}
