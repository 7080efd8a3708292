//! Branches, worktrees and freshness: sync by tree diff, refs, diff, gc, and the acceptance
//! criteria: after rebase, amend, reset, a force-updated ref or a merge, answers are right and
//! only new blobs are parsed.

use std::path::Path;

use crate::support::{bin, cc, fixture, git, located, view};

fn blobs_parsed(run: &crate::support::Run) -> u64 {
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    run.json["total"]["blobs_parsed"].as_u64().unwrap()
}

fn write(repo: &Path, path: &str, text: &str) {
    let full = repo.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

#[test]
fn sync_covers_worktree_default_branch_linked_worktrees_and_configured_refs() {
    let (tmp, repo) = fixture("shop");
    let other = tmp.path().join("shop-old");
    git(&repo, &["worktree", "add", "-q", other.to_str().unwrap(), "old-line"]);
    git(&repo, &["config", "codecompass.refs", "refs/tags/*"]);
    let run = cc(&repo, &["sync"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: Vec<String> =
        run.json["views"].as_array().unwrap().iter().map(|v| v["ref_name"].as_str().unwrap().to_owned()).collect();
    for expected in ["refs/heads/main", "refs/heads/old-line", "refs/tags/v1.0"] {
        assert!(names.iter().any(|n| n == expected), "{expected} in {names:?}");
    }
    assert!(names.iter().any(|n| n.starts_with("worktree:")));
    // Everything is fresh now, and a second sync parses nothing.
    let refs = cc(&repo, &["refs"]);
    for r in refs.json["refs"].as_array().unwrap() {
        let indexed = !r["indexed_commit"].is_null();
        if indexed {
            assert_eq!(r["freshness_status"], "fresh", "{r}");
        }
    }
    assert_eq!(refs.json["default_branch"], "refs/heads/main");
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 0);
    // A new commit makes main stale until the next sync, which parses exactly the new blob.
    write(&repo, "src/extra.rs", "pub fn extra_function() {}\n");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "extra"]);
    let refs = cc(&repo, &["refs"]);
    let main = refs.json["refs"].as_array().unwrap().iter().find(|r| r["name"] == "refs/heads/main").unwrap().clone();
    assert_eq!(main["freshness_status"], "stale");
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 1);
}

#[test]
fn history_rewrites_cost_only_new_blobs_and_answers_follow_them() {
    let (_tmp, repo) = fixture("shop");
    git(&repo, &["checkout", "-q", "feature"]);
    assert!(blobs_parsed(&cc(&repo, &["sync"])) > 0);

    // Amend: one changed file, one new blob.
    let cart = std::fs::read_to_string(repo.join("src/cart.rs")).unwrap().replace("apply_coupon", "apply_discount");
    write(&repo, "src/cart.rs", &cart);
    git(&repo, &["commit", "-q", "-a", "--amend", "-m", "discounts"]);
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 1);
    assert_eq!(located(&cc(&repo, &["locate", "apply_discount", "--ref", "feature"])), [("src/cart.rs".into(), 33)]);
    assert_eq!(cc(&repo, &["locate", "apply_coupon", "--ref", "feature"]).code, 1);

    // Reset --hard to a known commit: nothing new to parse.
    git(&repo, &["reset", "-q", "--hard", "main"]);
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 0);
    assert_eq!(cc(&repo, &["locate", "apply_discount"]).code, 1);

    // A force-updated ref.
    git(&repo, &["checkout", "-q", "main"]);
    git(&repo, &["branch", "-f", "feature", "v1.0"]);
    assert_eq!(blobs_parsed(&cc(&repo, &["index", "--ref", "feature"])), 0);
    assert_eq!(cc(&repo, &["locate", "Inventory", "--ref", "feature"]).code, 1);

    // Rebase and merge of known content: every blob is known already.
    git(&repo, &["checkout", "-q", "-b", "topic", "v1.0"]);
    write(&repo, "src/topic.rs", "pub fn topic_function() {}\n");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "topic"]);
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 1);
    git(&repo, &["rebase", "-q", "main"]);
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 0, "a rebase onto known content parses nothing");
    assert_eq!(located(&cc(&repo, &["locate", "topic_function"])), [("src/topic.rs".into(), 1)]);
    assert_eq!(located(&cc(&repo, &["locate", "Inventory"])), [("src/inventory.rs".into(), 4)]);
    git(&repo, &["checkout", "-q", "main"]);
    git(&repo, &["merge", "-q", "--no-edit", "topic"]);
    assert_eq!(blobs_parsed(&cc(&repo, &["sync"])), 0, "a merge of known content parses nothing");
    assert_eq!(located(&cc(&repo, &["locate", "topic_function", "--ref", "main"])), [("src/topic.rs".into(), 1)]);
}

