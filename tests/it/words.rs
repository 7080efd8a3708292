//! Questions in words, end to end on the `tracker` fixture: pasted issues, tracebacks and log
//! lines find the code they describe; file-level answers; fallbacks that say so; a name with
//! no definition says so; a query past the term cap keeps its rarest terms.

use crate::support::{cc, fixture};

/// The paths of an answer's results, in order.
fn paths(json: &serde_json::Value) -> Vec<String> {
    json["results"]
        .as_array()
        .map(|r| r.iter().map(|r| r["path"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

const PASTED_ISSUE: &str = r#"Failed tasks are forgotten after a few days

When I run the tracker with `--failed-first` after a long weekend, the tasks that failed on
Friday are not run first any more. It looks like the list of last failed tasks loses its
entries between sessions, even though the tasks still exist. I expected the entries to be kept
until the tasks are removed.

Steps to reproduce:

```
tracker --failed-first
# wait until Monday
tracker --failed-first
```

Expected behaviour: the failed ones run first. Actual behaviour: they run in the usual order.
Maybe the stale entries are pruned too early? Two weeks seems to be the limit, but the
timestamps we store might not be what the pruning compares against.

Environment: Python 3.11.2, tracker 0.4.0, Ubuntu 22.04
"#;

#[test]
fn a_pasted_issue_ranks_the_file_that_holds_the_described_code_first() {
    let (_tmp, repo) = fixture("tracker");
    let files = cc(&repo, &["search", "--files", PASTED_ISSUE]);
    assert_eq!(files.code, 0, "{}", files.stderr);
    let ranked = paths(&files.json);
    assert!(ranked.iter().take(3).any(|p| p == "tracker/cache.py"), "{ranked:?}");
    assert!(ranked.iter().all(|p| ranked.iter().filter(|q| *q == p).count() == 1), "one result per file: {ranked:?}");
    let top = &files.json["results"][0];
    assert_eq!(top["kind"], "file");
    assert!(top["score"].as_f64().unwrap() > 0.0);
    assert!(!top["lines"].as_array().unwrap().is_empty(), "best lines: {top}");
    // The ranked snippet search answers the same text too, in auto mode and in fts mode.
    for mode in ["auto", "fts"] {
        let run = cc(&repo, &["search", "--mode", mode, PASTED_ISSUE]);
        assert_eq!(run.code, 0, "{mode}: {}", run.stderr);
        assert_eq!(run.json["intent"], "natural_language", "{mode}");
        assert!(paths(&run.json).iter().take(5).any(|p| p == "tracker/cache.py"), "{mode}: {:?}", paths(&run.json));
    }
}

#[test]
fn a_traceback_leads_to_the_frames_that_raised_it() {
    let (_tmp, repo) = fixture("tracker");
    let traceback = "Running the tracker with a settings file crashes:\n\n\
        Traceback (most recent call last):\n  \
        File \"/home/ada/src/tracker/tracker/cli.py\", line 15, in main\n    \
        settings = load_settings([], \"tracker.toml\")\n  \
        File \"/home/ada/src/tracker/tracker/config.py\", line 15, in load_settings\n    \
        raise ConfigError(f\"unknown setting '{key}' in {path}\")\n\
        tracker.config.ConfigError: unknown setting 'verbose' in tracker.toml\n";
    let files = cc(&repo, &["search", "--files", traceback, "--explain", "basic"]);
    assert_eq!(files.code, 0, "{}", files.stderr);
    let ranked = paths(&files.json);
    assert_eq!(ranked.first().map(String::as_str), Some("tracker/config.py"), "{ranked:?}");
    assert!(ranked.iter().take(3).any(|p| p == "tracker/cli.py"), "{ranked:?}");
    let clues = &files.json["clues"];
    assert!(clues["frames"].as_array().is_some_and(|f| f.len() == 2), "{clues}");
    let symbols: Vec<&str> =
        files.json["results"][0]["symbols"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(symbols.contains(&"load_settings"), "{symbols:?}");
}

#[test]
fn a_log_line_finds_the_template_that_produces_it_before_copies_in_docs() {
    let (_tmp, repo) = fixture("tracker");
    // No line holds this text: the value differs from every copy. The template does.
    let run = cc(&repo, &["search", "unknown setting 'verbose' in tracker.toml"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["intent"], "error_text");
    let top = &run.json["results"][0];
    assert_eq!((top["path"].as_str(), top["line_start"].as_u64()), (Some("tracker/config.py"), Some(15)), "{top}");
    // A copy in the docs matches exactly, yet the source that produces it leads.
    let run = cc(&repo, &["search", "unknown setting 'colour' in tracker.toml"]);
    let ranked = paths(&run.json);
    assert_eq!(ranked.first().map(String::as_str), Some("tracker/config.py"), "{ranked:?}");
    assert!(ranked.contains(&"docs/cache.md".to_owned()), "{ranked:?}");
}

#[test]
fn source_that_produces_a_message_ranks_above_tests_that_quote_it() {
    let (_tmp, repo) = fixture("tracker");
    let run = cc(&repo, &["search", "\"unknown rule selector\""]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let ranked = paths(&run.json);
    assert_eq!(ranked.first().map(String::as_str), Some("native/src/selector.rs"), "{ranked:?}");
    assert!(ranked.contains(&"native/tests/selector.rs".to_owned()), "{ranked:?}");
    // The exact mode keeps git grep's order.
    let literal = cc(&repo, &["search", "--mode", "literal", "unknown rule selector"]);
    assert_eq!(paths(&literal.json).first().map(String::as_str), Some("native/src/selector.rs"));
}

#[test]
fn a_message_with_no_exact_line_falls_back_to_words_and_says_so() {
    let (_tmp, repo) = fixture("tracker");
    let run = cc(&repo, &["search", "Cannot prune the stale entries of the failed cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["intent"], "error_text");
    assert_eq!(run.json["metadata"]["fallback"]["from"], "literal", "{}", run.json["metadata"]);
    assert_eq!(run.json["metadata"]["fallback"]["to"], "fts");
    assert!(paths(&run.json).iter().take(3).any(|p| p == "tracker/cache.py"), "{:?}", paths(&run.json));
}

#[test]
fn a_question_is_never_answered_with_nothing_while_a_term_occurs() {
    let (_tmp, repo) = fixture("tracker");
    let question =
        "Where does the tracker store and read the list of last failed tasks, and where are stale entries pruned?";
    let run = cc(&repo, &["search", question]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json["intent"], "natural_language");
    assert!(paths(&run.json).iter().take(3).any(|p| p == "tracker/cache.py"), "{:?}", paths(&run.json));
    // One rare word among words that occur nowhere still answers.
    let run = cc(&repo, &["search", "--mode", "fts", "zebra quokka pruned axolotl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(paths(&run.json).contains(&"tracker/cache.py".to_owned()), "{:?}", paths(&run.json));
}

#[test]
fn a_query_past_the_term_cap_keeps_the_rarest_terms_and_says_so() {
    let (_tmp, repo) = fixture("tracker");
    // About 5,000 characters: many distinct filler words, and one name that matters.
    let word = |mut i: usize| -> String {
        let mut w = String::from("vo");
        for _ in 0..4 {
            w.push((b'a' + (i % 26) as u8) as char);
            i /= 26;
        }
        w
    };
    let filler: Vec<String> = (0..720).map(|i| word(i * 7919 % 456_976)).collect();
    let query = format!("{} prune_stale {}", filler[..350].join(" "), filler[350..].join(" "));
    assert!(query.len() >= 5000, "{}", query.len());
    for args in [vec!["search", "--mode", "fts"], vec!["search", "--files"]] {
        let mut args = args.clone();
        args.push(&query);
        let run = cc(&repo, &args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let notes = run.json["metadata"]["notes"].to_string();
        assert!(notes.contains("distinct terms"), "{notes}");
        assert!(paths(&run.json).first().is_some_and(|p| p == "tracker/cache.py"), "{:?}", paths(&run.json));
    }
}

#[test]
fn a_name_with_no_definition_says_so_before_near_names() {
    let (_tmp, repo) = fixture("tracker");
    let run = cc(&repo, &["search", "prune_entries"]);
    let notes = run.json["metadata"]["notes"].to_string();
    assert!(notes.contains("no definition named `prune_entries`"), "{}", run.json);
    let found = cc(&repo, &["search", "prune_stale"]);
    assert!(found.json["metadata"].get("notes").is_none(), "{}", found.json["metadata"]);
}

#[test]
fn files_do_not_combine_with_exact_modes() {
    let (_tmp, repo) = fixture("tracker");
    let run = cc(&repo, &["search", "--files", "--mode", "regex", "prune.*"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.contains("--files") || run.stderr.contains("--files"), "{} {}", run.stdout, run.stderr);
}
