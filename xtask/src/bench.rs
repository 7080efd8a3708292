//! The benchmarks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::measure::{self, Sample, Scratch, median, percentile, secs};

/// Builds the release binary and returns its path.
fn release_binary() -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "--bin", "git-codecompass"])
        .current_dir(&root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release failed");
    }
    Ok(std::fs::canonicalize(
        root.join("target/release/git-codecompass"),
    )?)
}

/// Files and bytes git tracks at HEAD in `repo`.
fn source_size(repo: &Path) -> Result<(u64, u64)> {
    let output = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo)
        .output()?;
    let mut files = 0;
    let mut bytes = 0;
    for path in output.stdout.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        let path = repo.join(String::from_utf8_lossy(path).as_ref());
        if let Ok(meta) = std::fs::symlink_metadata(&path)
            && meta.is_file()
        {
            files += 1;
            bytes += meta.len();
        }
    }
    Ok((files, bytes))
}

fn git(repo: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<String> {
    let mut command = Command::new("git");
    command.args(args).current_dir(repo);
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output()?;
    if !output.status.success() {
        bail!("git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// A commit (not on any branch) that changes `n` text files of HEAD by appending a line,
/// built with plumbing in a private index so the worktree and refs are untouched.
fn commit_changing(repo: &Path, n: usize, salt: usize, scratch: &Path) -> Result<String> {
    let index = scratch.join(format!("index-{salt}"));
    let index = index.to_string_lossy().into_owned();
    let env = [("GIT_INDEX_FILE", index.as_str())];
    git(repo, &["read-tree", "HEAD"], &env)?;
    let listing = git(repo, &["ls-files", "-s"], &env)?;
    let mut changed = 0;
    for line in listing.lines() {
        if changed == n {
            break;
        }
        let Some((meta, path)) = line.split_once('\t') else {
            continue;
        };
        let mut fields = meta.split_whitespace();
        let (Some(mode), Some(blob)) = (fields.next(), fields.next()) else {
            continue;
        };
        if mode != "100644"
            || !(path.ends_with(".c") || path.ends_with(".rs") || path.ends_with(".py"))
        {
            continue;
        }
        let content = Command::new("git")
            .args(["cat-file", "blob", blob])
            .current_dir(repo)
            .output()?
            .stdout;
        if content.len() > 200_000 {
            continue;
        }
        let mut changed_content = content;
        changed_content
            .extend_from_slice(format!("\n// codecompass bench edit {salt}\n").as_bytes());
        let tmp = scratch.join("blob");
        std::fs::write(&tmp, &changed_content)?;
        let new_blob = git(repo, &["hash-object", "-w", &tmp.to_string_lossy()], &[])?;
        git(
            repo,
            &[
                "update-index",
                "--cacheinfo",
                &format!("100644,{new_blob},{path}"),
            ],
            &env,
        )?;
        changed += 1;
    }
    let tree = git(repo, &["write-tree"], &env)?;
    let commit = git(
        repo,
        &[
            "commit-tree",
            &tree,
            "-p",
            "HEAD",
            "-m",
            &format!("bench edit {salt}"),
        ],
        &[
            ("GIT_AUTHOR_NAME", "bench"),
            ("GIT_AUTHOR_EMAIL", "bench@example.com"),
            ("GIT_COMMITTER_NAME", "bench"),
            ("GIT_COMMITTER_EMAIL", "bench@example.com"),
        ],
    )?;
    Ok(commit)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn max_rss(samples: &[Sample]) -> Option<u64> {
    samples.iter().filter_map(|s| s.peak_rss).max()
}

/// `cargo xtask bench index`.
pub fn index(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let repo = &args.repo;
    let scratch = Scratch::new("bench-index")?;
    let store = scratch.0.join("store");
    let (files, bytes) = source_size(repo)?;
    eprintln!(
        "corpus: {} ({files} files, {:.1} MiB), {} runs each",
        repo.display(),
        mib(bytes),
        args.runs
    );

    let cc = |extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.arg("--store")
            .arg(&store)
            .arg("--quiet")
            .args(extra)
            .current_dir(repo);
        c
    };

    // Cold index beside ctags, alternating so both see the same machine conditions.
    let mut ours = Vec::new();
    let mut ctags = Vec::new();
    let mut report = Value::Null;
    for run in 0..args.runs {
        let _ = std::fs::remove_dir_all(&store);
        let (sample, out) = measure::run(&mut cc(&["index", "--json"]))?;
        report = serde_json::from_slice(&out).context("index --json output")?;
        eprintln!("  run {run}: codecompass index {}", secs(sample.wall));
        ours.push(sample);
        let tags = scratch.0.join("tags");
        let (sample, _) = measure::run(
            Command::new("ctags")
                .args(["-R", "--exclude=.git", "-f"])
                .arg(&tags)
                .arg(".")
                .current_dir(repo),
        )?;
        eprintln!("  run {run}: ctags -R {}", secs(sample.wall));
        ctags.push(sample);
    }
    let store_bytes = measure::dir_size(&store);
    let ours_wall = median(&ours.iter().map(|s| s.wall).collect::<Vec<_>>());
    let ctags_wall = median(&ctags.iter().map(|s| s.wall).collect::<Vec<_>>());

    // Re-index of the unchanged tree.
    let mut unchanged = Vec::new();
    for _ in 0..args.runs.max(3) {
        unchanged.push(measure::run(&mut cc(&["index", "--json"]))?.0.wall);
    }
    let mut unchanged_ref = Vec::new();
    for _ in 0..args.runs.max(3) {
        unchanged_ref.push(
            measure::run(&mut cc(&["index", "--ref", "HEAD", "--json"]))?
                .0
                .wall,
        );
    }

    // A ref ten files away from HEAD, a new one each run.
    let mut ten = Vec::new();
    let mut ten_parsed = Vec::new();
    for salt in 0..args.runs.max(3) {
        let commit = commit_changing(repo, 10, salt + std::process::id() as usize, &scratch.0)?;
        let (sample, out) = measure::run(&mut cc(&["index", "--ref", &commit, "--json"]))?;
        let v: Value = serde_json::from_slice(&out)?;
        ten_parsed.push(v["views"][0]["blobs_parsed"].as_u64().unwrap_or(0));
        ten.push(sample.wall);
    }

    // locate, in-process and as whole processes.
    let (names, in_process) = locate_in_process(repo, &store)?;
    let mut whole = Vec::new();
    for name in names.iter().take(20) {
        let started = Instant::now();
        let status = cc(&["locate", name, "--ref", "HEAD"]).output()?.status;
        whole.push(started.elapsed());
        if !status.success() {
            bail!("locate {name} found nothing");
        }
    }

    let figures = json!({
        "corpus": repo.display().to_string(),
        "files": files,
        "source_bytes": bytes,
        "runs": args.runs,
        "cold_index": {
            "codecompass_s": ours_wall.as_secs_f64(),
            "ctags_s": ctags_wall.as_secs_f64(),
            "speed_vs_ctags": ctags_wall.as_secs_f64() / ours_wall.as_secs_f64(),
            "mb_per_s": mib(bytes) / ours_wall.as_secs_f64(),
            "files_per_s": files as f64 / ours_wall.as_secs_f64(),
            "peak_rss_bytes": max_rss(&ours),
            "ctags_peak_rss_bytes": max_rss(&ctags),
            "store_bytes": store_bytes,
            "store_vs_source": store_bytes as f64 / bytes as f64,
            "symbols": report["total"]["symbols"],
            "blobs_parsed": report["total"]["blobs_parsed"],
        },
        "reindex_unchanged_worktree_s": median(&unchanged).as_secs_f64(),
        "reindex_unchanged_ref_s": median(&unchanged_ref).as_secs_f64(),
        "ref_10_files_s": median(&ten).as_secs_f64(),
        "ref_10_files_blobs_parsed": ten_parsed,
        "locate_in_process": {
            "queries": in_process.len(),
            "p50_ms": percentile(&in_process, 50.0).as_secs_f64() * 1000.0,
            "p95_ms": percentile(&in_process, 95.0).as_secs_f64() * 1000.0,
        },
        "locate_whole_process": {
            "queries": whole.len(),
            "p50_ms": percentile(&whole, 50.0).as_secs_f64() * 1000.0,
            "p95_ms": percentile(&whole, 95.0).as_secs_f64() * 1000.0,
        },
    });

    println!(
        "cold index      codecompass {}  ctags -R {}  (speed {:.2}x of ctags)",
        secs(ours_wall),
        secs(ctags_wall),
        ctags_wall.as_secs_f64() / ours_wall.as_secs_f64()
    );
    println!(
        "                {:.1} MB/s, {:.0} files/s, peak RSS {:.0} MiB (ctags {:.0} MiB), {} symbols",
        mib(bytes) / ours_wall.as_secs_f64(),
        files as f64 / ours_wall.as_secs_f64(),
        mib(max_rss(&ours).unwrap_or(0)),
        mib(max_rss(&ctags).unwrap_or(0)),
        report["total"]["symbols"]
    );
    println!(
        "store           {:.1} MiB = {:.2}x the source",
        mib(store_bytes),
        store_bytes as f64 / bytes as f64
    );
    println!(
        "re-index        unchanged worktree {}  unchanged ref {}",
        secs(median(&unchanged)),
        secs(median(&unchanged_ref))
    );
    println!(
        "ref 10 files    {}  (blobs parsed per run: {ten_parsed:?})",
        secs(median(&ten))
    );
    println!(
        "locate          in-process p50 {} p95 {} ({} names); whole process p50 {} p95 {}",
        secs(percentile(&in_process, 50.0)),
        secs(percentile(&in_process, 95.0)),
        in_process.len(),
        secs(percentile(&whole, 50.0)),
        secs(percentile(&whole, 95.0)),
    );
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&figures)?)?;
    }
    Ok(())
}

/// Times `locate` through the library on up to 200 names that are defined exactly once.
fn locate_in_process(repo: &Path, store: &Path) -> Result<(Vec<String>, Vec<Duration>)> {
    use codecompass::engine::{Engine, EngineOptions, Freshness, LocateRequest};
    use codecompass::view::Scope;
    let engine = Engine::open(
        repo,
        &EngineOptions {
            store_dir: Some(store.to_owned()),
        },
    )?;
    let names: Vec<String> = {
        let db = codecompass::store::Store::open(store, false)?;
        let mut stmt = db.conn().prepare(
            "SELECT name FROM symbols WHERE declaration = 0 AND name NOT GLOB '*[^A-Za-z0-9_]*'
             GROUP BY name HAVING count(*) = 1
             ORDER BY substr(min(stable_id), 1, 8) LIMIT 200",
        )?;

        stmt.query_map([], |r| r.get::<_, String>(0))?
            .filter_map(Result::ok)
            .collect()
    };
    let mut times = Vec::with_capacity(names.len());
    for name in &names {
        let request = LocateRequest {
            name: name.clone(),
            kind: None,
            lang: None,
            scope: Scope::Ref("HEAD".to_owned()),
            limit: 20,
            freshness: Freshness::BestEffort,
        };
        let started = Instant::now();
        let response = engine.locate(&request)?;
        times.push(started.elapsed());
        if response.results.is_empty() {
            bail!("locate {name} found nothing in-process");
        }
    }
    Ok((names, times))
}

/// `cargo xtask bench queries`: the one-time cost of compiling each language's query.
pub fn queries() -> Result<()> {
    let mut rows = Vec::new();
    for language in codecompass::lang::LANGUAGES {
        let started = Instant::now();
        codecompass::extract::check_query(language).map_err(anyhow::Error::msg)?;
        rows.push((started.elapsed(), language.name));
    }
    rows.sort();
    rows.reverse();
    for (time, name) in rows {
        println!("{name:12} {}", secs(time));
    }
    Ok(())
}
