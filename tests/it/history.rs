//! A randomized history (seeded, reproducible): branches with edits, renames, mode changes,
//! deletions, merges, rebases, resets, a linked worktree and dirty files. After each step a
//! sync, then for every branch and both worktrees: regex search equals `git grep`, and the
//! symbols and the references of a few names equal those of a from-scratch index of the same
//! ref; every few steps `log -S`/`-G` at every branch equal `git log -S`/`-G`. `CODECOMPASS_SEED=N` replays
//! another history.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use codecompass::engine::{Engine, EngineOptions, Freshness, GraphRequest, LogMode, LogRequest};
use codecompass::indexer::IndexOptions;
use codecompass::query::{Detail, Explain, Filters, Mode, SearchRequest};
use codecompass::view::Scope;

use crate::support::{Rng, TempDir};

fn git(dir: &Path, args: &[&str]) -> bool {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Ada Fixture")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada Fixture")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .env("GIT_EDITOR", "true")
        .output()
        .expect("git runs");
    out.status.success()
}

fn git_out(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).env("GIT_CONFIG_GLOBAL", "/dev/null").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn source(rng: &mut Rng, python: bool) -> String {
    let mut text = String::new();
    for _ in 0..1 + rng.below(4) {
        let n = rng.below(60);
        // Each function calls another, so references have something to resolve.
        let m = rng.below(60);
        if python {
            text.push_str(&format!("def f_{n}(x):\n    return f_{m}(x) + {n}\n\n"));
        } else {
            text.push_str(&format!("pub fn f_{n}(x: u32) -> u32 {{\n    f_{m}(x) + {n}\n}}\n\n"));
        }
    }
    text
}

fn files(dir: &Path) -> Vec<String> {
    git_out(dir, &["ls-files"]).lines().map(str::to_owned).collect()
}

const PATTERN: &str = r"fn f_[0-9]+|def f_[0-9]+";

fn grep(dir: &Path, reference: Option<&str>) -> BTreeSet<(String, u64)> {
    let mut args = vec!["grep", "-n", "-I", "-z", "-E", PATTERN];
    if let Some(r) = reference {
        args.push(r);
    } else {
        args.insert(1, "--untracked");
    }
    let out = git_out(dir, &args);
    out.lines()
        .map(|l| {
            let mut parts = l.split('\0');
            let mut path = parts.next().unwrap().to_owned();
            if let Some(r) = reference {
                path = path.strip_prefix(&format!("{r}:")).unwrap().to_owned();
            }
            (path, parts.next().unwrap().parse().unwrap())
        })
        .collect()
}

fn ours(engine: &Engine, scope: &Scope) -> BTreeSet<(String, u64)> {
    let request = SearchRequest {
        query: PATTERN.to_owned(),
        mode: Mode::Regex,
        limit: 100_000,
        context: 0,
        detail: Detail::Location,
        compact: true,
        fuzzy: 0,
        case_sensitive: false,
        ignore_case: false,
        explain: Explain::Off,
        max_tokens: None,
        filters: Filters::default(),
        timeout: Duration::from_secs(60),
        files: false,
        grep: Default::default(),
        comparable: false,
    };
    let response = engine.search(&request, scope, Freshness::BestEffort).expect("search runs");
    response.output.results.iter().map(|r| (r.path.clone(), u64::from(r.line_start))).collect()
}

/// The references of `name` at `scope`: where, how sure, and which definitions were candidates.
fn references(engine: &Engine, scope: &Scope, name: &str) -> Vec<(String, u32, String, Vec<String>)> {
    let request = GraphRequest {
        name: name.to_owned(),
        lang: None,
        path: None,
        scope: scope.clone(),
        limit: 10_000,
        depth: 1,
        freshness: Freshness::BestEffort,
    };
    let response = engine.references(&request).expect("references runs");
    response.results.into_iter().map(|r| (r.path, r.line, r.confidence.to_owned(), r.candidates)).collect()
}

