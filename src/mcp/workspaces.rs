//! The workspaces an MCP server answers for, and their background indexing.
//!
//! Workspaces are registered at start (`--workspace`, default: the repository of the working
//! directory); with `--auto-workspace`, requests may add more, but only under an
//! `--allowed-root`, after resolving symlinks. Each workspace has one engine and one record of
//! its background index (phase, progress, errors), which `index_status` and `/health` report.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use serde::Serialize;

use crate::engine::{Engine, EngineOptions, Error};
use crate::error::ErrorCode;

/// The progress of a workspace's background index.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct IndexProgress {
    /// `idle`, `warming` (the start-up index), `indexing` or `failed`.
    pub state: String,
    /// What it is doing (`listing files`, `parsing`).
    pub phase: String,
    /// Steps done in this phase.
    pub done: u64,
    /// Steps in this phase.
    pub total: u64,
    /// When the current or last run started (Unix seconds).
    pub started_at: Option<i64>,
    /// When the last run finished.
    pub finished_at: Option<i64>,
    /// The last run's error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// One registered workspace.
pub struct Workspace {
    /// Its engine.
    pub engine: Arc<Engine>,
    /// Its root, canonical.
    pub root: PathBuf,
    /// Its background index.
    pub progress: Mutex<IndexProgress>,
}

impl Workspace {
    /// Whether a background index is running.
    pub fn busy(&self) -> bool {
        let p = self.progress.lock().expect("progress lock is never poisoned because updates do not panic");
        p.state == "indexing" || p.state == "warming"
    }

    /// Records progress.
    pub fn update(&self, f: impl FnOnce(&mut IndexProgress)) {
        if let Ok(mut p) = self.progress.lock() {
            f(&mut p);
        }
    }

    /// A copy of the progress.
    pub fn snapshot(&self) -> IndexProgress {
        self.progress.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

/// How workspaces may be added.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Accept workspaces named by requests (under the allowed roots).
    pub auto: bool,
    /// Where auto workspaces may be, canonical.
    pub allowed_roots: Vec<PathBuf>,
    /// Index store override (tests).
    pub store: Option<PathBuf>,
    /// What is allowed for workspaces that are not repositories.
    pub live: crate::view::live::LiveOptIn,
}

/// The registered workspaces.
pub struct Registry {
    by_root: RwLock<HashMap<PathBuf, Arc<Workspace>>>,
    default: Option<PathBuf>,
    policy: Policy,
}

impl Registry {
    /// A registry with `paths` registered; the first is the default.
    pub fn new(paths: &[PathBuf], policy: Policy) -> Result<Registry, Error> {
        let registry = Registry { by_root: RwLock::new(HashMap::new()), default: None, policy };
        let mut default = None;
        for path in paths {
            let ws = registry.add(path)?;
            default.get_or_insert(ws.root.clone());
        }
        Ok(Registry { default, ..registry })
    }

    fn add(&self, path: &Path) -> Result<Arc<Workspace>, Error> {
        let engine =
            Engine::open(path, &EngineOptions { store_dir: self.policy.store.clone(), live: self.policy.live })?;
        let root = engine.workspace().root().to_owned();
        let mut map = self.by_root.write().expect("the registry lock is never poisoned because inserts do not panic");
        if let Some(existing) = map.get(&root) {
            return Ok(existing.clone());
        }
        let ws = Arc::new(Workspace {
            engine: Arc::new(engine),
            root: root.clone(),
            progress: Mutex::new(IndexProgress { state: "idle".into(), ..IndexProgress::default() }),
        });
        map.insert(root, ws.clone());
        Ok(ws)
    }

    /// Every registered workspace.
    pub fn all(&self) -> Vec<Arc<Workspace>> {
        let map = self.by_root.read().expect("the registry lock is never poisoned because inserts do not panic");
        let mut all: Vec<_> = map.values().cloned().collect();
        all.sort_by(|a, b| a.root.cmp(&b.root));
        all
    }

    /// The workspace a request names (or the default), checked against the policy.
    pub fn get(&self, requested: Option<&str>) -> Result<Arc<Workspace>, Error> {
        let Some(requested) = requested.filter(|r| !r.trim().is_empty()) else {
            let root = self.default.as_ref().ok_or_else(|| {
                Error::new(ErrorCode::WorkspaceNotRegistered, "no default workspace is registered")
                    .with_remedy("pass `workspace`, or start the server with --workspace PATH")
            })?;
            return self
                .registered(root)
                .ok_or_else(|| Error::new(ErrorCode::Internal, "the default workspace vanished"));
        };
        let canonical = std::fs::canonicalize(requested).map_err(|_| {
            Error::new(ErrorCode::WorkspaceNotRegistered, format!("workspace `{requested}` does not exist"))
        })?;
        // A path inside a registered workspace is that workspace.
        let map = self.by_root.read().expect("the registry lock is never poisoned because inserts do not panic");
        if let Some(ws) = map.iter().find(|(root, _)| canonical.starts_with(root)).map(|(_, ws)| ws.clone()) {
            return Ok(ws);
        }
        drop(map);
        if !self.policy.auto {
            return Err(Error::new(
                ErrorCode::WorkspaceNotRegistered,
                format!("workspace `{requested}` is not registered"),
            )
            .with_remedy("start the server with --workspace for it, or with --auto-workspace --allowed-root"));
        }
        if !self.policy.allowed_roots.iter().any(|root| canonical.starts_with(root)) {
            return Err(Error::new(
                ErrorCode::WorkspaceNotAllowed,
                format!("workspace `{requested}` is outside the allowed roots"),
            )
            .with_remedy("only workspaces under an --allowed-root can be added"));
        }
        self.add(&canonical)
    }

    /// The default workspace's root.
    pub fn default_root(&self) -> Option<PathBuf> {
        self.default.clone()
    }

    fn registered(&self, root: &Path) -> Option<Arc<Workspace>> {
        self.by_root.read().ok()?.get(root).cloned()
    }
}
