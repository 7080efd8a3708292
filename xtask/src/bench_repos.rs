//! `cargo xtask bench repos --repo DIR`: many registered repositories. `DIR` holds the source
//! repositories (working trees or bare mirrors); each is cloned into a scratch directory, and
//! forks of them (clones with 5% of their files changed in a new commit) make the number up to
//! 20. All are registered in a scratch registry (`CODECOMPASS_HOME`), never the user's.
//!
//! Measured, as whole processes, in the same run:
//! - indexing each original, then each fork (whose store is seeded from its original's, the
//!   one holding most of its files): the fork's time against its original's (target under
//!   10%);
//! - the query classes of `bench search` across all 20 (`--repo '*'`) against the slowest of
//!   the 20 single-repository runs of the same query (target within 3x);
//! - `repos list` with 100 registered repositories (target under 50 ms);
//! - questions in words across all 20: commit messages of each original (taken as `bench nl`
//!   takes them), whose answer is right when its first result comes from the question's own
//!   repository or a fork of it (no target; a ranking across repositories that fused ranks
//!   alone answered most of them from the repository whose alias sorts first).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;

use crate::BenchArgs;
use crate::bench::{release_binary, sample_names};
use crate::measure::{Scratch, median, secs};

/// How many repositories the queries run across.
const REPOS: usize = 20;
/// How many the registry holds for the listing.
const LISTED: usize = 100;
/// Questions in words asked of each original's commit messages.
const QUESTIONS: usize = 5;

/// `git` in `dir` with the identity the forks' commits are made with.
fn git(dir: &Path, args: &[&str]) -> Result<String> {
    crate::bench::git(
        dir,
        args,
        &[
            ("GIT_CONFIG_NOSYSTEM", "1"),
            ("GIT_AUTHOR_NAME", "Bench"),
            ("GIT_AUTHOR_EMAIL", "bench@example.com"),
            ("GIT_COMMITTER_NAME", "Bench"),
            ("GIT_COMMITTER_EMAIL", "bench@example.com"),
        ],
    )
}

/// The repositories under `dir`: subdirectories that are working trees or bare repositories
/// (a mirror's `repo` directory counts for its parent).
fn sources(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().replace('+', "-")).unwrap_or_default();
        let candidates = [path.clone(), path.join("repo")];
        if let Some(repo) = candidates.into_iter().find(|p| p.join(".git").exists() || p.join("HEAD").is_file()) {
            out.push((name, repo));
        }
    }
    out.sort();
    if out.is_empty() {
        bail!("no repository under {} (give a directory of clones or mirrors)", dir.display());
    }
    Ok(out)
}

/// Tracked files of a working tree.
fn tracked(dir: &Path) -> Result<usize> {
    Ok(git(dir, &["ls-files"])?.lines().count())
}

