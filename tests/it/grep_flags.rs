//! `search` reads `git grep`'s flags as `git grep` does. For each set of flags, what the
//! command line prints equals what `git grep -I` prints with the same flags (places, file lists
//! and counts, context lines and group separators), at the worktree (`--untracked`, as the
//! worktree view holds untracked files) and at another ref, from the root and from a
//! subdirectory (scope and paths relative to it).

use std::path::Path;
use std::process::Command;

use crate::support::{cc_text, fixture};

/// What a line of output says, without the column we add: `path:line:` (a match) or
/// `path-line-` (context), the text, or `--`.
fn normalise(output: &str, reference: Option<&str>, ours: bool) -> Vec<String> {
    let strip_ref = |line: &str| -> String {
        match reference {
            Some(r) => line.strip_prefix(&format!("{r}:")).unwrap_or(line).to_owned(),
            None => line.to_owned(),
        }
    };
    output
        .lines()
        .map(|line| {
            // `@` stands for the path when there is none (`-h`), so a line starts alike.
            let line = format!("@{}", strip_ref(line));
            if line == "@--" {
                return "--".to_owned();
            }
            // `path:12:text` / `path-12-text`; ours has `path:12:3: text` for matches.
            let bytes = line.as_bytes();
            // No path (`-h`): `@12:text` / `@12-text`.
            let lead = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if lead > 0 && matches!(bytes.get(1 + lead), Some(b':' | b'-')) {
                let sep = bytes[1 + lead] as char;
                let mut text = &line[2 + lead..];
                if ours && sep == ':' {
                    let col = text.bytes().take_while(|b| b.is_ascii_digit()).count();
                    text = text[col..].strip_prefix(": ").unwrap_or(&text[col..]);
                }
                let text: String = text.trim_end().chars().take(80).collect();
                return format!("{}{sep}{text}", &line[1..1 + lead]);
            }
            let mut i = 0;
            while i < bytes.len() {
                if (bytes[i] == b':' || bytes[i] == b'-') && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit() {
                    let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
                    let after = i + 1 + digits;
                    if after < bytes.len() && bytes[after] == bytes[i] {
                        let (head, number, sep) = (&line[..i], &line[i + 1..after], bytes[i] as char);
                        let mut text = &line[after + 1..];
                        if ours && sep == ':' {
                            // Drop `3: ` (the column) from ours.
                            let col = text.bytes().take_while(|b| b.is_ascii_digit()).count();
                            text = text[col..].strip_prefix(": ").unwrap_or(&text[col..]);
                        }
                        // Long lines are cut in our text: compare their start.
                        let text: String = text.trim_end().chars().take(80).collect();
                        return format!("{}{sep}{number}{sep}{text}", &head[1..]);
                    }
                }
                i += 1;
            }
            line[1..].trim_end().to_owned()
        })
        .collect()
}

fn git_grep(dir: &Path, flags: &[&str], reference: Option<&str>) -> String {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["grep", "-n", "-I", "--no-color"]);
    let (before, pathspecs) = match flags.iter().position(|f| *f == "--") {
        Some(i) => (&flags[..i], &flags[i..]),
        None => (flags, &[][..]),
    };
    command.args(before);
    match reference {
        Some(r) => command.arg(r),
        None => command.arg("--untracked"),
    };
    command.args(pathspecs);
    let output = command.output().expect("git grep runs");
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "git grep {flags:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn ours(dir: &Path, flags: &[&str], reference: Option<&str>) -> String {
    let mut args = vec!["search", "-q"];
    if let Some(r) = reference {
        args.extend(["--ref", r]);
    }
    args.extend(flags);
    let run = cc_text(dir, &args);
    assert!(run.code <= 1, "search {flags:?}: {}", run.stderr);
    run.stdout
}

