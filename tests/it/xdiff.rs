//! The lines our diff removes and adds are git's: `git log -G` matches its regex against
//! exactly those, and a line only moved is removed and added again by git's diff where a
//! minimal diff keeps it. Files of thousands of lines with many edits, frequent lines and
//! moved blocks drive git's diff past its cost bounds, where its heuristics decide.

use std::collections::BTreeMap;

use codecompass::history::xdiff;

use crate::log::{ours, theirs};
use crate::support::{Rng, TempDir, cc_env, git_at, git_command};

/// A line: one of a few frequent ones, or one of many rarer ones.
fn line(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => String::new(),
        1 => "}".to_string(),
        2 => "    return self".to_string(),
        3..=5 => format!("    x = f({})", rng.below(40)),
        _ => format!("def name_{}(self):", rng.below(5000)),
    }
}

/// A file of `n` lines, ending in a newline or (`newline` false) not.
fn file(lines: &[String], newline: bool) -> String {
    let mut text = lines.join("\n");
    if newline && !lines.is_empty() {
        text.push('\n');
    }
    text
}

/// `lines` edited: blocks removed, inserted, replaced and moved elsewhere.
fn edited(rng: &mut Rng, lines: &[String], edits: usize) -> Vec<String> {
    let mut out = lines.to_vec();
    for _ in 0..edits {
        let at = rng.below(out.len() + 1);
        let len = 1 + rng.below(12);
        match rng.below(4) {
            0 => {
                let end = (at + len).min(out.len());
                out.drain(at..end);
            }
            1 => {
                let new: Vec<String> = (0..len).map(|_| line(rng)).collect();
                out.splice(at..at, new);
            }
            2 => {
                let end = (at + len).min(out.len());
                let new: Vec<String> = (0..len).map(|_| line(rng)).collect();
                out.splice(at..end, new);
            }
            _ => {
                let end = (at + len).min(out.len());
                let block: Vec<String> = out.drain(at..end).collect();
                let to = rng.below(out.len() + 1);
                out.splice(to..to, block);
            }
        }
    }
    out
}

/// How many times each line is removed (`-`) and added (`+`); a last line without its
/// newline is marked so.
type Changes = BTreeMap<String, usize>;

fn count(changes: &mut Changes, key: String) {
    *changes.entry(key).or_default() += 1;
}

/// The removed and added lines of `git diff --no-index` between the two files.
fn git_changes(dir: &std::path::Path) -> Changes {
    let output = git_command(dir, &["diff", "--no-index", "--no-color", "-U0", "--diff-algorithm=myers", "old", "new"])
        .output()
        .expect("git runs");
    assert!(output.status.code() == Some(1) || output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).expect("the fixture is UTF-8");
    let mut changes = Changes::new();
    let mut last: Option<String> = None;
    for l in text.lines().skip_while(|l| !l.starts_with("@@")) {
        if l.starts_with("@@") {
            continue;
        }
        if l.starts_with('\\') {
            let key = last.take().expect("a line precedes the marker");
            *changes.get_mut(&key).unwrap() -= 1;
            changes.retain(|_, n| *n > 0);
            count(&mut changes, format!("{key}<no newline>"));
            continue;
        }
        let key = l.to_string();
        count(&mut changes, key.clone());
        last = Some(key);
    }
    changes
}

/// The length of the longest common subsequence of the two files' lines: a minimal diff
/// changes every other line.
fn common_lines(old: &[&[u8]], new: &[&[u8]]) -> usize {
    let mut row = vec![0u32; new.len() + 1];
    for a in old {
        let mut diagonal = 0;
        for (j, b) in new.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if a == b { diagonal + 1 } else { above.max(row[j]) };
            diagonal = above;
        }
    }
    row[new.len()] as usize
}

/// A file's lines, each with its newline.
fn lines(text: &str) -> Vec<&[u8]> {
    text.split_inclusive('\n').map(str::as_bytes).collect()
}

/// The removed and added lines of ours.
fn our_changes(old: &str, new: &str) -> Changes {
    let (a, b) = (lines(old), lines(new));
    let (removed, added) = xdiff::changed(&a, &b);
    assert_eq!((removed.len(), added.len()), (a.len(), b.len()));
    let mut changes = Changes::new();
    for (sign, lines, flags) in [('-', &a, removed), ('+', &b, added)] {
        for (l, changed) in lines.iter().zip(flags) {
            if changed {
                let text = std::str::from_utf8(l).unwrap();
                let key = match text.strip_suffix('\n') {
                    Some(body) => format!("{sign}{body}"),
                    None => format!("{sign}{text}<no newline>"),
                };
                count(&mut changes, key);
            }
        }
    }
    changes
}

