//! Background jobs: a long X-Ray batch runs in a process of its own, detached from the command
//! (or MCP call) that started it, and leaves its state in `<store>/jobs/<id>/`:
//!
//! - `batch.json`: what it runs;
//! - `state.json`: status, progress and the answer so far (rewritten whole, atomically);
//! - `lock`: held by the running process, so a job whose process died (killed, machine
//!   restarted) is seen as `interrupted` rather than running forever;
//! - `cancel`: asks the running process to stop at its next round of files.
//!
//! Statuses: `queued` (started, its process not yet running), `running`, `done`, `cancelled`
//! (the answer holds what was found before), `interrupted`, `failed`. `gc` removes jobs that
//! ended longer ago than its grace period.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Engine, Error, Freshness};
use crate::error::ErrorCode;
use crate::xray::Batch;

/// The jobs directory, under the store.
const JOBS_DIR: &str = "jobs";
/// A queued job whose process has not taken its lock after this long is interrupted.
const START_GRACE_SECS: i64 = 30;
/// How long a job's process waits for its lock before it takes the job for running elsewhere.
const LOCK_PATIENCE: Duration = Duration::from_secs(10);
/// The running process writes its state at most this often (and at the end).
const STATE_EVERY: Duration = Duration::from_millis(500);

/// A job's state, as `jobs show` and `get_job` give it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JobState {
    /// The job's id.
    pub job_id: String,
    /// What it runs (`xray`).
    pub kind: String,
    /// `queued`, `running`, `done`, `cancelled`, `interrupted` or `failed`.
    pub status: String,
    /// When it was started (seconds since the epoch).
    pub created_at: i64,
    /// When its process began running it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<i64>,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<i64>,
    /// The process running it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Scan-and-ref runs finished.
    pub runs_done: usize,
    /// Scan-and-ref runs in the batch.
    pub runs_total: usize,
    /// Files read by the current run.
    pub files_scanned: u64,
    /// Candidate files of the current run.
    pub candidates: u64,
    /// Whether a cancel was asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancel_requested: bool,
    /// The answer: partial while running (the finished runs, then the current run's matches
    /// so far), final once done or cancelled. The shape of `xray --batch --json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<serde_json::Value>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl JobState {
    /// Whether the job has ended (any way).
    pub fn finished(&self) -> bool {
        matches!(self.status.as_str(), "done" | "cancelled" | "interrupted" | "failed")
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("{}: {e}", path.display()))
}

fn jobs_dir(engine: &Engine) -> PathBuf {
    engine.workspace().store_dir().join(JOBS_DIR)
}

/// The directory of job `id`; an id that is not one (wrong characters, unknown) is an error
/// with the remedy.
fn job_dir(engine: &Engine, id: &str) -> Result<PathBuf, Error> {
    let well_formed = !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let dir = jobs_dir(engine).join(id);
    if !well_formed || !dir.join("state.json").is_file() {
        return Err(Error::new(ErrorCode::InvalidArgument, format!("no job `{id}`"))
            .with_remedy("`git codecompass jobs` lists the jobs of this repository"));
    }
    Ok(dir)
}

fn read_state(dir: &Path) -> Result<JobState, Error> {
    let path = dir.join("state.json");
    let text = std::fs::read(&path).map_err(|e| io_error(&path, e))?;
    serde_json::from_slice(&text).map_err(|e| {
        Error::new(ErrorCode::IndexIncompatible, format!("{}: {e}", path.display()))
            .with_remedy("remove the job's directory, or run `git codecompass gc`")
    })
}

fn write_state(dir: &Path, state: &JobState) -> Result<(), Error> {
    let path = dir.join("state.json");
    let text = serde_json::to_vec_pretty(state).expect("job states serialize");
    // The job's process and a `jobs cancel` may write at once: each through a file of its own.
    crate::replace::replace(&path, &text).map_err(|e| io_error(&path, e))
}

/// The state as it is: a job marked running or queued whose lock nobody holds has lost its
/// process.
fn current_state(dir: &Path) -> Result<JobState, Error> {
    let mut state = read_state(dir)?;
    if !state.finished()
        && let Some(_lock) = super::sync::try_lock(&dir.join("lock"))?
    {
        // Read again under the lock: the process may have written its last state and let go
        // between the first read and the lock.
        state = read_state(dir)?;
        let waited_long = crate::store::now() - state.created_at > START_GRACE_SECS;
        if !state.finished() && (state.status == "running" || waited_long) {
            state.status = "interrupted".to_owned();
            state.finished_at = Some(crate::store::now());
            write_state(dir, &state)?;
        }
    }
    if state.cancel_requested || dir.join("cancel").exists() {
        state.cancel_requested = true;
    }
    Ok(state)
}

impl Engine {
    /// Starts `batch` as a background job in a process of its own and returns its state
    /// (`queued`).
    pub fn start_job(&self, batch: &Batch) -> Result<JobState, Error> {
        batch.validate().map_err(|m| Error::new(ErrorCode::InvalidArgument, m))?;
        let now = crate::store::now();
        let id = format!("xray-{now}-{}-{:04x}", std::process::id(), rand_suffix());
        let dir = jobs_dir(self).join(&id);
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let batch_path = dir.join("batch.json");
        std::fs::write(&batch_path, serde_json::to_vec_pretty(batch).expect("batches serialize"))
            .map_err(|e| io_error(&batch_path, e))?;
        let state = JobState {
            job_id: id.clone(),
            kind: "xray".to_owned(),
            status: "queued".to_owned(),
            created_at: now,
            runs_total: batch.scans.len() * batch.refs.len().max(1),
            ..JobState::default()
        };
        write_state(&dir, &state)?;
        self.spawn_detached(&["jobs", "run", &id, "--quiet"]).map_err(|e| {
            let _ = std::fs::remove_dir_all(&dir);
            Error::new(ErrorCode::Io, format!("cannot start the job's process: {e}"))
        })?;
        Ok(state)
    }

