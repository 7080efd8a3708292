//! Bad input, bad stores and bad arguments: never a crash, always an answer or an error that
//! says what to do.

use crate::support::{bin, cc, cc_env, cc_text, fixture, located, view};

#[test]
fn bad_files_never_stop_indexing() {
    let (_tmp, repo) = fixture("bad-input");
    let run = cc(&repo, &["index"]);
    let v = view(&run);
    assert_eq!(v["files"], 10, "{v}");
    assert_eq!(v["skipped"]["binary"], 1, "{v}");
    assert_eq!(v["skipped"]["too_large"], 1, "{v}");
    let outline = |path: &str| cc(&repo, &["outline", path]).json;
    assert_eq!(outline("huge.rs")["skipped"], "too_large");
    assert_eq!(outline("logo.png")["skipped"], "binary");
    assert_eq!(outline("Cargo.lock")["skipped"], "lock_file");
    assert_eq!(outline("app.min.js")["skipped"], "minified");
    assert_eq!(outline("link-to-broken.rs")["skipped"], "symlink");
    assert_eq!(outline("empty.py")["symbols"].as_array().map(Vec::len), Some(0));
    // Non-UTF-8 content parses as far as it can.
    assert_eq!(located(&cc(&repo, &["locate", "latin1_function"])), [("latin1.c".into(), 2)]);
    // A syntax error costs the broken function only.
    let broken = outline("broken.rs");
    assert_eq!(broken["metadata"]["result_completeness"], "partial");
    assert!(!broken["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(located(&cc(&repo, &["locate", "after_error"])), [("broken.rs".into(), 7)]);
    assert_eq!(located(&cc(&repo, &["locate", "before_error"])), [("broken.rs".into(), 1)]);
    // A file known only by its #! line.
    assert_eq!(outline("bin/deploy")["language"], "bash");
    // A path that is not UTF-8 is indexed too.
    assert_eq!(cc(&repo, &["locate", "odd_path_function"]).json["results"].as_array().map(Vec::len), Some(1));
    // A lock file is never parsed as code.
    assert_eq!(cc(&repo, &["locate", "lock_only_package"]).code, 1);
}

#[test]
fn an_unknown_ref_is_an_error_that_says_what_to_do() {
    let (_tmp, repo) = fixture("shop");
    let run = cc(&repo, &["locate", "Cart", "--ref", "no-such-branch"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "unknown_ref");
    let text = cc_text(&repo, &["locate", "Cart", "--ref", "no-such-branch"]);
    assert_eq!(text.code, 2);
    assert!(text.stderr.contains("unknown ref `no-such-branch`"), "{}", text.stderr);
    assert!(text.stderr.contains("hint:"), "{}", text.stderr);
    assert!(text.stdout.is_empty());
}

#[test]
fn nothing_found_exits_one_and_suggests() {
    let (_tmp, repo) = fixture("shop");
    let run = cc(&repo, &["locate", "ShopClien"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.json["results"].as_array().map(Vec::len), Some(0));
    assert!(run.json["suggestions"].as_array().unwrap().iter().any(|s| s == "ShopClient"), "{}", run.stdout);
}

#[test]
fn an_incompatible_or_corrupt_store_is_refused_with_its_remedy() {
    let (_tmp, repo) = fixture("shop");
    cc(&repo, &["index"]);
    let db = repo.join(".git/codecompass/store.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'", []).unwrap();
    drop(conn);
    let run = cc(&repo, &["locate", "Cart"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "index_incompatible");
    assert!(run.json["error"]["data"]["remedy"].as_str().unwrap().contains("index --force"));
    assert_eq!(cc(&repo, &["status"]).json["store_state"], "reindex_required");
    // The remedy works.
    assert_eq!(cc(&repo, &["index", "--force"]).code, 0);
    assert_eq!(located(&cc(&repo, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);

    std::fs::write(&db, b"this is not a database").unwrap();
    let _ = std::fs::remove_file(repo.join(".git/codecompass/store.sqlite-wal"));
    let run = cc(&repo, &["locate", "Cart"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json["error"]["code"], "index_incompatible");
    assert_eq!(cc(&repo, &["index", "--force"]).code, 0);
    assert_eq!(located(&cc(&repo, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);
}

#[test]
fn outside_a_repository_paths_are_refused() {
    let (_tmp, repo) = fixture("shop");
    let run = cc(&repo, &["outline", "../../etc/passwd"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "path_outside_workspace");
    let missing = cc(&repo, &["outline", "src/nope.rs"]);
    assert_eq!(missing.json["error"]["code"], "file_not_found");
}

#[test]
fn two_index_processes_at_once_both_finish_consistently() {
    let (_tmp, repo) = fixture("shop");
    let spawn = || {
        bin()
            .args(["index", "--ref", "main", "--ref", "feature", "--ref", "old-line", "--json", "--quiet"])
            .current_dir(&repo)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(
        a.status.success() && b.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout)
    );
    let parse = |o: &std::process::Output| serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap();
    let (a, b) = (parse(&a), parse(&b));
    let parsed = a["total"]["blobs_parsed"].as_u64().unwrap() + b["total"]["blobs_parsed"].as_u64().unwrap();
    let alone = {
        let (_tmp2, fresh) = fixture("shop");
        cc(&fresh, &["index", "--ref", "main", "--ref", "feature", "--ref", "old-line"]).json["total"]["blobs_parsed"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(parsed, alone, "the second writer waited and found everything indexed");
    for r in ["main", "feature", "old-line"] {
        assert_eq!(cc(&repo, &["locate", "Cart", "--ref", r]).code, 0);
    }
}

#[test]
fn readers_answer_from_the_last_published_view_while_a_writer_works() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    std::fs::write(repo.join("src/late.rs"), "pub fn published_later() {}\n").unwrap();
    let mut writer = bin()
        .args(["index", "--quiet"])
        .env("CODECOMPASS_FAILPOINTS", "index.before_publish=sleep(3000)")
        .current_dir(&repo)
        .spawn()
        .unwrap();
    // Wait until the writer holds the lock.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while cc(&repo, &["status"]).json["indexing_status"] != "indexing" {
        assert!(std::time::Instant::now() < deadline, "the writer never took the lock");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let started = std::time::Instant::now();
    let read = cc(&repo, &["locate", "Cart", "--ref", "HEAD"]);
    assert_eq!(located(&read), [("src/cart.rs".into(), 11)]);
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "a reader of a current view never waits");
    assert!(writer.wait().unwrap().success());
    assert_eq!(located(&cc(&repo, &["locate", "published_later"])), [("src/late.rs".into(), 1)]);
}

#[test]
fn a_reader_never_waits_for_a_write_transaction_to_note_its_view() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index", "--ref", "HEAD"]).code, 0);
    let store = codecompass::store::Store::open(&repo.join(".git/codecompass"), false).unwrap();
    // A view last used long ago is one a query wants to note as used again.
    store.conn().execute("UPDATE views SET last_used_at = 0", []).unwrap();
    // Another process holds the write lock in the middle of a transaction.
    store.conn().execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut reader = bin()
        .args(["locate", "Cart", "--ref", "HEAD", "--json", "--quiet"])
        .current_dir(&repo)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The store's busy timeout is 60 s: a reader that queued behind the writer would still be
    // running long after this.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = reader.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = reader.kill();
            panic!("the reader waited for the writer's transaction");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success());
    store.conn().execute_batch("ROLLBACK").unwrap();
}

#[test]
fn a_writer_killed_mid_index_leaves_a_working_store_and_the_next_run_finishes() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index", "--ref", "v1.0"]).code, 0);
    for point in ["index.after_file_versions", "index.before_publish"] {
        let crashed = bin()
            .args(["index", "--ref", "main", "--quiet"])
            .env("CODECOMPASS_FAILPOINTS", format!("{point}=exit"))
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(!crashed.status.success());
        // The last published state keeps serving, and the crash is reported.
        assert_eq!(located(&cc(&repo, &["locate", "Cart", "--ref", "v1.0"])), [("src/cart.rs".into(), 11)]);
    }
    let status = cc(&repo, &["status"]);
    assert_eq!(status.json["store_state"], "compatible");
    assert_eq!(status.json["interrupted_jobs"].as_array().map(Vec::len), Some(2), "{}", status.stdout);
    let done = cc(&repo, &["index", "--ref", "main"]);
    assert_eq!(done.code, 0);
    assert_eq!(located(&cc(&repo, &["locate", "Inventory", "--ref", "main"])), [("src/inventory.rs".into(), 4)]);
    let after = cc(&repo, &["status"]);
    assert_eq!(after.json["interrupted_jobs"].as_array().map(Vec::len), Some(0), "{}", after.stdout);
}

#[test]
fn a_file_name_with_a_newline_cannot_print_a_fake_result_line() {
    let (_tmp, repo) = fixture("shop");
    let name = "notes\nsrc/cart.rs:1: fake_result.rs";
    std::fs::create_dir_all(repo.join("notes\nsrc")).unwrap();
    std::fs::write(repo.join(name), "fn spoofed_marker() {}\n").unwrap();
    crate::support::git(&repo, &["add", "-A"]);
    crate::support::git(&repo, &["commit", "-q", "-m", "A file whose name holds a newline"]);
    for args in [&["search", "spoofed_marker", "--mode", "literal"][..], &["locate", "spoofed_marker"]] {
        let run = cc_text(&repo, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(run.stdout.contains("\"notes\\nsrc/cart.rs:1: fake_result.rs\""), "{args:?}: {}", run.stdout);
        assert!(!run.stdout.lines().any(|l| l.starts_with("src/cart.rs:1: fake_result")), "{args:?}: {}", run.stdout);
    }
    // JSON keeps the name as it is.
    let json = cc(&repo, &["locate", "spoofed_marker"]);
    assert_eq!(json.json["results"][0]["path"], name);
}

#[test]
fn arguments_out_of_range_get_the_right_error_and_a_remedy() {
    let (_tmp, repo) = fixture("shop");
    let code = |args: &[&str]| {
        let run = cc(&repo, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stdout);
        let error = &run.json["error"];
        (
            error["code"].as_str().unwrap_or_default().to_owned(),
            error["message"].as_str().unwrap_or_default().to_owned(),
        )
    };
    assert_eq!(code(&["search", "inventory", "--fuzzy", "3"]).0, "invalid_argument");
    assert_eq!(code(&["search", "Cart", "--limit", "0"]).0, "invalid_argument");
    assert_eq!(code(&["locate", "Cart", "--limit", "0"]).0, "invalid_argument");
    assert_eq!(code(&["references", "Cart", "--limit", "0"]).0, "invalid_argument");
    let (kind, message) = code(&["locate", "Cart", "--kind", "bogus"]);
    assert_eq!((kind.as_str(), message.as_str()), ("invalid_argument", "unknown kind `bogus`"));
    // A tree or a blob is no commit; an ambiguous short id is not an unknown one.
    let (kind, message) = code(&["locate", "Cart", "--ref", "HEAD^{tree}"]);
    assert_eq!((kind.as_str(), message.as_str()), ("invalid_argument", "`HEAD^{tree}` names a tree, not a commit"));
    assert!(code(&["locate", "Cart", "--ref", "HEAD:src/cart.rs"]).1.contains("names a blob"));
    let blobs = repo.join("blobs");
    std::fs::create_dir(&blobs).unwrap();
    let mut list = String::new();
    for i in 0..600 {
        let path = blobs.join(i.to_string());
        std::fs::write(&path, format!("blob {i}\n")).unwrap();
        list.push_str(&format!("{}\n", path.display()));
    }
    let mut hash = std::process::Command::new("git")
        .args(["hash-object", "-w", "--stdin-paths"])
        .current_dir(&repo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(hash.stdin.as_mut().unwrap(), list.as_bytes()).unwrap();
    let ids = String::from_utf8(hash.wait_with_output().unwrap().stdout).unwrap();
    let mut prefixes: Vec<&str> = ids.lines().map(|id| &id[..4]).collect();
    prefixes.sort_unstable();
    let shared = prefixes.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]).expect("600 ids share a 4-digit prefix");
    let (kind, message) = code(&["locate", "Cart", "--ref", shared]);
    assert_eq!(kind, "invalid_argument");
    assert!(message.contains("ambiguous"), "{message}");
}

#[test]
fn a_huge_query_is_not_echoed_back() {
    let (_tmp, repo) = fixture("shop");
    let query = "zq".repeat(50_000);
    let run = cc_text(&repo, &["search", &query]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.len() < 1_000, "{} bytes on stderr", run.stderr.len());
    assert!(run.stderr.contains("(100000 characters)"), "{}", run.stderr);
}

#[test]
fn a_bad_codecompass_setting_is_an_error_naming_the_key_and_the_fix() {
    let (_tmp, repo) = crate::support::fixture("shop");
    for (key, value) in
        [("codecompass.freshness", "bogus"), ("codecompass.maxFileSize", "lots"), ("codecompass.fetchMissing", "maybe")]
    {
        crate::support::git(&repo, &["config", key, value]);
        let run = crate::support::cc(&repo, &["locate", "Cart"]);
        assert_eq!(run.code, 2, "{key}: {}", run.stdout);
        assert_eq!(run.json["error"]["code"], "invalid_argument");
        let message = run.json["error"]["message"].as_str().unwrap();
        assert!(message.contains(key) && message.contains(value), "{message}");
        // The remedy it prints works.
        let remedy = run.json["error"]["data"]["remedy"].as_str().unwrap();
        let fix = remedy.split('`').nth(1).unwrap();
        let args: Vec<&str> = fix.split_whitespace().skip(1).collect();
        crate::support::git(&repo, &args);
        let after = crate::support::cc(&repo, &["locate", "Cart"]);
        assert_ne!(after.json["error"]["code"], "invalid_argument", "{key} after `{fix}`: {}", after.stdout);
    }
}

#[test]
fn a_name_or_path_query_of_thousands_of_words_is_cut_and_says_so() {
    let (_tmp, repo) = crate::support::fixture("shop");
    let words: Vec<String> = (0..5000).map(|i| format!("name{i}")).collect();
    let query = format!("Cart {}", words.join(" "));
    for mode in ["symbol", "path"] {
        let run = crate::support::cc(&repo, &["search", "--mode", mode, &query]);
        assert!(run.code <= 1, "{mode}: {}", run.stderr);
        let notes = run.json["metadata"]["notes"].to_string();
        assert!(notes.contains("only the first 64 were searched"), "{mode}: {notes}");
    }
    // Repeated words count once.
    let repeated = "Cart ".repeat(20_000);
    let run = crate::support::cc(&repo, &["search", "--mode", "symbol", &repeated]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.json["metadata"]["notes"].to_string().contains("were searched"));
}

#[test]
fn a_command_leaves_its_memory_to_the_kernel_at_exit() {
    // mimalloc's collection of every heap at exit is skipped (src/main.rs). Its verbose mode
    // prints its options at the start and "process done" when that collection runs: the first
    // shows the message would be seen, the second must not be.
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let run = cc_env(&repo, &["locate", "Cart"], &[("MIMALLOC_VERBOSE", "1")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("option 'destroy_on_exit'"), "{}", run.stderr);
    assert!(!run.stderr.contains("process done"), "{}", run.stderr);
}