#[test]
fn removed_and_added_lines_are_gits_on_long_files_with_many_edits() {
    let dir = TempDir::new("xdiff");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut not_minimal = 0;
    for case in 0..120 {
        let n = [0, 1, 30, 400, 2500, 4000][case % 6];
        let old: Vec<String> = (0..n).map(|_| line(&mut rng)).collect();
        let edits = [1, 5, 60, 400, 1500][rng.below(5)];
        let new = edited(&mut rng, &old, edits);
        let (old_text, new_text) = (file(&old, rng.below(6) != 0), file(&new, rng.below(6) != 0));
        std::fs::write(dir.path().join("old"), &old_text).unwrap();
        std::fs::write(dir.path().join("new"), &new_text).unwrap();
        let theirs = git_changes(dir.path());
        let ours = our_changes(&old_text, &new_text);
        let (a, b) = (lines(&old_text), lines(&new_text));
        let minimal = a.len() + b.len() - 2 * common_lines(&a, &b);
        if theirs.values().sum::<usize>() > minimal {
            not_minimal += 1;
        }
        assert_eq!(
            ours, theirs,
            "case {case}: {n} lines, {edits} edits (kept in the temporary directory with CODECOMPASS_KEEP_TEMP)"
        );
    }
    // Enough of the cases are costly enough for git's diff to leave minimality.
    assert!(not_minimal >= 10, "only {not_minimal} cases where git's diff is not minimal");
}

/// A line only moved, which git's diff removes and adds again and another diff keeps, makes
/// its commit a `log -G` answer; history stored by builds that kept the other diff's lines is
/// diffed again by the first `-G`.
#[test]
fn log_g_finds_a_line_git_moved_and_a_store_of_another_diff_is_completed() {
    let tmp = TempDir::new("xdiff-log");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let commit = |time: i64, text: &str, message: &str| {
        std::fs::write(dir.join("f.py"), text).unwrap();
        git_at(dir, time, &["add", "-A"]);
        git_at(dir, time, &["commit", "-q", "-m", message]);
    };
    commit(1_700_000_000, "gamma = 3\ngamma = 3\nmoved_line = 5\n\n\n", "one");
    commit(1_700_000_060, "alpha = 1\n}\n\nalpha = 1\nbeta = 2\nmoved_line = 5\n", "two");
    commit(1_700_000_120, "alpha = 1\n}\n\nalpha = 1\nbeta = 2\nmoved_line = 5\nomega = 9\n", "three");
    let expected = theirs(dir, &["-G", "moved_line"]);
    assert_eq!(expected.len(), 2, "git's diff moves the line in the second commit");

    let old_build = [("CODECOMPASS_FAILPOINTS", "history.diff=fail")];
    let stored = cc_env(dir, &["index", "--history", "--json", "--quiet"], &old_build);
    assert_eq!(stored.code, 0, "{} {}", stored.stdout, stored.stderr);
    // As the earlier build answered: the commit that moved the line is missing.
    let as_before = cc_env(dir, &["log", "-G", "moved_line", "--json", "--quiet"], &old_build);
    assert_eq!(as_before.json["commits"].as_array().map(Vec::len), Some(1), "{}", as_before.stdout);
    // Other questions leave the store as it is (its answers were right); `-G` completes it.
    assert_eq!(ours(dir, &["-S", "moved_line"]), theirs(dir, &["-S", "moved_line"]));
    let still = cc_env(dir, &["log", "-G", "moved_line", "--json", "--quiet"], &old_build);
    assert_eq!(still.json["commits"], as_before.json["commits"]);
    assert_eq!(ours(dir, &["-G", "moved_line"]), expected);
    assert_eq!(ours(dir, &["-G", "^(moved|omega)"]), theirs(dir, &["-E", "-G", "^(moved|omega)"]));
    // Indexed by this build from the start, the same answers.
    std::fs::remove_dir_all(dir.join(".git/codecompass")).unwrap();
    assert_eq!(ours(dir, &["-G", "moved_line"]), expected);
}

/// git matches `-G`'s regex against each line its diff prints with the line's newline, where
/// `^` and `$` hold around it, `.` and `[^...]` never match it and `\s` or `\W` do: regexes
/// that can match at that newline find the commits git finds.
#[test]
fn log_g_matches_each_line_with_its_newline_as_git_does() {
    let tmp = TempDir::new("xdiff-newline");
    let dir = tmp.path();
    git_at(dir, 0, &["init", "-q", "-b", "main"]);
    let steps: [(&str, &str); 7] = [
        ("f", "foo\n"),
        ("f", "foo\nfoo;\n"),
        ("g", "abc\n"),
        ("g", "abc\n\n"),
        ("h", "a"),
        ("h", "a;\nx y \n"),
        ("f", "foo\n"),
    ];
    for (i, (path, text)) in steps.iter().enumerate() {
        let time = 1_700_000_000 + 60 * i as i64;
        std::fs::write(dir.join(path), text).unwrap();
        git_at(dir, time, &["add", "-A"]);
        git_at(dir, time, &["commit", "-q", "-m", &format!("step {i}")]);
    }
    let regexes = [
        "^$",
        r"\s$",
        r"\W$",
        "[[:space:]]$",
        r"a\s*$",
        "[^;]$",
        r";\S",
        ".$",
        "a[^x]",
        "^b",
        "[^a]",
        "a.",
        " $",
        "o;$",
        "^[^f]",
    ];
    for regex in regexes {
        assert_eq!(ours(dir, &["-G", regex]), theirs(dir, &["-E", "-G", regex]), "-G {regex}");
    }
}