/// The flag sets compared; `--` starts the pathspecs.
const CASES: &[&[&str]] = &[
    &["-w", "-e", "fn"],
    &["-w", "-e", "listener"],
    &["-F", "-e", "format!("],
    &["-F", "-e", " fn"],
    &["-F", "-e", "\t"],
    &["-F", "-e", ";"],
    &["-i", "-w", "-e", "SERVER"],
    &["-e", "bind", "-e", "serve"],
    &["-E", "-e", "fn [a-z]+"],
    &["-l", "-e", "def"],
    &["-L", "-e", "def"],
    &["-c", "-e", "e"],
    &["-m", "1", "-e", "e"],
    &["-C", "2", "-e", "listener"],
    &["-A", "1", "-e", "fn"],
    &["-B", "3", "-e", "Err"],
    &["-w", "-e", "fn", "--", "src"],
    &["-e", "e", "--", ":(exclude)src", ":!data"],
    &["-F", "-e", "the", "--", "*.md"],
    &["-h", "-e", "bind"],
];

#[test]
fn grep_flags_print_what_git_grep_prints() {
    let (_tmp, repo) = fixture("grep-oracle");
    let mut failures = Vec::new();
    for dir in [repo.clone(), repo.join("src")] {
        for flags in CASES {
            for reference in [None, Some("other")] {
                let expected = normalise(&git_grep(&dir, flags, reference), reference, false);
                let actual = normalise(&ours(&dir, flags, reference), reference, true);
                if expected != actual {
                    let at = expected.iter().zip(&actual).take_while(|(a, b)| a == b).count();
                    failures.push(format!(
                        "{flags:?} in {} at {}: {} lines against {}, first differing at {at}:\n  git grep: {:?}\n  ours:     {:?}",
                        dir.strip_prefix(&repo).unwrap().display(),
                        reference.unwrap_or("worktree"),
                        expected.len(),
                        actual.len(),
                        expected.get(at.saturating_sub(1)..(at + 2).min(expected.len())),
                        actual.get(at.saturating_sub(1)..(at + 2).min(actual.len())),
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn exact_search_prints_every_match_and_counts_them_truly() {
    let (_tmp, repo) = fixture("grep-oracle");
    let all = git_grep(&repo, &["-e", "e"], None).lines().count();
    assert!(all > 100, "the fixture has many lines with `e`: {all}");
    let run = crate::support::cc(&repo, &["search", "--mode", "regex", "e"]);
    assert_eq!(run.json["results"].as_array().unwrap().len(), all);
    assert_eq!(run.json["total_candidates"].as_u64(), Some(all as u64), "{}", run.stdout);
    assert!(run.json["total_is_lower_bound"].is_null());
    // Printed as found (streamed), the answer is not taken for an empty one.
    let text = cc_text(&repo, &["search", "--mode", "regex", "e"]);
    assert_eq!(text.stdout.lines().count(), all);
    assert!(!text.stderr.contains("nothing matched") && !text.stderr.contains("hint:"), "{}", text.stderr);
    // Without a match, or cut at a limit, the summary says so; `--quiet` leaves stderr empty.
    let none = cc_text(&repo, &["search", "--mode", "literal", "no such text anywhere"]);
    assert_eq!(none.code, 1);
    assert!(none.stderr.contains("nothing matched"), "{}", none.stderr);
    let cut = cc_text(&repo, &["search", "--mode", "regex", "e", "--limit", "2"]);
    assert!(cut.stderr.contains("raise --limit"), "{}", cut.stderr);
    for args in [
        &["search", "--mode", "literal", "no such text anywhere", "--quiet"][..],
        &["search", "-q", "--mode", "regex", "e", "--limit", "2"],
        &["locate", "no_such_symbol_here", "-q"],
    ] {
        let quiet = cc_text(&repo, args);
        assert!(quiet.code <= 1, "{args:?}: {}", quiet.stderr);
        assert_eq!(quiet.stderr, "", "{args:?}");
    }
    // A limit cuts, and says the count is a lower bound.
    let run = crate::support::cc(&repo, &["search", "--mode", "regex", "e", "--limit", "5"]);
    assert_eq!(run.json["results"].as_array().unwrap().len(), 5);
    assert_eq!(run.json["total_is_lower_bound"], true, "{}", run.stdout);
    // Flags of exact search are refused with a ranked mode.
    let run = crate::support::cc(&repo, &["search", "--mode", "fts", "-w", "server"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "invalid_argument");
}
