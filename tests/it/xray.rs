//! X-Ray end to end on the `xray` fixture: a driver narrows the files through the index (the
//! candidates are exactly the files `git grep` finds the driver in), a query or a script
//! answers from each ref's own blobs and from the working tree as it is on disk, the sandbox
//! turns a runaway script into one file's error, and bad queries and scripts are refused
//! before anything runs.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::{cc, cc_text, fixture, git};

/// Open calls whose second argument is a string literal other than 'r'.
const OPEN_WITH_MODE: &str = r#"(call function: (identifier) @f (#eq? @f "open") arguments: (argument_list (_) (string) @mode (#not-match? @mode "^['\"]r['\"]$"))) @match"#;

fn places(json: &Value) -> Vec<String> {
    json["results"]
        .as_array()
        .expect("xray answers have results")
        .iter()
        .map(|r| format!("{}:{}", r["path"].as_str().unwrap_or_default(), r["line_start"]))
        .collect()
}

/// Files `git grep` finds `text` in at `reference`.
fn grep_files(repo: &std::path::Path, text: &str, reference: &str) -> BTreeSet<String> {
    git(repo, &["grep", "-l", "-F", text, reference])
        .lines()
        .map(|l| l.split_once(':').map_or(l, |(_, p)| p).to_owned())
        .collect()
}

