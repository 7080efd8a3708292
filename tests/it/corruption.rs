//! Damaged stores: each full-text file kind truncated, deleted or bit-flipped (seeded), and the
//! SQLite database truncated. Afterwards no query panics; every query answers as before or
//! fails with a remedy, never a wrong answer marked complete; `doctor` reports every damage;
//! and the fix it prints restores answers equal to those before, at every indexed ref.
//!
//! A bit flipped inside full-text postings decodes into wrong documents, not an error: queries
//! catch it because a file rewritten since it was last verified is verified again before it
//! answers.

use std::path::Path;

use serde_json::Value;

use crate::support::{Rng, cc, fixture};

/// The queries compared: full text, exact text and definitions, at the worktree and a tag.
const QUERIES: &[&[&str]] = &[
    &["search", "cents"],
    &["search", "fn ", "--mode", "literal"],
    &["locate", "Cart"],
    &["search", "cents", "--ref", "v1.0"],
    &["locate", "Cart", "--ref", "v1.0"],
];

/// What a query found: its results' places, in order.
fn places(json: &Value) -> Vec<String> {
    json["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .map(|r| format!("{}:{}", r["path"].as_str().unwrap_or_default(), r["line"].as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

fn answers(repo: &Path) -> Vec<Vec<String>> {
    QUERIES
        .iter()
        .map(|q| {
            let run = cc(repo, q);
            assert_eq!(run.code, 0, "{q:?}: {}", run.stderr);
            places(&run.json)
        })
        .collect()
}

fn fts_files(store: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(store.join("fts"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e != "json" && e != "lock"))
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 0))
        // The runs files derive from the segments' columns and are not believed when damaged
        // (their own test, below): damage to them is no error.
        .filter(|p| !is_runs_file(p))
        .collect();
    // Segment names are random: order by kind and size, so a seed damages the same file
    // on every run.
    files.sort_by_key(|p| (p.extension().map(|e| e.to_os_string()), std::fs::metadata(p).map_or(0, |m| m.len())));
    files
}

/// No query panics; each answers as `before`, says it is partial, or fails with a remedy.
fn right_or_refused(repo: &Path, before: &[Vec<String>], what: &str) {
    for (q, expected) in QUERIES.iter().zip(before) {
        let run = cc(repo, q);
        match run.code {
            // An answer (found or not) is right, or says it is partial.
            0 | 1 => {
                if run.json["metadata"]["result_completeness"] == "complete" {
                    assert_eq!(&places(&run.json), expected, "{what}: {q:?} answered wrong as complete");
                }
            }
            2 => assert!(
                run.json["error"]["data"]["remedy"].as_str().is_some_and(|r| !r.is_empty()),
                "{what}: {q:?}: {}",
                run.stdout
            ),
            code => panic!("{what}: {q:?} exited {code}: {}", run.stderr),
        }
    }
}

/// `doctor` reports an error, and running the fix it prints restores every answer.
fn reported_and_repaired(repo: &Path, before: &[Vec<String>], what: &str) {
    // The quick check sees it too: the damaged file changed since it was verified.
    let quick = cc(repo, &["doctor", "--quick"]);
    assert_eq!(quick.code, 1, "{what}: doctor --quick saw nothing: {}", quick.stdout);
    let doctor = cc(repo, &["doctor"]);
    let problems = doctor.json["problems"].as_array().cloned().unwrap_or_default();
    let error = problems.iter().find(|p| p["severity"] == "error");
    let fix = error
        .and_then(|p| p["fix"].as_str())
        .unwrap_or_else(|| panic!("{what}: doctor saw nothing: {}", doctor.stdout));
    assert_eq!(fix, "git codecompass index --force", "{what}");
    let fixed = cc(repo, &["index", "--force"]);
    assert_eq!(fixed.code, 0, "{what}: the fix failed: {}", fixed.stderr);
    let doctor = cc(repo, &["doctor"]);
    let errors: Vec<&Value> =
        doctor.json["problems"].as_array().unwrap().iter().filter(|p| p["severity"] == "error").collect();
    assert!(errors.is_empty(), "{what}: still {errors:?}");
    assert_eq!(answers(repo), before, "{what}: the fix did not restore the answers");
}