#[test]
fn switching_branches_never_answers_from_the_old_branch() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["locate", "apply_coupon"]).code, 1);
    git(&repo, &["checkout", "-q", "feature"]);
    assert_eq!(located(&cc(&repo, &["locate", "apply_coupon"])), [("src/cart.rs".into(), 33)]);
    git(&repo, &["checkout", "-q", "delete"]);
    assert_eq!(cc(&repo, &["locate", "apply_coupon"]).code, 1);
    assert_eq!(cc(&repo, &["locate", "Inventory"]).code, 1, "a file deleted on a branch is gone on it");
    let search = cc(&repo, &["search", "--mode", "literal", "reserve("]);
    assert_eq!(search.code, 1, "{}", search.stdout);
}

#[test]
fn diff_reports_files_and_symbols_from_records() {
    let (_tmp, repo) = fixture("shop");
    let run = cc(&repo, &["diff", "feature", "--base", "main"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.json["changed_files"],
        serde_json::json!([{"path": "src/cart.rs", "status": "modified", "language": "rust"}])
    );
    let added = &run.json["symbols"]["added"];
    assert_eq!(added.as_array().unwrap().len(), 1);
    assert_eq!(added[0]["name"], "apply_coupon");
    assert_eq!(added[0]["signature"], "pub fn apply_coupon(total_cents: u64, percent: u64) -> u64");

    // A rename is a rename, with no symbol changes; a moved function keeps its stable id.
    let renamed = cc(&repo, &["diff", "rename", "--base", "main"]);
    assert_eq!(renamed.json["changed_files"][0]["status"], "renamed");
    assert_eq!(renamed.json["changed_files"][0]["old_path"], "clients/python/shop_client.py");
    assert!(renamed.json["symbols"]["added"].as_array().unwrap().is_empty());

    git(&repo, &["checkout", "-q", "-b", "move", "main"]);
    let cart = std::fs::read_to_string(repo.join("src/cart.rs")).unwrap();
    let helper = "/// A helper.\npub fn cart_helper(x: u64) -> u64 {\n    x + 1\n}\n";
    write(&repo, "src/cart.rs", &format!("{cart}\n{helper}"));
    git(&repo, &["commit", "-qam", "helper"]);
    write(&repo, "src/cart.rs", &cart);
    write(&repo, "src/helpers.rs", helper);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "move helper"]);
    let moved = cc(&repo, &["diff", "HEAD", "--base", "HEAD~1"]);
    let renamed = moved.json["symbols"]["renamed"].as_array().unwrap();
    assert_eq!(renamed.len(), 1, "{}", moved.stdout);
    assert_eq!(renamed[0]["from"]["path"], "src/cart.rs");
    assert_eq!(renamed[0]["to"]["path"], "src/helpers.rs");
    // Modified bodies and signatures are told apart.
    write(&repo, "src/helpers.rs", &helper.replace("x + 1", "x + 2"));
    let modified = cc(&repo, &["diff", "--base", "HEAD"]);
    let m = &modified.json["symbols"]["modified"][0];
    assert_eq!((m["body_changed"].as_bool(), m["signature_changed"].as_bool()), (Some(true), Some(false)));
}