#[test]
fn a_query_reads_only_the_files_holding_its_driver_and_answers_per_ref() {
    let (_tmp, repo) = fixture("xray");
    for (reference, expected) in
        [("main", vec!["app/broken.py:2", "app/io.py:11"]), ("refactor", vec!["app/broken.py:2", "app/save.py:2"])]
    {
        let run = cc(&repo, &["xray", "open(", "-F", "--query", OPEN_WITH_MODE, "--ref", reference]);
        assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
        assert_eq!(places(&run.json), expected, "at {reference}");
        assert_eq!(run.json["prefilter"], "trigram");
        assert_eq!(run.json["ref"], reference);
        // The candidates are exactly the files holding the driver, no more.
        let holding = grep_files(&repo, "open(", reference);
        assert_eq!(run.json["candidates"].as_u64(), Some(holding.len() as u64), "at {reference}: {holding:?}");
        assert_eq!(run.json["files_parsed"], run.json["candidates"]);
        assert!(!holding.contains("app/util.py"));
        let first = &run.json["results"][0];
        assert_eq!(first["kind"], "call");
        assert_eq!(first["text"], "open(\"log\", \"a\")");
        let captures: Vec<(&str, &str)> = first["captures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["name"].as_str().unwrap(), c["text"].as_str().unwrap()))
            .collect();
        assert_eq!(captures, vec![("f", "open"), ("mode", "\"a\""), ("match", "open(\"log\", \"a\")")]);
        assert_eq!(run.json["metadata"]["result_completeness"], "complete");
    }

    // The mention in a string and `opener(...)` hold the driver and are no match; the call
    // with the mode 'r' is left out by the predicate.
    let all_opens = cc(
        &repo,
        &["xray", "open", "--query", r#"(call function: (identifier) @f (#match? @f "open")) @match"#, "--ref", "main"],
    );
    assert_eq!(
        places(&all_opens.json),
        vec!["app/broken.py:2", "app/io.py:2", "app/io.py:7", "app/io.py:11", "app/io.py:16"]
    );

    // The text output is grep's: path:line:column: text, captures below.
    let text = cc_text(&repo, &["xray", "open(", "-F", "--query", OPEN_WITH_MODE, "--ref", "main"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.starts_with("app/broken.py:2:12: open(\"log\", \"a\")\n"), "{}", text.stdout);
    assert!(text.stdout.contains("    @mode 2:24: \"a\"\n"), "{}", text.stdout);
    assert!(text.stderr.contains("2 match(es) in 2 file(s)"), "{}", text.stderr);

    // Without a driver, the text the query's predicates demand (`open`) chooses the files:
    // the same answer, from the files holding it.
    let derived = cc(&repo, &["xray", "--query", OPEN_WITH_MODE, "--ref", "main"]);
    assert_eq!(places(&derived.json), vec!["app/broken.py:2", "app/io.py:11"], "{}", derived.stdout);
    assert_eq!(derived.json["driver"], "open");
    assert_eq!(derived.json["driver_derived"], true);
    assert_eq!(derived.json["prefilter"], "trigram");
    let holding: BTreeSet<String> =
        grep_files(&repo, "open", "main").into_iter().filter(|p| p.ends_with(".py")).collect();
    assert_eq!(derived.json["candidates"].as_u64(), Some(holding.len() as u64), "{holding:?}");

    // Nothing matched: exit 1.
    let none = cc(&repo, &["xray", "no_such_text", "--query", "(call) @c", "--ref", "main"]);
    assert_eq!(none.code, 1, "{}", none.stdout);
    assert_eq!(none.json["candidates"], 0);
}

#[test]
fn a_query_given_no_driver_reads_only_the_files_holding_its_kinds_keywords() {
    let (_tmp, repo) = fixture("xray");
    // Every `with` statement holds the keyword `with`: the files without it are not read.
    let query = "(with_statement) @w";
    let run = cc(&repo, &["xray", "--query", query, "--lang", "python", "--ref", "main"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["driver"], "with");
    assert_eq!(run.json["driver_derived"], true);
    assert_eq!(run.json["prefilter"], "trigram");
    let holding: BTreeSet<String> =
        grep_files(&repo, "with", "main").into_iter().filter(|p| p.ends_with(".py")).collect();
    let python = git(&repo, &["ls-tree", "-r", "--name-only", "main"]).lines().filter(|p| p.ends_with(".py")).count();
    assert!(holding.len() < python, "the fixture has Python files without `with`: {holding:?}");
    assert_eq!(run.json["candidates"].as_u64(), Some(holding.len() as u64), "{holding:?}");
    // The same matches as reading every file (a second pattern that demands no text and
    // matches nothing).
    let undemanding = format!(r#"{query} ((identifier) @i (#match? @i "^never_here$"))"#);
    let every = cc(&repo, &["xray", "--query", &undemanding, "--lang", "python", "--ref", "main"]);
    assert_eq!(every.json["prefilter"].as_str().map(|p| p.starts_with("none")), Some(true), "{}", every.stdout);
    assert_eq!(every.json["candidates"].as_u64(), Some(python as u64));
    assert_eq!(places(&run.json), places(&every.json));
    assert_eq!(places(&run.json), vec!["app/io.py:2", "app/io.py:11"]);
    // In every language: the Rust file does not hold `with`, so it is no candidate the query
    // skips (Rust has no `with` statement).
    let anywhere = cc(&repo, &["xray", "--query", query, "--ref", "main"]);
    assert_eq!(places(&anywhere.json), vec!["app/io.py:2", "app/io.py:11"], "{}", anywhere.stdout);
    assert!(anywhere.json.get("skipped_languages").is_none(), "{}", anywhere.stdout);
    // A driver with no literal text to look up: the query's demand chooses the files, the
    // driver still places the matches.
    let unindexed = cc(&repo, &["xray", "[a-z]+", "--query", query, "--lang", "python", "--ref", "main"]);
    assert_eq!(unindexed.json["prefilter"], "trigram", "{}", unindexed.stdout);
    assert_eq!(unindexed.json["candidates"].as_u64(), Some(holding.len() as u64));
    assert_eq!(unindexed.json["driver"], "[a-z]+");
    assert!(unindexed.json.get("driver_derived").is_none(), "{}", unindexed.stdout);
    assert_eq!(places(&unindexed.json), places(&run.json));
    // A driver the query narrows: files holding `open` and, for the query, `with`.
    let both = cc(&repo, &["xray", "open", "-F", "--query", query, "--lang", "python", "--ref", "main"]);
    let with_open: BTreeSet<String> =
        grep_files(&repo, "open", "main").into_iter().filter(|p| p.ends_with(".py") && holding.contains(p)).collect();
    assert!(with_open.len() < grep_files(&repo, "open", "main").len(), "{with_open:?}");
    assert_eq!(both.json["candidates"].as_u64(), Some(with_open.len() as u64), "{}", both.stdout);
    assert_eq!(both.json["driver"], "open");
    assert_eq!(places(&both.json), vec!["app/io.py:2", "app/io.py:11"]);
    // A kind whose nodes share no keyword demands nothing: every file is parsed, and said so.
    let calls = cc(&repo, &["xray", "--query", "(call) @c", "--lang", "python", "--ref", "main"]);
    assert!(calls.json["driver"].is_null(), "{}", calls.stdout);
    assert!(calls.json["prefilter"].as_str().unwrap().starts_with("none"), "{}", calls.json["prefilter"]);
}

#[test]
fn a_query_parses_only_the_items_that_hold_its_drivers_matches() {
    let (_tmp, repo) = fixture("xray");
    let size = |path: &str| std::fs::metadata(repo.join(path)).unwrap().len();
    let calls = r#"(call_expression function: (identifier) @f (#eq? @f "memcpy")) @match"#;
    // The same question as an alternation of one: its root has no one kind, so the file is
    // parsed whole; the answers must be the same.
    let whole = r#"[(call_expression function: (identifier) @f (#eq? @f "memcpy"))] @match"#;
    for reference in ["main", "refactor"] {
        let items = cc(&repo, &["xray", "memcpy", "--query", calls, "--ref", reference]);
        assert_eq!(items.code, 0, "{} {}", items.stdout, items.stderr);
        assert_eq!(places(&items.json), vec!["drivers/copy.c:38", "drivers/copy.c:197"], "at {reference}");
        let parsed = items.json["bytes_parsed"].as_u64().unwrap();
        assert!(parsed > 0 && parsed * 3 < size("drivers/copy.c"), "{parsed} of {}", size("drivers/copy.c"));
        let all = cc(&repo, &["xray", "memcpy", "--query", whole, "--ref", reference]);
        assert_eq!(all.json["results"], items.json["results"], "at {reference}");
        assert_eq!(all.json["bytes_parsed"].as_u64(), Some(size("drivers/copy.c")));
    }
    // A file with a syntax error has no outline: parsed whole, its match still found.
    let broken = cc(&repo, &["xray", "open", "--query", OPEN_WITH_MODE, "--path", "app/broken.py", "--ref", "main"]);
    assert_eq!(places(&broken.json), vec!["app/broken.py:2"]);
    assert_eq!(broken.json["bytes_parsed"].as_u64(), Some(size("app/broken.py")));
}

#[test]
fn a_query_about_a_method_parses_the_methods_around_it_with_the_class_header() {
    let (_tmp, repo) = fixture("xray");
    // A module that is one large class: a question about a call in one method parses the
    // run of methods around it and the `class` line, not the class.
    let mut source = String::from("import os\n\n\nclass Session(Base):\n    \"\"\"A session.\"\"\"\n\n");
    for n in 0..30 {
        let check = if n % 10 == 3 { "        if isinstance(value, dict):\n            return value\n" } else { "" };
        source.push_str(&format!(
            "    # Member {n}.\n    @property\n    def member_{n}(self, value=None):\n{check}        data = \
             {{\"k\": {n},\n                \"v\": value}}\n        return os.fspath(data)\n\n"
        ));
    }
    source.push_str("\ndef after():\n    return None\n");
    std::fs::write(repo.join("app/session.py"), &source).unwrap();
    git(&repo, &["add", "app/session.py"]);
    git(&repo, &["commit", "-q", "-m", "A session"]);
    let size = source.len() as u64;
    let line = |text: &str| source[..source.find(text).unwrap()].matches('\n').count() + 1;
    let calls = r#"(call function: (identifier) @f (#eq? @f "isinstance")) @match"#;
    let expected: Vec<String> = source
        .match_indices("isinstance(")
        .map(|(at, _)| format!("app/session.py:{}", source[..at].matches('\n').count() + 1))
        .collect();
    assert_eq!(expected.len(), 3);
    for reference in [None, Some("HEAD")] {
        let mut args = vec!["xray", "isinstance", "--query", calls, "--path", "app/session.py"];
        args.extend(reference.map(|r| ["--ref", r]).into_iter().flatten());
        let items = cc(&repo, &args);
        assert_eq!(items.code, 0, "{} {}", items.stdout, items.stderr);
        assert_eq!(places(&items.json), expected, "at {reference:?}");
        let parsed = items.json["bytes_parsed"].as_u64().unwrap();
        assert!(parsed > 0 && parsed * 2 < size, "{parsed} of {size} at {reference:?}");
        // The same answers from a whole parse (an alternation of one has no one root kind).
        let whole = r#"[(call function: (identifier) @f (#eq? @f "isinstance"))] @match"#;
        args[3] = whole;
        let all = cc(&repo, &args);
        assert_eq!(all.json["results"], items.json["results"], "at {reference:?}");
        assert_eq!(all.json["bytes_parsed"].as_u64(), Some(size));
    }
    // A method by name: its place and its whole text, from the run that holds it.
    let method = r#"(function_definition name: (identifier) @n (#eq? @n "member_13")) @match"#;
    let found = cc(&repo, &["xray", "member_13", "--query", method, "--ref", "HEAD"]);
    assert_eq!(places(&found.json), vec![format!("app/session.py:{}", line("def member_13"))], "{}", found.stdout);
    assert!(found.json["bytes_parsed"].as_u64().unwrap() * 3 < size);
    let def = source.find("def member_13").unwrap();
    let last = def + source[def..].find("return os.fspath").unwrap();
    assert_eq!(found.json["results"][0]["line_end"].as_u64(), Some(source[..last].matches('\n').count() as u64 + 1));
    // A question whose match may be the class itself parses the class: the class's place and
    // its last line are the whole file's.
    let class = r#"(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @n (#eq? @n "member_13"))))) @match"#;
    let found = cc(&repo, &["xray", "member_13", "--query", class, "--ref", "HEAD"]);
    assert_eq!(places(&found.json), vec![format!("app/session.py:{}", line("class Session"))], "{}", found.stdout);
    assert_eq!(found.json["results"][0]["line_end"].as_u64(), Some(line("\ndef after") as u64 - 2));
    assert!(found.json["bytes_parsed"].as_u64().unwrap() * 10 > size * 9, "{}", found.json["bytes_parsed"]);
}

#[test]
fn the_working_tree_is_searched_as_it_is_on_disk() {
    let (_tmp, repo) = fixture("xray");
    std::fs::write(repo.join("app/util.py"), "def log(name):\n    return open(name, \"a\")\n").unwrap();
    let run = cc(&repo, &["xray", "open(", "-F", "--query", OPEN_WITH_MODE]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["ref"], "worktree");
    assert_eq!(places(&run.json), vec!["app/broken.py:2", "app/io.py:11", "app/util.py:2"]);
}

#[test]
fn answers_come_in_path_order_whichever_file_is_parsed_first() {
    let (_tmp, repo) = fixture("xray");
    // The larger a file, the later its path: the largest are parsed first, the answer is in
    // path order, and a limit keeps its first matches.
    for (n, name) in ["app/x1.py", "app/x2.py", "app/x3.py", "app/x4.py"].iter().enumerate() {
        let body: String =
            (0..(n + 1) * 40).map(|i| format!("def f{i}():\n    return open(\"{i}\", \"w\")\n")).collect();
        std::fs::write(repo.join(name), body).unwrap();
    }
    let all = cc(&repo, &["xray", "open(", "-F", "--query", OPEN_WITH_MODE]);
    assert_eq!(all.code, 0, "{} {}", all.stdout, all.stderr);
    let found = places(&all.json);
    let in_order = |p: &String| {
        let (path, line) = p.rsplit_once(':').unwrap();
        (path.to_owned(), line.parse::<u64>().unwrap())
    };
    let mut sorted = found.clone();
    sorted.sort_by_key(in_order);
    assert_eq!(found, sorted);
    assert_eq!(found.iter().filter(|p| p.starts_with("app/x")).count(), 400);
    let limited = cc(&repo, &["xray", "open(", "-F", "--query", OPEN_WITH_MODE, "--limit", "50"]);
    assert_eq!(places(&limited.json), found[..50].to_vec());
    assert_eq!(limited.json["truncated"], true);
}

/// A test file: one `describe(...)` whose callback holds `tests` tests, one in 20 of them
/// calling `JSON.stringify`.
fn describe_file(tests: usize) -> String {
    let mut text = String::from("import { describe, it, expect } from 'vitest'\n\ndescribe('session', () => {\n");
    for n in 0..tests {
        let show = if n % 20 == 7 { "JSON.stringify" } else { "String" };
        text.push_str(&format!(
            "  // Test {n}.\n  it('does {n}', async () => {{\n    const v{n} = await load({n}, 'fixture')\n    \
             expect({show}(v{n})).toBe('{{\"n\":{n}}}')\n  }})\n\n"
        ));
    }
    text.push_str("})\n");
    text
}

#[test]
fn a_query_about_calls_parses_a_test_callbacks_runs_with_the_call_around_them() {
    let (_tmp, repo) = fixture("xray");
    let source = describe_file(60);
    std::fs::write(repo.join("app/session.test.ts"), &source).unwrap();
    let size = source.len() as u64;
    let stringify = r#"(call_expression function: (member_expression object: (identifier) @_o (#eq? @_o "JSON") property: (property_identifier) @_p (#eq? @_p "stringify"))) @match"#;
    let expected: Vec<String> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("JSON.stringify("))
        .map(|(i, _)| format!("app/session.test.ts:{}", i + 1))
        .collect();
    assert_eq!(expected.len(), 3);
    let calls = cc(&repo, &["xray", "JSON.stringify", "-F", "--query", stringify, "--lang", "typescript"]);
    assert_eq!(calls.code, 0, "{} {}", calls.stdout, calls.stderr);
    assert_eq!(places(&calls.json), expected);
    let parsed = calls.json["bytes_parsed"].as_u64().unwrap();
    assert!(parsed * 2 < size, "{parsed} of {size} bytes parsed");

    // The call holding the runs is in every run's parse: found once, as in the whole file.
    let describe = r#"(call_expression function: (identifier) @f (#eq? @f "describe")) @m"#;
    let outer = cc(&repo, &["xray", "JSON.stringify", "-F", "--query", describe, "--lang", "typescript"]);
    assert_eq!(places(&outer.json), vec!["app/session.test.ts:3"], "{}", outer.stdout);
    assert!(outer.json["bytes_parsed"].as_u64().unwrap() * 2 < size);

    // A query that looks into the callback from the call parses the whole file.
    let with_callback = "(call_expression arguments: (arguments (arrow_function))) @c";
    let whole = cc(&repo, &["xray", "JSON.stringify", "-F", "--query", with_callback, "--lang", "typescript"]);
    assert_eq!(whole.json["bytes_parsed"].as_u64(), Some(size));
    assert_eq!(whole.json["total_matches"], 4, "{}", whole.stdout);
}

#[test]
fn scripts_walk_the_tree_from_the_drivers_matches() {
    let (_tmp, repo) = fixture("xray");
    let rules = tempfile_in(&repo, "unwrap_in_result.rhai", UNWRAP_IN_RESULT);
    let run = cc(&repo, &["xray", "unwrap()", "-F", "--script", &rules, "--ref", "main"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(places(&run.json), vec!["src/lib.rs:4"]);
    assert_eq!(run.json["results"][0]["value"], "load");
    assert_eq!(run.json["evaluator"], "script");

    // No driver: every file of the view in the language is parsed, and the answer says so.
    let many = tempfile_in(&repo, "many.rhai", MANY_PARAMETERS);
    let run = cc(&repo, &["xray", "--script", &many, "--lang", "typescript", "--lang", "python", "--ref", "main"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(places(&run.json), vec!["app/util.py:5", "web/api.ts:1"]);
    assert!(run.json["prefilter"].as_str().unwrap().starts_with("none"), "{}", run.json["prefilter"]);
    assert!(run.json["notes"][0].as_str().unwrap().starts_with("no driver: all 4 file(s)"), "{}", run.json["notes"]);
    assert_eq!(run.json["results"][1]["value"], 6);
}

const UNWRAP_IN_RESULT: &str = r#"
// unwrap() inside a function whose return type is a Result.
let out = [];
for m in match_positions {
    let n = root.node_at(m.start);
    for a in n.ancestors() {
        if a.kind == "function_item" {
            let r = a.field("return_type");
            if type_of(r) != "()" && r.text.starts_with("Result") {
                out.push(#{node: n, value: a.field("name").text});
            }
            break;
        }
    }
}
out
"#;

const MANY_PARAMETERS: &str = r#"
let out = [];
for f in root.descendants() {
    if f.kind == "function_definition" || f.kind == "function_declaration" {
        let n = f.field("parameters").named_children.len();
        if n > 5 { out.push(#{node: f.field("name"), value: n}); }
    }
}
out
"#;

/// Writes `text` into the repository's git dir (never a file of the view) and returns its path.
fn tempfile_in(repo: &std::path::Path, name: &str, text: &str) -> String {
    let path = repo.join(".git").join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_runaway_script_is_one_files_error_and_the_others_answer() {
    let (_tmp, repo) = fixture("xray");
    let script = tempfile_in(
        &repo,
        "runaway.rhai",
        r#"if file_path == "app/io.py" { loop { } } root.descendants("function_definition")"#,
    );
    let run = cc(&repo, &["xray", "--script", &script, "--lang", "python", "--ref", "main"]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    let errors = run.json["evaluation_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["path"], "app/io.py");
    assert_eq!(errors[0]["kind"], "operations");
    // The parser recovers `def broken(:` as a definition with an error inside.
    assert_eq!(places(&run.json), vec!["app/broken.py:1", "app/broken.py:4", "app/util.py:1", "app/util.py:5"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "partial");

    // The wall clock per file, when the operations would allow more.
    let slow = cc(
        &repo,
        &[
            "xray",
            "--script",
            &script,
            "--lang",
            "python",
            "--ref",
            "main",
            "--max-operations",
            "1000000000000",
            "--file-time",
            "100",
        ],
    );
    assert_eq!(slow.json["evaluation_errors"][0]["kind"], "time", "{}", slow.stdout);

    // Modules (and so files) are not there to load.
    let sandboxed = tempfile_in(&repo, "import.rhai", r#"import "std" as s; root"#);
    let refused = cc(&repo, &["xray", "def", "--script", &sandboxed, "--lang", "python", "--ref", "main"]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    let kinds: BTreeSet<&str> =
        refused.json["evaluation_errors"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, BTreeSet::from(["sandbox"]));
}

#[test]
fn bad_queries_and_scripts_are_refused_before_anything_runs() {
    let (_tmp, repo) = fixture("xray");
    let unclosed = cc(&repo, &["xray", "open", "--query", "(call function: (identifier) @f", "--ref", "main"]);
    assert_eq!(unclosed.code, 2, "{}", unclosed.stdout);
    assert_eq!(unclosed.json["error"]["code"], "invalid_argument");
    let message = unclosed.json["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("query line 1, column "), "{message}");
    assert!(message.contains("syntax error"), "{message}");
    assert!(unclosed.json["error"]["data"]["remedy"].as_str().unwrap().contains("xray explore"));

    let wrong_kind = cc(&repo, &["xray", "open", "--query", "(function_item) @f", "--lang", "python", "--ref", "main"]);
    assert_eq!(wrong_kind.code, 2);
    assert!(wrong_kind.json["error"]["message"].as_str().unwrap().contains("no node kind"), "{}", wrong_kind.stdout);

    let script = tempfile_in(&repo, "bad.rhai", "let x = ;\n");
    let bad_script = cc(&repo, &["xray", "open", "--script", &script, "--ref", "main"]);
    assert_eq!(bad_script.code, 2);
    assert!(
        bad_script.json["error"]["message"].as_str().unwrap().starts_with("script line 1"),
        "{}",
        bad_script.stdout
    );

    let neither = cc_text(&repo, &["xray", "open"]);
    assert_eq!(neither.code, 2);
    assert!(neither.stderr.contains("--query"), "{}", neither.stderr);
}

#[test]
fn explore_shows_the_nodes_a_query_is_written_against() {
    let (_tmp, repo) = fixture("xray");
    let line = cc(&repo, &["xray", "explore", "app/io.py", "--line", "11", "--ref", "main"]);
    assert_eq!(line.code, 0, "{} {}", line.stdout, line.stderr);
    assert_eq!(line.json["language"], "python");
    assert_eq!(line.json["nodes"][0]["kind"], "with_statement");
    assert_eq!(line.json["ancestors"], serde_json::json!(["module", "function_definition", "block"]));
    let call = line.json["nodes"].as_array().unwrap().iter().find(|n| n["kind"] == "call").unwrap();
    assert_eq!((call["line_start"].as_u64(), call["column"].as_u64()), (Some(11), Some(10)));
    let field = line.json["nodes"].as_array().unwrap().iter().find(|n| n["field"] == "arguments").unwrap();
    assert_eq!(field["kind"], "argument_list");

    let captured = cc(&repo, &["xray", "explore", "app/io.py", "--query", "(string) @s", "--ref", "refactor"]);
    let texts: Vec<&str> =
        captured.json["captures"].as_array().unwrap().iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert_eq!(texts, vec!["'r'", "\"w\"", "'w'", "\"call open(x, 'w') to write\""]);

    let broken = cc(&repo, &["xray", "explore", "app/broken.py", "--ref", "main"]);
    assert_eq!(broken.json["has_errors"], true);
    let missing = cc(&repo, &["xray", "explore", "app/nothing.py", "--ref", "main"]);
    assert_eq!(missing.code, 2);
    assert_eq!(missing.json["error"]["code"], "file_not_found");
}

/// One rule of `docs/xray.md`: its driver (text, literal), its evaluator and its examples.
struct Rule {
    title: String,
    driver: Option<(String, bool)>,
    query: Option<(String, String)>,
    script: Option<String>,
    examples: Vec<(String, String)>,
}

/// The rules of the library in `docs/xray.md`, as the page writes them.
fn rule_library() -> Vec<Rule> {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/xray.md")).unwrap();
    let (_, library) = page.split_once("## A rule library").expect("docs/xray.md has a rule library");
    let mut rules: Vec<Rule> = Vec::new();
    let mut lines = library.lines();
    while let Some(line) = lines.next() {
        if let Some(title) = line.strip_prefix("### ") {
            rules.push(Rule { title: title.to_owned(), driver: None, query: None, script: None, examples: Vec::new() });
            continue;
        }
        let Some(rule) = rules.last_mut() else { continue };
        if let Some(driver) = line.strip_prefix("Driver: ") {
            if driver != "none" {
                let (text, kind) = driver.strip_prefix('`').and_then(|d| d.split_once("` (")).expect(line);
                rule.driver = Some((text.to_owned(), kind == "literal)"));
            }
            continue;
        }
        let Some(info) = line.strip_prefix("```") else { continue };
        let block: String = lines.by_ref().take_while(|l| *l != "```").map(|l| format!("{l}\n")).collect();
        match info.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["query", lang] => rule.query = Some(((*lang).to_owned(), block)),
            ["rhai"] => rule.script = Some(block),
            [lang, "example"] => rule.examples.push(((*lang).to_owned(), block)),
            other => panic!("{}: a block of unknown kind {other:?}", rule.title),
        }
    }
    rules
}

#[test]
fn the_rule_library_finds_what_it_says() {
    let rules = rule_library();
    assert!(rules.len() >= 15, "the library has {} rules", rules.len());
    let languages: BTreeSet<&str> = rules.iter().flat_map(|r| r.examples.iter().map(|(l, _)| l.as_str())).collect();
    for lang in ["rust", "python", "typescript", "go", "java", "c"] {
        assert!(languages.contains(lang), "no rule for {lang}");
    }
    fn extension(lang: &str) -> &str {
        match lang {
            "python" => "py",
            "rust" => "rs",
            "typescript" => "ts",
            other => other,
        }
    }
    // One repository holds every rule's examples, each rule in its own directory.
    let tmp = crate::support::TempDir::new("xray-rules");
    let repo = tmp.path().join("rules");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    let mut expected: Vec<BTreeSet<String>> = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        assert!(rule.query.is_some() != rule.script.is_some(), "{}: a query or a script", rule.title);
        assert!(!rule.examples.is_empty(), "{}: an example", rule.title);
        let mut marked = BTreeSet::new();
        for (k, (lang, code)) in rule.examples.iter().enumerate() {
            let path = format!("rules/{i:02}/example{k}.{}", extension(lang));
            std::fs::create_dir_all(repo.join(&path).parent().unwrap()).unwrap();
            std::fs::write(repo.join(&path), code).unwrap();
            for (n, line) in code.lines().enumerate() {
                if line.ends_with("# match") || line.ends_with("// match") {
                    marked.insert(format!("{path}:{}", n + 1));
                }
            }
        }
        assert!(!marked.is_empty(), "{}: the example marks what it matches", rule.title);
        expected.push(marked);
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "The rule library's examples"]);

    for (i, rule) in rules.iter().enumerate() {
        let mut args: Vec<String> = vec!["xray".into()];
        if let Some((driver, literal)) = &rule.driver {
            args.push(driver.clone());
            if *literal {
                args.push("-F".into());
            }
        }
        if let Some((lang, query)) = &rule.query {
            args.extend(["--query".into(), query.clone(), "--lang".into(), lang.clone()]);
        }
        if let Some(script) = &rule.script {
            args.extend(["--script".into(), tempfile_in(&repo, &format!("rule{i}.rhai"), script)]);
        }
        args.extend(["--path".into(), format!("rules/{i:02}/**")]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = cc(&repo, &args);
        let found: BTreeSet<String> = places(&run.json).into_iter().collect();
        assert_eq!(found, expected[i], "{}: {} {}", rule.title, run.stdout, run.stderr);
        assert_eq!(run.json["evaluation_error_count"], 0, "{}: {}", rule.title, run.stdout);
        if rule.driver.as_ref().is_some_and(|(d, literal)| *literal && d.len() >= 4) {
            assert_eq!(run.json["prefilter"], "trigram", "{}", rule.title);
        }
    }
}

/// A batch of `scans` copies of one slow Python scan at main, written into the git dir.
fn slow_batch(repo: &std::path::Path, name: &str, scans: usize) -> String {
    let scan = serde_json::json!({
        "script": "let i = 0; while i < 300000 { i += 1; } root.descendants(\"function_definition\")",
        "lang": ["python"],
        "max_operations": 100_000_000u64,
        "file_time_ms": 120_000u64,
    });
    let batch = serde_json::json!({ "refs": ["main"], "scans": vec![scan; scans] });
    tempfile_in(repo, name, &batch.to_string())
}

/// Polls `jobs show ID` until `done` holds of its state (at most a minute).
fn wait_for(repo: &std::path::Path, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let state = cc(repo, &["jobs", "show", id]);
        assert_eq!(state.code, 0, "{} {}", state.stdout, state.stderr);
        if done(&state.json) {
            return state.json;
        }
        assert!(started.elapsed().as_secs() < 60, "job {id} never got there: {}", state.stdout);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn a_batch_answers_each_scan_at_each_ref_apart() {
    let (_tmp, repo) = fixture("xray");
    let batch = serde_json::json!({
        "refs": ["main", "refactor"],
        "scans": [
            {"name": "modes", "driver": "open(", "literal": true, "query": OPEN_WITH_MODE},
            {"name": "broken", "driver": "x", "query": "(call"},
            {"name": "unwraps", "driver": "unwrap()", "literal": true, "script_file": "unwrap_in_result.rhai"},
        ]
    });
    tempfile_in(&repo, "unwrap_in_result.rhai", UNWRAP_IN_RESULT);
    let file = tempfile_in(&repo, "batch.json", &batch.to_string());
    let run = cc(&repo, &["xray", "--batch", &file]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    let runs = run.json["runs"].as_array().unwrap();
    let summary: Vec<(String, String, Vec<String>)> = runs
        .iter()
        .map(|r| {
            let found =
                if r["results"].is_array() { places(r) } else { vec![format!("error: {}", r["error"]["code"])] };
            (r["scan"].as_str().unwrap().to_owned(), r["asked_ref"].as_str().unwrap().to_owned(), found)
        })
        .collect();
    let s = |x: &str| x.to_owned();
    assert_eq!(
        summary,
        vec![
            (s("modes"), s("main"), vec![s("app/broken.py:2"), s("app/io.py:11")]),
            (s("modes"), s("refactor"), vec![s("app/broken.py:2"), s("app/save.py:2")]),
            (s("broken"), s("main"), vec![s("error: \"invalid_argument\"")]),
            (s("broken"), s("refactor"), vec![s("error: \"invalid_argument\"")]),
            (s("unwraps"), s("main"), vec![s("src/lib.rs:4")]),
            (s("unwraps"), s("refactor"), vec![s("src/lib.rs:4")]),
        ]
    );
    assert_eq!(run.json["runs_total"], 6);
    assert_eq!(run.json["total_matches"], 6);
    assert_eq!(run.json["result_completeness"], "partial");

    let empty = tempfile_in(&repo, "empty.json", r#"{"scans": []}"#);
    let refused = cc(&repo, &["xray", "--batch", &empty]);
    assert_eq!(refused.code, 2);
    assert!(refused.json["error"]["message"].as_str().unwrap().contains("no scans"), "{}", refused.stdout);
    let unknown = tempfile_in(&repo, "unknown.json", r#"{"scans": [{"querry": "(call) @c"}]}"#);
    let refused = cc(&repo, &["xray", "--batch", &unknown]);
    assert_eq!(refused.code, 2);
    assert!(refused.json["error"]["message"].as_str().unwrap().contains("querry"), "{}", refused.stdout);
}

#[test]
fn background_jobs_show_progress_stop_when_cancelled_and_say_when_their_process_died() {
    let (_tmp, repo) = fixture("xray");
    let batch = slow_batch(&repo, "slow.json", 12);
    let store = std::path::PathBuf::from(cc(&repo, &["status"]).json["store_dir"].as_str().unwrap());
    let started = cc(&repo, &["xray", "--batch", &batch, "--background"]);
    assert_eq!(started.code, 0, "{} {}", started.stdout, started.stderr);
    assert_eq!(started.json["status"], "queued");
    assert_eq!(started.json["runs_total"], 12);
    let id = started.json["job_id"].as_str().unwrap().to_owned();

    // Whoever asks for a job's state holds its lock for a moment; a job's process starting
    // in such a moment waits it out rather than giving up (held longer here, while the
    // process is likely still starting).
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(store.join("jobs").join(&id).join("lock"));
    if let Ok(lock) = lock
        && lock.try_lock().is_ok()
    {
        std::thread::sleep(std::time::Duration::from_millis(600));
        lock.unlock().unwrap();
    }

    // Partial answers while it runs: the finished runs.
    let running = wait_for(&repo, &id, |s| s["runs_done"].as_u64().unwrap_or(0) >= 1);
    assert_eq!(running["status"], "running", "{running}");
    let first = &running["answer"]["runs"][0];
    assert_eq!(
        places(first),
        vec![
            "app/broken.py:1",
            "app/broken.py:4",
            "app/io.py:1",
            "app/io.py:6",
            "app/io.py:10",
            "app/io.py:15",
            "app/util.py:1",
            "app/util.py:5"
        ]
    );

    let cancel = cc(&repo, &["jobs", "cancel", &id]);
    assert_eq!(cancel.json["cancel_requested"], true, "{}", cancel.stdout);
    let ended = cc(&repo, &["jobs", "show", &id, "--wait"]);
    assert_eq!(ended.json["status"], "cancelled", "{}", ended.stdout);
    let answer = &ended.json["answer"];
    assert_eq!(answer["cancelled"], true);
    assert_eq!(answer["result_completeness"], "partial");
    assert!(answer["runs"].as_array().unwrap().len() < 12, "{answer}");
    assert_eq!(places(&answer["runs"][0]), places(first));

    // A job whose process is killed is interrupted, not running forever.
    let second = cc(&repo, &["xray", "--batch", &batch, "--background"]);
    let id2 = second.json["job_id"].as_str().unwrap().to_owned();
    let running = wait_for(&repo, &id2, |s| s["status"] == "running");
    let pid = running["pid"].as_u64().unwrap().to_string();
    let killed = std::process::Command::new("kill").args(["-9", &pid]).status().unwrap();
    assert!(killed.success());
    let dead = wait_for(&repo, &id2, |s| s["status"] != "running");
    assert_eq!(dead["status"], "interrupted", "{dead}");

    // Both are listed; gc with no grace removes what ended.
    let listed = cc(&repo, &["jobs"]);
    let ids: BTreeSet<&str> =
        listed.json["jobs"].as_array().unwrap().iter().map(|j| j["job_id"].as_str().unwrap()).collect();
    assert_eq!(ids, BTreeSet::from([id.as_str(), id2.as_str()]));
    let gc = cc(&repo, &["gc", "--grace-days", "0"]);
    assert_eq!(gc.json["gc"]["jobs_dropped"], 2, "{}", gc.stdout);
    assert_eq!(cc(&repo, &["jobs"]).json["jobs"], serde_json::json!([]));
    let gone = cc(&repo, &["jobs", "show", &id]);
    assert_eq!(gone.code, 2);
}
