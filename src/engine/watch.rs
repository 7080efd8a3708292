//! `watch`: file-system events (notify), debounced, keep this worktree's views in sync.
//!
//! One watcher per worktree, guarded by a lock file; its state (pid, last sync, last event)
//! is kept in a small JSON file in the store so `watch --status` can report the lag.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gix::bstr::BString;
use notify::{RecursiveMode, Watcher};
use serde::{Deserialize, Serialize};

use super::{Engine, Error};
use crate::error::ErrorCode;
use crate::indexer::{self, WorktreeMemory};
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
/// How long a query waits for a watcher asked to sync now before it checks the tree itself. A
/// watcher in a long sync (after a large checkout) answers later, but a query that walks the
/// tree itself then waits for that sync anyway (the index is written by one process at a
/// time), so a short wait costs nothing there and bounds what a stopped watcher costs.
const FLUSH_WAIT: Duration = Duration::from_secs(3);

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
    /// Whether the last sync rechecked only the paths its events named (no walk of the tree).
    #[serde(default)]
    pub last_sync_rechecked: Option<usize>,
    /// Whether this watcher answers requests to sync now (a watcher of an older build does
    /// not, and is stopped by the next query).
    #[serde(default)]
    pub answers_flush: bool,
    /// The derivation (extractor versions, size limit) it builds views under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub derivation: Option<String>,
    /// When (Unix nanoseconds) the watcher read the last request to sync now; every change
    /// made before that request is in the views once this is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushed_ns: Option<u64>,
}

fn id_of(engine: &Engine) -> String {
    engine.workspace().worktree_view_key().replace(':', "-")
}

fn state_path(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(format!("watch-{}.json", id_of(engine)))
}

fn flush_path(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(format!("watch-{}.flush", id_of(engine)))
}

fn lock_path(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(format!("watch-{}.lock", id_of(engine)))
}

fn save(path: &Path, state: &WatchState) {
    let _ = crate::replace::replace(path, &serde_json::to_vec_pretty(state).unwrap_or_default());
}

fn io(e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, e.to_string())
}

fn pid_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// What the watcher makes of one event path.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    /// Nothing a view depends on: the store, git's objects and logs, reads.
    Irrelevant,
    /// A file of the working tree (relative path): rechecked by the next sync.
    Path(BString),
    /// `HEAD`, the index, a ref: reread by every sync anyway.
    Git,
    /// What only a walk of the whole tree accounts for: an ignore or attributes file, git's
    /// configuration or exclude file.
    Walk,
}

/// Where the watcher's events come from.
struct Places {
    root: PathBuf,
    git_dir: PathBuf,
    store_dir: PathBuf,
}

impl Places {
    fn classify(&self, path: &Path) -> Seen {
        if path.starts_with(&self.store_dir) {
            return Seen::Irrelevant;
        }
        if let Ok(rest) = path.strip_prefix(&self.git_dir) {
            let first = rest.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or("");
            return match first {
                "objects" | "logs" | "codecompass" | "hooks" => Seen::Irrelevant,
                _ if rest.ends_with("index.lock") => Seen::Irrelevant,
                "config" | "info" => Seen::Walk,
                _ => Seen::Git,
            };
        }
        let Ok(relative) = path.strip_prefix(&self.root) else { return Seen::Walk };
        let mut bytes = Vec::new();
        for (i, component) in relative.components().enumerate() {
            let name = component.as_os_str();
            if name == ".git" {
                // A linked worktree's `.git` file, or a nested repository's data.
                return if i == 0 { Seen::Git } else { Seen::Irrelevant };
            }
            if i > 0 {
                bytes.push(b'/');
            }
            bytes.extend_from_slice(name.as_encoded_bytes());
        }
        match relative.file_name().and_then(|n| n.to_str()) {
            Some(".gitignore" | ".gitattributes" | crate::view::ignore_rules::IGNORE_FILE) => Seen::Walk,
            _ if bytes.is_empty() => Seen::Walk,
            _ => Seen::Path(bytes.into()),
        }
    }
}

/// What the events since the last sync ask of the next one.
#[derive(Default)]
struct Pending {
    /// Worktree paths changed.
    paths: BTreeSet<BString>,
    /// A walk of the whole tree is needed.
    walk: bool,
    /// Something relevant was seen.
    any: bool,
}

