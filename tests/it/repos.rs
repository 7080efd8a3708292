//! Many repositories: the registry (`repos add|list|remove`) and queries across registered
//! repositories (`--repo`), on the `many-repos` fixture (billing, a fork of it, a storefront).
//! The registry lives in a temporary `CODECOMPASS_HOME`, never the user's.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{Run, TempDir, bin, fixture, git};

/// The fixture's repositories and a registry home of their own.
struct Shop {
    _tmp: TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Shop {
    fn new() -> Shop {
        let (tmp, root) = fixture("many-repos");
        let home = tmp.path().join("home");
        Shop { _tmp: tmp, root, home }
    }

    fn repo(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// `git-codecompass ARGS --json` run from `dir`, with this registry.
    fn run_in(&self, dir: &Path, args: &[&str]) -> Run {
        let output = bin()
            .args(args)
            .arg("--json")
            .arg("--quiet")
            .env("CODECOMPASS_HOME", &self.home)
            .current_dir(dir)
            .output()
            .expect("the binary runs");
        crate::support::finish(output)
    }

    /// `git-codecompass ARGS --json` from the fixture's root, which is no repository.
    fn run(&self, args: &[&str]) -> Run {
        self.run_in(&self.root, args)
    }

    /// Text output.
    fn text(&self, args: &[&str]) -> Run {
        let output = bin()
            .args(args)
            .env("CODECOMPASS_HOME", &self.home)
            .current_dir(&self.root)
            .output()
            .expect("the binary runs");
        crate::support::finish(output)
    }

    /// Registers the three repositories: `billing`, `fork`, `storefront`.
    fn register_all(&self) {
        for (dir, alias) in [("billing", "billing"), ("billing-fork", "fork"), ("storefront", "storefront")] {
            let added = self.run(&["repos", "add", self.repo(dir).to_str().unwrap(), "--alias", alias]);
            assert_eq!(added.code, 0, "{}{}", added.stdout, added.stderr);
        }
    }

    /// Registers billing (indexed) and its fork, not indexed yet; the fork's directory.
    fn billing_and_unindexed_fork(&self) -> PathBuf {
        let fork = self.repo("billing-fork");
        assert_eq!(self.run(&["repos", "add", self.repo("billing").to_str().unwrap()]).code, 0);
        assert_eq!(self.run(&["repos", "add", fork.to_str().unwrap(), "--alias", "fork", "--no-index"]).code, 0);
        fork
    }
}

/// `(repo, path, line)` of each result.
fn places(run: &Run, line_field: &str) -> Vec<(String, String, u64)> {
    run.json["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {}{}", run.stdout, run.stderr))
        .iter()
        .map(|r| {
            (
                r["repo"].as_str().unwrap().to_owned(),
                r["path"].as_str().unwrap().to_owned(),
                r[line_field].as_u64().unwrap(),
            )
        })
        .collect()
}

fn repo_outcome<'a>(run: &'a Run, alias: &str) -> &'a Value {
    run.json["repos"].as_array().unwrap().iter().find(|r| r["repo"] == alias).unwrap()
}