#[test]
fn randomized_history_agrees_with_git_grep_and_fresh_indexes() {
    let seed: u64 = std::env::var("CODECOMPASS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0xC0DE_C0DE);
    let mut rng = Rng(seed);
    let mut compared_references = 0;
    let tmp = TempDir::new("history");
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    assert!(git(&repo, &["init", "-q", "-b", "main"]));
    // Sync keeps every branch fresh, as `codecompass.refs` asks.
    assert!(git(&repo, &["config", "codecompass.refs", "refs/heads/*"]));
    for i in 0..4 {
        let python = i % 2 == 1;
        let name = if python { format!("pkg/m{i}.py") } else { format!("src/m{i}.rs") };
        std::fs::create_dir_all(repo.join(&name).parent().unwrap()).unwrap();
        std::fs::write(repo.join(&name), source(&mut rng, python)).unwrap();
    }
    assert!(git(&repo, &["add", "-A"]));
    assert!(git(&repo, &["commit", "-qm", "start"]));
    for b in ["b1", "b2", "b3"] {
        assert!(git(&repo, &["branch", b]));
    }
    let linked: PathBuf = tmp.path().join("linked");
    assert!(git(&repo, &["worktree", "add", "-q", linked.to_str().unwrap(), "b1"]));

    let engine = Engine::open(&repo, &EngineOptions::default()).unwrap();
    let linked_engine = Engine::open(&linked, &EngineOptions::default()).unwrap();
    let mut log = Vec::new();
    for step in 0..24 {
        // Most steps happen in the main worktree; some in the linked one.
        let here: &Path = if rng.below(4) == 0 { &linked } else { &repo };
        let op = rng.below(11);
        let current = files(here);
        let pick = |rng: &mut Rng| current.get(rng.below(current.len())).cloned();
        let description = match op {
            0 | 1 => {
                let Some(f) = pick(&mut rng) else { continue };
                std::fs::write(here.join(&f), source(&mut rng, f.ends_with(".py"))).unwrap();
                git(here, &["commit", "-qam", "edit"]);
                format!("edit {f}")
            }
            2 => {
                let Some(f) = pick(&mut rng) else { continue };
                let to = format!(
                    "moved/{}_{step}{}",
                    f.replace(['/', '.'], "_"),
                    if f.ends_with(".py") { ".py" } else { ".rs" }
                );
                std::fs::create_dir_all(here.join("moved")).unwrap();
                git(here, &["mv", &f, &to]);
                git(here, &["commit", "-qm", "rename"]);
                format!("rename {f} -> {to}")
            }
            3 => {
                let Some(f) = pick(&mut rng) else { continue };
                git(here, &["update-index", "--chmod=+x", &f]);
                git(here, &["commit", "-qm", "mode"]);
                format!("chmod {f}")
            }
            4 if current.len() > 2 => {
                let Some(f) = pick(&mut rng) else { continue };
                git(here, &["rm", "-q", &f]);
                git(here, &["commit", "-qm", "delete"]);
                format!("delete {f}")
            }
            5 => {
                let python = rng.below(2) == 0;
                let f = format!("new/n{step}.{}", if python { "py" } else { "rs" });
                std::fs::create_dir_all(here.join("new")).unwrap();
                std::fs::write(here.join(&f), source(&mut rng, python)).unwrap();
                git(here, &["add", &f]);
                git(here, &["commit", "-qm", "add"]);
                format!("add {f}")
            }
            6 if here == repo.as_path() => {
                let b = ["main", "b2", "b3"][rng.below(3)];
                git(here, &["checkout", "-q", b]);
                format!("checkout {b}")
            }
            7 => {
                let b = ["main", "b1", "b2", "b3"][rng.below(4)];
                if !git(here, &["merge", "-q", "--no-edit", "-X", "theirs", b]) {
                    git(here, &["merge", "--abort"]);
                }
                format!("merge {b}")
            }
            8 => {
                let b = ["main", "b1", "b2", "b3"][rng.below(4)];
                if !git(here, &["rebase", "-q", "-X", "theirs", b]) {
                    git(here, &["rebase", "--abort"]);
                }
                format!("rebase onto {b}")
            }
            9 => {
                git(here, &["reset", "-q", "--hard", "HEAD~1"]);
                "reset --hard HEAD~1".to_owned()
            }
            _ => {
                // Dirty state: an uncommitted edit and an untracked file.
                if let Some(f) = pick(&mut rng) {
                    std::fs::write(here.join(&f), source(&mut rng, f.ends_with(".py"))).unwrap();
                }
                std::fs::write(here.join(format!("scratch{step}.rs")), source(&mut rng, false)).unwrap();
                "dirty edit and untracked file".to_owned()
            }
        };
        // Keep the next step's branch operations clean: commit or drop dirty state at times.
        if op != 10 && rng.below(3) == 0 {
            git(here, &["stash", "-q", "--include-untracked"]);
        }
        log.push(format!("{step}: {} {description}", if here == repo.as_path() { "main-wt" } else { "linked-wt" }));

        engine.sync(false).unwrap_or_else(|e| panic!("sync after {log:?}: {e}"));
        linked_engine.sync(false).unwrap_or_else(|e| panic!("linked sync after {log:?}: {e}"));

        let fresh_store = TempDir::new("fresh");
        let fresh = Engine::open(
            &repo,
            &EngineOptions { store_dir: Some(fresh_store.path().to_owned()), ..Default::default() },
        )
        .unwrap();
        for b in ["main", "b1", "b2", "b3"] {
            let scope = Scope::Ref(b.to_owned());
            assert_eq!(ours(&engine, &scope), grep(&repo, Some(b)), "regex at {b} after {log:#?}");
            fresh.index(std::slice::from_ref(&scope), IndexOptions { force: true, reparse: true }).unwrap();
            let symbols = engine.all_symbols(&scope, Freshness::BestEffort).unwrap();
            assert_eq!(
                symbols,
                fresh.all_symbols(&scope, Freshness::BestEffort).unwrap(),
                "symbols at {b} after {log:#?}"
            );
            // A few names defined at this ref, spread over the list.
            let names: BTreeSet<&str> =
                symbols.iter().step_by(symbols.len() / 4 + 1).map(|s| s.qualified_name.as_str()).collect();
            for name in names {
                let found = references(&engine, &scope, name);
                compared_references += found.len();
                assert_eq!(found, references(&fresh, &scope, name), "references of {name} at {b} after {log:#?}");
            }
        }
        // History after rebases, resets and merges: log -S/-G at every branch equal git log's.
        if step % 4 == 3 {
            for b in ["main", "b1", "b2", "b3"] {
                for (mode, flag, pattern) in [
                    (LogMode::Count("f_1".to_owned()), "-S", "f_1"),
                    (LogMode::Grep("f_[23]\\(".to_owned()), "-G", "f_[23]\\("),
                ] {
                    let request = LogRequest { mode: Some(mode), at: Some(b.to_owned()), ..LogRequest::default() };
                    let answer = engine.log(&request).unwrap_or_else(|e| panic!("log at {b} after {log:?}: {e}"));
                    let got: Vec<String> = answer.commits.into_iter().map(|c| c.commit).collect();
                    let want: Vec<String> =
                        git_out(&repo, &["log", "--format=%H", flag, pattern, b]).lines().map(str::to_owned).collect();
                    assert_eq!(got, want, "log {flag} {pattern} at {b} after {log:#?}");
                }
            }
        }
        assert_eq!(ours(&engine, &Scope::Worktree), grep(&repo, None), "main worktree after {log:#?}");
        assert_eq!(ours(&linked_engine, &Scope::Worktree), grep(&linked, None), "linked worktree after {log:#?}");
    }
    assert!(compared_references > 0, "the history made no references to compare");
}