#[test]
fn damaged_full_text_files_are_refused_reported_and_repaired() {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index", "--ref", "v1.0"]).code, 0);
    let before = answers(&repo);
    let store = repo.join(".git/codecompass");
    let pristine = tmp.path().join("pristine-store");
    copy(&store, &pristine);
    let kinds: Vec<String> = {
        let mut k: Vec<String> =
            fts_files(&store).iter().filter_map(|p| p.extension().map(|e| e.to_string_lossy().into_owned())).collect();
        k.sort();
        k.dedup();
        k
    };
    assert!(kinds.len() >= 5, "{kinds:?}");
    let mut cases: Vec<String> = vec!["delete meta.json".to_owned()];
    cases.extend(kinds.iter().map(|k| format!("truncate .{k}")));
    cases.extend((1..=3).map(|seed| format!("flip seed {seed}")));
    for case in &cases {
        restore(&pristine, &store);
        let files = fts_files(&store);
        if case == "delete meta.json" {
            std::fs::remove_file(store.join("fts/meta.json")).unwrap();
        } else if let Some(kind) = case.strip_prefix("truncate .") {
            let file = files.iter().find(|p| p.extension().is_some_and(|e| e == kind)).unwrap();
            let len = std::fs::metadata(file).unwrap().len();
            std::fs::OpenOptions::new().write(true).open(file).unwrap().set_len(len / 2).unwrap();
        } else {
            let seed: u64 = case.rsplit(' ').next().unwrap().parse().unwrap();
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed);
            let file = &files[rng.below(files.len())];
            let mut data = std::fs::read(file).unwrap();
            for _ in 0..16 {
                let at = rng.below(data.len());
                data[at] ^= 1 << rng.below(8);
            }
            std::fs::write(file, data).unwrap();
        }
        right_or_refused(&repo, &before, case);
        reported_and_repaired(&repo, &before, case);
    }
}

fn is_runs_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("runs-"))
}

fn runs_files(store: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> =
        std::fs::read_dir(store.join("fts")).unwrap().flatten().map(|e| e.path()).filter(|p| is_runs_file(p)).collect();
    files.sort();
    files
}

/// The ids of the last commit's segments, as the files name them.
fn segment_ids(store: &Path) -> Vec<String> {
    let meta: Value = serde_json::from_slice(&std::fs::read(store.join("fts/meta.json")).unwrap()).unwrap();
    let mut ids: Vec<String> = meta["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["segment_id"].as_str().unwrap().replace('-', ""))
        .collect();
    ids.sort();
    ids
}

#[test]
fn each_segment_has_a_runs_file_that_is_not_believed_when_damaged_or_misplaced() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index", "--ref", "v1.0"]).code, 0);
    // A second index run adds a segment of its own.
    std::fs::write(repo.join("src/extra.rs"), "pub fn extra_cents() -> u32 { 1 }\n").unwrap();
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let store = repo.join(".git/codecompass");
    let named = |store: &Path| -> Vec<String> {
        runs_files(store)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().trim_start_matches("runs-").replace(".bin", ""))
            .collect()
    };
    let segments = segment_ids(&store);
    assert!(segments.len() >= 2, "{segments:?}");
    assert_eq!(named(&store), segments, "one runs file per segment");
    let before = answers(&repo);
    assert!(before.iter().any(|a| a.iter().any(|p| p.starts_with("src/extra.rs"))), "{before:?}");

    // Damaged, truncated, swapped between segments (each the other's), deleted: the answers
    // stay the same and complete, read from the columns.
    let files = runs_files(&store);
    let contents: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let mut flipped = contents[0].clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x01;
    std::fs::write(&files[0], &flipped).unwrap();
    std::fs::write(&files[1], &contents[1][..contents[1].len() / 2]).unwrap();
    assert_eq!(answers(&repo), before, "damaged and truncated");
    std::fs::write(&files[0], &contents[1]).unwrap();
    std::fs::write(&files[1], &contents[0]).unwrap();
    assert_eq!(answers(&repo), before, "swapped");
    for file in &files {
        std::fs::remove_file(file).unwrap();
    }
    assert_eq!(answers(&repo), before, "deleted");
    assert!(cc(&repo, &["doctor"]).json["problems"].as_array().unwrap().iter().all(|p| p["severity"] != "error"));

    // gc merges the segments, writes the merged one's runs file and removes the others'.
    std::fs::write(&files[0], &contents[0]).unwrap();
    let gc = cc(&repo, &["gc"]);
    assert_eq!(gc.code, 0, "{}", gc.stderr);
    let segments = segment_ids(&store);
    assert_eq!(segments.len(), 1);
    assert_eq!(named(&store), segments);
    assert_eq!(answers(&repo), before, "after gc");
}

#[test]
fn a_truncated_database_is_refused_reported_and_repaired() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index", "--ref", "v1.0"]).code, 0);
    let before = answers(&repo);
    let db = repo.join(".git/codecompass/store.sqlite");
    let len = std::fs::metadata(&db).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&db).unwrap().set_len(len / 3).unwrap();
    right_or_refused(&repo, &before, "truncated database");
    reported_and_repaired(&repo, &before, "truncated database");
}

fn copy(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp").arg("-a").arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

fn restore(pristine: &Path, store: &Path) {
    std::fs::remove_dir_all(store).unwrap();
    copy(pristine, store);
}