impl Pending {
    /// Notes an event; whether it was relevant, and whether it was a request to sync now.
    fn note(&mut self, event: &notify::Result<notify::Event>, places: &Places, flush: &Path) -> (bool, bool) {
        let event = match event {
            Ok(event) => event,
            // An error may mean lost events.
            Err(_) => {
                self.walk = true;
                self.any = true;
                return (true, false);
            }
        };
        let mut relevant = false;
        let mut flushed = false;
        if event.need_rescan() {
            self.walk = true;
            relevant = true;
        }
        for path in &event.paths {
            if path == flush {
                flushed = true;
                continue;
            }
            match places.classify(path) {
                Seen::Irrelevant => {}
                Seen::Path(p) => {
                    self.paths.insert(p);
                    relevant = true;
                }
                Seen::Git => relevant = true,
                Seen::Walk => {
                    self.walk = true;
                    relevant = true;
                }
            }
        }
        self.any |= relevant;
        (relevant, flushed)
    }
}

fn now_ns() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
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

    /// Asks this worktree's running watcher to sync now and waits until it has: it reads its
    /// events in order and this request is one of them, so every change made before the call
    /// is then in the worktree view, including one whose event it had not read yet. `false`
    /// when no watcher runs, it did not sync within [`FLUSH_WAIT`], or its sync failed (the
    /// caller then checks the tree itself).
    ///
    /// A watcher of another build or configuration (an older one that answers no such
    /// requests, or one deriving views under another extractor or size limit) would keep
    /// re-deriving the views its own way: it is stopped, and the query's own
    /// `codecompass.watch` policy may start a current one.
    pub(crate) fn watcher_flush(&self) -> bool {
        let state = self.watch_status();
        if !state.running {
            return false;
        }
        let _ = File::create(used_path(self));
        let current = indexer::derivation(self.workspace().max_file_size());
        if !state.answers_flush || state.derivation.as_deref() != Some(current.as_str()) {
            crate::progress::note("stopping a watcher of another version or configuration");
            let _ = self.watch_stop();
            return false;
        }
        self.flush_running(&state)
    }

    fn flush_running(&self, state: &WatchState) -> bool {
        if state.syncs == 0 {
            return false;
        }
        let asked = now_ns();
        if std::fs::write(flush_path(self), asked.to_string()).is_err() {
            return false;
        }
        let path = state_path(self);
        let started = Instant::now();
        let mut pause = Duration::from_micros(500);
        while started.elapsed() < FLUSH_WAIT {
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
            let Some(now) = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice::<WatchState>(&b).ok())
            else {
                continue;
            };
            if now.flushed_ns.is_some_and(|t| t >= asked) {
                return now.last_error.is_none();
            }
            if !state.pid.is_some_and(pid_alive) {
                return false;
            }
        }
        false
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
        let pid = match (status.running, status.pid) {
            (true, Some(pid)) => Some(pid),
            // Not running yet by its state, but holding its lock: a watcher still starting.
            _ if is_locked(&lock_path(self)) => {
                std::fs::read_to_string(lock_path(self)).ok().and_then(|text| text.trim().parse::<u32>().ok())
            }
            _ => None,
        };
        if let Some(pid) = pid {
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

    /// Watches in the foreground: a sync with a walk of the tree first, then one per debounced
    /// burst of events, rechecking only the paths they name when it can. A request to sync now
    /// (see [`Engine::watcher_flush`]) ends the wait at once. Returns when the process is told
    /// to stop, or, with `idle`, when no query has come for that long.
    ///
    /// A watcher a query started (`idle`) keeps that query's store fresh and never makes one:
    /// when the store is gone by the time it starts or has set its watches up (removed right
    /// after the query, as a temporary directory is), it exits instead of indexing the whole
    /// tree into a new store.
    pub fn watch_foreground(&self, idle: Option<Duration>) -> Result<(), Error> {
        let dir = self.workspace().store_dir().to_owned();
        let store_gone = || idle.is_some() && !store::Store::exists(&dir);
        if store_gone() {
            return Ok(());
        }
        std::fs::create_dir_all(&dir).map_err(io)?;
        let mut lock = OpenOptions::new().create(true).truncate(false).write(true).open(lock_path(self)).map_err(io)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let pid = self.watch_status().pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
                return Err(Error::new(ErrorCode::StoreBusy, format!("a watcher already runs for this worktree{pid}"))
                    .with_remedy("stop it with `git codecompass watch --stop`"));
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        // The lock names its holder, for `watch --stop` to reach a watcher still starting (its
        // state says it runs only once its watches are set up).
        let _ = lock.set_len(0).and_then(|()| lock.write_all(std::process::id().to_string().as_bytes()));
        crate::failpoint::hit("watch.starting");
        let path = state_path(self);
        let mut state = WatchState {
            running: true,
            pid: Some(std::process::id()),
            worktree: self.workspace().root().to_string_lossy().into_owned(),
            started_at: Some(store::now()),
            answers_flush: true,
            derivation: Some(indexer::derivation(self.workspace().max_file_size())),
            ..WatchState::default()
        };
        let (tx, rx) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            // Reads (our own syncs read HEAD and the index) are not changes.
            if !matches!(&event, Ok(e) if matches!(e.kind, notify::EventKind::Access(_))) {
                let _ = tx.send(event);
            }
        })
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot watch files: {e}")))?;
        let root = self.workspace().root().to_owned();
        let places = Places {
            git_dir: self.workspace().git().map_or_else(|| root.join(".git"), |g| g.git_dir().to_owned()),
            store_dir: dir.clone(),
            root: root.clone(),
        };
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot watch {}: {e}", root.display())))?;
        // A linked worktree's `HEAD` and index, and a store kept elsewhere (where requests to
        // sync now arrive), lie outside the tree.
        for extra in [&places.git_dir, &places.store_dir] {
            if !extra.starts_with(&root) {
                watcher
                    .watch(extra, RecursiveMode::NonRecursive)
                    .map_err(|e| Error::new(ErrorCode::Io, format!("cannot watch {}: {e}", extra.display())))?;
            }
        }
        let flush = flush_path(self);
        // Watching starts before the first sync, so nothing changed during it is missed; only
        // then does the watcher say it runs.
        if store_gone() {
            return Ok(());
        }
        save(&path, &state);
        let mut memory = None;
        self.watch_sync(&mut state, &path, Pending { walk: true, ..Pending::default() }, &mut memory);
        let stop = stop_flag();
        let started = std::time::SystemTime::now();
        let used = used_path(self);
        let head = self.workspace().git().map(|_| places.git_dir.join("HEAD"));
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
            // A worktree or store that is gone (removed, or a temporary directory cleaned up)
            // has nothing left to watch; nor has a repository whose `HEAD` is gone (git replaces
            // `HEAD` by renaming, so it is never missing in between): a removal racing with
            // this watcher's own writes can leave the directories behind, recreated.
            if !root.is_dir() || !dir.is_dir() || head.as_ref().is_some_and(|h| !h.is_file()) {
                break;
            }
            let Ok(first) = rx.recv_timeout(Duration::from_millis(500)) else { continue };
            let mut pending = Pending::default();
            let (relevant, asked) = pending.note(&first, &places, &flush);
            // When a request to sync now was read: every change made before it is synced next.
            let mut flushed_at = asked.then(now_ns);
            if relevant {
                state.last_event_at = Some(store::now());
                state.events += 1;
                save(&path, &state);
                // Debounce: wait until relevant changes pause, but never longer than a bound,
                // so a steady trickle cannot starve the sync; a request to sync now ends it.
                let burst_started = Instant::now();
                let mut quiet_since = Instant::now();
                while flushed_at.is_none() && burst_started.elapsed() < MAX_DEBOUNCE && quiet_since.elapsed() < DEBOUNCE
                {
                    let Ok(event) = rx.recv_timeout(DEBOUNCE.saturating_sub(quiet_since.elapsed())) else {
                        continue;
                    };
                    let (relevant, asked) = pending.note(&event, &places, &flush);
                    if asked {
                        flushed_at = Some(now_ns());
                    }
                    if relevant {
                        quiet_since = Instant::now();
                        state.events += 1;
                        save(&path, &state);
                    }
                }
            }
            // A change, or a request to sync now when a change is not synced yet (the last
            // sync failed, or a change arrived during it): never a sync for nothing, so a
            // failing sync is not retried in a loop by the events of its own writes.
            if pending.any
                || (flushed_at.is_some() && (state.synced_events != state.events || state.last_error.is_some()))
            {
                self.watch_sync(&mut state, &path, pending, &mut memory);
            }
            if let Some(at) = flushed_at {
                state.flushed_ns = Some(at);
                save(&path, &state);
            }
        }
        state.running = false;
        state.pid = None;
        save(&path, &state);
        drop(lock);
        Ok(())
    }

    /// One sync of the watcher: the working tree's state from the paths `pending` names when
    /// `memory` holds the last state (a walk otherwise), then every synced view.
    fn watch_sync(&self, state: &mut WatchState, path: &Path, pending: Pending, memory: &mut Option<WorktreeMemory>) {
        let started = Instant::now();
        let covered = state.events;
        let ws = self.workspace();
        let since = memory.as_ref().filter(|_| !pending.walk).map(|m| (m, &pending.paths));
        let result = if ws.has_worktree() && ws.git().is_some() {
            indexer::worktree_state_since(ws, since).map_err(Error::from).and_then(|(worktree, remembered)| {
                state.last_sync_rechecked = remembered.rechecked();
                *memory = Some(remembered);
                self.sync_with(false, Some(worktree))
            })
        } else {
            state.last_sync_rechecked = None;
            self.sync(false)
        };
        match result {
            Ok(_) => {
                state.last_error = None;
                state.synced_events = covered;
            }
            Err(e) => {
                *memory = None;
                state.last_error = Some(e.to_string());
            }
        }
        state.syncs += 1;
        state.last_sync_at = Some(store::now());
        state.last_sync_ms = Some(started.elapsed().as_millis() as u64);
        let how = match state.last_sync_rechecked {
            Some(n) => format!("{n} paths rechecked"),
            None => "the tree walked".to_owned(),
        };
        super::sync::log_line(
            ws.store_dir(),
            &format!(
                "watch: sync, {how}, {} ms{}",
                state.last_sync_ms.unwrap_or(0),
                match &state.last_error {
                    Some(e) => format!(", failed: {e}"),
                    None => String::new(),
                }
            ),
        );
        save(path, state);
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
    fn event_paths_are_classified_for_the_next_sync() {
        let places = Places {
            root: PathBuf::from("/r"),
            git_dir: PathBuf::from("/r/.git"),
            store_dir: PathBuf::from("/r/.git/codecompass"),
        };
        let seen = |p: &str| places.classify(Path::new(p));
        assert_eq!(seen("/r/src/a.rs"), Seen::Path("src/a.rs".into()));
        assert_eq!(seen("/r/src"), Seen::Path("src".into()));
        assert_eq!(seen("/r/.git/HEAD"), Seen::Git);
        assert_eq!(seen("/r/.git/index"), Seen::Git);
        assert_eq!(seen("/r/.git/refs/heads/main"), Seen::Git);
        assert_eq!(seen("/r/.git/objects/ab/cd"), Seen::Irrelevant);
        assert_eq!(seen("/r/.git/codecompass/store.sqlite"), Seen::Irrelevant);
        assert_eq!(seen("/r/.git/index.lock"), Seen::Irrelevant);
        assert_eq!(seen("/r/vendor/lib/.git/HEAD"), Seen::Irrelevant);
        assert_eq!(seen("/r/.git/config"), Seen::Walk);
        assert_eq!(seen("/r/.git/info/exclude"), Seen::Walk);
        assert_eq!(seen("/r/src/.gitignore"), Seen::Walk);
        assert_eq!(seen("/r/.codecompassignore"), Seen::Walk);
        assert_eq!(seen("/r"), Seen::Walk);
        // A linked worktree's git directory lies elsewhere.
        let linked = Places {
            root: PathBuf::from("/w"),
            git_dir: PathBuf::from("/r/.git/worktrees/w"),
            store_dir: PathBuf::from("/s"),
        };
        assert_eq!(linked.classify(Path::new("/r/.git/worktrees/w/HEAD")), Seen::Git);
        assert_eq!(linked.classify(Path::new("/w/.git")), Seen::Git);
        assert_eq!(linked.classify(Path::new("/s/store.sqlite")), Seen::Irrelevant);
    }
}