#[test]
fn gc_drops_what_no_ref_reaches_and_keeps_answers() {
    let (_tmp, repo) = fixture("shop");
    for r in ["main", "feature", "old-line", "delete"] {
        assert_eq!(cc(&repo, &["index", "--ref", r]).code, 0);
    }
    git(&repo, &["branch", "-D", "-q", "old-line"]);
    git(&repo, &["branch", "-D", "-q", "feature"]);
    let segments = || {
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(repo.join(".git/codecompass/fts/meta.json")).unwrap()).unwrap();
        meta["segments"].as_array().unwrap().len() as u64
    };
    let before = segments();
    // A temporary file of HEAD's remembered trees that a killed process left goes too.
    let store = repo.join(".git/codecompass");
    std::fs::write(store.join("head-trees.4242-0.tmp"), "left by a killed process\n").unwrap();
    let run = cc(&repo, &["gc", "--grace-days", "0"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!store.join("head-trees.4242-0.tmp").exists());
    let report = &run.json["gc"];
    assert_eq!(report["refs_dropped"], 2, "{report}");
    // Each index run committed its own full-text segment; gc leaves one (here with nothing to
    // merge: the segments whose every document gc deleted went with the deletes' commit).
    assert!(before >= 2, "{before} segments");
    assert_eq!(segments(), 1);
    assert!(report["views_dropped"].as_u64().unwrap() >= 2, "{report}");
    assert!(report["file_versions_dropped"].as_u64().unwrap() >= 2, "{report}");
    assert!(report["records_dropped"].as_u64().unwrap() >= 2, "{report}");
    // The references of dropped records are gone with them, name index included.
    let db = rusqlite::Connection::open(repo.join(".git/codecompass/store.sqlite")).unwrap();
    for table in ["occurrences", "occurrence_names"] {
        let left: i64 = db
            .query_row(&format!("SELECT count(*) FROM {table} WHERE record NOT IN (SELECT id FROM records)"), [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(left, 0, "{table} rows of dropped records");
    }
    drop(db);
    // Answers of what is left are untouched; a second gc finds nothing.
    assert_eq!(located(&cc(&repo, &["locate", "Inventory", "--ref", "main"])), [("src/inventory.rs".into(), 4)]);
    let search = cc(&repo, &["search", "--mode", "literal", "shop_checksum_legacy", "--ref", "main"]);
    assert_eq!(search.code, 1);
    let again = cc(&repo, &["gc", "--grace-days", "0"]);
    assert_eq!(again.json["gc"]["file_versions_dropped"], 0);
    assert_eq!(again.json["gc"]["segments_merged"], 0);
    // The branch comes back: its view is rebuilt from what is left.
    git(&repo, &["branch", "feature", "main"]);
    assert_eq!(cc(&repo, &["locate", "Cart", "--ref", "feature"]).code, 0);
    // With nothing to delete, gc merges the segments later runs committed.
    write(&repo, "src/extra.rs", "pub fn extra_helper() {}\n");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let before = segments();
    assert!(before >= 2, "{before} segments");
    let merged = cc(&repo, &["gc"]);
    assert_eq!(merged.json["gc"]["segments_merged"].as_u64(), Some(before), "{}", merged.stdout);
    assert_eq!(segments(), 1);
    // The merged segment's files are verified by gc itself: every one is stamped.
    let fts = store.join("fts");
    let stamped = std::fs::read_to_string(fts.join("verified")).unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(fts.join("meta.json")).unwrap()).unwrap();
    let segment = meta["segments"][0]["segment_id"].as_str().unwrap().replace('-', "");
    let files: Vec<String> = std::fs::read_dir(&fts)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&segment))
        .collect();
    assert!(!files.is_empty());
    for file in &files {
        assert!(stamped.lines().any(|line| line.starts_with(&format!("{file}\t"))), "{file} not stamped: {stamped}");
    }
    let found = cc(&repo, &["search", "--mode", "literal", "extra_helper"]);
    assert_eq!(found.code, 0, "{}", found.stdout);
}

