//! Records are keyed by content: a blob is parsed once, whatever path, branch or commit holds
//! it, and a view is derived from the nearest indexed one by the files that changed.

use crate::support::{cc, fixture, located, view};

#[test]
fn a_branch_changing_one_file_parses_one_blob() {
    let (_tmp, repo) = fixture("shop");
    let main = cc(&repo, &["index", "--ref", "main~1"]);
    assert!(view(&main)["blobs_parsed"].as_u64().unwrap() >= 5);
    let feature = cc(&repo, &["index", "--ref", "feature"]);
    let v = view(&feature);
    assert_eq!(v["blobs_parsed"], 1, "{v}");
    assert_eq!(v["files_changed"], 2, "one removal and one addition of src/cart.rs: {v}");
    assert_eq!(v["derived_from"].as_str().map(|s| s.starts_with("tree:")), Some(true));
    // The new function is visible at `feature` only.
    assert_eq!(located(&cc(&repo, &["locate", "apply_coupon", "--ref", "feature"])), [("src/cart.rs".into(), 33)]);
    assert_eq!(cc(&repo, &["locate", "apply_coupon", "--ref", "main"]).code, 1);
}

#[test]
fn a_rename_parses_nothing() {
    let (_tmp, repo) = fixture("shop");
    cc(&repo, &["index", "--ref", "main~1"]);
    let renamed = cc(&repo, &["index", "--ref", "rename"]);
    let v = view(&renamed);
    assert_eq!(v["blobs_parsed"], 0, "{v}");
    assert_eq!(v["blobs_reused"], 1, "{v}");
    let found = located(&cc(&repo, &["locate", "ShopClient", "--ref", "rename"]));
    assert_eq!(found, [("clients/py/shop_client.py".into(), 6)]);
}

#[test]
fn two_refs_with_one_tree_share_one_view() {
    let (_tmp, repo) = fixture("shop");
    let first = cc(&repo, &["index", "--ref", "main~1"]);
    let second = cc(&repo, &["index", "--ref", "same-tree"]);
    assert_eq!(view(&first)["tree"], view(&second)["tree"]);
    assert_eq!(view(&second)["up_to_date"], true);
    assert_eq!(view(&second)["blobs_parsed"], 0);
    let status = cc(&repo, &["status"]);
    assert_eq!(status.json["counts"]["views"], 1, "{}", status.stdout);
}

#[test]
fn a_reverted_change_reuses_the_old_records() {
    let (_tmp, repo) = fixture("shop");
    cc(&repo, &["index", "--ref", "main~1"]);
    let reword = cc(&repo, &["index", "--ref", "revert~1"]);
    assert_eq!(view(&reword)["blobs_parsed"], 1);
    let reverted = cc(&repo, &["index", "--ref", "revert"]);
    let v = view(&reverted);
    assert_eq!(v["blobs_parsed"], 0, "the reverted content was parsed before: {v}");
    assert_eq!(v["up_to_date"], true, "the revert restores main~1's tree exactly: {v}");
}

#[test]
fn refs_never_leak_into_each_other() {
    let (_tmp, repo) = fixture("shop");
    // `old-line` forked at v1.0 and is not a descendant of main: it must answer with its
    // own content, not main's.
    cc(&repo, &["index", "--ref", "main"]);
    let legacy = located(&cc(&repo, &["locate", "shop_checksum_legacy", "--ref", "old-line"]));
    assert_eq!(legacy, [("native/checksum.c".into(), 4)]);
    assert_eq!(cc(&repo, &["locate", "shop_checksum_legacy", "--ref", "main"]).code, 1);
    assert_eq!(cc(&repo, &["locate", "shop_checksum", "--ref", "old-line"]).code, 1);
    // A deleted file is gone from the branch that deleted it, and only there.
    assert_eq!(cc(&repo, &["locate", "Inventory", "--ref", "delete"]).code, 1);
    assert_eq!(located(&cc(&repo, &["locate", "Inventory", "--ref", "main"])), [("src/inventory.rs".into(), 4)]);
    // A tag works like a branch.
    assert_eq!(cc(&repo, &["locate", "Inventory", "--ref", "v1.0"]).code, 1);
    assert_eq!(located(&cc(&repo, &["locate", "Cart", "--ref", "v1.0"])), [("src/cart.rs".into(), 11)]);
}

#[test]
fn reindexing_an_unchanged_tree_parses_nothing() {
    let (_tmp, repo) = fixture("shop");
    let first = cc(&repo, &["index"]);
    assert!(view(&first)["blobs_parsed"].as_u64().unwrap() > 0);
    let again = cc(&repo, &["index"]);
    assert_eq!(view(&again)["blobs_parsed"], 0);
    assert_eq!(view(&again)["up_to_date"], true);
    let forced = cc(&repo, &["index", "--force"]);
    assert!(view(&forced)["blobs_parsed"].as_u64().unwrap() > 0, "--force parses again");
    assert_eq!(view(&forced)["files"], view(&first)["files"]);
    assert_eq!(view(&forced)["symbols"], view(&first)["symbols"]);
}
