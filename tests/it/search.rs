//! The `search` and `context` commands end to end: output formats, filters, freshness,
//! duplicates, budgets and errors.

use crate::support::{cc, cc_env, cc_text, fixture};

#[test]
fn regex_output_is_grep_like_and_jsonl_has_a_line_per_result() {
    let (_tmp, repo) = fixture("shop");
    let text = cc_text(&repo, &["search", "--mode", "regex", r"fn \w+\(&"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    let lines: Vec<&str> = text.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "src/cart.rs:22:9:     pub fn add(&mut self, item: Item) {",
            "src/cart.rs:27:9:     pub fn total_cents(&self) -> u64 {",
            "src/inventory.rs:10:9:     pub fn reserve(&mut self, sku: &str, quantity: u32) -> bool {",
        ]
    );
    let jsonl = cc_text(&repo, &["search", "--mode", "regex", r"fn \w+\(&", "--jsonl"]);
    let records: Vec<serde_json::Value> = jsonl.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 4);
    assert!(records[..3].iter().all(|r| r["type"] == "result"));
    assert_eq!(records[3]["type"], "summary");
    assert_eq!(records[3]["data"]["metadata"]["result_completeness"], "complete");
    assert_eq!(records[0]["data"]["lines"][0]["column"], 9);
    // The lines are printed as each file is verified, the summary last: the same results, in
    // the same order, as the one JSON document holds.
    let json = cc(&repo, &["search", "--mode", "regex", r"fn \w+\(&"]);
    let streamed: Vec<&serde_json::Value> = records[..3].iter().map(|r| &r["data"]).collect();
    let whole: Vec<&serde_json::Value> = json.json["results"].as_array().unwrap().iter().collect();
    assert_eq!(streamed, whole);
    assert_eq!(records[3]["data"]["total_candidates"], json.json["total_candidates"]);
    // An error after lines were printed still ends the document: with the error.
    let failed = cc_env(
        &repo,
        &["search", "--mode", "regex", r"fn \w+\(&", "--json"],
        &[("CODECOMPASS_FAILPOINTS", "search.after_lines=fail")],
    );
    assert_eq!(failed.code, 2, "{}", failed.stderr);
    let document: serde_json::Value = serde_json::from_str(&failed.stdout).expect("one JSON document");
    assert_eq!(document["results"].as_array().map(Vec::len), Some(3));
    assert!(document["error"]["message"].as_str().unwrap().contains("search.after_lines"));
}

#[test]
fn json_carries_intent_metadata_and_the_contract_fields() {
    let (_tmp, repo) = fixture("shop");
    let run = cc(&repo, &["search", "Cart::total_cents"]);
    assert_eq!(run.code, 0);
    let json = &run.json;
    assert_eq!(json["codecompass_protocol_version"], "1");
    assert_eq!(json["ref"], "worktree");
    assert_eq!(json["intent"], "symbol");
    assert!(json["confidence"].as_f64().unwrap() > 0.5);
    assert_eq!(json["metadata"]["freshness_status"], "fresh");
    assert_eq!(json["metadata"]["indexing_status"], "ready");
    let top = &json["results"][0];
    assert_eq!(
        (top["path"].as_str(), top["line_start"].as_u64(), top["line_end"].as_u64()),
        (Some("src/cart.rs"), Some(27), Some(29))
    );
    assert_eq!(top["kind"], "method");
    assert_eq!(top["signature"], "pub fn total_cents(&self) -> u64");
    let explained = cc(&repo, &["search", "total_cents", "--explain", "basic"]);
    assert!(explained.json["results"][0]["ranking_reasons"][0].as_str().unwrap().contains("exact symbol name"));
    let compact = cc(&repo, &["search", "total_cents", "--compact"]);
    assert!(compact.json["results"][0].get("signature").is_none());
    assert!(compact.stdout.len() < run.stdout.len());
}

#[test]
fn filters_restrict_by_language_glob_and_extension() {
    let (_tmp, repo) = fixture("shop");
    let paths = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["search", "--mode", "regex", "cart", "-i"];
        all.extend_from_slice(args);
        let run = cc(&repo, &all);
        let mut p: Vec<String> =
            run.json["results"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap().to_owned()).collect();
        p.dedup();
        p
    };
    assert_eq!(paths(&["--lang", "python"]), ["clients/python/shop_client.py"]);
    assert_eq!(paths(&["--exclude-lang", "rust", "--exclude-lang", "python"]), ["docs/guide.md"]);
    assert_eq!(paths(&["--path", "src/**"]), ["src/cart.rs", "src/inventory.rs"]);
    assert_eq!(paths(&["--path", "**/*.py"]), ["clients/python/shop_client.py"]);
    assert_eq!(paths(&["--exclude", "src/", "--exclude", "docs"]), ["clients/python/shop_client.py"]);
    assert_eq!(paths(&["--ext", "md"]), ["docs/guide.md"]);
    let bad = cc(&repo, &["search", "x", "--lang", "cobol"]);
    assert_eq!(bad.code, 2);
    assert_eq!(bad.json["error"]["code"], "invalid_argument");
}

