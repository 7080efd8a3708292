//! The worktree view: the default scope is the code as it is on disk, uncommitted changes
//! included; `--ref HEAD` is the committed code.

use std::path::Path;

use crate::support::{cc, cc_text, fixture, git, located, view};

fn write(repo: &Path, path: &str, text: &str) {
    let full = repo.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

/// Writes `path` and commits it alone.
fn commit_file(repo: &Path, path: &str, text: &str, message: &str) {
    write(repo, path, text);
    git(repo, &["add", path]);
    git(repo, &["commit", "-q", "-m", message]);
}

#[test]
fn an_uncommitted_edit_is_found_by_default_and_not_at_head() {
    let (_tmp, repo) = fixture("shop");
    cc(&repo, &["index"]);
    let mut cart = std::fs::read_to_string(repo.join("src/cart.rs")).unwrap();
    cart.push_str("\npub fn uncommitted_helper() {}\n");
    write(&repo, "src/cart.rs", &cart);
    let found = cc(&repo, &["locate", "uncommitted_helper"]);
    assert_eq!(located(&found), [("src/cart.rs".into(), 32)]);
    assert_eq!(found.json["metadata"]["freshness_status"], "fresh");
    assert_eq!(found.json["ref"], "worktree");
    assert_eq!(cc(&repo, &["locate", "uncommitted_helper", "--ref", "HEAD"]).code, 1);
    // Committing the change parses nothing new: the dirty blob was already keyed by its id.
    git(&repo, &["commit", "-qam", "helper"]);
    let after = cc(&repo, &["index", "--ref", "HEAD"]);
    assert_eq!(view(&after)["blobs_parsed"], 0, "{}", after.stdout);
    assert_eq!(located(&cc(&repo, &["locate", "uncommitted_helper", "--ref", "HEAD"])), [("src/cart.rs".into(), 32)]);
}

#[test]
fn a_deleted_uncommitted_file_is_gone_from_the_default_view() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(located(&cc(&repo, &["locate", "Inventory"])), [("src/inventory.rs".into(), 4)]);
    std::fs::remove_file(repo.join("src/inventory.rs")).unwrap();
    assert_eq!(cc(&repo, &["locate", "Inventory"]).code, 1);
    assert_eq!(located(&cc(&repo, &["locate", "Inventory", "--ref", "HEAD"])), [("src/inventory.rs".into(), 4)]);
    // Restoring it makes the worktree view equal HEAD again.
    git(&repo, &["checkout", "--", "src/inventory.rs"]);
    assert_eq!(located(&cc(&repo, &["locate", "Inventory"])), [("src/inventory.rs".into(), 4)]);
}

#[test]
fn untracked_files_count_unless_ignored() {
    let (_tmp, repo) = fixture("shop");
    write(&repo, "src/untracked.rs", "pub fn brand_new_function() {}\n");
    write(&repo, "build/generated.rs", "pub fn ignored_build_function() {}\n");
    write(&repo, "debug.log", "not code\n");
    assert_eq!(located(&cc(&repo, &["locate", "brand_new_function"])), [("src/untracked.rs".into(), 1)]);
    assert_eq!(cc(&repo, &["locate", "ignored_build_function"]).code, 1);
}

