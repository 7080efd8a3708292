//! `watch`: file-system events (notify), debounced, keep this worktree's views in sync.
//!
//! One watcher per worktree, guarded by a lock file; its state (pid, last sync, last event)
//! is kept in a small JSON file in the store so `watch --status` can report the lag.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use serde::{Deserialize, Serialize};

use super::{Engine, Error};
use crate::error::ErrorCode;
use crate::store;

/// Events closer together than this are one change.
const DEBOUNCE: Duration = Duration::from_millis(300);
/// A sync starts at the latest this long after the first change of a burst.
const MAX_DEBOUNCE: Duration = Duration::from_secs(2);
/// A watcher started by a query exits after this long without one
/// (`CODECOMPASS_WATCH_IDLE_SECS` overrides).
const IDLE_EXIT: Duration = Duration::from_secs(30 * 60);
/// Under `codecompass.watch auto`, a worktree whose git index file is larger than this (about
/// 10,000 files) gets a watcher from its first query: its status walk costs more than keeping
/// one.
const AUTO_INDEX_BYTES: u64 = 1 << 20;

/// When a query starts a watcher (`codecompass.watch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchPolicy {
    /// For a large worktree (the default).
    Auto,
    /// For every worktree.
    Always,
    /// Never: only `watch` starts one.
    Never,
}

impl WatchPolicy {
    /// The policy `codecompass.watch` asks for.
    pub fn configured(engine: &Engine) -> WatchPolicy {
        match engine.workspace().git().and_then(|g| g.local().config_string("codecompass.watch")).as_deref() {
            Some("always") => WatchPolicy::Always,
            Some("never") => WatchPolicy::Never,
            _ => WatchPolicy::Auto,
        }
    }
}

