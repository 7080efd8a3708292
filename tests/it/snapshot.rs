//! Snapshots: export on one clone, import into another and catch up by tree diff; merge into
//! a populated store; and every kind of hostile archive refused with the store left
//! byte-identical.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{TempDir, cc, fixture, git, located};

/// A clone of `repo` next to it, with a fresh store.
fn clone(repo: &Path, name: &str) -> PathBuf {
    let target = repo.parent().unwrap().join(name);
    git(repo.parent().unwrap(), &["clone", "-q", repo.to_str().unwrap(), target.to_str().unwrap()]);
    target
}

fn write(repo: &Path, path: &str, text: &str) {
    let full = repo.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn commit(repo: &Path, message: &str) {
    git(repo, &["add", "-A"]);
    git(repo, &["-c", "commit.gpgsign=false", "commit", "-q", "-m", message]);
}

/// Row counts of the store, from `status`.
fn counts(repo: &Path) -> Value {
    cc(repo, &["status"]).json["counts"].clone()
}

/// Every file under `dir` with a hash of its content: equal digests mean byte-identical.
fn tree_digest(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((
                    path.strip_prefix(dir).unwrap().to_string_lossy().into_owned(),
                    blake3::hash(&bytes).to_hex().to_string(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// An indexed `shop` with `main` (the worktree) and `feature`, exported.
fn exported_shop() -> (TempDir, PathBuf, PathBuf) {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    assert_eq!(cc(&repo, &["index", "--ref", "feature"]).code, 0);
    let file = tmp.path().join("shop.tar.zst");
    let run = cc(&repo, &["snapshot", "export", "-o", file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["snapshot"]["views"].as_array().map(Vec::len), Some(2), "{}", run.stdout);
    (tmp, repo, file)
}

#[test]
fn a_fresh_clone_restores_a_snapshot_parses_no_blob_then_exactly_the_new_ones() {
    let (_tmp, repo, file) = exported_shop();
    let theirs = clone(&repo, "teammate");
    let run = cc(&theirs, &["snapshot", "import", file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["import"]["mode"], "installed");
    let restored = counts(&theirs);
    // Each restored segment got its runs file (they are not part of a snapshot).
    let fts = theirs.join(".git/codecompass/fts");
    let meta: Value = serde_json::from_slice(&std::fs::read(fts.join("meta.json")).unwrap()).unwrap();
    for segment in meta["segments"].as_array().unwrap() {
        let id = segment["segment_id"].as_str().unwrap().replace('-', "");
        assert!(fts.join(format!("runs-{id}.bin")).exists(), "no runs file for {id}");
    }

    // The first query parses no blob: every record it needs came with the snapshot.
    assert_eq!(located(&cc(&theirs, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);
    assert_eq!(counts(&theirs)["records"], restored["records"], "the first query parsed nothing");
    let sync = cc(&theirs, &["sync"]);
    assert_eq!(sync.json["total"]["blobs_parsed"], 0, "{}", sync.stdout);
    // A ref of the snapshot answers too, with nothing parsed.
    let feature = git(&theirs, &["rev-parse", "origin/feature"]);
    assert_eq!(
        located(&cc(&theirs, &["locate", "apply_coupon", "--ref", feature.trim()])),
        [("src/cart.rs".into(), 33)]
    );
    assert_eq!(counts(&theirs)["records"], restored["records"]);

    // New commits: a sync parses exactly their new blobs.
    write(
        &theirs,
        "src/shipping.rs",
        "/// Shipping.\npub fn shipping_cost(weight: u32) -> u64 {\n    u64::from(weight) * 3\n}\n",
    );
    write(&theirs, "src/tax.rs", "pub fn tax_rate() -> u64 {\n    20\n}\n");
    commit(&theirs, "shipping and tax");
    write(&theirs, "docs/guide.md", "# Shop guide\n\n## Shipping\n\nBy weight.\n");
    commit(&theirs, "document shipping");
    let sync = cc(&theirs, &["sync"]);
    assert_eq!(sync.code, 0, "{}", sync.stdout);
    assert_eq!(sync.json["total"]["blobs_parsed"], 3, "{}", sync.stdout);
    assert_eq!(located(&cc(&theirs, &["locate", "shipping_cost"])), [("src/shipping.rs".into(), 2)]);

    // Every answer agrees with an index built from scratch.
    let fresh_store = theirs.parent().unwrap().join("fresh-store");
    let fresh = |args: &[&str]| {
        let mut all = vec!["--store", fresh_store.to_str().unwrap()];
        all.extend_from_slice(args);
        cc(&theirs, &all)
    };
    for name in ["Cart", "ShopClient", "shop_checksum", "Inventory", "shipping_cost", "tax_rate", "total_cents"] {
        assert_eq!(located(&cc(&theirs, &["locate", name])), located(&fresh(&["locate", name])), "{name}");
    }
    for query in ["cart", "shipping", "checksum"] {
        let ours = cc(&theirs, &["search", query]).json["results"].clone();
        assert_eq!(ours, fresh(&["search", query]).json["results"], "{query}");
    }
}

#[test]
fn a_snapshot_merges_into_a_populated_store_without_parsing_its_blobs() {
    let (_tmp, repo, file) = exported_shop();
    let theirs = clone(&repo, "busy");
    // This clone already has an index of its own main.
    assert_eq!(cc(&theirs, &["index"]).code, 0);
    let run = cc(&theirs, &["snapshot", "import", file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{} {}", run.stdout, run.stderr);
    assert_eq!(run.json["import"]["mode"], "merged");
    assert_eq!(run.json["import"]["blobs_parsed"], 0, "{}", run.stdout);
    let states: Vec<&str> =
        run.json["import"]["views"].as_array().unwrap().iter().map(|v| v["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["merged", "merged"]);
    let feature = git(&theirs, &["rev-parse", "origin/feature"]);
    let before = counts(&theirs);
    assert_eq!(
        located(&cc(&theirs, &["locate", "apply_coupon", "--ref", feature.trim()])),
        [("src/cart.rs".into(), 33)]
    );
    let hits = cc(&theirs, &["search", "apply_coupon", "--ref", feature.trim()]);
    assert_eq!(hits.json["results"][0]["path"], "src/cart.rs", "{}", hits.stdout);
    assert_eq!(counts(&theirs)["records"], before["records"]);
    // Importing again changes nothing.
    let again = cc(&theirs, &["snapshot", "import", file.to_str().unwrap()]);
    assert_eq!(again.json["import"]["blobs_parsed"], 0);
    assert_eq!(cc(&theirs, &["status"]).json["interrupted_jobs"].as_array().map(Vec::len), Some(0));
}

#[test]
fn export_limited_to_a_ref_holds_only_that_view_and_inspect_shows_it() {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    assert_eq!(cc(&repo, &["index", "--ref", "feature"]).code, 0);
    let full = tmp.path().join("full.tar.zst");
    let limited = tmp.path().join("v1.tar.zst");
    assert_eq!(cc(&repo, &["snapshot", "export", "-o", full.to_str().unwrap()]).code, 0);
    let run = cc(&repo, &["snapshot", "export", "-o", limited.to_str().unwrap(), "--ref", "v1.0"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let inspect = cc(&repo, &["snapshot", "inspect", limited.to_str().unwrap()]);
    assert_eq!(inspect.code, 0);
    let manifest = &inspect.json["manifest"];
    assert_eq!(manifest["limited_to_refs"], true);
    assert_eq!(manifest["views"].as_array().map(Vec::len), Some(1));
    assert_eq!(manifest["views"][0]["refs"][0], "refs/tags/v1.0");
    assert_eq!(inspect.json["compatible"], true);
    assert_eq!(inspect.json["same_repository"], true);
    assert!(manifest["files"].as_array().unwrap().iter().any(|f| f["path"] == "store.sqlite"));
    assert!(std::fs::metadata(&limited).unwrap().len() <= std::fs::metadata(&full).unwrap().len());
    // Worktree views are never exported.
    let full_manifest = cc(&repo, &["snapshot", "inspect", full.to_str().unwrap()]).json["manifest"].clone();
    assert!(full_manifest["views"].as_array().unwrap().iter().all(|v| v["key"].as_str().unwrap().starts_with("tree:")));

    let theirs = clone(&repo, "ci");
    assert_eq!(cc(&theirs, &["snapshot", "import", limited.to_str().unwrap()]).code, 0);
    let restored = counts(&theirs);
    assert_eq!(located(&cc(&theirs, &["locate", "Cart", "--ref", "v1.0"])), [("src/cart.rs".into(), 11)]);
    assert_eq!(counts(&theirs)["records"], restored["records"], "v1.0 needed nothing beyond the snapshot");
}

#[test]
fn export_and_import_refuse_what_they_cannot_do() {
    let (tmp, repo) = fixture("shop");
    let file = tmp.path().join("none.tar.zst");
    let run = cc(&repo, &["snapshot", "export", "-o", file.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "not_indexed");
    assert!(!file.exists());
    let missing = cc(&repo, &["snapshot", "import", tmp.path().join("nope.tar.zst").to_str().unwrap()]);
    assert_eq!(missing.code, 2);
    assert_eq!(missing.json["error"]["code"], "io_error");
}

/// One entry of a hand-made archive.
struct Entry {
    name: Vec<u8>,
    kind: tar::EntryType,
    data: Vec<u8>,
    /// The size the header declares, when not the data's.
    declared: Option<u64>,
    link: Option<&'static str>,
}

fn entry(name: &str, data: Vec<u8>) -> Entry {
    Entry { name: name.as_bytes().to_vec(), kind: tar::EntryType::Regular, data, declared: None, link: None }
}

/// Writes a `.tar.zst` with raw headers, so names the `tar` crate would refuse to write
/// (absolute, `..`) can be made.
fn craft(path: &Path, entries: &[Entry]) {
    let file = std::fs::File::create(path).unwrap();
    let mut encoder = zstd::Encoder::new(file, 1).unwrap();
    for e in entries {
        let mut header = tar::Header::new_gnu();
        {
            let gnu = header.as_gnu_mut().unwrap();
            gnu.name[..e.name.len()].copy_from_slice(&e.name);
        }
        header.set_entry_type(e.kind);
        header.set_mode(0o644);
        header.set_size(e.declared.unwrap_or(e.data.len() as u64));
        if let Some(link) = e.link {
            header.set_link_name(link).unwrap();
        }
        header.set_cksum();
        encoder.write_all(header.as_bytes()).unwrap();
        encoder.write_all(&e.data).unwrap();
        let pad = (512 - e.data.len() % 512) % 512;
        encoder.write_all(&vec![0; pad]).unwrap();
    }
    encoder.write_all(&[0; 1024]).unwrap();
    encoder.finish().unwrap();
}

/// The entries of a real snapshot, manifest first.
fn unpack(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut archive = tar::Archive::new(zstd::Decoder::new(std::fs::File::open(path).unwrap()).unwrap());
    archive
        .entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().to_string_lossy().into_owned();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut data).unwrap();
            (name, data)
        })
        .collect()
}

fn manifest_entry(manifest: &Value) -> Entry {
    entry("manifest.json", serde_json::to_vec_pretty(manifest).unwrap())
}

#[test]
fn hostile_snapshots_are_refused_and_leave_the_store_byte_identical() {
    let (tmp, repo, file) = exported_shop();
    let good = unpack(&file);
    let manifest: Value = serde_json::from_slice(&good[0].1).unwrap();
    let rest: Vec<Entry> = good[1..].iter().map(|(n, d)| entry(n, d.clone())).collect();
    let with = |manifest: &Value, mut extra: Vec<Entry>| {
        let mut all = vec![manifest_entry(manifest)];
        all.extend(rest.iter().map(|e| entry(std::str::from_utf8(&e.name).unwrap(), e.data.clone())));
        all.append(&mut extra);
        all
    };
    let listing = |mut manifest: Value, name: &str, data: &[u8]| {
        manifest["files"]
            .as_array_mut()
            .unwrap()
            .push(json!({"path": name, "size": data.len(), "blake3": blake3::hash(data).to_hex().to_string()}));
        manifest
    };

    let mut cases: Vec<(&str, &str, PathBuf)> = Vec::new();
    let case = |name: &str| tmp.path().join(format!("{name}.tar.zst"));

    // Truncated: the first half of a good snapshot.
    let bytes = std::fs::read(&file).unwrap();
    let truncated = case("truncated");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    cases.push(("truncated", "snapshot_invalid", truncated));

    // Not a snapshot at all.
    let garbage = case("garbage");
    std::fs::write(&garbage, b"definitely not zstd").unwrap();
    cases.push(("garbage", "snapshot_invalid", garbage));

    // A checksum mismatch: one byte of the database flipped, size unchanged.
    let mut flipped: Vec<Entry> = vec![manifest_entry(&manifest)];
    for (n, d) in &good[1..] {
        let mut d = d.clone();
        if n == "store.sqlite" {
            let last = d.len() - 100;
            d[last] ^= 0xff;
        }
        flipped.push(entry(n, d));
    }
    let checksum = case("checksum");
    craft(&checksum, &flipped);
    cases.push(("checksum mismatch", "snapshot_invalid", checksum));

    // A newer schema.
    let mut newer = manifest.clone();
    newer["schema_version"] = json!(999);
    let schema = case("schema");
    craft(&schema, &with(&newer, vec![]));
    cases.push(("newer schema", "snapshot_incompatible", schema));

    // Another repository's snapshot.
    let mut other = manifest.clone();
    other["repository"]["root_commits"] = json!(["1111111111111111111111111111111111111111"]);
    for v in other["views"].as_array_mut().unwrap() {
        v["commit"] = json!("2222222222222222222222222222222222222222");
    }
    let foreign = case("foreign");
    craft(&foreign, &with(&other, vec![]));
    cases.push(("another repository", "snapshot_mismatch", foreign));

    // Entries with an absolute path, `..`, a symlink, a hard link; listed in the manifest
    // or not, they are refused.
    let payload = b"owned".to_vec();
    let absolute = case("absolute");
    craft(&absolute, &with(&manifest, vec![entry("/tmp/codecompass-owned", payload.clone())]));
    cases.push(("absolute path", "snapshot_invalid", absolute));
    let dotdot = case("dotdot");
    craft(
        &dotdot,
        &with(&listing(manifest.clone(), "fts/../../owned", &payload), vec![entry("fts/../../owned", payload.clone())]),
    );
    cases.push(("`..` in a path", "snapshot_invalid", dotdot));
    let symlink = case("symlink");
    let mut link = entry("fts/evil", Vec::new());
    link.kind = tar::EntryType::Symlink;
    link.link = Some("/etc/passwd");
    craft(&symlink, &with(&listing(manifest.clone(), "fts/evil", b""), vec![link]));
    cases.push(("symlink", "snapshot_invalid", symlink));
    let hardlink = case("hardlink");
    let mut hard = entry("fts/evil", Vec::new());
    hard.kind = tar::EntryType::Link;
    hard.link = Some("store.sqlite");
    craft(&hardlink, &with(&listing(manifest.clone(), "fts/evil", b""), vec![hard]));
    cases.push(("hard link", "snapshot_invalid", hardlink));

    // The same entry twice.
    let duplicate = case("duplicate");
    let db = good.iter().find(|(n, _)| n == "store.sqlite").unwrap().1.clone();
    craft(&duplicate, &with(&manifest, vec![entry("store.sqlite", db)]));
    cases.push(("duplicate entry", "snapshot_invalid", duplicate));

    // An entry the manifest does not list.
    let unlisted = case("unlisted");
    craft(&unlisted, &with(&manifest, vec![entry("fts/extra.idx", payload.clone())]));
    cases.push(("unlisted entry", "snapshot_invalid", unlisted));

    // A decompression bomb: a listed entry that inflates to 64 MiB, far beyond its manifest
    // size (zeros compress to almost nothing).
    let bomb = case("bomb");
    let bomb_manifest = listing(manifest.clone(), "fts/bomb.idx", b"tiny");
    craft(&bomb, &with(&bomb_manifest, vec![entry("fts/bomb.idx", vec![0; 64 << 20])]));
    assert!(std::fs::metadata(&bomb).unwrap().len() < 1 << 20, "the bomb is small on disk");
    cases.push(("decompression bomb", "snapshot_invalid", bomb));

    // A bomb in the tar framing itself: a 64 MiB long-name header before the manifest.
    let long_name = case("long-name");
    let mut header_bomb = entry("././@LongLink", vec![b'a'; 64 << 20]);
    header_bomb.kind = tar::EntryType::GNULongName;
    let mut framed = vec![header_bomb];
    framed.extend(with(&manifest, vec![]));
    craft(&long_name, &framed);
    cases.push(("long-name bomb", "snapshot_invalid", long_name));

    // A manifest that is not first.
    let headless = case("headless");
    let mut no_manifest_first: Vec<Entry> =
        rest.iter().map(|e| entry(std::str::from_utf8(&e.name).unwrap(), e.data.clone())).collect();
    no_manifest_first.push(manifest_entry(&manifest));
    craft(&headless, &no_manifest_first);
    cases.push(("manifest not first", "snapshot_invalid", headless));

    // A missing entry (the manifest lists more than the archive holds).
    let missing = case("missing");
    craft(&missing, &with(&listing(manifest.clone(), "fts/gone.idx", b"gone"), vec![]));
    cases.push(("missing entry", "snapshot_invalid", missing));

    // Sound checksums over unsound contents (anyone who can write the cache can recompute
    // them): a garbage full-text meta.json, a damaged segment, a database page flipped.
    let resealed = |name: &str, change: &dyn Fn(&mut Vec<u8>)| {
        let mut m = manifest.clone();
        let mut entries = vec![];
        for (n, d) in &good[1..] {
            let mut d = d.clone();
            if n == name {
                change(&mut d);
                for f in m["files"].as_array_mut().unwrap() {
                    if f["path"] == name {
                        f["size"] = json!(d.len());
                        f["blake3"] = json!(blake3::hash(&d).to_hex().to_string());
                    }
                }
            }
            entries.push(entry(n, d));
        }
        let mut all = vec![manifest_entry(&m)];
        all.extend(entries);
        all
    };
    let meta = case("meta");
    craft(&meta, &resealed("fts/meta.json", &|d: &mut Vec<u8>| *d = b"{\"garbage\": true}".to_vec()));
    cases.push(("garbage meta.json, resealed", "snapshot_invalid", meta));
    let segment_name = good.iter().map(|(n, _)| n.as_str()).find(|n| n.ends_with(".term")).unwrap().to_owned();
    let segment = case("segment");
    craft(
        &segment,
        &resealed(&segment_name, &|d: &mut Vec<u8>| {
            let at = d.len() / 2;
            d[at] ^= 0xff;
        }),
    );
    cases.push(("damaged segment, resealed", "snapshot_invalid", segment));

    // Into a populated store and into an empty one, nothing changes.
    let populated = clone(&repo, "populated");
    assert_eq!(cc(&populated, &["index"]).code, 0);
    let empty = clone(&repo, "empty");
    for target in [&populated, &empty] {
        let store = target.join(".git/codecompass");
        let before = if store.exists() { tree_digest(&store) } else { Vec::new() };
        for (what, code, path) in &cases {
            let run = cc(target, &["snapshot", "import", path.to_str().unwrap()]);
            assert_eq!(run.code, 2, "{what}: {}", run.stdout);
            assert_eq!(run.json["error"]["code"], *code, "{what}: {}", run.stdout);
            assert!(run.json["error"]["data"]["remedy"].is_string(), "{what}: {}", run.stdout);
            let after = if store.exists() { tree_digest(&store) } else { Vec::new() };
            assert_eq!(before, after, "{what} changed the store");
            let staging: Vec<_> = std::fs::read_dir(target.join(".git"))
                .unwrap()
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().contains("import-staging"))
                .collect();
            assert!(staging.is_empty(), "{what} left a staging directory");
        }
        assert!(!Path::new("/tmp/codecompass-owned").exists());
        assert!(!target.join(".git/owned").exists() && !target.join("owned").exists());
    }
    // The good snapshot still imports after all that.
    assert_eq!(cc(&empty, &["snapshot", "import", file.to_str().unwrap()]).code, 0);
    assert_eq!(located(&cc(&empty, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);
}

/// A store written by a build of index format 4 (trigrams of ASCII windows only) is still
/// read and exported, and its snapshot says so: a build that reads it whole refuses it.
#[test]
fn a_store_of_the_older_index_format_is_exported_as_that_format() {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let conn = rusqlite::Connection::open(repo.join(".git/codecompass/store.sqlite")).unwrap();
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'index_format_version'", []).unwrap();
    drop(conn);
    assert_eq!(located(&cc(&repo, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);
    let file = tmp.path().join("old.tar.zst");
    assert_eq!(cc(&repo, &["snapshot", "export", "-o", file.to_str().unwrap()]).code, 0);
    let inspect = cc(&repo, &["snapshot", "inspect", file.to_str().unwrap()]);
    assert_eq!(inspect.json["manifest"]["index_format_version"], 4, "{}", inspect.stdout);
    assert_eq!(inspect.json["compatible"], false, "{}", inspect.stdout);
    let theirs = clone(&repo, "teammate");
    let run = cc(&theirs, &["snapshot", "import", file.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(run.json["error"]["code"], "snapshot_incompatible", "{}", run.stdout);
}

#[test]
fn a_store_of_another_index_format_is_refused_with_its_remedy() {
    let (_tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    let db = repo.join(".git/codecompass/store.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE meta SET value = '999' WHERE key = 'index_format_version'", []).unwrap();
    drop(conn);
    let run = cc(&repo, &["search", "cart"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.json["error"]["code"], "index_incompatible");
    assert!(run.json["error"]["data"]["remedy"].as_str().unwrap().contains("index --force"));
    assert_eq!(cc(&repo, &["status"]).json["store_state"], "reindex_required");
    assert_eq!(cc(&repo, &["index", "--force"]).code, 0);
    assert_eq!(located(&cc(&repo, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);
}

#[test]
fn an_export_during_a_write_pins_a_consistent_state() {
    let (tmp, repo) = fixture("shop");
    assert_eq!(cc(&repo, &["index"]).code, 0);
    // A writer that holds the lock for a while before publishing a new view.
    let mut writer = crate::support::bin()
        .args(["index", "--ref", "feature", "--quiet"])
        .env("CODECOMPASS_FAILPOINTS", "index.before_publish=sleep(1500)")
        .current_dir(&repo)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while cc(&repo, &["status"]).json["indexing_status"] != "indexing" {
        assert!(std::time::Instant::now() < deadline, "the writer never took the lock");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Readers are not blocked meanwhile; the export waits for the publish, then pins.
    assert_eq!(located(&cc(&repo, &["locate", "Cart", "--ref", "main"])), [("src/cart.rs".into(), 11)]);
    let file = tmp.path().join("during.tar.zst");
    let run = cc(&repo, &["snapshot", "export", "-o", file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(writer.wait().unwrap().success());
    let views = run.json["snapshot"]["views"].as_array().unwrap().len();
    assert_eq!(views, 2, "the view published during the export is in it: {}", run.stdout);
    let theirs = clone(&repo, "after-write");
    assert_eq!(cc(&theirs, &["snapshot", "import", file.to_str().unwrap()]).code, 0);
    let feature = git(&theirs, &["rev-parse", "origin/feature"]);
    let restored = counts(&theirs);
    let hits = cc(&theirs, &["search", "apply_coupon", "--ref", feature.trim()]);
    assert_eq!(hits.json["results"][0]["path"], "src/cart.rs", "{}", hits.stdout);
    assert_eq!(counts(&theirs)["records"], restored["records"]);
}

#[test]
fn with_a_signing_key_only_snapshots_signed_with_it_are_imported() {
    let (tmp, repo, unsigned) = exported_shop();
    git(&repo, &["config", "codecompass.snapshotKey", "ci-secret"]);
    let signed = tmp.path().join("signed.tar.zst");
    assert_eq!(cc(&repo, &["snapshot", "export", "-o", signed.to_str().unwrap()]).code, 0);
    let manifest: Value = serde_json::from_slice(&unpack(&signed)[0].1).unwrap();
    assert!(manifest["signature"].is_string(), "{manifest}");

    // The same key: taken.
    let same = clone(&repo, "same-key");
    git(&same, &["config", "codecompass.snapshotKey", "ci-secret"]);
    assert_eq!(cc(&same, &["snapshot", "import", signed.to_str().unwrap()]).code, 0);
    assert_eq!(located(&cc(&same, &["locate", "Cart"])), [("src/cart.rs".into(), 11)]);

    // Another key, an unsigned snapshot, or a signed one whose manifest was changed and its
    // checksums recomputed: refused, the store untouched.
    let other = clone(&repo, "other-key");
    git(&other, &["config", "codecompass.snapshotKey", "another-secret"]);
    let mut tampered = manifest.clone();
    tampered["views"][0]["refs"] = json!(["refs/heads/evil"]);
    let mut entries = vec![manifest_entry(&tampered)];
    entries.extend(unpack(&signed)[1..].iter().map(|(n, d)| entry(n, d.clone())));
    let resigned = tmp.path().join("tampered.tar.zst");
    craft(&resigned, &entries);
    for (target, file, what) in
        [(&other, &signed, "another key"), (&same, &unsigned, "unsigned"), (&same, &resigned, "tampered")]
    {
        let store = target.join(".git/codecompass");
        let before = if store.exists() { tree_digest(&store) } else { Vec::new() };
        let run = cc(target, &["snapshot", "import", file.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{what}: {}", run.stdout);
        assert_eq!(run.json["error"]["code"], "snapshot_invalid", "{what}: {}", run.stdout);
        assert!(run.json["error"]["data"]["remedy"].as_str().unwrap_or_default().contains("key"), "{what}");
        let after = if store.exists() { tree_digest(&store) } else { Vec::new() };
        assert_eq!(before, after, "{what} changed the store");
    }
    // No key here: a signed snapshot is taken as any other.
    let keyless = clone(&repo, "keyless");
    assert_eq!(cc(&keyless, &["snapshot", "import", signed.to_str().unwrap()]).code, 0);
}