/// A file an ignore rule matches is still tracked once added (`git add -f`): it is in the
/// worktree's view as on disk, as `git grep` and `git status` have it. The worktree's answer is
/// `git grep`'s over the tracked files plus `git grep --untracked`'s over the others: the
/// latter alone (git 2.39) leaves such a tracked file out, since it walks the tree with the
/// ignore rules.
#[test]
fn a_tracked_file_an_ignore_rule_matches_stays_in_the_worktree_view() {
    let (_tmp, repo) = fixture("shop");
    write(&repo, "logs/kept.log", "tracked_log_marker one\n");
    git(&repo, &["add", "-f", "logs/kept.log"]);
    git(&repo, &["commit", "-q", "-m", "a log kept on purpose"]);
    write(&repo, ".gitignore", "*.log\n");
    write(&repo, "logs/debug.log", "tracked_log_marker in an untracked, ignored log\n");
    write(&repo, "notes.txt", "tracked_log_marker in an untracked file\n");
    let lines = |args: &[&str]| {
        let mut all = vec!["search", "tracked_log_marker", "--mode", "literal"];
        all.extend_from_slice(args);
        let mut out = line_places(&cc(&repo, &all).json);
        out.sort();
        out
    };
    // `git grep` for the tracked files, `git grep --untracked` for the others.
    let expected = || {
        let mut all = git_grep(&repo, "tracked_log_marker", &[]);
        all.extend(git_grep_with(&repo, &["--untracked"], "tracked_log_marker", &[]));
        all.sort();
        all.dedup();
        all
    };
    assert_eq!(expected(), ["logs/kept.log:1", "notes.txt:1"]);
    assert_eq!(lines(&[]), expected());
    assert_eq!(lines(&["--ref", "HEAD"]), ["logs/kept.log:1"]);
    // An edit of it is seen at the worktree, as `git grep` sees it.
    write(&repo, "logs/kept.log", "tracked_log_marker one\ntracked_log_marker two\n");
    assert_eq!(expected(), ["logs/kept.log:1", "logs/kept.log:2", "notes.txt:1"]);
    assert_eq!(lines(&[]), expected());
    assert_eq!(lines(&["--ref", "HEAD"]), ["logs/kept.log:1"]);
}
#[test]
fn codecompassignore_leaves_paths_out() {
    let (_tmp, repo) = fixture("shop");
    write(&repo, ".codecompassignore", "native/\n");
    assert_eq!(cc(&repo, &["locate", "shop_checksum"]).code, 1);
    assert_eq!(located(&cc(&repo, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);
    // Committed, it applies to the ref too.
    git(&repo, &["add", ".codecompassignore"]);
    git(&repo, &["commit", "-qm", "ignore native"]);
    assert_eq!(cc(&repo, &["locate", "shop_checksum", "--ref", "HEAD"]).code, 1);
    assert_eq!(located(&cc(&repo, &["locate", "shop_checksum", "--ref", "v1.0"])), [("native/checksum.c".into(), 4)]);
}

/// Runs `git-codecompass ARGS --json -q` in `dir` with the user's cache (and home) in `cache`.
fn in_cache(dir: &Path, cache: &Path, args: &[&str], extra: &[(&str, &str)]) -> crate::support::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--json", "-q"]);
    let cache_dir = cache.join("cache");
    let mut envs = vec![("XDG_CACHE_HOME", cache_dir.to_str().unwrap()), ("HOME", cache.to_str().unwrap())];
    envs.extend_from_slice(extra);
    crate::support::cc_env(dir, &all, &envs)
}

#[test]
fn a_directory_that_is_not_a_repository_is_indexed_only_when_asked_and_never_into_itself() {
    let tmp = crate::support::TempDir::new("live");
    let home = crate::support::TempDir::new("live-home");
    let dir = tmp.path();
    write(dir, "lib/util.py", "def live_helper():\n    return 1\n");
    write(dir, "main.go", "package main\n\nfunc main() {}\n");

    // Not asked: refused, with both ways on; nothing is written anywhere.
    let refused = in_cache(dir, home.path(), &["locate", "live_helper"], &[]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert_eq!(refused.json["error"]["code"], "not_a_repository");
    let remedy = refused.json["error"]["data"]["remedy"].as_str().unwrap();
    assert!(remedy.contains("index --live") && remedy.contains("CODECOMPASS_LIVE=1"), "{remedy}");
    assert!(!home.path().join("cache").exists());

    // Asked (the environment variable): a live view, kept in the user's cache directory.
    let found = in_cache(dir, home.path(), &["locate", "live_helper"], &[("CODECOMPASS_LIVE", "1")]);
    assert_eq!(located(&found), [("lib/util.py".into(), 1)]);
    assert_eq!(found.json["ref"], "live");
    let entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(entries.len(), 2, "nothing written into the directory: {entries:?}");
    // Indexed once, it answers without asking again, and follows edits.
    write(dir, "lib/util.py", "def renamed_helper():\n    return 1\n");
    assert_eq!(in_cache(dir, home.path(), &["locate", "live_helper"], &[]).code, 1);
    assert_eq!(located(&in_cache(dir, home.path(), &["locate", "renamed_helper"], &[])), [("lib/util.py".into(), 1)]);
    let refs = in_cache(dir, home.path(), &["locate", "x", "--ref", "HEAD"], &[]);
    assert_eq!(refs.code, 2);
    assert_eq!(refs.json["error"]["code"], "not_a_repository");

    // `gc --live` lists it, and drops it once the directory is gone.
    let listed = in_cache(dir, home.path(), &["gc", "--live"], &[]);
    let indexes = listed.json["indexes"].as_array().unwrap();
    assert_eq!(indexes.len(), 1, "{}", listed.stdout);
    let store = indexes[0]["store"].as_str().unwrap().to_owned();
    assert!(store.starts_with(home.path().join("cache/codecompass/live").to_str().unwrap()), "{store}");
    std::fs::remove_dir_all(dir.join("lib")).unwrap();
    std::fs::remove_file(dir.join("main.go")).unwrap();
    let moved = home.path().join("elsewhere");
    std::fs::rename(dir, &moved).unwrap();
    let dropped = in_cache(home.path(), home.path(), &["gc", "--live"], &[]);
    assert_eq!(dropped.json["removed"].as_array().unwrap().len(), 1, "{}", dropped.stdout);
    assert!(!Path::new(&store).exists());
}

#[test]
fn the_home_directory_and_large_directories_are_not_indexed_without_being_sure() {
    let home = crate::support::TempDir::new("live-home-guard");
    write(home.path(), "notes.txt", "remember the milk\n");
    for n in 0..12 {
        write(home.path(), &format!("project/file{n}.txt"), "some text\n");
    }
    let live = [("CODECOMPASS_LIVE", "1")];
    // The home directory itself: refused even when asked, unless forced.
    let refused = in_cache(home.path(), home.path(), &["search", "milk"], &live);
    assert_eq!(refused.json["error"]["code"], "invalid_argument", "{}", refused.stdout);
    assert!(refused.json["error"]["message"].as_str().unwrap().contains("home directory"));

    // Above the threshold: a question on a terminal, refused (with the remedy) without one.
    let project = home.path().join("project");
    let small = [("CODECOMPASS_LIVE", "1"), ("CODECOMPASS_LIVE_CONFIRM_FILES", "10")];
    let asked = in_cache(&project, home.path(), &["search", "text"], &small);
    assert_eq!(asked.code, 2);
    assert_eq!(asked.json["error"]["code"], "confirmation_required", "{}", asked.stdout);
    assert!(asked.json["error"]["data"]["remedy"].as_str().unwrap().contains("--yes"));
    let kept = in_cache(home.path(), home.path(), &["gc", "--live"], &[]);
    assert_eq!(kept.json["indexes"], serde_json::json!([]), "nothing indexed when refused: {}", kept.stdout);
    // On a terminal, the question; `y` goes on.
    let command = format!("{} search text", env!("CARGO_BIN_EXE_git-codecompass"));
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &command, "/dev/null"]).current_dir(&project).env("XDG_CACHE_HOME", home.path().join("cache"));
    script.env("HOME", home.path()).env("CODECOMPASS_LIVE", "1").env("CODECOMPASS_LIVE_CONFIRM_FILES", "10");
    script.env("NO_COLOR", "1").stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    let mut child = script.spawn().expect("script (util-linux) runs a command on a pseudo-terminal");
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"y\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(shown.contains("[y/N]") && shown.contains("file0.txt"), "{shown}");
    let other = home.path().join("other");
    for n in 0..12 {
        write(&other, &format!("f{n}.txt"), "more text\n");
    }
    let yes = in_cache(&other, home.path(), &["search", "text", "--yes"], &small);
    assert_eq!(yes.code, 0, "{}", yes.stderr);

    // `index --live --force` is the way to index the home directory when meant.
    let forced = in_cache(home.path(), home.path(), &["index", "--live", "--force", "--yes"], &[]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(in_cache(home.path(), home.path(), &["search", "milk"], &[]).code, 0);
    // The indexes kept in the cache (under the home directory) are not indexed themselves.
    let found = in_cache(home.path(), home.path(), &["search", "--mode", "path", "store.sqlite"], &[]);
    assert_eq!(found.json["results"], serde_json::json!([]), "{}", found.stdout);
}

#[test]
fn linked_worktrees_share_one_store_and_keep_their_own_views() {
    let (tmp, repo) = fixture("shop");
    let other = tmp.path().join("shop-feature");
    git(&repo, &["worktree", "add", "-q", other.to_str().unwrap(), "feature"]);
    assert_eq!(cc(&repo, &["locate", "apply_coupon"]).code, 1);
    assert_eq!(located(&cc(&other, &["locate", "apply_coupon"])), [("src/cart.rs".into(), 33)]);
    assert!(!other.join(".git/codecompass").exists());
    let status = cc(&other, &["status"]);
    let refs = status.json["refs"].as_array().unwrap();
    assert_eq!(refs.iter().filter(|r| r["kind"] == "worktree").count(), 2, "{}", status.stdout);
    assert!(refs.iter().all(|r| r["freshness_status"] == "fresh"), "{}", status.stdout);
    // An edit in one worktree makes only that worktree stale.
    write(&other, "src/extra.rs", "pub fn only_in_feature_worktree() {}\n");
    let status = cc(&repo, &["status"]);
    let stale: Vec<_> = status.json["refs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["freshness_status"] == "stale")
        .map(|r| r["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(stale.len(), 1, "{}", status.stdout);
    assert!(stale[0].ends_with("shop-feature"));
    assert_eq!(cc(&repo, &["locate", "only_in_feature_worktree"]).code, 1);
}

#[test]
fn a_bare_repository_answers_from_head() {
    let (tmp, repo) = fixture("shop");
    let bare = tmp.path().join("shop.git");
    git(tmp.path(), &["clone", "-q", "--bare", repo.to_str().unwrap(), bare.to_str().unwrap()]);
    let found = cc(&bare, &["locate", "Cart"]);
    assert_eq!(located(&found), [("src/cart.rs".into(), 11)]);
    assert_eq!(found.json["ref"], "HEAD");
}

/// `path:line` of each line match of a search's JSON answer, in order.
fn line_places(json: &serde_json::Value) -> Vec<String> {
    json["results"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .flat_map(|r| {
                    let path = r["path"].as_str().unwrap_or_default().to_owned();
                    r["lines"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .map(move |l| format!("{path}:{}", l["line"]))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `git grep -n -F PATTERN [ARGS]` as `path:line`, without the `REF:` prefix.
fn git_grep(repo: &Path, pattern: &str, args: &[&str]) -> Vec<String> {
    git_grep_with(repo, &[], pattern, args)
}

/// `git grep -n [OPTIONS] -F PATTERN [ARGS]` (`-E` in OPTIONS: a regex instead) as
/// `path:line`, without the `REF:` prefix of a ref among ARGS.
fn git_grep_with(repo: &Path, options: &[&str], pattern: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["grep", "-n", "--no-color"];
    all.extend_from_slice(options);
    if !options.contains(&"-E") {
        all.push("-F");
    }
    all.push(pattern);
    all.extend_from_slice(args);
    let out = std::process::Command::new("git").args(&all).current_dir(repo).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let l = args.iter().find_map(|r| l.strip_prefix(r)?.strip_prefix(':')).unwrap_or(l);
            let mut parts = l.splitn(3, ':');
            format!("{}:{}", parts.next().unwrap(), parts.next().unwrap())
        })
        .collect()
}

#[test]
fn a_sparse_checkout_leaves_files_out_of_the_worktree_view_as_git_grep_does() {
    let (_tmp, repo) = fixture("shop");
    let lines = |args: &[&str]| line_places(&cc(&repo, args).json);
    let grep = |args: &[&str]| git_grep(&repo, "def ", args);
    let everywhere = lines(&["search", "def ", "--mode", "literal"]);
    assert!(!everywhere.is_empty());
    git(&repo, &["sparse-checkout", "set", "src"]);
    // Not on disk: not in the worktree's view, as `git grep` without `--cached` says.
    assert_eq!(grep(&[]), Vec::<String>::new());
    assert_eq!(lines(&["search", "def ", "--mode", "literal"]), grep(&[]));
    // Still in HEAD's.
    assert_eq!(lines(&["search", "def ", "--mode", "literal", "--ref", "HEAD"]), everywhere);
    assert_eq!(grep(&["HEAD"]), everywhere);
    git(&repo, &["sparse-checkout", "disable"]);
    assert_eq!(lines(&["search", "def ", "--mode", "literal"]), everywhere);
}

#[test]
fn a_file_behind_a_clean_filter_is_searched_as_it_is_on_disk() {
    let (_tmp, repo) = fixture("shop");
    // The clean filter upper-cases what is committed; the file on disk stays as written.
    git(&repo, &["config", "filter.shout.clean", "tr a-z A-Z"]);
    git(&repo, &["config", "filter.shout.smudge", "cat"]);
    write(&repo, ".gitattributes", "*.txt filter=shout\n");
    write(&repo, "notes/motto.txt", "quiet words here\nsecond quiet line\n");
    git(&repo, &["add", ".gitattributes", "notes/motto.txt"]);
    git(&repo, &["commit", "-q", "-m", "a filtered file"]);
    let status = std::process::Command::new("git").args(["status", "--porcelain"]).current_dir(&repo).output().unwrap();
    assert!(status.stdout.is_empty(), "git sees the file as unchanged: {}", String::from_utf8_lossy(&status.stdout));

    for pattern in ["quiet", "QUIET"] {
        let worktree = line_places(&cc(&repo, &["search", pattern, "--mode", "literal", "--case-sensitive"]).json);
        assert_eq!(worktree, git_grep(&repo, pattern, &[]), "{pattern} at the worktree");
        let head = line_places(
            &cc(&repo, &["search", pattern, "--mode", "literal", "--case-sensitive", "--ref", "HEAD"]).json,
        );
        assert_eq!(head, git_grep(&repo, pattern, &["HEAD"]), "{pattern} at HEAD");
    }
    assert_eq!(git_grep(&repo, "quiet", &[]), ["notes/motto.txt:1", "notes/motto.txt:2"]);

    // An edit on disk is seen at once.
    write(&repo, "notes/motto.txt", "loud words now\n");
    let worktree = line_places(&cc(&repo, &["search", "loud", "--mode", "literal", "--case-sensitive"]).json);
    assert_eq!(worktree, ["notes/motto.txt:1"]);
    assert!(line_places(&cc(&repo, &["search", "quiet", "--mode", "literal", "--case-sensitive"]).json).is_empty());
}

#[test]
fn a_working_tree_that_keeps_changing_answers_stale_from_its_last_state_or_says_retry() {
    let (_tmp, repo) = fixture("shop");
    let changing =
        |args: &[&str]| crate::support::cc_env(&repo, args, &[("CODECOMPASS_FAILPOINTS", "worktree.read=fail")]);
    // Never indexed: nothing to answer from, so a clear error with a remedy, not a crash.
    let run = changing(&["locate", "Cart", "--json"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json["error"]["code"], "worktree_changing", "{}", run.stdout);
    assert!(run.json["error"]["data"]["remedy"].as_str().is_some_and(|r| r.contains("again")), "{}", run.stdout);

    // Indexed before: the last state answers, marked stale, and stderr says why.
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let run = changing(&["locate", "Cart", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["metadata"]["freshness_status"], "stale", "{}", run.stdout);
    assert_eq!(located(&run), [("src/cart.rs".to_owned(), 11)]);
    assert!(run.stderr.contains("kept changing"), "{}", run.stderr);
}

#[test]
fn best_effort_answers_from_the_last_view_without_walking_the_working_tree_and_never_says_fresh() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    git(&repo, &["config", "codecompass.freshness", "best_effort"]);
    write(&repo, "src/late.rs", "pub fn written_after_indexing() {}\n");
    // The last view answers: the new file is not in it, and the answer does not claim fresh.
    let run = cc(&repo, &["locate", "Cart"]);
    assert_eq!(located(&run), [("src/cart.rs".into(), 11)]);
    assert_eq!(run.json["metadata"]["freshness_status"], "stale", "{}", run.stdout);
    assert_eq!(cc(&repo, &["locate", "written_after_indexing"]).code, 1);
    // A ref is still resolved, so its answer can be fresh.
    assert_eq!(cc(&repo, &["locate", "Cart", "--ref", "HEAD"]).json["metadata"]["freshness_status"], "fresh");
    // Strict brings the working tree in.
    git(&repo, &["config", "codecompass.freshness", "strict"]);
    let run = cc(&repo, &["locate", "written_after_indexing"]);
    assert_eq!(located(&run), [("src/late.rs".into(), 1)]);
    assert_eq!(run.json["metadata"]["freshness_status"], "fresh");
}

/// Gives every tracked file of the worktree at `dir` the modification time of its git index.
fn make_racily_clean(dir: &Path) {
    let index = dir.join(git(dir, &["rev-parse", "--git-path", "index"]).trim());
    let index_time = filetime::FileTime::from_last_modification_time(&std::fs::metadata(index).unwrap());
    for path in git(dir, &["ls-files"]).lines() {
        filetime::set_file_mtime(dir.join(path), index_time).unwrap();
    }
}

/// The `refreshed-*` copies of git's index a repository's store keeps.
fn refreshed_copies(repo: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![repo.join(".git")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else if name.starts_with("refreshed-") && !name.ends_with(".lock") {
                found.push(name);
            }
        }
    }
    found
}

#[test]
fn racily_clean_files_are_kept_verified_and_an_edit_of_the_same_size_is_still_seen() {
    let (_tmp, repo) = fixture("shop");
    // Every tracked file as old as git's index: racily clean, so each status reads them all
    // (as after a clone) until the stats are kept.
    make_racily_clean(&repo);
    let tracked = git(&repo, &["ls-files"]);
    let lines = |pattern: &str| line_places(&cc(&repo, &["search", pattern, "--mode", "literal"]).json);
    assert_eq!(lines("def "), git_grep(&repo, "def ", &[]));
    assert_eq!(refreshed_copies(&repo).len(), 1, "the verified stats are kept: {:?}", refreshed_copies(&repo));

    // An edit that keeps the size (and, on a coarse clock, could keep the time) is seen.
    let path = tracked.lines().find(|p| p.ends_with(".py")).expect("the shop has Python files");
    let text = std::fs::read_to_string(repo.join(path)).unwrap();
    let edited = text.replacen("def ", "dex ", 1);
    assert_eq!(edited.len(), text.len());
    std::fs::write(repo.join(path), &edited).unwrap();
    assert_eq!(lines("dex "), git_grep(&repo, "dex ", &[]));
    assert_eq!(lines("def "), git_grep(&repo, "def ", &[]));

    // Git's own index changes: the copy made from the old one is dropped, answers stay right.
    git(&repo, &["add", path]);
    assert_eq!(lines("dex "), git_grep(&repo, "dex ", &[]));
    assert!(refreshed_copies(&repo).len() <= 1, "{:?}", refreshed_copies(&repo));
    git(&repo, &["checkout", "HEAD", "--", path]);
    assert_eq!(lines("dex "), Vec::<String>::new());
    assert_eq!(lines("def "), git_grep(&repo, "def ", &[]));
}

#[test]
fn gc_drops_the_kept_index_copy_of_a_removed_linked_worktree() {
    let (tmp, repo) = fixture("shop");
    let other = tmp.path().join("shop-feature");
    git(&repo, &["worktree", "add", "-q", other.to_str().unwrap(), "feature"]);
    make_racily_clean(&repo);
    make_racily_clean(&other);
    cc(&repo, &["locate", "apply_coupon"]);
    assert_eq!(located(&cc(&other, &["locate", "apply_coupon"])), [("src/cart.rs".into(), 33)]);
    assert_eq!(refreshed_copies(&repo).len(), 2, "one per worktree: {:?}", refreshed_copies(&repo));
    git(&repo, &["worktree", "remove", "--force", other.to_str().unwrap()]);
    assert_eq!(cc(&repo, &["gc"]).code, 0);
    assert_eq!(refreshed_copies(&repo).len(), 1, "{:?}", refreshed_copies(&repo));
}

/// A query walks the tree once: the state it checked freshness with is the one it indexes.
/// If another process published the view between that walk and the query's lock, the walk
/// may be older than what was published, so the query walks again: a stored view never goes
/// back to an older state of the tree.
#[test]
fn a_query_never_publishes_a_state_older_than_the_view_it_found_at_its_lock() {
    let (tmp, repo) = fixture("shop");
    cc(&repo, &["index"]);
    let cart = std::fs::read_to_string(repo.join("src/cart.rs")).unwrap();
    write(&repo, "src/cart.rs", &format!("{cart}\npub fn first_edit() {{}}\n"));
    // The first query walks (finding `first_edit`), then stops before taking the lock.
    let go = tmp.path().join("go");
    let failpoint = format!("query.after_check=wait({})", go.display());
    let slow = crate::support::bin()
        .args(["locate", "first_edit", "--json", "--quiet"])
        .env("CODECOMPASS_FAILPOINTS", &failpoint)
        .current_dir(&repo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let reached = tmp.path().join("go.reached");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !reached.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(reached.exists(), "the first query reached its lock");
    // Meanwhile the file changes again and a second query publishes that newer state.
    write(&repo, "src/cart.rs", &format!("{cart}\npub fn second_edit() {{}}\n"));
    assert_eq!(located(&cc(&repo, &["locate", "second_edit"])), [("src/cart.rs".into(), 32)]);
    std::fs::write(&go, b"").unwrap();
    let output = slow.wait_with_output().unwrap();
    // The first query answers from the tree as it is now, not as its first walk saw it...
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stdout));
    // ...and the stored view is the newest state: fresh without another index.
    let status = cc(&repo, &["status"]);
    let worktree = status.json["refs"].as_array().unwrap().iter().find(|r| r["kind"] != "ref").unwrap().clone();
    assert_eq!(worktree["freshness_status"], "fresh", "{}", status.stdout);
}

/// After a checkout, HEAD's new tree view is derived while the tree is walked; the worktree
/// view then holds the branch's files and the uncommitted edits carried over.
#[test]
fn a_checkout_with_an_uncommitted_edit_carried_over_answers_both() {
    let (_tmp, repo) = fixture("shop");
    cc(&repo, &["index"]);
    git(&repo, &["checkout", "-qb", "carried"]);
    write(&repo, "src/branch_only.rs", "pub fn only_on_the_branch() {}\n");
    git(&repo, &["add", "src/branch_only.rs"]);
    git(&repo, &["commit", "-qm", "branch file"]);
    git(&repo, &["checkout", "-q", "-"]);
    assert_eq!(cc(&repo, &["locate", "only_on_the_branch"]).code, 1);
    let mut readme = std::fs::read_to_string(repo.join("README.md")).unwrap_or_default();
    readme.push_str("\ncarried_over_marker\n");
    write(&repo, "README.md", &readme);
    git(&repo, &["checkout", "-q", "carried"]);
    assert_eq!(located(&cc(&repo, &["locate", "only_on_the_branch"])), [("src/branch_only.rs".into(), 1)]);
    let found = cc(&repo, &["search", "-F", "carried_over_marker"]);
    assert_eq!(found.json["metadata"]["freshness_status"], "fresh", "{}", found.stdout);
    assert!(found.stdout.contains("README.md"), "{}", found.stdout);
    let fresh = cc(&repo, &["status"]);
    let worktree = fresh.json["refs"].as_array().unwrap().iter().find(|r| r["kind"] != "ref").unwrap().clone();
    assert_eq!(worktree["freshness_status"], "fresh", "{}", fresh.stdout);
}

#[test]
fn a_soft_reset_leaves_the_newer_files_staged_and_the_worktree_view_holds_them() {
    let (_tmp, repo) = fixture("shop");
    commit_file(&repo, "notes/plan.txt", "first draft of the plan\n", "plan");
    commit_file(&repo, "notes/plan.txt", "final version of the plan\n", "plan, final");
    // HEAD goes back; the index keeps the newer tree (and git's cache of it, valid but for
    // another tree than HEAD's); the file on disk equals the index.
    git(&repo, &["reset", "-q", "--soft", "HEAD~1"]);
    let search = |pattern: &str, args: &[&str]| {
        let mut all = vec!["search", pattern, "--mode", "literal"];
        all.extend_from_slice(args);
        line_places(&cc(&repo, &all).json)
    };
    assert_eq!(search("final version", &[]), ["notes/plan.txt:1"]);
    assert!(search("first draft", &[]).is_empty());
    assert_eq!(search("first draft", &["--ref", "HEAD"]), ["notes/plan.txt:1"]);
    assert!(search("final version", &["--ref", "HEAD"]).is_empty());
}

#[test]
fn a_file_of_the_same_size_on_disk_is_not_read_for_the_committed_view() {
    let (_tmp, repo) = fixture("shop");
    commit_file(&repo, "notes/motto.txt", "keep calm\nand carry on\n", "motto");
    cc(&repo, &["index"]);
    // Same length, other bytes: the committed view reads the blob, the worktree view the file.
    write(&repo, "notes/motto.txt", "keep CALM\nand carry on\n");
    let search = |pattern: &str, args: &[&str]| {
        let mut all = vec!["search", pattern, "--mode", "literal", "--case-sensitive", "-C", "1"];
        all.extend_from_slice(args);
        cc(&repo, &all).json
    };
    let head = search("carry on", &["--ref", "HEAD"]);
    assert_eq!(line_places(&head), ["notes/motto.txt:2"]);
    assert!(head.to_string().contains("keep calm"), "{head}");
    assert!(!head.to_string().contains("keep CALM"), "{head}");
    let worktree = search("carry on", &[]);
    assert_eq!(line_places(&worktree), ["notes/motto.txt:2"]);
    assert!(worktree.to_string().contains("keep CALM"), "{worktree}");
}

/// A worktree search first answers from the view last indexed while the walk checks the tree:
/// what that view holds is never shown once the walk finds the tree changed, in text (printed
/// as each file is verified) or in JSON.
#[test]
fn an_answer_from_the_view_before_an_edit_is_never_shown() {
    let (_tmp, repo) = fixture("shop");
    write(&repo, "src/notes.rs", "// marker_before_the_edit\npub fn note_before() {}\n");
    assert_eq!(cc_text(&repo, &["search", "--mode", "literal", "marker_before_the_edit"]).code, 0);
    assert_eq!(located(&cc(&repo, &["locate", "note_before"])), [("src/notes.rs".into(), 2)]);

    write(&repo, "src/notes.rs", "// marker_after_the_edit\npub fn note_after() {}\n");
    let before = cc_text(&repo, &["search", "--mode", "literal", "marker_before_the_edit"]);
    assert_eq!((before.code, before.stdout.as_str()), (1, ""));
    let after = cc_text(&repo, &["search", "--mode", "literal", "marker_after_the_edit"]);
    assert_eq!(after.stdout, "src/notes.rs:1:4: // marker_after_the_edit\n");

    write(&repo, "src/notes.rs", "// marker_again\npub fn note_again() {}\n");
    let ranked = cc(&repo, &["search", "note_after"]);
    assert_eq!(ranked.code, 1, "{}", ranked.stdout);
    assert_eq!(ranked.json["metadata"]["freshness_status"], "fresh");
    assert_eq!(located(&cc(&repo, &["locate", "note_again"])), [("src/notes.rs".into(), 2)]);
}

/// An early answer holds its lines back until its view is known current, up to a bound; past
/// it the search runs again on the view resolved: every line is printed once.
#[test]
fn a_huge_answer_is_printed_whole_and_once() {
    let (_tmp, repo) = fixture("shop");
    let lines: String = (0..12_000).map(|i| format!("needle_line {i}\n")).collect();
    write(&repo, "notes/many.txt", &lines);
    for _ in 0..2 {
        let run = cc_text(&repo, &["search", "--mode", "literal", "needle_line"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let printed: Vec<&str> = run.stdout.lines().collect();
        assert_eq!(printed.len(), 12_000);
        assert_eq!(printed[11_999], "notes/many.txt:12000:1: needle_line 11999");
    }
}

/// Outside `strict` (`balanced`, the MCP server's default) a walked working tree that changed
/// is answered from its last view, said to be stale: the early answer on that view is the
/// answer, printed once; when the tree has not changed, the answer is fresh.
#[test]
fn balanced_answers_a_changed_tree_from_its_last_view_said_stale_and_printed_once() {
    let (_tmp, repo) = fixture("shop");
    write(&repo, "src/notes.rs", "// marker_kept_in_the_view\n");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    git(&repo, &["config", "codecompass.freshness", "balanced"]);
    let unchanged = cc(&repo, &["search", "--mode", "literal", "marker_kept_in_the_view"]);
    assert_eq!(unchanged.json["metadata"]["freshness_status"], "fresh", "{}", unchanged.stdout);

    write(&repo, "src/notes.rs", "// marker_written_later\n");
    let run = cc(&repo, &["search", "--mode", "literal", "marker_kept_in_the_view"]);
    assert_eq!(run.json["metadata"]["freshness_status"], "stale", "{}", run.stdout);
    assert_eq!(run.json["results"][0]["path"], "src/notes.rs");
    let text = cc_text(&repo, &["search", "--mode", "literal", "marker_kept_in_the_view"]);
    assert_eq!(text.stdout, "src/notes.rs:1:4: // marker_kept_in_the_view\n");
    assert_eq!(cc(&repo, &["search", "--mode", "literal", "marker_written_later"]).code, 1);
}

#[test]
fn a_submodules_files_are_never_searched_changed_or_not() {
    let (_tmp, repo) = fixture("shop");
    // A second repository, added as a submodule at `vendor/lib`.
    let lib = repo.parent().unwrap().join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    git(&lib, &["init", "-q"]);
    commit_file(&lib, "lib.rs", "pub fn vendored_function() {}\n", "lib");
    git(&repo, &["-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.to_str().unwrap(), "vendor/lib"]);
    git(&repo, &["commit", "-q", "-m", "vendor lib"]);
    cc(&repo, &["index"]);
    // Edits inside it, an untracked file in it and a new commit of it: `git grep` searches
    // none of them without `--recurse-submodules`, and neither does the worktree view.
    let inside = repo.join("vendor/lib");
    write(&inside, "lib.rs", "pub fn vendored_function() {}\npub fn edited_in_submodule() {}\n");
    write(&inside, "new.rs", "pub fn untracked_in_submodule() {}\n");
    for name in ["vendored_function", "edited_in_submodule", "untracked_in_submodule"] {
        assert_eq!(cc(&repo, &["locate", name]).code, 1, "{name}");
        assert_eq!(cc(&repo, &["search", "--mode", "literal", name]).code, 1, "{name}");
    }
    git(&inside, &["add", "-A"]);
    git(&inside, &["commit", "-q", "-m", "moved on"]);
    assert_eq!(cc(&repo, &["locate", "edited_in_submodule"]).code, 1);
    // The superproject's own files still answer, fresh.
    let found = cc(&repo, &["locate", "Inventory"]);
    assert_eq!(located(&found), [("src/inventory.rs".into(), 4)]);
    assert_eq!(found.json["metadata"]["freshness_status"], "fresh");
}

#[test]
fn a_large_first_run_in_a_linked_worktree_answers_as_git_grep_does() {
    // 2,200 files: more than a small run takes, so the first index has its writer threads and
    // reads its blobs through an object store of its own (packed at `main`, loose at `next`).
    let (tmp, repo) = fixture("many-files");
    let other = tmp.path().join("many-next");
    git(&repo, &["worktree", "add", "-q", other.to_str().unwrap(), "next"]);
    let run = cc(&other, &["index"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["total"]["blobs_parsed"], 2200, "{}", run.stdout);

    let search = |dir: &Path, args: &[&str]| {
        let mut all = vec!["search", "--limit", "5000", "--case-sensitive"];
        all.extend_from_slice(args);
        let mut lines = line_places(&cc(dir, &all).json);
        lines.sort();
        lines
    };
    let sorted = |mut lines: Vec<String>| {
        lines.sort();
        lines
    };
    let same = |ours: Vec<String>, theirs: Vec<String>, n: usize, what: &str| {
        assert_eq!(ours.len(), n, "{what}: {ours:?}");
        assert!(ours == theirs, "{what}: ours {ours:?}, git grep {theirs:?}");
    };
    let regex = r"shared_helper\(21[0-9]{2}\)";
    same(
        search(&other, &["next_helper", "--mode", "literal"]),
        sorted(git_grep(&other, "next_helper", &[])),
        220,
        "literal",
    );
    same(search(&other, &["--mode", "regex", regex]), sorted(git_grep_with(&other, &["-E"], regex, &[])), 100, "regex");
    assert_eq!(located(&cc(&other, &["locate", "item_2150"])), [("d21/f2150.rs".into(), 1)]);

    // The main worktree and `main` answer from the same store, told apart by the blobs `next`
    // rewrote.
    assert_eq!(search(&repo, &["shared_helper(2150)", "--mode", "literal"]), ["d21/f2150.rs:2"]);
    assert!(search(&repo, &["next_helper", "--mode", "literal"]).is_empty());
    same(
        search(&other, &["shared_helper", "--mode", "literal", "--ref", "main"]),
        sorted(git_grep(&repo, "shared_helper", &["main"])),
        2200,
        "at main",
    );
}
