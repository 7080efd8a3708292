//! `doctor`: every problem it reports comes with a command, and running that command makes
//! the problem go away.

use std::path::Path;

use serde_json::Value;

use crate::support::{bin, cc, cc_text, fixture, git};

/// The problems of a `doctor --json` answer as `(code, fix)`.
fn problems(answer: &Value) -> Vec<(String, String)> {
    answer["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("no problems list: {answer}"))
        .iter()
        .map(|p| (p["code"].as_str().unwrap().to_owned(), p["fix"].as_str().unwrap().to_owned()))
        .collect()
}

fn fix_for(run: &crate::support::Run, code: &str) -> String {
    problems(&run.json).into_iter().find(|(c, _)| c == code).unwrap_or_else(|| panic!("no {code}: {}", run.stdout)).1
}

/// Runs a `git codecompass ...` fix the way a user would paste it.
fn apply(repo: &Path, fix: &str) {
    let args: Vec<&str> =
        fix.strip_prefix("git codecompass ").unwrap_or_else(|| panic!("not ours: {fix}")).split(' ').collect();
    let run = cc(repo, &args);
    assert_eq!(run.code, 0, "{fix}: {} {}", run.stdout, run.stderr);
}

fn doctor_with_binary_on_path(repo: &Path) -> Value {
    let dir = Path::new(env!("CARGO_BIN_EXE_git-codecompass")).parent().unwrap().to_owned();
    let path = format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default());
    doctor_with_path(repo, path.into())
}

/// `doctor --json` with the test's `PATH` less the directories holding a `git-codecompass`
/// (one that `cargo install`, the README's first command, put there).
fn doctor_without_binary_on_path(repo: &Path) -> Value {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept = std::env::split_paths(&path).filter(|dir| !dir.join("git-codecompass").exists());
    doctor_with_path(repo, std::env::join_paths(kept).unwrap())
}

fn doctor_with_path(repo: &Path, path: std::ffi::OsString) -> Value {
    let output = bin().args(["doctor", "--json"]).env("PATH", path).current_dir(repo).output().unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn doctor_reports_each_problem_with_the_command_that_fixes_it() {
    let (_tmp, repo) = fixture("shop");

    // Nothing indexed: exit 1, and the fix is to index.
    let run = cc(&repo, &["doctor"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["healthy"], false);
    assert_eq!(run.json["store"]["state"], "not_indexed");
    apply(&repo, &fix_for(&run, "not_indexed"));

    // Indexed: healthy; versions, sizes, the full-text index and the views are described.
    let run = cc(&repo, &["doctor"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.json["healthy"], true);
    assert_eq!(run.json["store"]["state"], "compatible");
    assert_eq!(run.json["store"]["store_versions"], run.json["store"]["build_versions"]);
    assert!(run.json["store"]["bytes"]["database"].as_u64().unwrap() > 0);
    assert_eq!(run.json["fulltext"]["state"], "ok");
    assert!(run.json["fulltext"]["documents"].as_u64().unwrap() > 0);
    assert!(run.json["views"].as_array().unwrap().iter().all(|v| v["freshness_status"] == "fresh"), "{}", run.stdout);
    assert_eq!(run.json["hooks"]["missing"].as_array().map(Vec::len), Some(4));
    assert_eq!(fix_for(&run, "hooks_not_installed"), "git codecompass hooks install");
    let text = cc_text(&repo, &["doctor"]);
    assert!(text.stdout.contains("fix: git codecompass hooks install"), "{}", text.stdout);

    // Hooks installed but the binary not on PATH: they would do nothing.
    apply(&repo, "git codecompass hooks install");
    let off_path = doctor_without_binary_on_path(&repo);
    assert_eq!(off_path["hooks"]["installed"].as_array().map(Vec::len), Some(4));
    assert!(problems(&off_path).iter().any(|(c, _)| c == "binary_not_on_path"), "{off_path}");
    let on_path = doctor_with_binary_on_path(&repo);
    assert_eq!(on_path["healthy"], true, "{on_path}");

    // Ignore rules: the patterns on disk, counted over HEAD's tree.
    std::fs::write(repo.join(".codecompassignore"), "docs/\n").unwrap();
    let rules = &cc(&repo, &["doctor"]).json["ignore_rules"];
    assert_eq!(rules["source"], "worktree");
    assert_eq!(rules["patterns"], 1);
    assert_eq!(rules["files_ignored"], 1, "{rules}");
    std::fs::remove_file(repo.join(".codecompassignore")).unwrap();

    // A stale ref.
    assert_eq!(cc(&repo, &["index", "--ref", "feature"]).code, 0);
    git(&repo, &["branch", "-f", "feature", "main"]);
    let run = cc(&repo, &["doctor"]);
    let fix = fix_for(&run, "stale_view");
    assert_eq!(fix, "git codecompass index --ref refs/heads/feature");
    apply(&repo, &fix);
    assert!(!problems(&cc(&repo, &["doctor"]).json).iter().any(|(c, _)| c == "stale_view"));

    // An interrupted job.
    std::fs::write(repo.join("src/late.rs"), "pub fn late() {}\n").unwrap();
    let crashed = bin()
        .args(["index", "--quiet"])
        .env("CODECOMPASS_FAILPOINTS", "index.before_publish=exit")
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(!crashed.status.success());
    let run = cc(&repo, &["doctor"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json["interrupted_jobs"].as_array().map(Vec::len), Some(1));
    apply(&repo, &fix_for(&run, "interrupted_job"));
    assert!(cc(&repo, &["doctor"]).json["interrupted_jobs"].as_array().unwrap().is_empty());

    // What a crashed run left behind.
    let leftover = repo.join(".git/codecompass/snapshot-export-999999999");
    std::fs::create_dir_all(&leftover).unwrap();
    let run = cc(&repo, &["doctor"]);
    let fix = fix_for(&run, "leftover");
    assert_eq!(fix, format!("rm -rf {}", leftover.display()));
    std::fs::remove_dir_all(&leftover).unwrap();

    // An incompatible store: an error, fixed by rebuilding.
    let db = repo.join(".git/codecompass/store.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'", []).unwrap();
    drop(conn);
    let run = cc(&repo, &["doctor"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.json["store"]["state"], "reindex_required");
    assert_eq!(run.json["store"]["store_versions"]["schema"], "999");
    let fix = fix_for(&run, "index_incompatible");
    assert_eq!(fix, "git codecompass index --force");
    apply(&repo, &fix);
    let run = doctor_with_binary_on_path(&repo);
    assert_eq!(run["healthy"], true, "{run}");
}
