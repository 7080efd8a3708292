//! Test support: fixture repositories built by the scripts in `fixtures-repos/`, and a way to
//! run the binary against them and read its JSON.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A temporary directory that is removed when dropped, unless `CODECOMPASS_KEEP_TEMP` is set
/// (to look at a failing test's repository).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        let dir = tempfile::Builder::new().prefix(&format!("cc-{label}-")).tempdir().expect("a temp dir can be made");
        TempDir(dir.keep())
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("CODECOMPASS_KEEP_TEMP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Builds the fixture `name` (a script in `fixtures-repos/`) into a fresh directory and
/// returns the directory (kept alive by the returned guard) and the repository path.
pub fn fixture(name: &str) -> (TempDir, PathBuf) {
    let tmp = TempDir::new(name);
    let repo = tmp.path().join(name);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures-repos").join(format!("{name}.sh"));
    let output = Command::new("bash").arg(&script).arg(&repo).output().expect("bash runs");
    assert!(output.status.success(), "{name}.sh failed: {}", String::from_utf8_lossy(&output.stderr));
    (tmp, repo)
}

/// Runs `git` in `dir` with the fixtures' hermetic environment.
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_with(dir, args, &[])
}

/// Runs `git` in `dir` as [`git`] does, with author and committer dates at `time` (seconds
/// since the epoch).
pub fn git_at(dir: &Path, time: i64, args: &[&str]) -> String {
    let date = format!("@{time} +0000");
    git_with(dir, args, &[("GIT_AUTHOR_DATE", &date), ("GIT_COMMITTER_DATE", &date)])
}

/// Runs `git` in `dir` as [`git_at`] does, as another author (`name`, `email`).
pub fn git_as(dir: &Path, time: i64, (name, email): (&str, &str), args: &[&str]) -> String {
    let date = format!("@{time} +0000");
    let envs = [
        ("GIT_AUTHOR_DATE", date.as_str()),
        ("GIT_COMMITTER_DATE", date.as_str()),
        ("GIT_AUTHOR_NAME", name),
        ("GIT_AUTHOR_EMAIL", email),
    ];
    git_with(dir, args, &envs)
}

/// `git ARGS` in `dir` with a fixed identity and no user or system configuration, to run.
pub fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Ada Fixture")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada Fixture")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com");
    command
}

/// Runs `git` in `dir` with a fixed identity, no user or system configuration, and `envs`.
pub fn git_with(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> String {
    let output = git_command(dir, args).envs(envs.iter().copied()).output().expect("git runs");
    assert!(output.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The binary under test.
pub fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_git-codecompass"));
    command.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").env("NO_COLOR", "1");
    command
}

/// The result of one run.
pub struct Run {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

pub fn finish(output: Output) -> Run {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    Run {
        code: output.status.code().unwrap_or(-1),
        json,
        stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `git-codecompass ARGS --json` in `dir`.
pub fn cc(dir: &Path, args: &[&str]) -> Run {
    let output = bin().args(args).arg("--json").arg("--quiet").current_dir(dir).output().expect("the binary runs");
    finish(output)
}

/// Runs `git-codecompass ARGS` in `dir`, text output.
pub fn cc_text(dir: &Path, args: &[&str]) -> Run {
    finish(bin().args(args).current_dir(dir).output().expect("the binary runs"))
}

/// Runs `git-codecompass ARGS` in `dir` with extra environment variables (no `--quiet`).
pub fn cc_env(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> Run {
    let mut command = bin();
    command.args(args).current_dir(dir);
    for (key, value) in envs {
        command.env(key, value);
    }
    finish(command.output().expect("the binary runs"))
}

/// The `(path, line)` pairs of a `locate` answer.
pub fn located(run: &Run) -> Vec<(String, u64)> {
    run.json["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .map(|r| (r["path"].as_str().unwrap_or_default().to_owned(), r["line"].as_u64().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default()
}

/// The one view of an `index` answer.
pub fn view(run: &Run) -> &Value {
    assert_eq!(run.code, 0, "index failed: {} {}", run.stdout, run.stderr);
    &run.json["views"][0]
}

/// xorshift64*: small and seeded, so a randomized test names the seed that replays it.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