/// How long a watcher started by a query waits for the next one before it exits.
fn idle_exit() -> Duration {
    std::env::var("CODECOMPASS_WATCH_IDLE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(IDLE_EXIT, Duration::from_secs)
}

fn used_path(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(format!("watch-{}.used", id_of(engine)))
}

/// What `watch --status` reports.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WatchState {
    /// Whether a watcher is running for this worktree now.
    pub running: bool,
    /// Its pid.
    pub pid: Option<u32>,
    /// The worktree watched.
    pub worktree: String,
    /// When it started (Unix seconds).
    pub started_at: Option<i64>,
    /// When the last sync finished.
    pub last_sync_at: Option<i64>,
    /// How long it took.
    pub last_sync_ms: Option<u64>,
    /// When the last event arrived.
    pub last_event_at: Option<i64>,
    /// Seconds between the last event and the sync that covered it (0 when current).
    pub lag_seconds: Option<i64>,
    /// Syncs run.
    pub syncs: u64,
    /// Relevant change events seen.
    #[serde(default)]
    pub events: u64,
    /// The value of `events` when the last successful sync started: when equal to `events`,
    /// every change seen is in the views.
    #[serde(default)]
    pub synced_events: u64,
    /// The last sync's error, if it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

fn id_of(engine: &Engine) -> String {
    engine.workspace().worktree_view_key().replace(':', "-")
}

fn state_path(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(format!("watch-{}.json", id_of(engine)))
}

fn lock_path(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(format!("watch-{}.lock", id_of(engine)))
}

fn save(path: &Path, state: &WatchState) {
    let tmp = path.with_extension("json.tmp");
    if std::fs::write(&tmp, serde_json::to_vec_pretty(state).unwrap_or_default()).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

fn io(e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, e.to_string())
}

fn pid_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether an event path is worth a sync: changes inside the store, and git's object
/// database and logs, are not; changes to `HEAD`, the index and refs are (checkouts, commits).
fn relevant(path: &Path, root: &Path, store_dir: &Path) -> bool {
    if path.starts_with(store_dir) {
        return false;
    }
    let Ok(relative) = path.strip_prefix(root) else { return true };
    let mut components = relative.components();
    match components.next().and_then(|c| c.as_os_str().to_str()) {
        Some(".git") => {
            let rest: PathBuf = components.collect();
            let first = rest.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or("");
            !matches!(first, "objects" | "logs" | "codecompass" | "hooks") && !rest.ends_with("index.lock")
        }
        _ => true,
    }
}

impl Engine {
    /// The watcher's state for this worktree.
    pub fn watch_status(&self) -> WatchState {
        let mut state: WatchState =
            std::fs::read(state_path(self)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        state.worktree = self.workspace().root().to_string_lossy().into_owned();
        state.running = state.pid.is_some_and(pid_alive) && is_locked(&lock_path(self));
        if !state.running {
            state.pid = None;
        }
        state.lag_seconds = match (state.last_event_at, state.last_sync_at) {
            (Some(event), Some(sync)) if event > sync => Some(store::now() - event),
            (Some(_), Some(_)) => Some(0),
            _ => None,
        };
        state
    }

    /// Whether a running watcher vouches that this worktree's view holds every change it saw:
    /// its last sync succeeded and no change arrived since that sync started. Queries then
    /// skip the status walk. A change written in the instant before its event is read by
    /// the watcher is the one thing this can miss.
    pub(crate) fn watcher_vouches(&self) -> bool {
        let state = self.watch_status();
        if state.running {
            // A query keeps a watcher started on demand alive.
            let _ = File::create(used_path(self));
        }
        state.running && state.last_error.is_none() && state.syncs > 0 && state.synced_events == state.events
    }

    /// Starts a watcher for this worktree when `codecompass.watch` asks for one and none runs:
    /// the first query of a large worktree (or of any, with `always`) pays its status walk
    /// once; later ones find the watcher vouching and skip it. It exits after a while without
    /// queries. Never fails the query: a watcher that cannot start is simply not there.
    pub(crate) fn watch_on_demand(&self) {
        let policy = WatchPolicy::configured(self);
        let ws = self.workspace();
        let Some(repo) = ws.git() else { return };
        if policy == WatchPolicy::Never || !ws.has_worktree() {
            return;
        }
        // One stat decides for most queries (a small worktree under `auto`), before the
        // watcher's state is read.
        let index_bytes = std::fs::metadata(repo.git_dir().join("index")).map_or(0, |m| m.len());
        if policy == WatchPolicy::Auto && index_bytes <= AUTO_INDEX_BYTES || self.watch_status().running {
            return;
        }
        let idle = idle_exit().as_secs().to_string();
        if self.spawn_detached(&["watch", "--quiet", "--idle-exit", &idle]).is_ok() {
            crate::progress::note("started a watcher for this worktree (codecompass.watch); it exits when idle");
        }
    }

    /// Starts a watcher in a detached process.
    pub fn watch_background(&self) -> Result<WatchState, Error> {
        let status = self.watch_status();
        if status.running {
            return Ok(status);
        }
        self.spawn_detached(&["watch", "--quiet"]).map_err(io)?;
        // Wait briefly for it to take its lock, so the status answers truthfully.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            let status = self.watch_status();
            if status.running {
                return Ok(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(self.watch_status())
    }

    /// Stops this worktree's watcher, if one runs.
    pub fn watch_stop(&self) -> Result<WatchState, Error> {
        let status = self.watch_status();
        if let (true, Some(pid)) = (status.running, status.pid) {
            // Only a process that is our own watcher is signalled.
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let text = String::from_utf8_lossy(&cmdline);
            if text.contains("codecompass") && text.contains("watch") {
                // SAFETY: kill(2) with a pid read from our own state file and checked above to
                // be a codecompass watcher; it has no memory-safety preconditions.
                unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGTERM);
                }
                let deadline = Instant::now() + Duration::from_secs(5);
                while pid_alive(pid) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
        Ok(self.watch_status())
    }

    /// Watches in the foreground: a full sync first, then one per debounced burst of events.
    /// Returns when the process is told to stop, or, with `idle`, when no query has come for
    /// that long.
    pub fn watch_foreground(&self, idle: Option<Duration>) -> Result<(), Error> {
        let dir = self.workspace().store_dir().to_owned();
        std::fs::create_dir_all(&dir).map_err(io)?;
        let lock = OpenOptions::new().create(true).truncate(false).write(true).open(lock_path(self)).map_err(io)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let pid = self.watch_status().pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
                return Err(Error::new(ErrorCode::StoreBusy, format!("a watcher already runs for this worktree{pid}"))
                    .with_remedy("stop it with `git codecompass watch --stop`"));
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        let path = state_path(self);
        let mut state = WatchState {
            running: true,
            pid: Some(std::process::id()),
            worktree: self.workspace().root().to_string_lossy().into_owned(),
            started_at: Some(store::now()),
            ..WatchState::default()
        };
        let run_sync = |state: &mut WatchState| {
            let started = Instant::now();
            let covered = state.events;
            match self.sync(false) {
                Ok(_) => {
                    state.last_error = None;
                    state.synced_events = covered;
                }
                Err(e) => state.last_error = Some(e.to_string()),
            }
            state.syncs += 1;
            state.last_sync_at = Some(store::now());
            state.last_sync_ms = Some(started.elapsed().as_millis() as u64);
            save(&path, state);
        };
        let (tx, rx) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            // Reads (our own syncs read HEAD and the index) are not changes.
            if let Ok(event) = event
                && !matches!(event.kind, notify::EventKind::Access(_))
            {
                let _ = tx.send(event);
            }
        })
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot watch files: {e}")))?;
        let root = self.workspace().root().to_owned();
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot watch {}: {e}", root.display())))?;
        // Watching starts before the first sync, so nothing changed during it is missed; only
        // then does the watcher say it runs.
        save(&path, &state);
        run_sync(&mut state);
        let stop = stop_flag();
        let started = std::time::SystemTime::now();
        let used = used_path(self);
        loop {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            if let Some(idle) = idle {
                let last_use = std::fs::metadata(&used).and_then(|m| m.modified()).unwrap_or(started).max(started);
                if last_use.elapsed().unwrap_or_default() > idle {
                    super::sync::log_line(&dir, "watch: idle, exiting");
                    break;
                }
            }
            let Ok(first) = rx.recv_timeout(Duration::from_millis(500)) else { continue };
            let Some(changed) = first.paths.iter().find(|p| relevant(p, &root, &dir)) else { continue };
            super::sync::log_line(&dir, &format!("watch: change in {}", changed.display()));
            state.last_event_at = Some(store::now());
            state.events += 1;
            save(&path, &state);
            // Debounce: wait until relevant changes pause, but never longer than a bound, so a
            // steady trickle cannot starve the sync.
            let burst_started = Instant::now();
            let mut quiet_since = Instant::now();
            while burst_started.elapsed() < MAX_DEBOUNCE && quiet_since.elapsed() < DEBOUNCE {
                if let Ok(event) = rx.recv_timeout(DEBOUNCE.saturating_sub(quiet_since.elapsed()))
                    && event.paths.iter().any(|p| relevant(p, &root, &dir))
                {
                    quiet_since = Instant::now();
                    state.events += 1;
                    save(&path, &state);
                }
            }
            run_sync(&mut state);
        }
        state.running = false;
        state.pid = None;
        save(&path, &state);
        drop(lock);
        Ok(())
    }
}

fn is_locked(path: &Path) -> bool {
    match File::open(path) {
        Ok(file) => match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(_) => true,
        },
        Err(_) => false,
    }
}

/// A flag set by SIGTERM or SIGINT.
fn stop_flag() -> &'static std::sync::atomic::AtomicBool {
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    extern "C" fn on_signal(_: libc::c_int) {
        STOP.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
    }
    &STOP
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_relevant_paths_trigger_a_sync() {
        let root = Path::new("/r");
        let store = Path::new("/r/.git/codecompass");
        assert!(relevant(Path::new("/r/src/a.rs"), root, store));
        assert!(relevant(Path::new("/r/.git/HEAD"), root, store));
        assert!(relevant(Path::new("/r/.git/refs/heads/main"), root, store));
        assert!(!relevant(Path::new("/r/.git/objects/ab/cd"), root, store));
        assert!(!relevant(Path::new("/r/.git/codecompass/store.sqlite"), root, store));
        assert!(!relevant(Path::new("/r/.git/index.lock"), root, store));
    }
}
