//! The watcher's syncs recheck only the paths its events name, and give the walk's answer.
//!
//! First without file-system events: after every kind of change (edits, new untracked and
//! ignored files, deletions, a directory renamed, a checkout, `git reset --soft`, `git add -f`,
//! `git rm --cached`, a mode change, a symlink), the state computed from the memory of the last
//! one and the paths an event would name equals the state a walk of the whole tree computes.
//! Git's own operations are given no paths at all: the moved `HEAD` and the changed index must
//! account for them. Then with a real watcher: a query made right after a change, without
//! waiting, answers from a view that holds it (the query asks the watcher to sync first), equal
//! to `git grep` at the worktree.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use codecompass::engine::{Engine, EngineOptions};
use codecompass::indexer::{WorktreeMemory, WorktreeState, worktree_state, worktree_state_since};
use gix::bstr::BString;

use crate::support::{cc, fixture, git};

fn paths(state: &WorktreeState) -> Vec<(String, Option<String>)> {
    state
        .changes
        .iter()
        .map(|c| (String::from_utf8_lossy(&c.path).into_owned(), c.now.as_ref().map(|(id, _, _)| id.to_hex())))
        .collect()
}

#[test]
fn a_sync_from_the_changed_paths_equals_a_walk_of_the_tree() {
    let (_tmp, repo) = fixture("shop");
    let engine = Engine::open(&repo, &EngineOptions::default()).expect("the fixture opens");
    let ws = engine.workspace();
    let (_, mut memory): (WorktreeState, WorktreeMemory) = worktree_state_since(ws, None).unwrap();
    assert_eq!(memory.rechecked(), None, "the first state walks");
    let write = |path: &str, text: &str| {
        let full = repo.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    // Each step changes the worktree or git's state and names the paths the file-system
    // events would name (none for git's own operations).
    type Step<'a> = (&'a str, Box<dyn Fn() -> Vec<&'static str> + 'a>);
    let steps: Vec<Step> = vec![
        (
            "edit a tracked file",
            Box::new(|| {
                write("src/cart.rs", "pub struct Cart;\n");
                vec!["src/cart.rs"]
            }),
        ),
        (
            "new untracked file",
            Box::new(|| {
                write("src/new.rs", "pub fn new_one() {}\n");
                vec!["src/new.rs"]
            }),
        ),
        (
            "new ignored files",
            Box::new(|| {
                write("build/out.rs", "pub fn built() {}\n");
                write("run.log", "log\n");
                vec!["build", "run.log"]
            }),
        ),
        (
            "a new directory of files, named by the directory only",
            Box::new(|| {
                write("lib/a/one.rs", "pub fn one() {}\n");
                write("lib/a/two.rs", "pub fn two() {}\n");
                vec!["lib"]
            }),
        ),
        (
            "the directory renamed",
            Box::new(|| {
                std::fs::rename(repo.join("lib"), repo.join("lib2")).unwrap();
                vec!["lib", "lib2"]
            }),
        ),
        (
            "a tracked file deleted",
            Box::new(|| {
                std::fs::remove_file(repo.join("native/checksum.c")).unwrap();
                vec!["native/checksum.c"]
            }),
        ),
        (
            "the edit undone",
            Box::new(|| {
                git(&repo, &["checkout", "-q", "--", "src/cart.rs"]);
                vec!["src/cart.rs"]
            }),
        ),
        (
            "a mode change",
            Box::new(|| {
                use std::os::unix::fs::PermissionsExt;
                let path = repo.join("docs/guide.md");
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
                vec!["docs/guide.md"]
            }),
        ),
        (
            "a symlink",
            Box::new(|| {
                std::os::unix::fs::symlink("src/cart.rs", repo.join("cart-link")).unwrap();
                vec!["cart-link"]
            }),
        ),
        (
            "an ignored file forced into the index",
            Box::new(|| {
                git(&repo, &["add", "-f", "run.log"]);
                vec![]
            }),
        ),
        (
            "a file removed from the index only",
            Box::new(|| {
                git(&repo, &["rm", "-q", "--cached", "src/inventory.rs"]);
                vec![]
            }),
        ),
        (
            "everything committed",
            Box::new(|| {
                git(&repo, &["add", "-A"]);
                git(&repo, &["commit", "-q", "-m", "all of it"]);
                vec![]
            }),
        ),
        (
            "HEAD moved back without touching files",
            Box::new(|| {
                git(&repo, &["reset", "-q", "--soft", "HEAD~1"]);
                vec![]
            }),
        ),
        (
            "the index reset too",
            Box::new(|| {
                git(&repo, &["reset", "-q"]);
                vec![]
            }),
        ),
        (
            "committed again",
            Box::new(|| {
                git(&repo, &["add", "-A"]);
                git(&repo, &["commit", "-q", "-m", "all of it again"]);
                vec![]
            }),
        ),
        (
            "a branch made, committed to and left",
            Box::new(|| {
                git(&repo, &["checkout", "-q", "-b", "side"]);
                write("src/cart.rs", "pub struct Cart { on_side: bool }\n");
                write("src/side.rs", "pub fn side() {}\n");
                git(&repo, &["add", "-A"]);
                git(&repo, &["commit", "-q", "-m", "side"]);
                git(&repo, &["checkout", "-q", "main"]);
                vec![]
            }),
        ),
        (
            "a checkout of that branch, named by no path",
            Box::new(|| {
                git(&repo, &["checkout", "-q", "side"]);
                vec![]
            }),
        ),
        (
            "back, named by no path",
            Box::new(|| {
                git(&repo, &["checkout", "-q", "main"]);
                vec![]
            }),
        ),
    ];
    // A checkout that changes a `.gitignore` (feature predates it) walks the tree.
    let walks = ["a checkout changing .gitignore"];
    let steps: Vec<Step> = steps
        .into_iter()
        .chain(std::iter::once::<Step>((
            "a checkout changing .gitignore",
            Box::new(|| {
                git(&repo, &["checkout", "-q", "feature"]);
                vec![]
            }),
        )))
        .collect();
    let mut failures = Vec::new();
    for (what, step) in steps {
        let named: BTreeSet<BString> = step().into_iter().map(BString::from).collect();
        let (since, next) = worktree_state_since(ws, Some((&memory, &named))).unwrap();
        let walked = worktree_state(ws).unwrap();
        if next.rechecked().is_none() != walks.contains(&what) {
            failures.push(format!("{what}: rechecked {:?}", next.rechecked()));
        }
        if since.fingerprint != walked.fingerprint || paths(&since) != paths(&walked) {
            failures.push(format!("{what}: from the paths {:?}\n  walk {:?}", paths(&since), paths(&walked)));
        }
        memory = next;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Starts a watcher for `repo` in the background and waits for its first sync; its pid.
fn watching(repo: &Path) -> u64 {
    let started = cc(repo, &["watch", "--background"]);
    assert_eq!(started.json["running"], true, "{}", started.stdout);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut status = cc(repo, &["watch", "--status"]).json;
    while Instant::now() < deadline && status["syncs"].as_u64() < Some(1) {
        std::thread::sleep(Duration::from_millis(50));
        status = cc(repo, &["watch", "--status"]).json;
    }
    status["pid"].as_u64().expect("a running watcher has a pid")
}

/// Whether the process `pid` exits within 20 seconds; one still alive then is killed, so a
/// failing test leaves no watcher behind.
fn exits_within_20s(pid: u64) -> bool {
    let alive = || Path::new(&format!("/proc/{pid}")).exists();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline && alive() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let gone = !alive();
    if !gone {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    gone
}

/// `git grep -n --untracked` at the worktree: the (path, line) pairs.
fn grep_worktree(repo: &Path, pattern: &str) -> BTreeSet<(String, u64)> {
    let out = Command::new("git")
        .current_dir(repo)
        .args(["grep", "-n", "-I", "-E", "--untracked", "--no-color", "-e", pattern])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            Some((parts.next()?.to_owned(), parts.next()?.parse().ok()?))
        })
        .collect()
}

#[test]
fn a_query_right_after_a_change_asks_the_watcher_and_answers_it() {
    let (_tmp, repo) = fixture("shop");
    watching(&repo);
    let search = |pattern: &str| {
        let run = cc(&repo, &["search", "--mode", "regex", pattern, "--limit", "1000"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let lines: BTreeSet<(String, u64)> = run.json["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["path"].as_str().unwrap().to_owned(), r["line_start"].as_u64().unwrap()))
            .collect();
        (lines, run.json["metadata"]["freshness_status"].clone())
    };
    let mut failures = Vec::new();
    let mut check = |what: &str, pattern: &str| {
        let (ours, fresh) = search(pattern);
        let expected = grep_worktree(&repo, pattern);
        if ours != expected || fresh != "fresh" {
            failures.push(format!("{what}: {fresh}, ours {ours:?}, git grep {expected:?}"));
        }
    };
    // No pause between a change and the query that must see it.
    std::fs::write(repo.join("src/watched.rs"), "pub fn marker_one() {}\n").unwrap();
    check("a new file", "marker_[a-z]+");
    std::fs::write(repo.join("src/watched.rs"), "pub fn marker_two() {}\n").unwrap();
    check("the file edited", "marker_[a-z]+");
    std::fs::create_dir_all(repo.join("deep/er")).unwrap();
    std::fs::write(repo.join("deep/er/x.rs"), "fn marker_three() {}\n").unwrap();
    check("a new directory", "marker_[a-z]+");
    std::fs::rename(repo.join("deep"), repo.join("deeper")).unwrap();
    check("the directory renamed", "marker_[a-z]+");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "markers"]);
    git(&repo, &["checkout", "-q", "feature"]);
    check("a checkout", "marker_[a-z]+|apply_coupon");
    git(&repo, &["checkout", "-q", "main"]);
    check("back", "marker_[a-z]+|apply_coupon");
    std::fs::remove_dir_all(repo.join("deeper")).unwrap();
    check("a directory removed", "marker_[a-z]+");

    let status = cc(&repo, &["watch", "--status"]);
    cc(&repo, &["watch", "--stop"]);
    let log = std::fs::read_to_string(repo.join(".git/codecompass/sync.log")).unwrap_or_default();
    assert!(failures.is_empty(), "{}\n{log}", failures.join("\n"));
    assert!(status.json["last_error"].is_null(), "{}", status.stdout);
    assert!(status.json["flushed_ns"].is_u64(), "the queries asked the watcher to sync: {}", status.stdout);
    // The first sync walked the tree; the ones after the changes rechecked paths.
    assert!(log.contains("the tree walked"), "{log}");
    assert!(log.contains("paths rechecked"), "{log}");
}

#[test]
fn a_watcher_that_does_not_answer_leaves_the_query_to_walk_the_tree() {
    let (_tmp, repo) = fixture("shop");
    let pid = watching(&repo).to_string();
    // Stopped, it is still alive and locked, but reads nothing.
    assert!(Command::new("kill").args(["-STOP", &pid]).status().unwrap().success());
    std::fs::write(repo.join("src/unseen.rs"), "pub fn seen_by_the_walk() {}\n").unwrap();
    let run = cc(&repo, &["locate", "seen_by_the_walk"]);
    assert!(Command::new("kill").args(["-CONT", &pid]).status().unwrap().success());
    cc(&repo, &["watch", "--stop"]);
    assert_eq!(crate::support::located(&run), [("src/unseen.rs".into(), 1)], "{}", run.stdout);
    assert_eq!(run.json["metadata"]["freshness_status"], "fresh", "{}", run.stdout);
}

/// Waits up to 20 seconds for `child` to exit; one still running then is killed. Its status.
fn child_exits_within_20s(child: &mut std::process::Child) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn a_watcher_a_query_started_makes_no_store_where_that_query_s_is_gone() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    // The query's store goes (a temporary directory cleaned up) before the watcher it started
    // begins: the watcher exits, where it indexed the whole tree into a new store.
    std::fs::remove_dir_all(repo.join(".git/codecompass")).unwrap();
    let mut watcher =
        crate::support::bin().args(["watch", "--quiet", "--idle-exit", "30"]).current_dir(&repo).spawn().unwrap();
    let status = child_exits_within_20s(&mut watcher);
    assert!(status.is_some_and(|s| s.success()), "the watcher exited at once: {status:?}");
    assert!(!repo.join(".git/codecompass/store.sqlite").exists(), "no store was made");
}

#[test]
fn watch_stop_reaches_a_watcher_still_starting() {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    // A watcher held after it took its lock, before its state says it runs.
    let go = tmp.path().join("go");
    let failpoint = format!("watch.starting=wait({})", go.display());
    let mut watcher = crate::support::bin()
        .args(["watch", "--quiet"])
        .env("CODECOMPASS_FAILPOINTS", &failpoint)
        .current_dir(&repo)
        .spawn()
        .unwrap();
    let reached = tmp.path().join("go.reached");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !reached.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(reached.exists(), "the watcher reached its start");
    assert_eq!(cc(&repo, &["watch", "--status"]).json["running"], false, "not running yet by its state");
    let stopped = cc(&repo, &["watch", "--stop"]);
    let status = child_exits_within_20s(&mut watcher);
    std::fs::write(&go, b"").unwrap();
    assert!(status.is_some(), "the starting watcher was stopped: {}", stopped.stdout);
    assert_eq!(stopped.json["running"], false, "{}", stopped.stdout);
}

#[test]
fn a_watcher_exits_when_its_worktree_is_removed() {
    let (tmp, repo) = fixture("shop");
    let pid = watching(&repo);
    // The watcher may write its state while the tree goes: removed again until it is gone.
    for _ in 0..50 {
        if std::fs::remove_dir_all(&repo).is_ok() || !repo.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(!repo.exists(), "the worktree could not be removed");
    let gone = exits_within_20s(pid);
    drop(tmp);
    assert!(gone, "the watcher of a removed worktree exited");
}

#[test]
fn a_watcher_exits_when_its_repository_is_removed_though_its_directories_come_back() {
    let (tmp, repo) = fixture("shop");
    let pid = watching(&repo);
    let signal = |sig: &str| assert!(Command::new("kill").args([sig, &pid.to_string()]).status().unwrap().success());
    // Paused while the tree goes and the store's directory comes back, as a removal racing with
    // the watcher's own writes can leave it: the worktree's and the store's directories are
    // there, the repository is not.
    signal("-STOP");
    std::fs::remove_dir_all(&repo).unwrap();
    std::fs::create_dir_all(repo.join(".git/codecompass")).unwrap();
    signal("-CONT");
    let gone = exits_within_20s(pid);
    drop(tmp);
    assert!(gone, "the watcher of a removed repository exited");
}

#[test]
fn a_watcher_of_another_configuration_is_stopped_and_the_query_walks() {
    let (_tmp, repo) = fixture("shop");
    watching(&repo);
    // Views are now derived under another size limit than the watcher's.
    git(&repo, &["config", "codecompass.maxFileSize", "100000"]);
    std::fs::write(repo.join("src/later.rs"), "pub fn written_after_the_change() {}\n").unwrap();
    let run = cc(&repo, &["locate", "written_after_the_change"]);
    let status = cc(&repo, &["watch", "--status"]);
    cc(&repo, &["watch", "--stop"]);
    assert_eq!(crate::support::located(&run), [("src/later.rs".into(), 1)], "{}", run.stdout);
    assert_eq!(run.json["metadata"]["freshness_status"], "fresh", "{}", run.stdout);
    assert_eq!(status.json["running"], false, "the query stopped the watcher: {}", status.stdout);
}