#[test]
fn the_worktree_view_is_searched_fresh_and_duplicates_fold_into_also_at() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["search", "uncommitted_marker_text"]).code, 1);
    std::fs::write(repo.join("src/notes.rs"), "// uncommitted_marker_text\npub fn noted() {}\n").unwrap();
    let found = cc(&repo, &["search", "--mode", "literal", "uncommitted_marker_text"]);
    assert_eq!(found.json["results"][0]["path"], "src/notes.rs");
    assert_eq!(found.json["metadata"]["freshness_status"], "fresh");
    // The same content at a second path is one result listing both.
    std::fs::copy(repo.join("src/inventory.rs"), repo.join("src/inventory_copy.rs")).unwrap();
    let run = cc(&repo, &["search", "Inventory::reserve"]);
    let top = &run.json["results"][0];
    assert_eq!(top["path"], "src/inventory.rs");
    assert_eq!(top["also_at"][0], "src/inventory_copy.rs");
    assert!(run.json["metadata"]["suppressed_duplicate_count"].as_u64().unwrap() >= 1);
}

#[test]
fn regexes_without_ngrams_scan_and_say_so_and_bad_ones_are_errors() {
    let (_tmp, repo) = fixture("shop");
    let scan = cc(&repo, &["search", "--mode", "regex", r"\w+_\w+\("]);
    assert_eq!(scan.code, 0);
    assert!(scan.json["prefilter"].as_str().unwrap().starts_with("none"), "{}", scan.stdout);
    let narrowed = cc(&repo, &["search", "--mode", "regex", "total_cents"]);
    assert_eq!(narrowed.json["prefilter"], "trigram");
    let invalid = cc(&repo, &["search", "--mode", "regex", "(unclosed"]);
    assert_eq!((invalid.code, invalid.json["error"]["code"].as_str()), (2, Some("invalid_argument")));
    let huge = cc(&repo, &["search", "--mode", "regex", r"\w{500}{500}"]);
    assert_eq!(huge.code, 2);
    assert!(huge.json["error"]["message"].as_str().unwrap().contains("too large"));
    let fuzzy_regex = cc(&repo, &["search", "--mode", "regex", "x", "--fuzzy", "1"]);
    assert_eq!(fuzzy_regex.code, 2);
}

#[test]
fn fuzzy_terms_and_context_lines() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["search", "--mode", "fts", "inventroy"]).code, 1);
    let fuzzy = cc(&repo, &["search", "--mode", "fts", "inventroy", "--fuzzy", "2"]);
    assert_eq!(fuzzy.code, 0, "{}", fuzzy.stdout);
    let context = cc(&repo, &["search", "--mode", "literal", "fn new", "--context", "1"]);
    let hit = &context.json["results"][0]["lines"][0];
    assert_eq!(hit["before"][0], "    /// An empty cart.");
    assert_eq!(hit["after"][0], "        Cart { items: Vec::new() }");
}

#[test]
fn context_fits_whole_results_and_never_exceeds_the_budget() {
    let (_tmp, repo) = fixture("shop");
    for budget in ["20", "60", "200", "1000"] {
        for strategy in ["breadth", "depth"] {
            let run = cc(&repo, &["context", "cart total", "--max-tokens", budget, "--strategy", strategy]);
            assert!(run.code <= 1, "{}", run.stderr);
            let used = run.json["estimated_tokens"].as_u64().unwrap();
            assert!(used <= budget.parse().unwrap(), "{strategy} {budget}: {used}");
            let sum: u64 =
                run.json["results"].as_array().unwrap().iter().map(|r| r["estimated_tokens"].as_u64().unwrap()).sum();
            assert_eq!(sum, used);
            assert_eq!(run.json["returned"].as_u64().unwrap() as usize, run.json["results"].as_array().unwrap().len());
        }
    }
    let tight = cc(&repo, &["context", "cart total", "--max-tokens", "20"]);
    assert_eq!(tight.json["truncated"], true);
}

/// The symbols a ranked search of `name` puts in its first list (the exact names), by rank:
/// each one's name and role, from `--explain full`'s `list 0 rank N`.
fn exact_list(repo: &std::path::Path, name: &str) -> Vec<(String, String)> {
    let run = cc(repo, &["search", name, "--mode", "symbol", "--limit", "1000", "--explain", "full"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut ranked = std::collections::BTreeMap::new();
    for result in run.json["results"].as_array().unwrap() {
        for reason in result["ranking_reasons"].as_array().unwrap() {
            if let Some(rank) = reason.as_str().and_then(|r| r.strip_prefix("list 0 rank ")) {
                let entry = (result["name"].as_str().unwrap().to_owned(), result["role"].as_str().unwrap().to_owned());
                ranked.insert(rank.parse::<usize>().unwrap(), entry);
            }
        }
    }
    assert_eq!(ranked.keys().copied().collect::<Vec<_>>(), (1..=ranked.len()).collect::<Vec<_>>(), "{name}");
    ranked.into_values().collect()
}

#[test]
fn a_name_in_hundreds_of_files_leads_with_its_exact_spelling_and_definitions() {
    // 210 definitions of `flags`, 30 declarations of it (in headers that come first in the
    // tree), 40 definitions of `FLAGS`, 12 declarations of `Flags`; the first list holds 200.
    let (_tmp, repo) = fixture("many-names");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let of = |name: &str, role: &str, n: usize| vec![(name.to_owned(), role.to_owned()); n];

    // More definitions of the exact spelling than the list holds: only they, though the
    // declarations come before them in the tree.
    assert_eq!(exact_list(&repo, "flags"), of("flags", "definition", 200));
    // The exact spelling's 40, then definitions of the others, never a declaration.
    assert_eq!(exact_list(&repo, "FLAGS"), [of("FLAGS", "definition", 40), of("flags", "definition", 160)].concat());
    let mixed = exact_list(&repo, "Flags");
    assert_eq!(mixed[..12], of("Flags", "declaration", 12)[..]);
    assert_eq!(mixed.len(), 200);
    assert!(mixed[12..].iter().all(|(name, role)| role == "definition" && name != "Flags"), "{mixed:?}");
}
