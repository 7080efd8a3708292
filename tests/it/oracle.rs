//! Exact search equals `git grep`: for a few hundred patterns (identifiers, literals full of
//! regex metacharacters, anchored and unanchored regexes, alternations, case-insensitive
//! ones, multibyte UTF-8, CRLF lines, very long lines, a file over the parse limit), the set
//! of (path, line) answers equals `git grep -n -I -E` at the worktree (with `--untracked`, as
//! the worktree view holds untracked files) and at a ref that is not checked out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use codecompass::engine::{Engine, EngineOptions, Freshness};
use codecompass::indexer::IndexOptions;
use codecompass::query::{Detail, Explain, Filters, Mode, SearchRequest};
use codecompass::view::Scope;

use crate::support::{TempDir, fixture};

type Lines = BTreeSet<(String, u64)>;

fn git_grep(repo: &Path, pattern: &str, fixed: bool, ignore_case: bool, reference: Option<&str>) -> Lines {
    let mut command = Command::new("git");
    command
        .current_dir(repo)
        .env("LC_ALL", "C.UTF-8")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["grep", "-n", "-I", "-z", "--no-color"]);
    command.arg(if fixed { "-F" } else { "-E" });
    if ignore_case {
        command.arg("-i");
    }
    if reference.is_none() {
        command.arg("--untracked");
    }
    command.arg("-e").arg(pattern);
    if let Some(r) = reference {
        command.arg(r);
    }
    let output = command.output().expect("git grep runs");
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "git grep {pattern}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut out = Lines::new();
    for record in output.stdout.split(|&b| b == b'\n').filter(|r| !r.is_empty()) {
        let mut fields = record.split(|&b| b == 0);
        let mut path = String::from_utf8_lossy(fields.next().expect("a path")).into_owned();
        if let Some(r) = reference {
            path = path.strip_prefix(&format!("{r}:")).expect("ref-prefixed path").to_owned();
        }
        let line: u64 = String::from_utf8_lossy(fields.next().expect("a line")).parse().expect("a number");
        out.insert((path, line));
    }
    out
}

fn ours(engine: &Engine, pattern: &str, literal: bool, ignore_case: bool, scope: &Scope) -> Lines {
    let request = SearchRequest {
        query: pattern.to_owned(),
        mode: if literal { Mode::Literal } else { Mode::Regex },
        limit: 1_000_000,
        context: 0,
        detail: Detail::Location,
        compact: false,
        fuzzy: 0,
        case_sensitive: false,
        ignore_case,
        explain: Explain::Off,
        max_tokens: None,
        filters: Filters::default(),
        timeout: Duration::from_secs(120),
        files: false,
        grep: Default::default(),
        comparable: false,
    };
    let response = engine.search(&request, scope, Freshness::BestEffort).unwrap_or_else(|e| panic!("{pattern}: {e}"));
    assert!(!response.output.truncated && !response.output.safety_limit_applied, "{pattern}");
    response.output.results.iter().map(|r| (r.path.clone(), u64::from(r.line_start))).collect()
}

/// Identifiers from the fixture's text, a deterministic sample.
fn identifiers(repo: &Path) -> Vec<String> {
    let output = Command::new("git")
        .current_dir(repo)
        .args(["grep", "-h", "-o", "-I", "-E", "[A-Za-z_][A-Za-z0-9_]{2,}"])
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git grep runs");
    let all: BTreeSet<String> = String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect();
    // Every third identifier, skipping the thousands of `tokN` of the long-line file.
    all.into_iter().filter(|t| !t.starts_with("tok")).enumerate().filter(|(i, _)| i % 3 == 0).map(|(_, t)| t).collect()
}