#[test]
fn repositories_are_registered_by_alias_and_listed_with_whether_they_are_still_there() {
    let shop = Shop::new();
    let billing = shop.repo("billing");
    // The alias defaults to the directory's name; adding indexes the working tree.
    let added = shop.run(&["repos", "add", billing.join("billing").to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}", added.stderr);
    assert_eq!(added.json["alias"], "billing");
    assert!(billing.join(".git/codecompass/store.sqlite").exists());
    assert_eq!(shop.run(&["repos", "add", shop.repo("billing-fork").to_str().unwrap(), "--alias", "fork"]).code, 0);
    let storefront = shop.repo("storefront");
    assert_eq!(shop.run(&["repos", "add", storefront.to_str().unwrap(), "--no-index"]).code, 0);
    assert!(!storefront.join(".git/codecompass").exists(), "--no-index indexes nothing");

    let listed = shop.run(&["repos", "list"]);
    let aliases: Vec<&str> =
        listed.json["repos"].as_array().unwrap().iter().map(|r| r["alias"].as_str().unwrap()).collect();
    assert_eq!(aliases, ["billing", "fork", "storefront"]);
    assert!(listed.json["repos"].as_array().unwrap().iter().all(|r| r["state"] == "ok"));
    assert_eq!(listed.json["repos"][0]["path"], billing.canonicalize().unwrap().to_str().unwrap());

    // The same repository under a second alias, an alias taken, an alias that is a glob.
    let twice = shop.run(&["repos", "add", billing.to_str().unwrap(), "--alias", "other"]);
    assert_eq!((twice.code, twice.json["error"]["code"].as_str()), (2, Some("invalid_argument")), "{}", twice.stdout);
    let other = shop.root.join("other");
    git(&shop.root, &["init", "-q", other.to_str().unwrap()]);
    let taken = shop.run(&["repos", "add", other.to_str().unwrap(), "--alias", "fork"]);
    assert_eq!(taken.code, 2);
    assert!(taken.json["error"]["message"].as_str().unwrap().contains("already names"), "{}", taken.stdout);
    assert_eq!(shop.run(&["repos", "add", other.to_str().unwrap(), "--alias", "svc-*"]).code, 2);

    // A repository moved away is reported, not dropped; `remove` forgets it.
    std::fs::rename(&storefront, shop.root.join("storefront-moved")).unwrap();
    let listed = shop.run(&["repos", "list"]);
    assert_eq!(listed.json["repos"][2]["state"], "missing", "{}", listed.stdout);
    assert!(shop.text(&["repos", "list"]).stdout.contains("missing"));
    assert_eq!(shop.run(&["repos", "remove", "storefront"]).code, 0);
    assert_eq!(shop.run(&["repos", "list"]).json["repos"].as_array().unwrap().len(), 2);
    let unknown = shop.run(&["repos", "remove", "storefront"]);
    assert_eq!(unknown.json["error"]["code"], "repo_not_registered");

    // A pattern that names no repository says which ones there are.
    let none = shop.run(&["search", "charge", "--repo", "svc-*"]);
    assert_eq!(none.code, 2);
    assert_eq!(none.json["error"]["code"], "repo_not_registered");
    assert!(none.json["error"]["data"]["remedy"].as_str().unwrap().contains("billing, fork"), "{}", none.stdout);
}

#[test]
fn a_query_across_repositories_answers_from_each_ones_own_views() {
    let shop = Shop::new();
    shop.register_all();
    // Definitions: billing and its fork define `charge_card`; the storefront only names it in
    // a comment.
    let located = shop.run(&["locate", "charge_card", "--repo", "*"]);
    assert_eq!(
        places(&located, "line"),
        [("billing".into(), "billing/charge.py".into(), 4), ("fork".into(), "billing/charge.py".into(), 4)]
    );
    assert_eq!(repo_outcome(&located, "storefront")["status"], "ok");
    assert_eq!(repo_outcome(&located, "storefront")["returned"], 0);
    // A name of one repository comes from that one only.
    let fork_only = shop.run(&["locate", "charge_twice_only_in_fork", "--repo", "*"]);
    assert_eq!(places(&fork_only, "line"), [("fork".into(), "billing/fork_extra.py".into(), 4)]);

    // Exact lines equal `git grep -n` in each repository.
    let found = shop.run(&["search", "-F", "only_in", "--repo", "*", "--limit", "1000"]);
    let ours: BTreeSet<(String, String, u64)> = places(&found, "line_start").into_iter().collect();
    let mut oracle = BTreeSet::new();
    for (dir, alias) in [("billing", "billing"), ("billing-fork", "fork"), ("storefront", "storefront")] {
        for line in git(&shop.repo(dir), &["grep", "-n", "-F", "only_in"]).lines() {
            let mut parts = line.splitn(3, ':');
            let path = parts.next().unwrap().to_owned();
            let number: u64 = parts.next().unwrap().parse().unwrap();
            oracle.insert((alias.to_owned(), path, number));
        }
    }
    assert_eq!(ours, oracle);
    assert_eq!(found.json["metadata"]["result_completeness"], "complete");

    // References: the fork's import and two extra calls are the fork's alone.
    let uses = shop.run(&["references", "charge_card", "--repo", "billing*", "--repo", "fork"]);
    let lines = |alias: &str| -> Vec<(String, u64)> {
        places(&uses, "line").into_iter().filter(|(r, _, _)| r == alias).map(|(_, p, l)| (p, l)).collect()
    };
    assert_eq!(lines("billing"), [("billing/charge.py".into(), 10)], "{}", uses.stdout);
    assert_eq!(
        lines("fork"),
        [
            ("billing/charge.py".into(), 10),
            ("billing/fork_extra.py".into(), 1),
            ("billing/fork_extra.py".into(), 5),
            ("billing/fork_extra.py".into(), 6)
        ],
        "{}",
        uses.stdout
    );
    assert!(places(&uses, "line").iter().all(|(repo, _, _)| repo != "storefront"));

    // The text names each result's repository.
    let text = shop.text(&["locate", "charge_card", "--repo", "*"]);
    assert!(text.stdout.contains("billing:billing/charge.py:4:"), "{}", text.stdout);
    assert!(text.stdout.contains("fork:billing/charge.py:4:"), "{}", text.stdout);
}

#[test]
fn limits_are_shared_between_repositories_never_multiplied() {
    let shop = Shop::new();
    shop.register_all();
    let global = shop.run(&["search", "charge", "--repo", "*", "--limit", "3"]);
    assert!(global.json["results"].as_array().unwrap().len() <= 3);
    assert_eq!(global.json["aggregate"], "global");
    // One ranking of fused ranks: the first results are each repository's best, not one
    // repository's whole list.
    let first: Vec<String> = places(&global, "line_start").into_iter().take(2).map(|(r, _, _)| r).collect();
    assert_ne!(first[0], first[1], "{}", global.stdout);
    // A compact answer's results carry no score, and are ranked as one all the same (they
    // were billing's whole list first).
    let compact = shop.run(&["search", "charge", "--repo", "*", "--limit", "3", "--compact"]);
    let first: Vec<String> = places(&compact, "line_start").into_iter().take(2).map(|(r, _, _)| r).collect();
    assert_ne!(first[0], first[1], "{}", compact.stdout);

    let per_repo = shop.run(&["search", "charge", "--repo", "*", "--limit", "4", "--aggregate", "per-repo"]);
    let results = places(&per_repo, "line_start");
    assert!(results.len() <= 4, "{}", per_repo.stdout);
    // Shares of 4 over 3 repositories: 2, 1, 1 by alias.
    for (alias, share) in [("billing", 2), ("fork", 1), ("storefront", 1)] {
        let returned = results.iter().filter(|(r, _, _)| r == alias).count();
        assert!(returned <= share, "{alias}: {returned} > {share}: {}", per_repo.stdout);
        assert_eq!(repo_outcome(&per_repo, alias)["returned"], returned);
    }
    assert_eq!(per_repo.json["truncated"], true);

    // Grouped, each repository's results come together under its name.
    let grouped = shop.text(&["search", "charge_card", "--repo", "*", "--group-by", "repo"]);
    let headings: Vec<&str> = grouped.stdout.lines().filter(|l| l.contains(" (")).collect();
    assert!(headings[0].starts_with("billing ("), "{}", grouped.stdout);
    assert!(headings[1].starts_with("fork ("), "{}", grouped.stdout);
    let json = shop.run(&["search", "charge_card", "--repo", "*", "--group-by", "repo"]);
    let order: Vec<String> = places(&json, "line_start").into_iter().map(|(r, _, _)| r).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn one_ranking_puts_first_the_result_that_matches_the_question_best() {
    // Every repository has a best result, whatever the question. The ranking across them
    // compares how well each result's own text matches it, the words weighed over all of
    // them: storefront's function holds every word of this question, billing's and the fork's
    // best only "line" (their fused ranks alone, or the aliases' order, put billing first).
    let shop = Shop::new();
    shop.register_all();
    let question = "render the invoice lines";
    let global = shop.run(&["search", question, "--repo", "*", "--limit", "3"]);
    let repos: Vec<String> = places(&global, "line_start").into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(repos.first().map(String::as_str), Some("storefront"), "{}", global.stdout);
    assert!(repos.iter().any(|r| r == "billing"), "{}", global.stdout);
    // Each repository's share keeps the aliases' order.
    let per_repo = shop.run(&["search", question, "--repo", "*", "--limit", "3", "--aggregate", "per-repo"]);
    let order: Vec<String> = places(&per_repo, "line_start").into_iter().map(|(r, _, _)| r).collect();
    assert_eq!(order, ["billing", "fork", "storefront"], "{}", per_repo.stdout);
}

#[test]
fn each_repository_can_be_at_its_own_ref() {
    let shop = Shop::new();
    shop.register_all();
    let located = shop.run(&["locate", "charge_card", "--repo", "billing", "--repo", "fork", "--ref", "billing=v2"]);
    assert_eq!(
        places(&located, "line"),
        [("billing".into(), "billing/cards/charge_v2.py".into(), 4), ("fork".into(), "billing/charge.py".into(), 4)]
    );
    assert_eq!(repo_outcome(&located, "billing")["ref"], "v2");
    assert_eq!(repo_outcome(&located, "fork")["ref"], "worktree");
    // A ref for a repository the query does not ask is a mistake, not ignored.
    let unasked = shop.run(&["locate", "charge_card", "--repo", "fork", "--ref", "billing=v2"]);
    assert_eq!(unasked.json["error"]["code"], "invalid_argument");
    // One ref for all: the storefront has no `v2`, so it alone fails.
    let all = shop.run(&["locate", "charge_card", "--repo", "*", "--ref", "v2"]);
    assert_eq!(all.json["metadata"]["result_completeness"], "partial");
    assert_eq!(repo_outcome(&all, "storefront")["error"]["code"], "unknown_ref");
    // Without `--repo`, one ref only.
    let two = shop.run_in(&shop.repo("billing"), &["locate", "charge_card", "--ref", "main", "--ref", "v2"]);
    assert_eq!(two.json["error"]["code"], "invalid_argument");
}

#[test]
fn a_repository_that_cannot_answer_leaves_the_others_answering() {
    let shop = Shop::new();
    shop.register_all();
    // An index written by another version of the format answers with its error too.
    let old = shop.repo("storefront").join(".git/codecompass/store.sqlite");
    let conn = rusqlite::Connection::open(&old).unwrap();
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'", []).unwrap();
    drop(conn);
    let found = shop.run(&["search", "charge_card", "--repo", "*"]);
    assert_eq!(found.json["metadata"]["result_completeness"], "partial", "{}", found.stdout);
    assert_eq!(repo_outcome(&found, "storefront")["error"]["code"], "index_incompatible", "{}", found.stdout);
    assert_eq!(repo_outcome(&found, "billing")["status"], "ok");
    // The storefront is moved away and the fork's index is damaged.
    std::fs::rename(shop.repo("storefront"), shop.root.join("elsewhere")).unwrap();
    std::fs::write(shop.repo("billing-fork").join(".git/codecompass/store.sqlite"), b"not a database").unwrap();
    let found = shop.run(&["search", "charge_card", "--repo", "*"]);
    assert_eq!(found.code, 0, "{}{}", found.stdout, found.stderr);
    assert_eq!(found.json["metadata"]["result_completeness"], "partial");
    assert_eq!(repo_outcome(&found, "billing")["status"], "ok");
    assert_eq!(repo_outcome(&found, "fork")["error"]["code"], "index_incompatible");
    assert_eq!(repo_outcome(&found, "storefront")["error"]["code"], "repo_missing");
    assert!(places(&found, "line_start").iter().all(|(repo, _, _)| repo == "billing"));
    let text = shop.text(&["search", "charge_card", "--repo", "*"]);
    assert!(text.stderr.contains("warning: storefront:"), "{}", text.stderr);
    // When none can answer, the query fails with the first one's error.
    let none = shop.run(&["search", "charge_card", "--repo", "fork", "--repo", "storefront"]);
    assert_eq!(none.code, 2);
    assert_eq!(none.json["error"]["code"], "index_incompatible");
}

#[test]
fn a_fork_indexes_without_parsing_the_blobs_it_shares_and_answers_from_its_own_views() {
    let shop = Shop::new();
    let billing = shop.run(&["repos", "add", shop.repo("billing").to_str().unwrap()]);
    assert_eq!(billing.json["index"]["total"]["blobs_shared"], 0, "{}", billing.stdout);
    assert!(billing.json["index"].get("seeded").is_none(), "{}", billing.stdout);
    // The fork holds billing's two files and one of its own: its store starts as a copy of
    // billing's, and only its own file is parsed.
    let fork = shop.run(&["repos", "add", shop.repo("billing-fork").to_str().unwrap(), "--alias", "fork"]);
    assert_eq!(fork.json["index"]["total"]["blobs_parsed"], 1, "{}", fork.stdout);
    let seeded = &fork.json["index"]["seeded"];
    assert_eq!(seeded["files_shared"], 2, "{}", fork.stdout);
    assert_eq!(seeded["files_wanted"], 3, "{}", fork.stdout);
    // The shared records answer exactly as parsed ones: the same symbols and references.
    let shared = shop.run_in(&shop.repo("billing-fork"), &["references", "charge_card"]);
    let parsed = shop.run_in(&shop.repo("billing"), &["references", "charge_card"]);
    assert_eq!(shared.json["definitions"], parsed.json["definitions"]);
    let fork_uses: Vec<u64> =
        shared.json["results"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(fork_uses, [10, 1, 5, 6], "{}", shared.stdout);
    // Nothing of the fork's leaks into billing, nor the other way.
    assert_eq!(shop.run_in(&shop.repo("billing"), &["locate", "charge_twice_only_in_fork"]).code, 1);
    assert_eq!(shop.run_in(&shop.repo("billing-fork"), &["locate", "charge_twice_only_in_fork"]).code, 0);
    // A repository sharing less than half of its files is not seeded: the records of the
    // blobs it shares are copied, blob by blob.
    let mixed = shop.root.join("mixed");
    git(&shop.root, &["clone", "-q", shop.repo("billing").to_str().unwrap(), mixed.to_str().unwrap()]);
    for name in ["a", "b", "c"] {
        std::fs::write(mixed.join(format!("{name}.py")), format!("def only_in_mixed_{name}():\n    return 1\n"))
            .unwrap();
    }
    git(&mixed, &["add", "."]);
    git(&mixed, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "mixed"]);
    let mixed_added = shop.run(&["repos", "add", mixed.to_str().unwrap(), "--alias", "mixed"]);
    assert!(mixed_added.json["index"].get("seeded").is_none(), "{}", mixed_added.stdout);
    assert_eq!(mixed_added.json["index"]["total"]["blobs_shared"], 2, "{}", mixed_added.stdout);
    assert_eq!(mixed_added.json["index"]["total"]["blobs_parsed"], 3, "{}", mixed_added.stdout);
    // A repository that is not registered borrows nothing.
    let copy = shop.root.join("unregistered");
    git(&shop.root, &["clone", "-q", shop.repo("billing").to_str().unwrap(), copy.to_str().unwrap()]);
    let alone = shop.run_in(&copy, &["index"]);
    assert_eq!(alone.json["total"]["blobs_shared"], 0, "{}", alone.stdout);
    assert_eq!(alone.json["total"]["blobs_parsed"], 2, "{}", alone.stdout);
    assert!(alone.json.get("seeded").is_none(), "{}", alone.stdout);
}

/// What a seeded store must hold only of its own repository, read from its database.
struct StoreRows {
    /// The paths of its file versions, sorted.
    paths: Vec<String>,
    /// Its refs, sorted.
    refs: Vec<String>,
    /// Records and blobs no file version needs.
    orphans: i64,
    /// The repository it was seeded from.
    seeded_from: Option<String>,
}

fn store_rows(repo: &Path) -> StoreRows {
    let db = rusqlite::Connection::open(repo.join(".git/codecompass/store.sqlite")).unwrap();
    let strings = |sql: &str| -> Vec<String> {
        let mut stmt = db.prepare(sql).unwrap();
        let mut out: Vec<String> = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect();
        out.sort();
        out
    };
    let orphans: i64 = db
        .query_row(
            "SELECT (SELECT count(*) FROM records WHERE blob NOT IN (SELECT blob FROM file_versions))
                  + (SELECT count(*) FROM blobs WHERE id NOT IN (SELECT blob FROM file_versions))",
            [],
            |r| r.get(0),
        )
        .unwrap();
    StoreRows {
        paths: strings("SELECT CAST(path AS TEXT) FROM file_versions"),
        refs: strings("SELECT name FROM refs"),
        orphans,
        seeded_from: strings("SELECT value FROM meta WHERE key = 'seeded_from'").pop(),
    }
}

#[test]
fn a_seeded_fork_keeps_nothing_its_own_trees_lack_and_answers_as_if_indexed_alone() {
    let shop = Shop::new();
    let billing = shop.repo("billing");
    let fork = shop.repo("billing-fork");
    assert_eq!(shop.run(&["repos", "add", billing.to_str().unwrap()]).code, 0);
    // Billing's store also holds its branch `v2`, whose file the fork's main does not have.
    assert_eq!(shop.run_in(&billing, &["index", "--ref", "v2"]).code, 0);
    let added = shop.run(&["repos", "add", fork.to_str().unwrap(), "--alias", "fork"]);
    assert_eq!(added.code, 0, "{}{}", added.stdout, added.stderr);
    assert_eq!(added.json["index"]["seeded"]["file_versions_dropped"], 1, "{}", added.stdout);
    // The one file billing lacks is the one the build parses (its language compiled meanwhile).
    assert_eq!(added.json["index"]["seeded"]["files_unshared"], 1, "{}", added.stdout);
    assert_eq!(added.json["index"]["seeded"]["files_shared"], 2, "{}", added.stdout);
    // The dropped file version's blob (v2 only moved the charge) is in the fork's own history:
    // its documents are deleted, and billing's full-text files stay linked, not copied.
    assert_eq!(added.json["index"]["seeded"]["rewritten"], false, "{}", added.stdout);
    assert!(!linked_segments(&billing, &fork).is_empty(), "the fork shares billing's segment files");
    let rows = store_rows(&fork);
    assert_eq!(rows.paths, ["billing/charge.py", "billing/fork_extra.py", "billing/money.py"]);
    assert!(rows.refs.iter().all(|r| r == "refs/heads/main" || r.starts_with("worktree:")), "{:?}", rows.refs);
    // Not even as the bytes of a deleted row: billing's ref is in its store, not in the fork's.
    let v2 = b"refs/heads/v2";
    assert_eq!(files_holding(&billing.join(".git/codecompass"), v2), ["store.sqlite"]);
    assert_eq!(files_holding(&fork.join(".git/codecompass"), v2), Vec::<String>::new());
    assert_eq!(rows.orphans, 0, "records or blobs only billing's file versions needed");
    let seeded_from = rows.seeded_from.expect("the store remembers its donor");
    assert_eq!(Path::new(&seeded_from).canonicalize().unwrap(), billing.canonicalize().unwrap());

    // Every answer equals the one of a clone of the fork indexed from nothing.
    let alone = shop.root.join("fork-alone");
    git(&shop.root, &["clone", "-q", fork.to_str().unwrap(), alone.to_str().unwrap()]);
    for args in [
        &["search", "charge_card"][..],
        &["search", "--mode", "regex", "cents"],
        &["locate", "format_amount"],
        &["references", "charge_card"],
        &["outline", "billing/charge.py"],
    ] {
        let seeded = shop.run_in(&fork, args);
        let scratch = shop.run_in(&alone, args);
        assert_eq!(seeded.code, scratch.code, "{args:?}");
        assert!(!places_of(&seeded).is_empty(), "{args:?}: {}", seeded.stdout);
        assert_eq!(places_of(&seeded), places_of(&scratch), "{args:?}: {}", seeded.stdout);
    }
    let callers = |dir: &Path| shop.run_in(dir, &["callers", "charge_card"]).json;
    let (seeded, scratch) = (callers(&fork), callers(&alone));
    assert!(!seeded["edges"].as_array().unwrap().is_empty(), "{seeded}");
    assert_eq!((&seeded["nodes"], &seeded["edges"]), (&scratch["nodes"], &scratch["edges"]));
    // The fork goes on as any store: a commit of its own, a branch switch, gc.
    std::fs::write(fork.join("billing/money.py"), "def format_amount(cents):\n    return str(cents)\n").unwrap();
    git(&fork, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-am", "fork: plain amounts"]);
    let located = shop.run_in(&fork, &["locate", "format_amount"]);
    assert_eq!(located.code, 0, "{}", located.stderr);
    assert_eq!(shop.run_in(&fork, &["gc", "--grace-days", "0"]).code, 0);
    assert!(shop.run_in(&fork, &["doctor"]).code == 0);
    // Billing's store is untouched by all of it: its files, its answers.
    assert_eq!(shop.run_in(&billing, &["doctor"]).code, 0);
    let v2 = shop.run_in(&billing, &["locate", "charge_card", "--ref", "v2"]);
    assert_eq!(places_of(&v2), [("billing/cards/charge_v2.py".to_owned(), 4)], "{}", v2.stdout);
    let money = shop.run_in(&billing, &["search", "-F", "%d.%02d"]);
    assert_eq!(places_of(&money), [("billing/money.py".to_owned(), 2)], "{}", money.stdout);
}

/// The full-text segment files of `a`'s store that `b`'s store holds as the same file (a hard
/// link: the same inode).
fn linked_segments(a: &Path, b: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let fts = |repo: &Path| repo.join(".git/codecompass/fts");
    let mut linked = Vec::new();
    for entry in std::fs::read_dir(fts(a)).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".idx")
            && let Ok(other) = std::fs::metadata(fts(b).join(&name))
            && other.ino() == entry.metadata().unwrap().ino()
        {
            linked.push(name);
        }
    }
    linked
}

/// The files under `dir` whose bytes hold `needle`, as paths below `dir`.
fn files_holding(dir: &Path, needle: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle).into_iter().map(|f| format!("{}/{f}", path.display())));
        } else if std::fs::read(&path).unwrap().windows(needle.len()).any(|w| w == needle) {
            found.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    found
}

