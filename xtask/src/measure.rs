//! Measuring processes: wall time and peak RSS of a child (GNU time when present), medians
//! and percentiles, directory sizes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// One measured run of a command.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Wall time.
    pub wall: Duration,
    /// Peak resident set size in bytes, when it could be measured.
    pub peak_rss: Option<u64>,
}

/// Runs `command` to completion, measuring it. Its stdout is returned; a failure is an error.
pub fn run(command: &mut Command) -> Result<(Sample, Vec<u8>)> {
    let time = Path::new("/usr/bin/time");
    let rss_file = std::env::temp_dir().join(format!("xtask-rss-{}", std::process::id()));
    let mut wrapped = if time.exists() {
        let mut w = Command::new(time);
        w.arg("-f").arg("%M").arg("-o").arg(&rss_file).arg(command.get_program()).args(command.get_args());
        if let Some(dir) = command.get_current_dir() {
            w.current_dir(dir);
        }
        for (k, v) in command.get_envs() {
            match v {
                Some(v) => w.env(k, v),
                None => w.env_remove(k),
            };
        }
        w
    } else {
        std::mem::replace(command, Command::new("true"))
    };
    let started = Instant::now();
    let output = wrapped.output().with_context(|| format!("running {:?}", wrapped.get_program()))?;
    let wall = started.elapsed();
    if !output.status.success() {
        bail!("{:?} failed: {}", wrapped, String::from_utf8_lossy(&output.stderr));
    }
    let peak_rss = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse::<u64>().ok()))
        .map(|kib| kib * 1024);
    let _ = std::fs::remove_file(&rss_file);
    Ok((Sample { wall, peak_rss }, output.stdout))
}

/// The median of `values` (the lower middle for an even count).
pub fn median(values: &[Duration]) -> Duration {
    percentile(values, 50.0)
}

/// The `p`th percentile of `values` by the nearest-rank method.
pub fn percentile(values: &[Duration], p: f64) -> Duration {
    if values.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = values.to_vec();
    sorted.sort();
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Total size of the files under `path`.
pub fn dir_size(path: &Path) -> u64 {
    codecompass::store::dir_size(path)
}

/// A scratch directory under the target dir, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A new empty scratch directory named after `label`.
    pub fn new(label: &str) -> Result<Scratch> {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/xtask");
        let dir = base.join(format!("{label}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

/// Stops, when dropped, the watcher that a benchmark's worktree queries started for `repo` with
/// `store` (on a large repository the first worktree query starts one, `codecompass.watch
/// auto`), so that none outlives the benchmark and its scratch store. Declare it after the
/// [`Scratch`] holding the store: it is then dropped first.
pub struct StopWatcher<'a> {
    pub bin: &'a Path,
    pub store: &'a Path,
    pub repo: &'a Path,
}

impl Drop for StopWatcher<'_> {
    fn drop(&mut self) {
        let _ = std::process::Command::new(self.bin)
            .arg("--store")
            .arg(self.store)
            .args(["--quiet", "watch", "--stop"])
            .current_dir(self.repo)
            .output();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Seconds with millisecond precision, for tables.
pub fn secs(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let ms = |v: &[u64]| v.iter().map(|&m| Duration::from_millis(m)).collect::<Vec<_>>();
        assert_eq!(median(&ms(&[3, 1, 2])), Duration::from_millis(2));
        assert_eq!(percentile(&ms(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 95.0), Duration::from_millis(10));
        assert_eq!(percentile(&ms(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 50.0), Duration::from_millis(5));
        assert_eq!(median(&[]), Duration::ZERO);
    }
}