#[test]
fn many_processes_syncing_and_querying_at_once_leave_a_consistent_store() {
    let (tmp, repo) = fixture("shop");
    let other = tmp.path().join("shop-feature");
    git(&repo, &["worktree", "add", "-q", other.to_str().unwrap(), "feature"]);
    write(&repo, "src/dirty.rs", "pub fn dirty_main() {}\n");
    write(&other, "src/dirty.rs", "pub fn dirty_feature() {}\n");
    let mut children = Vec::new();
    for i in 0..8 {
        let dir = if i % 2 == 0 { &repo } else { &other };
        let args: Vec<&str> = match i % 4 {
            0 | 1 => vec!["sync", "--quiet", "--json"],
            2 => vec!["search", "Cart", "--quiet", "--json"],
            _ => vec!["locate", "Inventory", "--quiet", "--json"],
        };
        children.push(bin().args(&args).current_dir(dir).stdout(std::process::Stdio::piped()).spawn().unwrap());
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stdout));
    }
    assert_eq!(located(&cc(&repo, &["locate", "dirty_main"])), [("src/dirty.rs".into(), 1)]);
    assert_eq!(cc(&repo, &["locate", "dirty_feature"]).code, 1);
    assert_eq!(located(&cc(&other, &["locate", "dirty_feature"])), [("src/dirty.rs".into(), 1)]);
    assert_eq!(cc(&other, &["locate", "dirty_main"]).code, 1);
    let status = cc(&repo, &["status"]);
    assert_eq!(status.json["store_state"], "compatible");
    assert!(status.json["interrupted_jobs"].as_array().unwrap().is_empty());
    assert_eq!(view(&cc(&repo, &["index"]))["blobs_parsed"], 0);
}

#[test]
fn a_repository_of_some_hundred_files_is_indexed_into_one_segment() {
    // 300 files are indexed by one thread into one segment, verified and stamped, with its
    // runs file (a thread per core wrote a segment each). A later run of a file adds one.
    let tmp = crate::support::TempDir::new("one-segment");
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    for i in 0..300 {
        let text = format!("/// Helper number {i}.\npub fn helper_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n");
        std::fs::write(repo.join(format!("src/m{i}.rs")), text).unwrap();
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "many files"]);
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let fts = repo.join(".git/codecompass/fts");
    let segments = || -> Vec<String> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(fts.join("meta.json")).unwrap()).unwrap();
        meta["segments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["segment_id"].as_str().unwrap().replace('-', ""))
            .collect()
    };
    let one = segments();
    assert_eq!(one.len(), 1, "{one:?}");
    let stamped = std::fs::read_to_string(fts.join("verified")).unwrap();
    let files: Vec<String> = std::fs::read_dir(&fts)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&one[0]))
        .collect();
    assert!(!files.is_empty());
    for file in &files {
        assert!(stamped.lines().any(|line| line.starts_with(&format!("{file}\t"))), "{file} not stamped");
    }
    assert!(fts.join(format!("runs-{}.bin", one[0])).exists());
    for name in ["helper_0", "helper_150", "helper_299"] {
        assert_eq!(located(&cc(&repo, &["locate", name])).len(), 1, "{name}");
        let found = cc(&repo, &["search", "--mode", "literal", &format!("fn {name}(")]);
        assert_eq!(found.code, 0, "{name}: {}", found.stdout);
    }
    std::fs::write(repo.join("src/m7.rs"), "pub fn helper_7_changed() {}\n").unwrap();
    assert_eq!(cc(&repo, &["index"]).code, 0);
    assert_eq!(segments().len(), 2);
    assert_eq!(located(&cc(&repo, &["locate", "helper_7_changed"])).len(), 1);
}