#[test]
fn a_seed_that_drops_content_its_repository_lacks_rewrites_the_full_text_files() {
    let shop = Shop::new();
    let billing = shop.repo("billing");
    // A draft billing never committed, in its working tree's view.
    std::fs::write(billing.join("billing/draft.py"), "def draft_only_in_billing():\n    return 0\n").unwrap();
    assert_eq!(shop.run(&["repos", "add", billing.to_str().unwrap()]).code, 0);
    assert_eq!(shop.run_in(&billing, &["locate", "draft_only_in_billing"]).code, 0);
    let copy = shop.root.join("billing-copy");
    git(&shop.root, &["clone", "-q", billing.to_str().unwrap(), copy.to_str().unwrap()]);
    let added = shop.run(&["repos", "add", copy.to_str().unwrap(), "--alias", "copy"]);
    let seeded = &added.json["index"]["seeded"];
    assert_eq!(seeded["file_versions_dropped"], 1, "{}", added.stdout);
    // The draft's blob is nowhere in the copy's objects: no file of its store may keep it,
    // not even as the bytes of a deleted row or document.
    assert_eq!(seeded["rewritten"], true, "{}", added.stdout);
    assert!(linked_segments(&billing, &copy).is_empty(), "the copy's segment files are its own");
    assert_eq!(files_holding(&copy.join(".git/codecompass"), b"draft_only_in_billing"), Vec::<String>::new());
    assert_eq!(shop.run_in(&copy, &["search", "-F", "draft_only_in_billing"]).code, 1);
    assert_eq!(shop.run_in(&copy, &["locate", "charge_card"]).code, 0);
    assert_eq!(shop.run_in(&copy, &["doctor"]).code, 0);
}

