//! `history NAME` against `locate` at every commit: a fixture history with moves, renames and
//! deletions, and randomized ones; and which files a rename check reads.

use std::path::Path;

use crate::support::{Rng, TempDir, cc, git_at};

/// The definitions named `name` at `commit`, by `locate` there: (path, qualified name, text).
fn located_at(dir: &Path, name: &str, commit: &str) -> std::collections::BTreeSet<(String, String, String)> {
    let run = cc(dir, &["locate", name, "--ref", commit]);
    let mut out = std::collections::BTreeSet::new();
    for r in run.json["results"].as_array().cloned().unwrap_or_default() {
        if r["name"] != name {
            continue;
        }
        let path = r["path"].as_str().unwrap().to_owned();
        let file = git_at(dir, 0, &["show", &format!("{commit}:{path}")]);
        let (start, end) = (r["line_start"].as_u64().unwrap() as usize, r["line_end"].as_u64().unwrap() as usize);
        let text: Vec<&str> = file.lines().skip(start - 1).take(end + 1 - start).collect();
        out.insert((path, r["qualified_name"].as_str().unwrap().to_owned(), text.join("\n")));
    }
    out
}

#[test]
fn symbol_history_equals_locate_at_every_commit_and_names_moves_and_renames() {
    let (_tmp, dir) = crate::support::fixture("symbol-history");
    let commits: Vec<String> = git_at(&dir, 0, &["rev-list", "--reverse", "HEAD"]).lines().map(str::to_owned).collect();
    // The oracle: the commits where what `locate total` finds (where, and its text) changes.
    let mut expected = Vec::new();
    let mut before = std::collections::BTreeSet::new();
    for commit in &commits {
        let now = located_at(&dir, "total", commit);
        if now != before {
            expected.push(commit.clone());
        }
        before = now;
    }
    expected.reverse();
    let run = cc(&dir, &["history", "total"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    let events = run.json["events"].as_array().unwrap().clone();
    let mut ours: Vec<String> = events.iter().map(|e| e["commit"]["commit"].as_str().unwrap().to_owned()).collect();
    ours.dedup();
    assert_eq!(ours, expected, "{}", run.stdout);
    let kinds: Vec<(String, String)> = events
        .iter()
        .map(|e| {
            let side = if e["after"].is_null() { &e["before"] } else { &e["after"] };
            (e["change"].as_str().unwrap().to_owned(), side["qualified_name"].as_str().unwrap().to_owned())
        })
        .collect();
    let want = [
        ("modified", "total"),
        ("moved", "total"),
        ("moved", "Basket.total"),
        ("added", "total"),
        ("added", "Basket.total"),
        ("deleted", "total"),
        ("moved", "total"),
        ("modified", "total"),
        ("added", "total"),
    ];
    assert_eq!(kinds, want.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec(), "{}", run.stdout);
    assert_eq!(run.json["exists_at_ref"], true);
    assert_eq!(run.json["first_commit"], commits[0].as_str());
    assert_eq!(run.json["last_commit"], commits.last().unwrap().as_str());

    // A rename is followed to the old name's history, one with an edit too (at git's rename
    // threshold); --show gives the text at each step.
    let run = cc(&dir, &["history", "value_added_tax", "--show"]);
    let changes: Vec<&str> =
        run.json["events"].as_array().unwrap().iter().map(|e| e["change"].as_str().unwrap()).collect();
    assert_eq!(changes, ["renamed", "moved", "renamed", "added"], "{}", run.stdout);
    assert_eq!(run.json["events"][0]["before"]["name"], "vat");
    assert_eq!(run.json["events"][2]["before"]["name"], "tax");
    assert_eq!(run.json["events"][3]["after"]["text"], "def tax(amount):\n    return amount * 0.2");
    // Asked by its old name: the rename away is its newest step.
    let run = cc(&dir, &["history", "vat"]);
    assert_eq!(run.json["events"][0]["change"], "renamed", "{}", run.stdout);
    assert_eq!(run.json["events"][0]["after"]["name"], "value_added_tax");

    // Renames with edits under git's similarity threshold: followed by the lines a diff of the
    // file keeps (at least half of the new definition's, or any when one name extends the
    // other); a method whose class went is the same function, moved.
    for (name, was, kind) in [
        ("shipping_cost", "shipping", "renamed"),
        ("bulk_rebate", "discount", "renamed"),
        ("positive", "Checks.positive", "moved"),
    ] {
        let run = cc(&dir, &["history", name]);
        let changes: Vec<&str> =
            run.json["events"].as_array().unwrap().iter().map(|e| e["change"].as_str().unwrap()).collect();
        assert_eq!(changes, [kind, "added"], "{name}: {}", run.stdout);
        assert_eq!(run.json["events"][0]["before"]["qualified_name"], was, "{}", run.stdout);
        assert_eq!(run.json["events"][1]["after"]["qualified_name"], was, "{}", run.stdout);
    }

    // As of an older ref: `total` was deleted there, and the last commit it existed in is named.
    let drop = &commits[5];
    let run = cc(&dir, &["history", "total", "--at", drop]);
    assert_eq!(run.json["exists_at_ref"], false, "{}", run.stdout);
    assert_eq!(run.json["last_commit"], commits[4].as_str());
    // Qualified names narrow it.
    let run = cc(&dir, &["history", "Basket.total"]);
    assert_eq!(run.json["events"].as_array().unwrap().len(), 2, "{}", run.stdout);
    // A name never defined: nothing, exit 1, and a note that says so.
    let run = cc(&dir, &["history", "no_such_function"]);
    assert_eq!(run.code, 1);
    assert!(run.json["metadata"]["notes"][0].as_str().unwrap().contains("no commit"), "{}", run.stdout);
}

#[test]
fn symbol_history_equals_locate_at_every_commit_of_a_randomized_history() {
    let seed: u64 = std::env::var("CODECOMPASS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let tmp = TempDir::new("symbol-random");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut clock = 1_700_000_000;
    let function = |rng: &mut Rng, n: usize| format!("def f_{n}(x):\n    return x + {}\n\n\n", rng.below(100));
    for step in 0..24 {
        clock += 60;
        let files: Vec<String> = git_at(dir, 0, &["ls-files"]).lines().map(str::to_owned).collect();
        match if files.is_empty() { 0 } else { rng.below(5) } {
            0 => {
                // A new module with two functions (names may repeat: re-additions, duplicates).
                let (a, b) = (rng.below(6), rng.below(6));
                let text = function(&mut rng, a) + function(&mut rng, b).as_str();
                std::fs::write(dir.join(format!("m{}.py", rng.below(8))), text).unwrap();
            }
            1 | 2 => {
                // Rewrite one function's body, or append another.
                let path = &files[rng.below(files.len())];
                let mut text = std::fs::read_to_string(dir.join(path)).unwrap();
                if rng.below(2) == 0 {
                    text = text.replacen("return x + ", "return x * ", 1);
                } else {
                    let n = rng.below(6);
                    text.push_str(&function(&mut rng, n));
                }
                std::fs::write(dir.join(path), text).unwrap();
            }
            3 => {
                let from = &files[rng.below(files.len())];
                let to = format!("pkg{}/m{}.py", rng.below(2), rng.below(8));
                if !dir.join(&to).exists() {
                    std::fs::create_dir_all(dir.join(&to).parent().unwrap()).unwrap();
                    git_at(dir, clock, &["mv", from, &to]);
                }
            }
            _ => {
                let path = &files[rng.below(files.len())];
                git_at(dir, clock, &["rm", "-q", path]);
            }
        }
        git_at(dir, clock, &["add", "-A"]);
        git_at(dir, clock, &["commit", "-q", "--allow-empty", "-m", &format!("step {step}")]);
    }
    let commits: Vec<String> = git_at(dir, 0, &["rev-list", "--reverse", "HEAD"]).lines().map(str::to_owned).collect();
    for n in 0..6 {
        let name = format!("f_{n}");
        let mut expected = Vec::new();
        let mut before = std::collections::BTreeSet::new();
        for commit in &commits {
            let now = located_at(dir, &name, commit);
            if now != before {
                expected.push(commit.clone());
            }
            before = now;
        }
        expected.reverse();
        let run = cc(dir, &["history", &name]);
        let mut ours: Vec<String> = run.json["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["commit"]["commit"].as_str().unwrap().to_owned())
            .collect();
        ours.dedup();
        assert_eq!(ours, expected, "seed {seed}, {name}: {}", run.stdout);
    }
}

#[test]
fn a_branch_without_commits_has_no_history_and_says_so() {
    let tmp = TempDir::new("log-unborn");
    git_at(tmp.path(), 0, &["init", "-q", "-b", "main"]);
    for args in [&["log", "-S", "x"][..], &["history", "main"][..], &["log", "fix"][..]] {
        let run = cc(tmp.path(), args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        assert_eq!(run.json["error"]["code"], "not_indexed", "{args:?}: {}", run.stdout);
        assert!(run.json["error"]["message"].as_str().unwrap().contains("no commits yet"), "{}", run.stdout);
    }
}

#[test]
fn history_reads_only_the_other_files_that_may_hold_a_rename() {
    // `pay` moves from `a.py` to `b.py` in a commit that also edits `other.py`, which never
    // named it: the move is found among the files whose change touched `pay`, and `other.py`
    // is read only when a rename is to be looked for. Then `pay` becomes `settle` while
    // `tables.sql` and a comment of `notes.py` change: a rename is looked for, in the Python
    // files only (a definition of another language is no rename's other half) whose change
    // crossed a definition (`notes.py`'s crossed none, as indexed). The old blobs of
    // `other.py`, `tables.sql` and `notes.py` are removed from the object store (as a partial
    // clone would lack them) after history is indexed: the answers stay complete, with no note
    // of a missing file.
    let tmp = TempDir::new("history-reads");
    let dir = tmp.path();
    let commit = |time: i64, files: &[(&str, &str)], message: &str| {
        for (path, text) in files {
            std::fs::write(dir.join(path), text).unwrap();
        }
        git_at(dir, time, &["add", "-A"]);
        git_at(dir, time, &["commit", "-q", "-m", message]);
    };
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let pay = "def pay(amount):\n    return amount\n";
    commit(
        1_700_000_000,
        &[
            ("a.py", &format!("{pay}\n\ndef keep():\n    return 0\n")),
            ("tables.sql", "CREATE TABLE payments (id int);\n"),
        ],
        "Add pay",
    );
    commit(
        1_700_000_030,
        &[("other.py", "def unrelated():\n    return 1\n"), ("notes.py", "def helper():\n    return 0\n\n# v1\n")],
        "Add other",
    );
    commit(
        1_700_000_060,
        &[("a.py", "def keep():\n    return 0\n"), ("b.py", pay), ("other.py", "def unrelated():\n    return 2\n")],
        "Move pay to b",
    );
    commit(
        1_700_000_120,
        &[
            ("b.py", "def settle(amount):\n    return amount\n"),
            ("tables.sql", "CREATE TABLE payments (id int, amount int);\n"),
            // A Python file whose change crosses no definition: no rename's other half.
            ("notes.py", "def helper():\n    return 0\n\n# v2\n"),
        ],
        "Call it settle",
    );
    assert_eq!(cc(dir, &["history", "settle"]).code, 0);
    for old in ["HEAD~2:other.py", "HEAD~3:tables.sql", "HEAD~1:notes.py"] {
        let oid = git_at(dir, 0, &["rev-parse", old]);
        let oid = oid.trim();
        std::fs::remove_file(dir.join(".git/objects").join(&oid[..2]).join(&oid[2..]))
            .expect("the fixture's objects are loose");
    }
    let run = cc(dir, &["history", "settle"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    let changes: Vec<&str> =
        run.json["events"].as_array().unwrap().iter().map(|e| e["change"].as_str().unwrap()).collect();
    assert_eq!(changes, ["renamed", "moved", "added"], "{}", run.stdout);
    assert_eq!(run.json["events"][0]["before"]["path"], "b.py", "{}", run.stdout);
    assert_eq!(run.json["metadata"]["result_completeness"], "complete", "{}", run.stdout);
}