fn patterns(repo: &Path) -> Vec<(String, bool, bool)> {
    let mut out = Vec::new();
    for id in identifiers(repo) {
        out.push((id.clone(), false, false));
        out.push((format!("{id}[^a-z_]"), false, false));
        out.push((format!("^ *{id}"), false, false));
        out.push((id.to_uppercase(), false, true));
        out.push((id.clone(), true, false));
    }
    let fixed = [
        ("$5.00 (was", true),
        ("[sale] {today}", true),
        ("a|b|c", true),
        ("path\\to\\file", true),
        ("a+b=c?", true),
        ("^starts", true),
        ("dollar$", true),
        ("(a+b)*c", true),
        ("{e}", true),
        ("Größe", true),
        ("日本語", true),
        ("🚀", true),
        ("été", true),
        ("Été comme ÉTÉ", true),
        ("中文字符", true),
        ("ü", true),
        ("needle_in_long_line_2", true),
    ];
    for (p, literal) in fixed {
        out.push((p.to_owned(), literal, false));
    }
    let regexes = [
        r"[$]5[.]00",
        r"\(was \$7\.50\)",
        r"\[sale\]",
        r"a[|]b",
        r"yes\* no\^",
        r"^\^starts",
        r"dollar\$$",
        r"^row 0399[0-9]",
        r"plain$",
        r"big_file_marker$",
        r"^$",
        r"^.{0,3}$",
        r"(fetchUser|handle_request)",
        r"listener|routes",
        r"fetch(User)?",
        r"max_connections: [0-9]+",
        r"CR$",
        r"last.$",
        r"needle_in_long_line_[0-9]",
        r"na.ve",
        r"Gr..e",
        r"Stra(ss|ß)e",
        r"テキスト",
        r"[éÉ]t[éÉ]",
        r"注释|café",
        r"é{1,}t",
        r"[A-Z][a-z]+Handler",
        r"def [a-z_]+\(",
        r"pub fn [a-z]+",
        r"^ {4}[a-z]",
        r"x*",
        r"latin1_total",
        r"binary",
        r"ok\)",
        r"\{braces\}",
        r"GET|POST",
        r"v\[0-9\]",
        r"untracked_function",
        r"ignored log",
        r"for good",
    ];
    for r in regexes {
        out.push((r.to_owned(), false, false));
    }
    for r in ["fetchuser", "SERVER", "größe_BERECHNEN", "line ONE", "ÉTÉ", "äöü", "Été comme été"] {
        out.push((r.to_owned(), false, true));
    }
    out
}

/// The `grep-oracle` fixture with its worktree and the branch `other` indexed.
fn indexed_fixture() -> (TempDir, PathBuf, Engine) {
    let (tmp, repo) = fixture("grep-oracle");
    let engine = Engine::open(&repo, &EngineOptions::default()).expect("the fixture opens");
    engine
        .index(&[Scope::Worktree, Scope::Ref("other".to_owned())], IndexOptions::default())
        .expect("the fixture indexes");
    (tmp, repo, engine)
}