pub fn repos(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let scratch = Scratch::new("bench-repos")?;
    let home = scratch.0.join("home");
    let sources = sources(&args.repo)?;
    let cc = |dir: &Path, extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.args(extra).arg("--quiet").env("CODECOMPASS_HOME", &home).current_dir(dir);
        c
    };
    let run = |c: &mut Command| -> Result<(Duration, String)> {
        let started = Instant::now();
        let output = c.output()?;
        let elapsed = started.elapsed();
        if output.status.code().is_none_or(|code| code > 1) {
            bail!("{c:?}: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok((elapsed, String::from_utf8_lossy(&output.stdout).into_owned()))
    };

    // The originals, cloned; forks of them (round robin) make up the rest.
    let mut originals: Vec<(String, PathBuf, usize)> = Vec::new();
    for (name, source) in sources.iter().take(REPOS) {
        let dest = scratch.0.join(name);
        git(&scratch.0, &["clone", "--quiet", &source.to_string_lossy(), &dest.to_string_lossy()])?;
        let files = tracked(&dest)?;
        originals.push((name.clone(), dest, files));
    }
    let mut forks: Vec<(String, PathBuf, usize)> = Vec::new();
    for i in 0..REPOS.saturating_sub(originals.len()) {
        let (name, origin, _) = &originals[i % originals.len()];
        let fork_name = format!("{name}-fork{}", i / originals.len() + 1);
        let dest = scratch.0.join(&fork_name);
        git(&scratch.0, &["clone", "--quiet", &origin.to_string_lossy(), &dest.to_string_lossy()])?;
        let listing = git(&dest, &["ls-files"])?;
        let files: Vec<&str> = listing.lines().collect();
        let step = 20; // 5% of the files
        for (n, path) in files.iter().enumerate().filter(|(n, _)| n % step == i % step) {
            let full = dest.join(path);
            if full.is_file() && !full.is_symlink() {
                let mut text = std::fs::read(&full)?;
                text.extend_from_slice(format!("\n// fork {fork_name} change {n}\n").as_bytes());
                std::fs::write(&full, text)?;
            }
        }
        git(&dest, &["commit", "--quiet", "-am", "fork: 5% of the files changed"])?;
        forks.push((fork_name, dest, files.len()));
    }
    for (name, dir, _) in originals.iter().chain(&forks) {
        run(&mut cc(dir, &["repos", "add", ".", "--alias", name, "--no-index"]))?;
    }

    // Index: the originals first, then the forks, which share their originals' blobs.
    eprintln!("indexing {} originals and {} forks", originals.len(), forks.len());
    let mut index_times: Vec<(String, Duration, u64, u64, String)> = Vec::new();
    for (name, dir, _) in originals.iter().chain(&forks) {
        let (took, out) = run(&mut cc(dir, &["index", "--json"]))?;
        let answer: serde_json::Value = serde_json::from_str(&out)?;
        let total = &answer["total"];
        let seeded_from = answer["seeded"]["donor"]
            .as_str()
            .and_then(|d| Path::new(d).file_name())
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        index_times.push((
            name.clone(),
            took,
            total["blobs_parsed"].as_u64().unwrap_or(0),
            total["blobs_shared"].as_u64().unwrap_or(0),
            seeded_from,
        ));
    }
    let time_of = |name: &str| index_times.iter().find(|t| t.0 == name).map(|t| t.1);
    let mut fork_rows = Vec::new();
    for (name, _, files) in &forks {
        let origin = name.rsplit_once("-fork").map(|(o, _)| o).unwrap_or(name);
        let (Some(fork), Some(original)) = (time_of(name), time_of(origin)) else { continue };
        let entry = index_times.iter().find(|t| t.0 == *name).expect("indexed above");
        fork_rows.push(json!({
            "fork": name, "files": files, "fork_index_s": fork.as_secs_f64(),
            "original_index_s": original.as_secs_f64(), "ratio": fork.as_secs_f64() / original.as_secs_f64(),
            "blobs_parsed": entry.2, "blobs_shared": entry.3, "seeded_from": entry.4,
        }));
    }

    // Queries: names of the largest original, across all and in each alone.
    let (largest_name, largest, _) =
        originals.iter().max_by_key(|(_, _, files)| *files).cloned().context("no original repository")?;
    let store = largest.join(".git/codecompass");
    let n = args.runs.max(5);
    let mut cases: Vec<(&str, Vec<String>)> = Vec::new();
    for name in sample_names(&store, n, false)? {
        cases.push(("selective identifier", vec![name.clone()]));
        cases.push(("literal with punctuation", vec!["--mode".into(), "literal".into(), format!("{name}(")]));
    }
    for name in sample_names(&store, n, true)? {
        cases.push(("common identifier", vec![name]));
    }
    cases.push(("regex without literal", vec!["--mode".into(), "regex".into(), r"[0-9]{6,}".into()]));
    let all: Vec<&(String, PathBuf, usize)> = originals.iter().chain(&forks).collect();
    // Warm: each repository's first query (its status walk, a watcher maybe) is not measured.
    for (_, dir, _) in &all {
        run(&mut cc(dir, &["search", "warm_up_query"]))?;
    }
    let mut by_class: Vec<(&str, Vec<Duration>, Vec<Duration>)> = Vec::new();
    for (class, query) in &cases {
        let mut across_args = vec!["search", "--limit", "20", "--repo", "*"];
        across_args.extend(query.iter().map(String::as_str));
        let (across, _) = run(&mut cc(&scratch.0, &across_args))?;
        let mut slowest = Duration::ZERO;
        for (_, dir, _) in &all {
            let mut single = vec!["search", "--limit", "20"];
            single.extend(query.iter().map(String::as_str));
            slowest = slowest.max(run(&mut cc(dir, &single))?.0);
        }
        match by_class.iter_mut().find(|c| c.0 == *class) {
            Some(entry) => {
                entry.1.push(across);
                entry.2.push(slowest);
            }
            None => by_class.push((class, vec![across], vec![slowest])),
        }
    }

    // Questions in words: each original's commit messages, asked of all 20 at once.
    let (mut asked, mut first_right, mut reciprocal) = (0usize, 0usize, 0.0f64);
    let mut question_times = Vec::new();
    for (name, dir, _) in &originals {
        let (tasks, _, _) = crate::bench_nl::collect_tasks(dir, QUESTIONS)?;
        let family =
            |repo: &str| repo == name || repo.strip_prefix(name.as_str()).is_some_and(|r| r.starts_with("-fork"));
        for task in tasks {
            let (took, out) =
                run(&mut cc(&scratch.0, &["search", &task.query, "--repo", "*", "--limit", "10", "--json"]))?;
            let answer: serde_json::Value = serde_json::from_str(&out)?;
            let results = answer["results"].as_array().cloned().unwrap_or_default();
            let first = results.iter().position(|r| r["repo"].as_str().is_some_and(family));
            asked += 1;
            first_right += usize::from(first == Some(0));
            reciprocal += first.map_or(0.0, |i| 1.0 / (i + 1) as f64);
            question_times.push(took);
        }
    }

    // The registry with 100 repositories: small empty ones fill it up.
    for i in all.len()..LISTED {
        let dir = scratch.0.join(format!("empty-{i}"));
        git(&scratch.0, &["init", "--quiet", &dir.to_string_lossy()])?;
        run(&mut cc(&dir, &["repos", "add", ".", "--alias", &format!("empty-{i}"), "--no-index"]))?;
    }
    let mut listing = Vec::new();
    for _ in 0..n.max(9) {
        listing.push(run(&mut cc(&scratch.0, &["repos", "list", "--json"]))?.0);
    }

    // Report.
    println!(
        "\n## Many repositories ({} originals from {}, {} forks)\n",
        originals.len(),
        args.repo.display(),
        forks.len()
    );
    println!("| repository | files | index | blobs parsed | blobs shared |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, _, files) in originals.iter().chain(&forks) {
        let t = index_times.iter().find(|t| t.0 == *name).expect("indexed above");
        println!("| {name} | {files} | {} | {} | {} |", secs(t.1), t.2, t.3);
    }
    println!("\n| query class (median) | across {REPOS} (`--repo '*'`) | slowest single | ratio (target <= 3x) |");
    println!("| --- | ---: | ---: | ---: |");
    let mut class_rows = Vec::new();
    for (class, across, slowest) in &by_class {
        let (a, s) = (median(across), median(slowest));
        println!("| {class} | {} | {} | {:.2}x |", secs(a), secs(s), a.as_secs_f64() / s.as_secs_f64());
        class_rows.push(json!({"class": class, "across_s": a.as_secs_f64(), "slowest_single_s": s.as_secs_f64(),
                               "ratio": a.as_secs_f64() / s.as_secs_f64(), "queries": across.len()}));
    }
    let list_median = median(&listing);
    println!("\n`repos list --json` with {LISTED} registered: median {} (target < 50 ms)", secs(list_median));
    println!(
        "\n| fork (5% of files changed) | seeded from | blobs parsed | index | its original | ratio (target < 10%) |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for row in &fork_rows {
        println!(
            "| {} | {} | {} | {:.2} s | {:.2} s | {:.1}% |",
            row["fork"].as_str().unwrap_or(""),
            row["seeded_from"].as_str().filter(|s| !s.is_empty()).unwrap_or("-"),
            row["blobs_parsed"],
            row["fork_index_s"].as_f64().unwrap_or(0.0),
            row["original_index_s"].as_f64().unwrap_or(0.0),
            row["ratio"].as_f64().unwrap_or(0.0) * 100.0
        );
    }
    let mrr = reciprocal / asked.max(1) as f64;
    println!(
        "\nquestions in words (commit messages, {QUESTIONS} of each original) across {REPOS}: first result from the \
         question's repository or its fork {first_right}/{asked}, MRR {mrr:.2}, median {}",
        secs(median(&question_times))
    );
    println!("\n(queries sampled from {largest_name})");
    if let Some(path) = &args.json {
        let doc = json!({
            "originals": originals.len(), "forks": forks.len(),
            "index": index_times.iter().map(|t| json!({"repo": t.0, "seconds": t.1.as_secs_f64(),
                "blobs_parsed": t.2, "blobs_shared": t.3, "seeded_from": t.4})).collect::<Vec<_>>(),
            "forks_vs_originals": fork_rows, "queries": class_rows,
            "repos_list_median_s": list_median.as_secs_f64(),
            "questions": {"asked": asked, "first_right": first_right, "mrr": mrr,
                "median_s": median(&question_times).as_secs_f64()},
        });
        std::fs::write(path, serde_json::to_vec_pretty(&doc)?)?;
    }
    // Watchers the queries started (a large repository gets one) end with the benchmark.
    for (_, dir, _) in &all {
        let _ = cc(dir, &["watch", "--stop"]).output();
    }
    Ok(())
}