#[test]
fn a_store_seeded_from_a_seeded_store_does_not_inherit_its_masked_documents() {
    let shop = Shop::new();
    let (billing, fork) = (shop.repo("billing"), shop.repo("billing-fork"));
    // The fork deletes money.py: billing's one segment holds its documents, which the fork's
    // seed deletes (the blob is in the fork's history) and leaves masked in the linked files.
    git(&fork, &["rm", "-q", "billing/money.py"]);
    git(&fork, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "no money"]);
    assert_eq!(shop.run(&["repos", "add", billing.to_str().unwrap()]).code, 0);
    let first = shop.run(&["repos", "add", fork.to_str().unwrap(), "--alias", "fork"]);
    assert_eq!(first.json["index"]["seeded"]["rewritten"], false, "{}", first.stdout);
    assert!(!linked_segments(&billing, &fork).is_empty(), "the fork shares billing's segment files");
    // A shallow clone of the fork lacks its history, money.py's blob with it: seeded from the
    // fork, whose rows no longer name those documents, it must not link the files holding them.
    let second = shop.root.join("second");
    let url = format!("file://{}", fork.display());
    git(&shop.root, &["clone", "-q", "--depth", "1", &url, second.to_str().unwrap()]);
    let again = shop.run(&["repos", "add", second.to_str().unwrap(), "--alias", "second"]);
    let seeded = &again.json["index"]["seeded"];
    assert_eq!(Path::new(seeded["donor"].as_str().unwrap()).canonicalize().unwrap(), fork.canonicalize().unwrap());
    assert_eq!(seeded["rewritten"], true, "{}", again.stdout);
    assert!(linked_segments(&fork, &second).is_empty(), "the clone's segment files are its own");
    assert_eq!(shop.run_in(&second, &["search", "-F", "format_amount"]).code, 0);
    assert_eq!(shop.run_in(&second, &["locate", "format_amount"]).code, 1);
}