#[test]
fn exact_search_equals_git_grep_at_the_worktree_and_at_another_ref() {
    let (_tmp, repo, engine) = indexed_fixture();
    let patterns = patterns(&repo);
    assert!(patterns.len() >= 200, "only {} patterns", patterns.len());
    let mut failures = Vec::new();
    for (pattern, literal, ignore_case) in &patterns {
        for reference in [None, Some("other")] {
            let scope = Scope::from_option(reference);
            let expected = git_grep(&repo, pattern, *literal, *ignore_case, reference);
            let actual = ours(&engine, pattern, *literal, *ignore_case, &scope);
            if expected != actual {
                let missing: Vec<_> = expected.difference(&actual).take(5).collect();
                let extra: Vec<_> = actual.difference(&expected).take(5).collect();
                failures.push(format!(
                    "{pattern:?} literal={literal} -i={ignore_case} at {}: missing {missing:?}, extra {extra:?}",
                    reference.unwrap_or("worktree")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} comparisons differ:\n{}",
        failures.len(),
        patterns.len() * 2,
        failures.join("\n")
    );
}

/// A pattern with no three ASCII characters in a row is narrowed by the trigram index like any
/// other; a store written by a build of index format 4, whose trigrams are of ASCII windows
/// only, reads every file for it, with the same answer, and `doctor` says how to narrow it.
#[test]
fn patterns_of_other_characters_are_narrowed_unless_the_store_is_of_the_older_format() {
    let (_tmp, repo) = fixture("grep-oracle");
    let run = |pattern: &str| crate::support::cc(&repo, &["search", "--mode", "literal", pattern, "--explain", "full"]);
    let files = |run: &crate::support::Run| run.json["files_scanned"].as_u64().unwrap_or(u64::MAX);
    let lines = |run: &crate::support::Run| -> Vec<(String, u64)> {
        run.json["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["path"].as_str().unwrap().to_owned(), r["line_start"].as_u64().unwrap()))
            .collect()
    };
    let narrowed = run("中文字符");
    assert_eq!(lines(&narrowed), [("docs/unicode.md".to_owned(), 5)], "{}", narrowed.stdout);
    let all = run("zz").json["files_scanned"].as_u64().unwrap();
    assert!(files(&narrowed) < all / 4, "{} of {all} files read", files(&narrowed));
    assert!(!narrowed.json["prefilter"].as_str().unwrap().starts_with("none"), "{}", narrowed.stdout);
    // Ignoring case: a letter with other cases is a choice, the run any of its spellings.
    let folded = crate::support::cc(&repo, &["search", "--mode", "literal", "ÉTÉ", "-i", "--explain", "full"]);
    assert_eq!(lines(&folded), [("docs/unicode.md".to_owned(), 5)], "{}", folded.stdout);
    assert!(files(&folded) < all / 4, "{} of {all} files read", files(&folded));

    let conn = rusqlite::Connection::open(repo.join(".git/codecompass/store.sqlite")).unwrap();
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'index_format_version'", []).unwrap();
    drop(conn);
    let older = run("中文字符");
    assert_eq!(lines(&older), lines(&narrowed));
    assert_eq!(files(&older), all, "{}", older.stdout);
    // Its ASCII windows still narrow.
    assert!(files(&run("Été comme")) < all / 4);
    let doctor = crate::support::cc(&repo, &["doctor"]);
    let codes: Vec<&str> =
        doctor.json["problems"].as_array().unwrap().iter().filter_map(|p| p["code"].as_str()).collect();
    assert!(codes.contains(&"index_format_older"), "{}", doctor.stdout);

    // A format this build does not read at all is refused.
    let conn = rusqlite::Connection::open(repo.join(".git/codecompass/store.sqlite")).unwrap();
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'index_format_version'", []).unwrap();
    drop(conn);
    let refused = run("中文字符");
    assert_eq!(refused.code, 2);
    assert_eq!(refused.json["error"]["code"], "index_incompatible", "{}", refused.stdout);
}

/// Text files the attributes make binary (`-diff`, the `binary` macro, a driver configured
/// `binary`, `info/attributes`) are skipped as `git grep -I` skips them; a later line or a
/// deeper `.gitattributes` gives a file back to text. At the worktree and at another ref.
#[test]
fn files_binary_by_attributes_are_skipped_as_git_grep_skips_them() {
    let (_tmp, repo, engine) = indexed_fixture();
    let texts: Lines = [("docs/keep.lock".to_owned(), 2), ("sub/deps.lock".to_owned(), 2)].into();
    for reference in [None, Some("other")] {
        let scope = Scope::from_option(reference);
        for (pattern, literal) in [("attributes_decide_binary", true), ("decide_bin[a-z]+ here$", false)] {
            assert_eq!(git_grep(&repo, pattern, literal, false, reference), texts, "git grep {pattern}");
            assert_eq!(ours(&engine, pattern, literal, false, &scope), texts, "{pattern} at {reference:?}");
        }
    }
}
