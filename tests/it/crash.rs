//! Crash injection: index, sync, gc and snapshot import are killed at every failpoint and at
//! seeded random moments. Afterwards the store opens, the crash is reported until a later
//! success, the next run finishes the job, and every answer agrees with an index built from
//! scratch.
//!
//! The random moments come from a fixed seed (override with `CODECOMPASS_CRASH_SEED`; more
//! of them with `CODECOMPASS_CRASH_KILLS`, 3 per operation by default), so a failure names the
//! seed that replays it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{Rng, TempDir, bin, cc, fixture, git, located};

fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

/// One operation under test: a prepared repository to copy, the command, the refs to ask
/// about afterwards, and its failpoints with whether the job is recorded by then.
struct Operation {
    name: &'static str,
    template: PathBuf,
    args: Vec<String>,
    refs: Vec<String>,
    /// Failpoint, and whether a job row exists (so `status` must report it) when it is hit.
    points: Vec<(&'static str, bool)>,
}

const NAMES: &[&str] = &["Cart", "ShopClient", "shop_checksum", "Inventory", "apply_coupon", "extra_function"];

/// What a store answers: `locate` of every name at every scope, and one ranked search.
fn answers(repo: &Path, store: Option<&Path>, refs: &[String]) -> Vec<String> {
    let run = |args: &[&str]| {
        let mut all: Vec<&str> = Vec::new();
        if let Some(store) = store {
            all.extend(["--store", store.to_str().unwrap()]);
        }
        all.extend_from_slice(args);
        cc(repo, &all)
    };
    let mut out = Vec::new();
    let mut scopes: Vec<Option<&str>> = vec![None];
    scopes.extend(refs.iter().map(|r| Some(r.as_str())));
    for scope in scopes {
        for name in NAMES {
            let mut args = vec!["locate", name];
            if let Some(r) = scope {
                args.extend(["--ref", r]);
            }
            let r = run(&args);
            assert!(r.code <= 1, "locate {name} at {scope:?}: {} {}", r.stdout, r.stderr);
            out.push(format!("{scope:?} {name} {:?}", located(&r)));
        }
        let mut args = vec!["search", "cart total"];
        if let Some(r) = scope {
            args.extend(["--ref", r]);
        }
        let r = run(&args);
        let hits: Vec<(Value, Value)> = r.json["results"]
            .as_array()
            .map(|a| a.iter().map(|h| (h["path"].clone(), h["line_start"].clone())).collect())
            .unwrap_or_default();
        out.push(format!("{scope:?} search {hits:?}"));
    }
    out
}

fn status(repo: &Path) -> Value {
    let run = cc(repo, &["status"]);
    assert_eq!(run.code, 0, "status after a crash: {} {}", run.stdout, run.stderr);
    run.json
}

/// Runs `op` in a fresh copy of its template, stopped as `crash` says; then checks the
/// store, finishes the job, and compares the answers with `expected`.
fn crash_and_recover(op: &Operation, scratch: &Path, label: &str, crash: Crash, expected: &Expected) {
    let repo = scratch.join(label);
    copy_dir(&op.template, &repo);
    let mut command = bin();
    command.args(&op.args).args(["--quiet", "--json"]).current_dir(&repo);
    command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    let mut job_recorded = None;
    match crash {
        Crash::At(point, recorded) => {
            let out = command.env("CODECOMPASS_FAILPOINTS", format!("{point}=exit")).status().unwrap();
            assert!(!out.success(), "{}: {point} was never reached", op.name);
            job_recorded = Some(recorded);
        }
        Crash::After(delay) => {
            let mut child = command.spawn().unwrap();
            std::thread::sleep(delay);
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    let what = format!("{} crashed {crash:?}", op.name);

    // The store opens (or is still empty), and the crash is reported.
    let after = status(&repo);
    let state = after["store_state"].as_str().unwrap_or_default();
    assert!(state == "compatible" || state == "not_indexed", "{what}: store is {state}");
    let interrupted = after["interrupted_jobs"].as_array().map_or(0, Vec::len);
    if job_recorded == Some(true) {
        assert!(interrupted > 0, "{what}: no interrupted job reported: {after}");
        let doctor = cc(&repo, &["doctor"]);
        assert!(
            doctor.json["problems"].as_array().unwrap().iter().any(|p| p["code"] == "interrupted_job"),
            "{what}: doctor: {}",
            doctor.stdout
        );
    }

    // The next run finishes the job and clears the report.
    let rerun = cc(&repo, &op.args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(rerun.code, 0, "{what}: the next run failed: {} {}", rerun.stdout, rerun.stderr);
    let after = status(&repo);
    assert_eq!(after["interrupted_jobs"].as_array().map(Vec::len), Some(0), "{what}: {after}");

    // Every answer agrees with a from-scratch index of the same repository, and no
    // full-text document was left twice or forgotten.
    assert_eq!(answers(&repo, None, &op.refs), expected.answers, "{what}");
    assert_eq!(documents(&repo), expected.documents, "{what}: full-text documents");
    let _ = std::fs::remove_dir_all(&repo);
}

/// What a run that was never interrupted gives.
struct Expected {
    answers: Vec<String>,
    /// Full-text documents in the store afterwards.
    documents: u64,
}

fn documents(repo: &Path) -> u64 {
    cc(repo, &["doctor"]).json["fulltext"]["documents"].as_u64().unwrap_or(0)
}

#[derive(Clone, Copy, Debug)]
enum Crash {
    /// Abort at this failpoint; whether the job row exists by then.
    At(&'static str, bool),
    /// SIGKILL after this long.
    After(Duration),
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}

fn operations(tmp: &Path) -> Vec<Operation> {
    let (_guard, shop) = fixture("shop");
    let base = tmp.join("shop");
    copy_dir(&shop, &base);
    let write = |repo: &Path, path: &str, text: &str| std::fs::write(repo.join(path), text).unwrap();
    let clone = |name: &str| {
        let target = tmp.join(name);
        git(tmp, &["clone", "-q", base.to_str().unwrap(), target.to_str().unwrap()]);
        target
    };

    // index: a repository never indexed.
    let index = tmp.join("t-index");
    copy_dir(&base, &index);

    // sync: indexed, then a commit and an uncommitted edit.
    let sync = tmp.join("t-sync");
    copy_dir(&base, &sync);
    assert_eq!(cc(&sync, &["index"]).code, 0);
    write(&sync, "src/extra.rs", "pub fn extra_function() -> u32 {\n    7\n}\n");
    git(&sync, &["add", "-A"]);
    git(&sync, &["-c", "commit.gpgsign=false", "commit", "-q", "-m", "extra"]);
    write(&sync, "native/checksum.c", "unsigned long shop_checksum(void) { return 0; }\n");

    // gc: several refs indexed, then two of them deleted.
    let gc = tmp.join("t-gc");
    copy_dir(&base, &gc);
    assert_eq!(cc(&gc, &["index", "--ref", "main", "--ref", "feature", "--ref", "old-line", "--ref", "v1.0"]).code, 0);
    assert_eq!(cc(&gc, &["index"]).code, 0);
    git(&gc, &["branch", "-q", "-D", "old-line", "delete"]);

    // import: a snapshot of main and feature, into an empty clone and into an indexed one.
    assert_eq!(cc(&base, &["index", "--ref", "main", "--ref", "feature"]).code, 0);
    let file = tmp.join("shop.tar.zst");
    assert_eq!(cc(&base, &["snapshot", "export", "-o", file.to_str().unwrap()]).code, 0);
    let install = clone("t-install");
    let merge = clone("t-merge");
    write(&merge, "src/extra.rs", "pub fn extra_function() -> u32 {\n    8\n}\n");
    assert_eq!(cc(&merge, &["index"]).code, 0);
    let import = s(&["snapshot", "import", file.to_str().unwrap()]);

    let index_points = vec![
        ("index.after_file_versions", true),
        ("index.after_fulltext_commit", true),
        ("index.before_publish", true),
    ];
    vec![
        Operation {
            name: "index",
            template: index,
            args: s(&["index"]),
            refs: s(&["feature", "v1.0"]),
            points: index_points.clone(),
        },
        Operation {
            name: "sync",
            template: sync,
            args: s(&["sync"]),
            refs: s(&["main", "v1.0"]),
            points: index_points,
        },
        Operation {
            name: "gc",
            template: gc,
            args: s(&["gc", "--grace-days", "0"]),
            refs: s(&["main", "feature", "v1.0"]),
            points: vec![("gc.before_commit", true), ("gc.after_records", true), ("gc.after_fulltext_commit", true)],
        },
        Operation {
            name: "import into an empty store",
            template: install,
            args: import.clone(),
            refs: s(&["origin/feature"]),
            points: vec![
                ("import.after_unpack", false),
                ("import.before_install", false),
                ("import.after_fts_install", false),
                ("import.after_install", false),
            ],
        },
        Operation {
            name: "import into a populated store",
            template: merge,
            args: import,
            refs: s(&["origin/feature"]),
            points: vec![
                ("import.before_merge", true),
                ("import.after_merge_records", true),
                ("index.after_file_versions", true),
                ("index.before_publish", true),
            ],
        },
    ]
}

#[test]
fn killed_writers_leave_a_store_that_opens_reports_the_crash_and_finishes_the_job() {
    let seed: u64 = std::env::var("CODECOMPASS_CRASH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_c0de);
    let mut rng = Rng(seed | 1);
    let kills: usize = std::env::var("CODECOMPASS_CRASH_KILLS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let tmp = TempDir::new("crash");
    let ops = operations(tmp.path());
    let scratch = tmp.path().join("runs");
    std::fs::create_dir_all(&scratch).unwrap();
    for (n, op) in ops.iter().enumerate() {
        // From scratch: the same repository, the same operation, never interrupted, then
        // answers from a store built by one index of everything asked about.
        let clean = scratch.join(format!("clean-{n}"));
        copy_dir(&op.template, &clean);
        let started = Instant::now();
        let run = cc(&clean, &op.args.iter().map(String::as_str).collect::<Vec<_>>());
        let took = started.elapsed();
        assert_eq!(run.code, 0, "{}: {} {}", op.name, run.stdout, run.stderr);
        let fresh_store = scratch.join(format!("fresh-{n}"));
        let scratch_answers = answers(&clean, Some(&fresh_store), &op.refs);
        assert_eq!(answers(&clean, None, &op.refs), scratch_answers, "{}: uninterrupted", op.name);
        let expected = Expected { answers: scratch_answers, documents: documents(&clean) };
        let _ = std::fs::remove_dir_all(&clean);

        for (i, (point, recorded)) in op.points.iter().enumerate() {
            crash_and_recover(op, &scratch, &format!("{n}-point-{i}"), Crash::At(point, *recorded), &expected);
        }
        for i in 0..kills {
            let delay = Duration::from_micros(rng.below(took.as_micros() as usize) as u64);
            crash_and_recover(op, &scratch, &format!("{n}-kill-{i}"), Crash::After(delay), &expected);
        }
    }
    eprintln!("crash injection passed with seed {seed}");
}