/// `(path, line)` of every result of a `--json` answer, in order.
fn places_of(run: &Run) -> Vec<(String, u64)> {
    let results = run.json["results"].as_array().or_else(|| run.json["symbols"].as_array());
    results
        .into_iter()
        .flatten()
        .map(|r| {
            let path = r["path"].as_str().unwrap_or_default().to_owned();
            let line = r["line"].as_u64().or_else(|| r["line_start"].as_u64()).unwrap_or(0);
            (path, line)
        })
        .collect()
}

#[test]
fn structural_search_and_context_ask_across_repositories_too() {
    let shop = Shop::new();
    shop.register_all();
    // X-Ray: calls of charge_card, a query evaluated in each repository.
    let query = r#"(call function: (identifier) @f (#eq? @f "charge_card")) @match"#;
    let calls = shop.run(&["xray", "charge_card", "--query", query, "--repo", "*"]);
    let found: BTreeSet<(String, String, u64)> = places(&calls, "line_start").into_iter().collect();
    let expected: BTreeSet<(String, String, u64)> = [
        ("billing", "billing/charge.py", 10),
        ("fork", "billing/charge.py", 10),
        ("fork", "billing/fork_extra.py", 5),
        ("fork", "billing/fork_extra.py", 6),
    ]
    .into_iter()
    .map(|(r, p, l)| (r.to_owned(), p.to_owned(), l))
    .collect();
    assert_eq!(found, expected, "{}", calls.stdout);
    assert_eq!(repo_outcome(&calls, "storefront")["returned"], 0);
    let background = shop.run(&["xray", "charge_card", "--query", query, "--repo", "*", "--background"]);
    assert_eq!(background.json["error"]["code"], "invalid_argument");

    // Context: every repository's best first, whole results within the budget.
    let context = shop.run(&["context", "charge card receipt", "--max-tokens", "120", "--repo", "*"]);
    let spent = context.json["estimated_tokens"].as_u64().unwrap();
    assert!(spent <= 120, "{}", context.stdout);
    assert_eq!(context.json["max_tokens"], 120);
    let repos: BTreeSet<String> = places(&context, "line_start").into_iter().map(|(r, _, _)| r).collect();
    assert!(repos.len() >= 2, "results from several repositories: {}", context.stdout);
    let listed: u64 =
        context.json["results"].as_array().unwrap().iter().map(|r| r["estimated_tokens"].as_u64().unwrap_or(0)).sum();
    assert_eq!(listed, spent);
}

