//! Hooks and the watcher: every branch git touches becomes searchable without anyone running a
//! command; a user's hook keeps working and comes back byte for byte; git's exit status is
//! never changed; a missing binary never breaks git.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{cc, fixture, git};

/// `PATH` with the binary under test first, as an installed `git-codecompass` would be.
fn path_with_binary() -> String {
    let dir = Path::new(env!("CARGO_BIN_EXE_git-codecompass")).parent().unwrap().to_owned();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

fn git_with(dir: &Path, path: &str, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Ada Fixture")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada Fixture")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .output()
        .unwrap()
}

/// Waits until the ref `name` is indexed at its current commit, as hooks leave it.
fn wait_fresh(repo: &Path, name: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let refs = cc(repo, &["refs"]);
        if let Some(r) = refs.json["refs"].as_array().and_then(|a| a.iter().find(|r| r["name"] == name).cloned())
            && r["freshness_status"] == "fresh"
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn hooks_chain_to_a_user_hook_and_uninstall_restores_it_byte_for_byte() {
    let (_tmp, repo) = fixture("shop");
    let hook = repo.join(".git/hooks/post-checkout");
    let original =
        b"#!/bin/sh\necho \"user hook ran $1 $2 $3\" >> \"$(git rev-parse --git-dir)/user-hook.log\"\nexit 3\n";
    std::fs::write(&hook, original).unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o750)).unwrap();
    let path = path_with_binary();

    // Without our hooks, the user's failing hook decides git's exit status.
    let before = git_with(&repo, &path, &["checkout", "-q", "old-line"]).status.code();
    assert!(before.is_some_and(|c| c != 0));
    git_with(&repo, &path, &["checkout", "-q", "main"]);

    let installed = cc(&repo, &["hooks", "install"]);
    assert_eq!(installed.code, 0, "{}", installed.stderr);
    let states: Vec<&str> =
        installed.json["hooks"].as_array().unwrap().iter().map(|h| h["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["installed_chained", "installed", "installed", "installed"]);
    assert!(repo.join(".git/hooks/post-checkout.pre-codecompass").exists());

    // With them: the user's hook still runs with the same arguments, the exit status is
    // still its own, and the new branch becomes searchable without any command.
    let started = Instant::now();
    let after = git_with(&repo, &path, &["checkout", "-q", "old-line"]);
    let returned = started.elapsed();
    assert_eq!(after.status.code(), before, "git's exit status is unchanged");
    let log = std::fs::read_to_string(repo.join(".git/user-hook.log")).unwrap();
    assert_eq!(log.lines().count(), 3);
    assert!(log.lines().last().unwrap().ends_with(" 1"), "{log}");
    assert!(returned < Duration::from_secs(2), "checkout with hooks took {returned:?}");
    assert!(wait_fresh(&repo, "refs/heads/old-line"), "the hook's sync indexed the branch");
    let legacy =
        crate::support::located(&crate::support::cc(&repo, &["locate", "shop_checksum_legacy", "--ref", "old-line"]));
    assert_eq!(legacy, [("native/checksum.c".into(), 4)]);

    // Commits and merges trigger it too.
    git_with(&repo, &path, &["checkout", "-q", "main"]);
    std::fs::write(repo.join("src/hooked.rs"), "pub fn committed_with_hooks() {}\n").unwrap();
    git_with(&repo, &path, &["add", "."]);
    let commit = git_with(&repo, &path, &["commit", "-qm", "hooked"]);
    assert!(commit.status.success());
    assert!(wait_fresh(&repo, "refs/heads/main"));

    // Uninstall: the user's hook is back, byte for byte, mode included.
    let removed = cc(&repo, &["hooks", "uninstall"]);
    assert_eq!(removed.code, 0);
    assert_eq!(std::fs::read(&hook).unwrap(), original);
    assert_eq!(std::fs::metadata(&hook).unwrap().permissions().mode() & 0o777, 0o750);
    assert!(!repo.join(".git/hooks/post-checkout.pre-codecompass").exists());
    for name in ["post-merge", "post-rewrite", "post-commit"] {
        assert!(!repo.join(".git/hooks").join(name).exists(), "{name}");
    }
}

#[test]
fn hooks_respect_core_hooks_path_and_never_break_git_without_the_binary() {
    let (_tmp, repo) = fixture("shop");
    git(&repo, &["config", "core.hooksPath", ".githooks"]);
    let installed = cc(&repo, &["hooks", "install"]);
    assert_eq!(installed.json["core_hooks_path"], true);
    assert!(installed.json["hooks_dir"].as_str().unwrap().ends_with(".githooks"));
    assert!(repo.join(".githooks/post-checkout").exists());
    assert!(!repo.join(".git/hooks/post-checkout").exists());

    // No git-codecompass on PATH: git works exactly as before.
    let bare_path = "/usr/local/bin:/usr/bin:/bin";
    let out = git_with(&repo, bare_path, &["checkout", "-q", "feature"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));

    let status = cc(&repo, &["hooks", "status"]);
    assert!(status.json["hooks"].as_array().unwrap().iter().all(|h| h["state"] == "installed"));
    cc(&repo, &["hooks", "uninstall"]);
    assert!(!repo.join(".githooks/post-checkout").exists());
}

#[test]
fn the_watcher_keeps_the_worktree_view_fresh() {
    let (_tmp, repo) = fixture("shop");
    let started = cc(&repo, &["watch", "--background"]);
    assert_eq!(started.json["running"], true, "{}", started.stdout);
    std::fs::write(repo.join("src/watched.rs"), "pub fn seen_by_the_watcher() {}\n").unwrap();
    // Without running a sync, the worktree view catches up.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut fresh = false;
    while Instant::now() < deadline && !fresh {
        std::thread::sleep(Duration::from_millis(200));
        let refs = cc(&repo, &["refs"]);
        fresh = refs.json["refs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["kind"] == "worktree" && r["freshness_status"] == "fresh");
    }
    // The watcher settles: every change it saw is synced.
    let mut status = cc(&repo, &["watch", "--status"]);
    while Instant::now() < deadline && status.json["synced_events"] != status.json["events"] {
        std::thread::sleep(Duration::from_millis(100));
        status = cc(&repo, &["watch", "--status"]);
    }
    let stopped = cc(&repo, &["watch", "--stop"]);
    let log = std::fs::read_to_string(repo.join(".git/codecompass/sync.log")).unwrap_or_default();
    assert!(fresh, "the watcher synced the edit: {}\n{log}", status.stdout);
    assert!(status.json["syncs"].as_u64().unwrap() >= 1, "{}", status.stdout);
    assert_eq!(status.json["synced_events"], status.json["events"], "{}", status.stdout);
    assert_eq!(status.json["lag_seconds"], 0, "{}", status.stdout);
    assert_eq!(stopped.json["running"], false);
    assert_eq!(crate::support::located(&cc(&repo, &["locate", "seen_by_the_watcher"])), [("src/watched.rs".into(), 1)]);
}

/// Polls `watch --status` in `dir` until `ok` holds or 20 seconds pass; the last status.
fn watch_status_until(dir: &Path, ok: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let status = cc(dir, &["watch", "--status"]).json;
        if ok(&status) || Instant::now() > deadline {
            return status;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_query_starts_one_watcher_which_exits_when_idle_and_never_vouches_for_a_change_it_missed() {
    let (tmp, repo) = fixture("shop");
    git(&repo, &["config", "codecompass.watch", "always"]);
    let idle = [("CODECOMPASS_WATCH_IDLE_SECS", "4")];
    let query = |dir: &Path, name: &str| crate::support::cc_env(dir, &["locate", name, "--json", "-q"], &idle);

    // The first query starts a watcher; the next ones reuse it.
    assert_eq!(query(&repo, "Cart").code, 0);
    let status = watch_status_until(&repo, |s| s["running"] == true && s["syncs"].as_u64() >= Some(1));
    assert_eq!(status["running"], true, "{status}");
    let pid = status["pid"].clone();
    assert_eq!(query(&repo, "Cart").code, 0);
    assert_eq!(cc(&repo, &["watch", "--status"]).json["pid"], pid, "one watcher per worktree");

    // A linked worktree's queries get their own watcher, not this one.
    let other = tmp.path().join("shop-linked");
    git(&repo, &["worktree", "add", "-q", other.to_str().unwrap(), "feature"]);
    assert_eq!(query(&other, "Cart").code, 0);
    let linked = watch_status_until(&other, |s| s["running"] == true);
    assert_eq!(linked["running"], true, "{linked}");
    assert_ne!(linked["pid"], pid);
    assert_eq!(cc(&repo, &["watch", "--status"]).json["pid"], pid);

    // Killed between a change and a query, it vouches for nothing: the answer is walked.
    let pid_number = pid.as_u64().unwrap().to_string();
    assert!(Command::new("kill").args(["-9", &pid_number]).status().unwrap().success());
    std::fs::write(repo.join("src/after_kill.rs"), "pub fn written_after_the_kill() {}\n").unwrap();
    std::fs::rename(repo.join("src/cart.rs"), repo.join("src/basket.rs")).unwrap();
    let run = query(&repo, "written_after_the_kill");
    assert_eq!(crate::support::located(&run), [("src/after_kill.rs".into(), 1)], "{}", run.stdout);
    assert_eq!(crate::support::located(&query(&repo, "Cart")), [("src/basket.rs".into(), 11)]);

    // Left without queries, the watchers exit on their own.
    let gone = watch_status_until(&repo, |s| s["running"] == false);
    let linked_gone = watch_status_until(&other, |s| s["running"] == false);
    assert_eq!(gone["running"], false, "idle watcher exited: {gone}");
    assert_eq!(linked_gone["running"], false, "{linked_gone}");

    // `never`: queries start none.
    git(&repo, &["config", "codecompass.watch", "never"]);
    assert_eq!(query(&repo, "Cart").code, 0);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(cc(&repo, &["watch", "--status"]).json["running"], false);
}

/// Syncs coalesce (hooks start one per git command): a sync asked for while another holds the
/// lock is never lost, whenever the holder lets go. Here the holder is stopped just before it
/// unlocks (its last look for requests already made), a commit moves the branch, and the
/// request is stopped just after it found the lock taken; the holder then unlocks and ends, and
/// the request ends: the commit must be indexed.
#[test]
fn a_sync_asked_for_while_another_finishes_is_never_lost() {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let holder_go = tmp.path().join("holder-go");
    let request_go = tmp.path().join("request-go");
    let reached = |go: &Path| Path::new(&format!("{}.reached", go.display())).exists();
    let coalesced = |point: &str, go: &Path| {
        crate::support::bin()
            .args(["sync", "--coalesce", "--quiet"])
            .current_dir(&repo)
            .env("CODECOMPASS_FAILPOINTS", format!("{point}=wait({})", go.display()))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let wait_for = |what: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !what() {
            assert!(Instant::now() < deadline, "a failpoint was never reached");
            std::thread::sleep(Duration::from_millis(20));
        }
    };

    let mut holder = coalesced("sync.before_unlock", &holder_go);
    wait_for(&|| reached(&holder_go));
    std::fs::write(repo.join("src/late.rs"), "pub fn committed_while_syncing() {}\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "late"]);
    let mut request = coalesced("sync.lock_busy", &request_go);
    wait_for(&|| reached(&request_go));
    std::fs::write(&holder_go, b"").unwrap();
    assert!(holder.wait().unwrap().success());
    std::fs::write(&request_go, b"").unwrap();
    assert!(request.wait().unwrap().success());

    let refs = cc(&repo, &["refs"]);
    let main = refs.json["refs"].as_array().unwrap().iter().find(|r| r["name"] == "refs/heads/main").cloned().unwrap();
    assert_eq!(main["freshness_status"], "fresh", "{main}");
    let found = crate::support::located(&cc(&repo, &["locate", "committed_while_syncing", "--ref", "main"]));
    assert_eq!(found, [("src/late.rs".into(), 1)]);
}
