//! Derived state carries its inputs: a view built under another size limit (or extractor) is
//! never answered from as fresh; the next query or sync re-derives it, and its answers equal a
//! from-scratch index under the new settings.

use crate::support::{TempDir, cc, fixture, git, located};

fn freshness(repo: &std::path::Path) -> Vec<(String, String)> {
    let status = cc(repo, &["status"]);
    status.json["refs"]
        .as_array()
        .expect("status lists refs")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_owned(),
                r["freshness_status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn changing_the_size_limit_re_derives_every_view() {
    let (_tmp, repo) = fixture("size-limit");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    assert_eq!(cc(&repo, &["index", "--ref", "other"]).code, 0);
    // Over the default limit: not parsed.
    assert_eq!(cc(&repo, &["locate", "big_first"]).code, 1);
    assert_eq!(cc(&repo, &["outline", "big.rs"]).json["skipped"], "too_large");

    git(&repo, &["config", "codecompass.maxFileSize", "4m"]);
    // Every view is stale until re-derived: none says fresh.
    let stale = freshness(&repo);
    assert!(!stale.is_empty() && stale.iter().all(|(_, f)| f == "stale"), "{stale:?}");
    for args in [&["locate", "big_first"][..], &["locate", "big_first", "--ref", "other"]] {
        let run = cc(&repo, args);
        assert_eq!(located(&run), [("big.rs".to_owned(), 1)], "{args:?}: {}", run.stdout);
        assert_eq!(run.json["metadata"]["freshness_status"], "fresh");
    }
    // Files within both limits answer as before, at every ref.
    assert_eq!(located(&cc(&repo, &["locate", "small_fn", "--ref", "other"])), [("small.rs".to_owned(), 1)]);
    assert_eq!(located(&cc(&repo, &["locate", "other_fn", "--ref", "other"])), [("other.rs".to_owned(), 1)]);
    let search = cc(&repo, &["search", "big_first", "--mode", "literal"]);
    assert!(search.stdout.contains("big.rs"), "{}", search.stdout);
    // `sync` re-derives the views it keeps (HEAD's and the worktree's); another ref's says
    // stale until a query re-derives it.
    git(&repo, &["config", "codecompass.maxFileSize", "512k"]);
    assert_eq!(cc(&repo, &["sync"]).code, 0);
    let after_sync = freshness(&repo);
    for (name, f) in &after_sync {
        assert_eq!(f, if name == "refs/heads/other" { "stale" } else { "fresh" }, "{after_sync:?}");
    }
    assert_eq!(cc(&repo, &["locate", "big_first", "--ref", "other"]).code, 1);
    let fresh = freshness(&repo);
    assert!(fresh.iter().all(|(_, f)| f == "fresh"), "{fresh:?}");
    assert_eq!(located(&cc(&repo, &["locate", "small_fn"])), [("small.rs".to_owned(), 1)]);

    // The same answers as a from-scratch index under that limit.
    let scratch = TempDir::new("size-limit-scratch");
    let copy = scratch.path().join("copy");
    git(scratch.path(), &["clone", "-q", repo.to_str().unwrap(), copy.to_str().unwrap()]);
    git(&copy, &["config", "codecompass.maxFileSize", "512k"]);
    for name in ["big_first", "small_fn"] {
        assert_eq!(located(&cc(&copy, &["locate", name])), located(&cc(&repo, &["locate", name])), "{name}");
    }
}

#[test]
fn gc_after_re_derivations_drops_the_old_records_and_gives_their_pages_back() {
    let (_tmp, repo) = fixture("many-files");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let answers = |repo: &std::path::Path| {
        let found = cc(repo, &["search", "shared_helper(2150)", "--mode", "literal"]);
        (located(&cc(repo, &["locate", "item_2150"])), found.json["results"].clone())
    };
    let before = answers(&repo);
    assert_eq!(before.0, [("d21/f2150.rs".to_owned(), 1)]);
    // Each new limit re-derives every file version; the records of the old ones stay until gc.
    for limit in ["2m", "3m", "4m"] {
        git(&repo, &["config", "codecompass.maxFileSize", limit]);
        assert_eq!(cc(&repo, &["index"]).code, 0);
    }
    let database = repo.join(".git/codecompass/store.sqlite");
    let size = || std::fs::metadata(&database).unwrap().len();
    let grown = size();
    let reclaimable = |repo: &std::path::Path| {
        let doctor = cc(repo, &["doctor"]);
        let problems = doctor.json["problems"].as_array().unwrap().clone();
        problems
            .into_iter()
            .find(|p| p["code"] == "space_reclaimable")
            .map(|p| p["message"].as_str().unwrap().to_owned())
    };
    let said = reclaimable(&repo).expect("doctor says gc would give space back");
    assert!(said.contains("6600 records no indexed file needs"), "{said}");

    let gc = cc(&repo, &["gc"]);
    assert_eq!(gc.code, 0, "{}", gc.stderr);
    let report = &gc.json["gc"];
    assert_eq!(report["records_dropped"], 3 * 2200, "{}", gc.stdout);
    let given_back = report["bytes_compacted"].as_u64().unwrap();
    assert!(given_back > 0, "{}", gc.stdout);
    assert!(size() + given_back <= grown, "{} + {given_back} > {grown}", size());
    assert_eq!(answers(&repo), before);
    let doctor = cc(&repo, &["doctor"]);
    assert_eq!(doctor.json["healthy"], true, "{}", doctor.stdout);
    assert_eq!(reclaimable(&repo), None);

    // Nothing left to drop, nothing to give back.
    let again = cc(&repo, &["gc"]);
    assert_eq!(again.json["gc"]["records_dropped"], 0, "{}", again.stdout);
    assert_eq!(again.json["gc"]["bytes_compacted"], 0, "{}", again.stdout);
}

/// The shop fixture served with filters on, and a clone of it made with `filter` and no
/// checkout (`blob:none`: no blob is here; `tree:0`: no tree either): the guard, the source
/// and the clone.
fn partial_clone_with(filter: &str) -> (crate::support::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let (tmp, source) = fixture("shop");
    git(&source, &["config", "uploadpack.allowFilter", "true"]);
    git(&source, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let clone = tmp.path().join("partial");
    let url = format!("file://{}", source.display());
    let filter = format!("--filter={filter}");
    git(tmp.path(), &["clone", "-q", "--no-checkout", &filter, &url, clone.to_str().unwrap()]);
    (tmp, source, clone)
}

fn partial_clone() -> (crate::support::TempDir, std::path::PathBuf, std::path::PathBuf) {
    partial_clone_with("blob:none")
}

#[test]
fn a_view_built_without_some_blobs_says_partial_and_heals_when_they_arrive() {
    let (_tmp, source, clone) = partial_clone();

    // No blob is here yet: the answer is partial and says why, never "complete".
    let run = cc(&clone, &["locate", "Cart", "--ref", "main"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "partial", "{}", run.stdout);
    let notes = run.json["metadata"]["notes"].to_string();
    assert!(notes.contains("missing from the object store"), "{notes}");
    let text = crate::support::cc_text(&clone, &["locate", "Cart", "--ref", "main"]);
    assert!(text.stderr.contains("missing from the object store"), "{}", text.stderr);

    // A checkout brings the blobs: the next query re-derives the view, complete and right.
    git(&clone, &["checkout", "-q", "main"]);
    let run = cc(&clone, &["locate", "Cart", "--ref", "main"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "complete", "{}", run.stdout);
    assert_eq!(located(&run), located(&cc(&source, &["locate", "Cart", "--ref", "main"])));
    assert_eq!(located(&run), [("src/cart.rs".to_owned(), 11)]);
}

#[test]
fn a_partial_clone_fetches_the_blobs_a_view_needs_when_allowed() {
    let (_tmp, _source, clone) = partial_clone();

    // Not allowed: partial, and the note says how to allow it.
    let run = cc(&clone, &["locate", "Cart", "--ref", "main"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "partial", "{}", run.stdout);
    assert!(run.json["metadata"]["notes"].to_string().contains("codecompass.fetchMissing"), "{}", run.stdout);

    // Allowed: the next query fetches what the partial view lacks and answers completely.
    git(&clone, &["config", "codecompass.fetchMissing", "true"]);
    let run = cc(&clone, &["locate", "Cart", "--ref", "main"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "complete", "{}", run.stdout);
    assert_eq!(located(&run), [("src/cart.rs".to_owned(), 11)]);

    // A ref never indexed is built with its blobs fetched up front.
    let text = cc(&clone, &["search", "cents", "--mode", "literal", "--ref", "v1.0"]);
    assert_eq!(text.json["metadata"]["result_completeness"], "complete", "{}", text.stdout);
    assert!(!text.json["results"].as_array().unwrap().is_empty(), "{}", text.stdout);
}

#[test]
fn a_treeless_clone_says_what_is_missing_and_fetches_the_trees_when_allowed() {
    let (_tmp, source, clone) = partial_clone_with("tree:0");

    // Not allowed: no tree of the ref is here, and the error names the object and the remedy.
    let run = cc(&clone, &["locate", "Cart", "--ref", "main"]);
    assert_eq!(run.json["error"]["code"], "object_missing", "{}", run.stdout);
    assert!(run.json["error"]["message"].as_str().unwrap().contains("missing from the object store"));
    assert!(run.json["error"]["data"]["remedy"].to_string().contains("codecompass.fetchMissing"), "{}", run.stdout);

    // Allowed: the tree is fetched (with the trees under it, then the blobs), and the answers
    // equal the full repository's at that ref and at another one derived from it by a diff.
    git(&clone, &["config", "codecompass.fetchMissing", "true"]);
    let run = cc(&clone, &["locate", "Cart", "--ref", "main"]);
    assert_eq!(run.json["metadata"]["result_completeness"], "complete", "{}", run.stdout);
    assert_eq!(located(&run), located(&cc(&source, &["locate", "Cart", "--ref", "main"])));
    for args in [
        ["search", "cents", "--mode", "literal", "--ref", "v1.0"],
        ["search", "fn", "--mode", "literal", "--ref", "main"],
    ] {
        let ours = cc(&clone, &args);
        assert_eq!(ours.json["metadata"]["result_completeness"], "complete", "{}", ours.stdout);
        assert_eq!(ours.json["results"], cc(&source, &args).json["results"], "{args:?}");
        assert!(!ours.json["results"].as_array().unwrap().is_empty(), "{}", ours.stdout);
    }

    // History needs every commit's tree: they are fetched too, a chunk of commits at a time.
    let run = cc(&clone, &["index", "--history"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let commits: u64 = git(&source, &["rev-list", "--count", "HEAD"]).trim().parse().unwrap();
    assert_eq!(run.json["commits_added"].as_u64(), Some(commits), "{}", run.stdout);
}
