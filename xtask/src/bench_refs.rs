//! `cargo xtask bench refs` (branch switches with the hooks installed) and `cargo xtask bench
//! snapshot` (a CI cache restored, then caught up).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::bench::{commit_changing, commit_changing_from, git, max_rss, mib, release_binary, source_size};
use crate::measure::{self, Sample, Scratch, median, percentile, secs};

/// Waits until `check` succeeds, polling; returns how long it took.
fn time_until(mut check: impl FnMut() -> bool, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if check() {
            return Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// `cargo xtask bench refs`: branch switches with hooks installed, on a shared clone.
pub fn refs(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let bin_dir = bin.parent().expect("the binary lives in a directory").to_owned();
    let path_env = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let scratch = Scratch::new("bench-refs")?;
    let clone = scratch.0.join("clone");
    eprintln!("cloning {} (shared objects) ...", args.repo.display());
    let status = Command::new("git").args(["clone", "-q", "--shared"]).arg(&args.repo).arg(&clone).status()?;
    if !status.success() {
        bail!("git clone failed");
    }
    let run_git = |a: &[&str]| -> Result<()> {
        let out = Command::new("git").args(a).current_dir(&clone).env("PATH", &path_env).output()?;
        if !out.status.success() {
            bail!("git {a:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
        Ok(())
    };
    run_git(&["config", "codecompass.freshness", "best_effort"])?;
    let cc = |a: &[&str]| {
        let mut c = Command::new(&bin);
        c.args(a).arg("--quiet").current_dir(&clone).env("PATH", &path_env);
        c
    };
    let store = clone.join(".git/codecompass");

    // The starting point: everything indexed (this is also the full-index figure).
    let (cold, _) = measure::run(&mut cc(&["sync"]))?;
    eprintln!("cold sync {}", secs(cold.wall));
    let installed = cc(&["hooks", "install"]).output()?;
    if !installed.status.success() {
        bail!("hooks install failed");
    }

    // Hook return time: the hook as git runs it.
    let hook = clone.join(".git/hooks/post-checkout");
    let mut hook_times = Vec::new();
    for _ in 0..args.runs.max(5) {
        let started = Instant::now();
        Command::new(&hook).args(["0", "0", "1"]).current_dir(&clone).env("PATH", &path_env).status()?;
        hook_times.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(300));
    }
    // Let those syncs finish.
    time_until(
        || !store.join("sync.pending").exists() && cc(&["status", "--json"]).output().is_ok(),
        Duration::from_secs(60),
    );
    std::thread::sleep(Duration::from_secs(2));

    let mut switches = Vec::new();
    for (i, n) in [1usize, 10, 100, 1000].into_iter().enumerate() {
        let salt = 1000 + i;
        let commit = commit_changing(&clone, n, salt, &scratch.0)?;
        let branch = format!("bench-switch-{n}");
        run_git(&["branch", "-f", &branch, &commit])?;
        let marker = format!("codecompass bench edit {salt}");
        run_git(&["checkout", "-q", "--detach", "HEAD"])?;
        let started = Instant::now();
        run_git(&["checkout", "-q", &branch])?;
        let checkout = started.elapsed();
        let ended = Instant::now();
        let searchable = time_until(
            || {
                cc(&["search", "--mode", "literal", &marker, "--ref", &branch, "--limit", "1"])
                    .output()
                    .is_ok_and(|o| o.status.code() == Some(0))
            },
            Duration::from_secs(600),
        );
        let since_checkout = ended.elapsed();
        eprintln!(
            "switch {n:>4} files: checkout {} then searchable after {}",
            secs(checkout),
            searchable.map_or("never".into(), secs)
        );
        switches.push(json!({
            "files": n, "checkout_ms": checkout.as_secs_f64() * 1e3,
            "searchable_after_checkout_ms": searchable.map(|d| d.as_secs_f64() * 1e3),
            "measured_until_ms": since_checkout.as_secs_f64() * 1e3,
        }));
    }

    // The same switch done by a full re-index from scratch, for comparison. Its cost does not
    // depend on how many files the switch touched, so it is measured once, on the last branch.
    let fresh = scratch.0.join("fresh");
    let (full, _) = measure::run(
        Command::new(&bin)
            .arg("--store")
            .arg(&fresh)
            .args(["--quiet", "index", "--ref", "bench-switch-1000"])
            .current_dir(&clone),
    )?;
    let _ = std::fs::remove_dir_all(&fresh);
    eprintln!("full re-index of bench-switch-1000: {}", secs(full.wall));

    // Store growth: 100 branches of up to 20 changed files each.
    run_git(&["config", "codecompass.refs", "refs/heads/bench-growth-*"])?;
    measure::run(&mut cc(&["sync"]))?;
    let before = measure::dir_size(&store);
    for b in 0..100usize {
        let commit = commit_changing(&clone, 1 + b % 20, 5000 + b, &scratch.0)?;
        run_git(&["branch", "-f", &format!("bench-growth-{b}"), &commit])?;
    }
    let (grow, _) = measure::run(&mut cc(&["sync"]))?;
    let after = measure::dir_size(&store);
    let growth = (after as f64 - before as f64) / before as f64 * 100.0;

    println!(
        "hook returns: p50 {} p95 {} ({} runs)",
        secs(percentile(&hook_times, 50.0)),
        secs(percentile(&hook_times, 95.0)),
        hook_times.len()
    );
    for s in &switches {
        println!(
            "switch {:>4} files: searchable {:>9} after checkout (checkout itself {:.0} ms)",
            s["files"],
            s["searchable_after_checkout_ms"].as_f64().map_or("never".into(), |ms| format!("{ms:.0} ms")),
            s["checkout_ms"].as_f64().unwrap_or(0.0)
        );
    }
    println!("the same switch by a full re-index: {}", secs(full.wall));
    println!(
        "store growth for 100 branches of <=20 changed files: {:.1} MiB -> {:.1} MiB (+{growth:.2}%), synced in {}",
        mib(before),
        mib(after),
        secs(grow.wall)
    );
    if let Some(path) = &args.json {
        let figures = json!({
            "hook_p50_ms": percentile(&hook_times, 50.0).as_secs_f64() * 1e3,
            "hook_p95_ms": percentile(&hook_times, 95.0).as_secs_f64() * 1e3,
            "switches": switches,
            "store_before": before, "store_after": after, "growth_percent": growth,
            "cold_sync_ms": cold.wall.as_secs_f64() * 1e3,
            "full_reindex_ms": full.wall.as_secs_f64() * 1e3,
        });
        std::fs::write(path, serde_json::to_string_pretty(&figures)?)?;
    }
    Ok(())
}

/// `cargo xtask bench snapshot`: export and import (time, size) of a real repository's index,
/// and import plus catch-up from a snapshot 20 commits behind against a fresh index of the
/// same commit.
///
/// "20 commits behind" is the repository's own history: the snapshot is of `HEAD~20` (first
/// parents) and the catch-up goes to `HEAD`, so the files changed are what 20 real commits
/// change. A history shorter than that gets a chain of 20 commits built with plumbing (5 files
/// each), leaving the checkout and its refs untouched. The catch-up is `index --ref <commit>`,
/// which is what `sync` does for a `HEAD` that moved there (the worktree view, which needs the
/// checkout itself, is left out on both sides).
pub fn snapshot(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let repo = &args.repo;
    let scratch = Scratch::new("bench-snapshot")?;
    let (files, bytes) = source_size(repo)?;
    eprintln!("corpus: {} ({files} files, {:.1} MiB), {} runs each", repo.display(), mib(bytes), args.runs);

    let head = git(repo, &["rev-parse", "HEAD"], &[])?;
    let (base, tip, history) = match git(repo, &["rev-parse", "--verify", "--quiet", "HEAD~20^{commit}"], &[]) {
        Ok(base) if !base.is_empty() => (base, head, "HEAD~20 -> HEAD"),
        _ => {
            let mut tip = head.clone();
            let salt = std::process::id() as usize;
            for i in 0..20 {
                tip = commit_changing_from(repo, &tip, 5, i * 5, salt + i, &scratch.0)?;
            }
            (head, tip, "20 synthetic commits of 5 files")
        }
    };
    let changed = git(repo, &["diff", "--name-only", &base, &tip], &[])?.lines().count();
    eprintln!("snapshot of {base}, catch-up to {tip} ({history}, {changed} files changed)");

    let cc = |store: &Path, extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.arg("--store").arg(store).arg("--quiet").args(extra).current_dir(repo);
        c
    };
    let parsed = |out: &[u8]| -> u64 {
        serde_json::from_slice::<Value>(out).map(|v| v["total"]["blobs_parsed"].as_u64().unwrap_or(0)).unwrap_or(0)
    };

    // The source index: HEAD, from scratch.
    let source = scratch.0.join("source");
    let (source_index, _) = measure::run(&mut cc(&source, &["index", "--ref", &base, "--json"]))?;
    let store_bytes = measure::dir_size(&source);
    eprintln!("source index: {} ({:.1} MiB)", secs(source_index.wall), mib(store_bytes));

    let file = scratch.0.join("snapshot.tar.zst");
    let file_arg = file.to_string_lossy().into_owned();
    let mut export = Vec::new();
    for _ in 0..args.runs {
        let _ = std::fs::remove_file(&file);
        export.push(
            measure::run(&mut cc(&source, &["snapshot", "export", "-o", &file_arg, "--ref", &base, "--json"]))?.0,
        );
    }
    let snapshot_bytes = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);

    let target = scratch.0.join("target");
    let fresh_store = scratch.0.join("fresh");
    let (mut import, mut catch_up, mut restore, mut fresh) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut catch_up_parsed, mut fresh_parsed) = (Vec::new(), Vec::new());
    for run in 0..args.runs {
        let _ = std::fs::remove_dir_all(&target);
        let (imported, _) = measure::run(&mut cc(&target, &["snapshot", "import", &file_arg, "--json"]))?;
        let (caught_up, out) = measure::run(&mut cc(&target, &["index", "--ref", &tip, "--json"]))?;
        catch_up_parsed.push(parsed(&out));
        restore.push(imported.wall + caught_up.wall);
        eprintln!(
            "  run {run}: import {} + catch-up {} = {}",
            secs(imported.wall),
            secs(caught_up.wall),
            secs(imported.wall + caught_up.wall)
        );
        import.push(imported);
        catch_up.push(caught_up);

        let _ = std::fs::remove_dir_all(&fresh_store);
        let (from_scratch, out) = measure::run(&mut cc(&fresh_store, &["index", "--ref", &tip, "--json"]))?;
        fresh_parsed.push(parsed(&out));
        eprintln!("  run {run}: fresh index of the same commit {}", secs(from_scratch.wall));
        fresh.push(from_scratch);
    }
    let wall = |samples: &[Sample]| median(&samples.iter().map(|s| s.wall).collect::<Vec<_>>());
    let restore_wall = median(&restore);
    let speedup = wall(&fresh).as_secs_f64() / restore_wall.as_secs_f64();
    let size_ratio = snapshot_bytes as f64 / store_bytes as f64;

    println!(
        "export          {}  snapshot {:.1} MiB = {:.2}x the store ({:.1} MiB){}",
        secs(wall(&export)),
        mib(snapshot_bytes),
        size_ratio,
        mib(store_bytes),
        if size_ratio <= 1.0 { "" } else { "  (target: at most the store)" }
    );
    println!("import          {}  peak RSS {:.0} MiB", secs(wall(&import)), mib(max_rss(&import).unwrap_or(0)));
    println!(
        "catch-up        {}  {history}, {changed} files, blobs parsed per run {catch_up_parsed:?}",
        secs(wall(&catch_up))
    );
    println!(
        "restore         import + catch-up {}  vs fresh index {} (blobs parsed {fresh_parsed:?}): {speedup:.1}x faster{}",
        secs(restore_wall),
        secs(wall(&fresh)),
        if speedup >= 10.0 { "" } else { "  (target: at least 10x)" }
    );
    if let Some(path) = &args.json {
        let figures = json!({
            "corpus": repo.display().to_string(),
            "files": files,
            "source_bytes": bytes,
            "runs": args.runs,
            "store_bytes": store_bytes,
            "snapshot_bytes": snapshot_bytes,
            "snapshot_vs_store": size_ratio,
            "export_s": wall(&export).as_secs_f64(),
            "import_s": wall(&import).as_secs_f64(),
            "import_peak_rss_bytes": max_rss(&import),
            "catch_up_s": wall(&catch_up).as_secs_f64(),
            "catch_up_history": history,
            "catch_up_files_changed": changed,
            "catch_up_blobs_parsed": catch_up_parsed,
            "restore_s": restore_wall.as_secs_f64(),
            "fresh_index_s": wall(&fresh).as_secs_f64(),
            "fresh_blobs_parsed": fresh_parsed,
            "restore_speedup": speedup,
        });
        std::fs::write(path, serde_json::to_string_pretty(&figures)?)?;
    }
    Ok(())
}