    /// Runs job `id` in this process (what a job's own process does), writing its state as
    /// it goes.
    pub fn run_job(&self, id: &str) -> Result<JobState, Error> {
        let dir = job_dir(self, id)?;
        // Whoever asks for the job's state holds its lock for a moment to see whether its
        // process lives: wait those moments out rather than take one for a running twin.
        let lock_path = dir.join("lock");
        let waiting = Instant::now();
        let _lock = loop {
            if let Some(lock) = super::sync::try_lock(&lock_path)? {
                break lock;
            }
            if waiting.elapsed() >= LOCK_PATIENCE {
                return Err(Error::new(ErrorCode::InvalidArgument, format!("job `{id}` is already running")));
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut state = read_state(&dir)?;
        if state.status != "queued" {
            return Err(Error::new(ErrorCode::InvalidArgument, format!("job `{id}` is {}", state.status)));
        }
        let batch_path = dir.join("batch.json");
        let batch: Batch = std::fs::read(&batch_path).map_err(|e| io_error(&batch_path, e)).and_then(|b| {
            serde_json::from_slice(&b).map_err(|e| Error::new(ErrorCode::InvalidArgument, e.to_string()))
        })?;
        state.status = "running".to_owned();
        state.started_at = Some(crate::store::now());
        state.pid = Some(std::process::id());
        write_state(&dir, &state)?;

        let cancel = dir.join("cancel");
        let last_write = std::cell::Cell::new(Instant::now());
        let live = std::cell::RefCell::new(state.clone());
        let control = |so_far: &super::BatchResponse, current: Option<&crate::xray::XrayOutput>| -> bool {
            if last_write.get().elapsed() >= STATE_EVERY || current.is_none() {
                let mut s = live.borrow_mut();
                s.runs_done = so_far.runs.len();
                s.files_scanned = current.map_or(0, |c| c.files_scanned);
                s.candidates = current.map_or(0, |c| c.candidates);
                let mut partial = serde_json::to_value(so_far).unwrap_or_default();
                if let (Some(current), Some(runs)) =
                    (current, partial.get_mut("runs").and_then(serde_json::Value::as_array_mut))
                {
                    runs.push(serde_json::json!({ "scan": "(running)", "partial": current }));
                }
                s.answer = Some(partial);
                let _ = write_state(&dir, &s);
                last_write.set(Instant::now());
            }
            !cancel.exists()
        };
        let freshness = Freshness::configured(self.workspace(), Freshness::Strict);
        let result = self.xray_batch(&batch, freshness, Some(&control));
        let mut state = live.into_inner();
        state.finished_at = Some(crate::store::now());
        match result {
            Ok(answer) => {
                state.status = if answer.cancelled { "cancelled" } else { "done" }.to_owned();
                state.runs_done = answer.runs.len();
                state.answer = Some(serde_json::to_value(&answer).unwrap_or_default());
            }
            Err(e) => {
                state.status = "failed".to_owned();
                state.error = Some(e.to_string());
            }
        }
        state.cancel_requested = cancel.exists();
        write_state(&dir, &state)?;
        Ok(state)
    }

    /// The state of job `id`.
    pub fn job(&self, id: &str) -> Result<JobState, Error> {
        current_state(&job_dir(self, id)?)
    }

    /// Asks job `id` to stop: a running job stops at its next round of files and keeps what
    /// it found; a job whose process never ran or died is marked cancelled now.
    pub fn cancel_job(&self, id: &str) -> Result<JobState, Error> {
        let dir = job_dir(self, id)?;
        let mut state = current_state(&dir)?;
        if state.finished() {
            return Ok(state);
        }
        let marker = dir.join("cancel");
        std::fs::write(&marker, b"").map_err(|e| io_error(&marker, e))?;
        state.cancel_requested = true;
        if state.status == "queued" && super::sync::try_lock(&dir.join("lock"))?.is_some() {
            state.status = "cancelled".to_owned();
            state.finished_at = Some(crate::store::now());
            write_state(&dir, &state)?;
        }
        Ok(state)
    }

    /// Every job of this store, newest first, without their answers.
    pub fn jobs(&self) -> Result<Vec<JobState>, Error> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(jobs_dir(self)).into_iter().flatten().flatten() {
            if let Ok(mut state) = current_state(&entry.path()) {
                state.answer = None;
                out.push(state);
            }
        }
        out.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| b.job_id.cmp(&a.job_id)));
        Ok(out)
    }

    /// Removes jobs that ended more than `grace_secs` ago; returns how many.
    pub(super) fn gc_jobs(&self, grace_secs: i64) -> u64 {
        let now = crate::store::now();
        let mut dropped = 0;
        for entry in std::fs::read_dir(jobs_dir(self)).into_iter().flatten().flatten() {
            let dir = entry.path();
            let ended = match current_state(&dir) {
                Ok(state) if state.finished() => state.finished_at.unwrap_or(state.created_at),
                Ok(_) => continue,
                // A directory without a readable state is debris.
                Err(_) => i64::MIN,
            };
            if now - ended >= grace_secs && std::fs::remove_dir_all(&dir).is_ok() {
                dropped += 1;
            }
        }
        dropped
    }
}

/// A few random bits for job ids started in the same second by the same process.
fn rand_suffix() -> u16 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    (nanos ^ (nanos >> 16)) as u16
}