#[test]
fn repos_sync_brings_each_registered_repository_up_to_date_and_reports_the_missing_ones() {
    let shop = Shop::new();
    // billing keeps its branch `v2` fresh; the storefront is registered without an index.
    let billing = shop.repo("billing");
    assert_eq!(shop.run(&["repos", "add", billing.to_str().unwrap(), "--ref", "v2", "--no-index"]).code, 0);
    assert_eq!(shop.run(&["repos", "add", shop.repo("storefront").to_str().unwrap(), "--no-index"]).code, 0);
    let synced = shop.run(&["repos", "sync"]);
    assert_eq!(synced.code, 0, "{}{}", synced.stdout, synced.stderr);
    assert_eq!(synced.json["result_completeness"], "complete");
    let views = |run: &Run, alias: &str| -> Vec<String> {
        run.json["repos"].as_array().unwrap().iter().find(|r| r["repo"] == alias).unwrap()["index"]["views"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["ref"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(views(&synced, "billing").contains(&"v2".to_owned()), "{}", synced.stdout);
    assert!(shop.repo("storefront").join(".git/codecompass/store.sqlite").exists());
    // A new commit on v2 is searchable at v2 after a sync of that repository alone.
    git(&billing, &["checkout", "-q", "v2"]);
    std::fs::write(billing.join("billing/late.py"), "def added_on_v2_later():\n    pass\n").unwrap();
    git(&billing, &["add", "."]);
    git(&billing, &["commit", "-qm", "late"]);
    git(&billing, &["checkout", "-q", "main"]);
    let one = shop.run(&["repos", "sync", "bill*"]);
    assert_eq!(one.json["repos"].as_array().unwrap().len(), 1, "{}", one.stdout);
    let at_v2 = shop.run(&["locate", "added_on_v2_later", "--repo", "billing", "--ref", "billing=v2"]);
    assert_eq!(places(&at_v2, "line"), [("billing".into(), "billing/late.py".into(), 1)]);
    // A repository that is gone is reported; the others still sync.
    std::fs::rename(shop.repo("storefront"), shop.root.join("gone")).unwrap();
    let partial = shop.run(&["repos", "sync"]);
    assert_eq!(partial.code, 1, "{}", partial.stdout);
    assert_eq!(partial.json["result_completeness"], "partial");
    let storefront =
        partial.json["repos"].as_array().unwrap().iter().find(|r| r["repo"] == "storefront").unwrap().clone();
    assert_eq!(storefront["error"]["code"], "repo_missing");
    assert!(partial.json["repos"].as_array().unwrap().iter().any(|r| r["repo"] == "billing" && r["status"] == "ok"));
}

#[test]
fn a_seed_killed_before_it_installs_leaves_no_store_and_the_next_run_seeds_again() {
    let shop = Shop::new();
    let fork = shop.billing_and_unindexed_fork();
    let killed = bin()
        .args(["index", "--json", "--quiet"])
        .env("CODECOMPASS_HOME", &shop.home)
        .env("CODECOMPASS_FAILPOINTS", "seed.before_install=exit")
        .current_dir(&fork)
        .output()
        .unwrap();
    assert_ne!(killed.status.code(), Some(0));
    let git_dir = fork.join(".git");
    let staged = || {
        std::fs::read_dir(&git_dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".seed-staging-"))
            .count()
    };
    assert_eq!(staged(), 1, "the killed run's staging directory");
    assert!(!git_dir.join("codecompass/store.sqlite").exists(), "no store was installed");
    let again = shop.run_in(&fork, &["index"]);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    assert_eq!(again.json["seeded"]["files_shared"], 2, "{}", again.stdout);
    assert_eq!(staged(), 0, "the leftover is removed");
    assert_eq!(shop.run_in(&fork, &["locate", "charge_twice_only_in_fork"]).code, 0);
}

#[test]
fn a_fork_never_waits_for_its_original_s_writer_and_is_then_not_seeded() {
    let shop = Shop::new();
    let billing = shop.repo("billing");
    assert_eq!(shop.run(&["repos", "add", billing.to_str().unwrap()]).code, 0);
    // Billing's next index holds its write lock until the test lets it go on.
    std::fs::write(billing.join("billing/late.py"), "def published_later():\n    return 1\n").unwrap();
    let gate = shop.root.join("gate");
    let mut writer = bin()
        .args(["index", "--quiet"])
        .env("CODECOMPASS_HOME", &shop.home)
        .env("CODECOMPASS_FAILPOINTS", format!("index.before_publish=wait({})", gate.display()))
        .current_dir(&billing)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let reached = shop.root.join("gate.reached");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !reached.exists() {
        assert!(std::time::Instant::now() < deadline, "billing's writer never reached its failpoint");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let started = std::time::Instant::now();
    let fork = shop.run(&["repos", "add", shop.repo("billing-fork").to_str().unwrap(), "--alias", "fork"]);
    assert_eq!(fork.code, 0, "{}{}", fork.stdout, fork.stderr);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "the fork waited for billing's writer");
    assert!(fork.json["index"].get("seeded").is_none(), "{}", fork.stdout);
    // Records are still shared blob by blob (read from billing's last published state).
    assert_eq!(fork.json["index"]["total"]["blobs_shared"], 2, "{}", fork.stdout);
    assert_eq!(shop.run_in(&shop.repo("billing-fork"), &["locate", "charge_twice_only_in_fork"]).code, 0);
    std::fs::write(&gate, "").unwrap();
    assert!(writer.wait().unwrap().success());
    assert_eq!(shop.run_in(&billing, &["locate", "published_later"]).code, 0);
    assert_eq!(shop.run_in(&shop.repo("billing-fork"), &["locate", "published_later"]).code, 1);
}

#[test]
fn a_registered_fork_s_first_query_seeds_its_store_too() {
    let shop = Shop::new();
    let fork = shop.billing_and_unindexed_fork();
    let found = shop.run_in(&fork, &["locate", "charge_twice_only_in_fork"]);
    assert_eq!(found.code, 0, "{}{}", found.stdout, found.stderr);
    let rows = store_rows(&fork);
    assert_eq!(rows.paths, ["billing/charge.py", "billing/fork_extra.py", "billing/money.py"]);
    assert_eq!(rows.orphans, 0);
    assert!(rows.seeded_from.is_some(), "the first query's build was seeded");
}

/// A clone of billing with three files of its own, registered as `alias`: it shares billing's
/// two blobs and is not seeded (it shares less than half of its files).
fn register_mixed(shop: &Shop, alias: &str) -> Run {
    let mixed = shop.root.join(alias);
    git(&shop.root, &["clone", "-q", shop.repo("billing").to_str().unwrap(), mixed.to_str().unwrap()]);
    for name in ["a", "b", "c"] {
        std::fs::write(mixed.join(format!("{name}.py")), format!("def only_in_{alias}_{name}():\n    return 1\n"))
            .unwrap();
    }
    git(&mixed, &["add", "."]);
    git(&mixed, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", alias]);
    let added = shop.run(&["repos", "add", mixed.to_str().unwrap(), "--alias", alias]);
    assert_eq!(added.code, 0, "{}{}", added.stdout, added.stderr);
    assert!(added.json["index"].get("seeded").is_none(), "{}", added.stdout);
    added
}

#[test]
fn a_registered_store_lists_its_blobs_and_other_index_runs_ask_it_by_that_list() {
    let shop = Shop::new();
    assert_eq!(shop.run(&["repos", "add", shop.repo("billing").to_str().unwrap()]).code, 0);
    // billing's store lists the blobs it holds records of: its two files'.
    let list = shop.repo("billing").join(".git/codecompass/record-blobs");
    let bytes = std::fs::read(&list).expect("a registered repository's store lists its blobs");
    assert_eq!(&bytes[..8], b"CCRBLOB1");
    assert_eq!(u64::from_le_bytes(bytes[16..24].try_into().unwrap()), 2);
    assert_eq!(bytes.len(), 24 + 2 * 8);
    // By its list, billing holds the blobs the clone shares: they are copied, not parsed.
    let asked = register_mixed(&shop, "mixed");
    assert_eq!(asked.json["index"]["total"]["blobs_shared"], 2, "{}", asked.stdout);
    assert_eq!(asked.json["index"]["total"]["blobs_parsed"], 3, "{}", asked.stdout);
    // A list that says billing holds nothing leaves it unasked: the shared blobs are parsed,
    // and the answers are the same. (The clones are removed from the registry as they are
    // done with, so that billing is the only store holding the shared blobs.)
    assert_eq!(shop.run(&["repos", "remove", "mixed"]).code, 0);
    let mut nothing = b"CCRBLOB1".to_vec();
    nothing.extend_from_slice(&i64::MAX.to_le_bytes());
    nothing.extend_from_slice(&0u64.to_le_bytes());
    std::fs::write(&list, &nothing).unwrap();
    let unasked = register_mixed(&shop, "unasked");
    assert_eq!(unasked.json["index"]["total"]["blobs_shared"], 0, "{}", unasked.stdout);
    assert_eq!(unasked.json["index"]["total"]["blobs_parsed"], 5, "{}", unasked.stdout);
    for alias in ["mixed", "unasked"] {
        let found = shop.run_in(&shop.root.join(alias), &["references", "charge_card"]);
        let parsed = shop.run_in(&shop.repo("billing"), &["references", "charge_card"]);
        assert_eq!(found.json["definitions"], parsed.json["definitions"], "{alias}: {}", found.stdout);
    }
    // Without a list (a store written before lists, or one that cannot be read), the store
    // is asked as before.
    assert_eq!(shop.run(&["repos", "remove", "unasked"]).code, 0);
    std::fs::write(&list, b"CCRBLOB1 cut short").unwrap();
    let unlisted = register_mixed(&shop, "unlisted");
    assert_eq!(unlisted.json["index"]["total"]["blobs_shared"], 2, "{}", unlisted.stdout);
    // billing's next index run writes its list whole again.
    assert_eq!(shop.run_in(&shop.repo("billing"), &["index"]).code, 0);
    assert_eq!(std::fs::read(&list).unwrap(), bytes);
}
