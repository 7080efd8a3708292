//! The benchmarks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::measure::{self, Sample, Scratch, median, percentile, secs};

/// Builds the release binary and returns its path; `CODECOMPASS_BIN` names another binary
/// to measure instead, without building.
pub(crate) fn release_binary() -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("CODECOMPASS_BIN") {
        let bin = std::fs::canonicalize(&bin)
            .with_context(|| format!("CODECOMPASS_BIN={} does not exist", Path::new(&bin).display()))?;
        eprintln!("measuring CODECOMPASS_BIN={}, not a fresh release build", bin.display());
        return Ok(bin);
    }
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
    // Where cargo put it: `CARGO_TARGET_DIR` when set (a second checkout's benchmark must not
    // replace the binary another one is measuring), else `target/`.
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |d| root.join(d));
    Ok(std::fs::canonicalize(target.join("release/git-codecompass"))?)
}

/// Files and bytes git tracks at HEAD in `repo`.
pub(crate) fn source_size(repo: &Path) -> Result<(u64, u64)> {
    let output = Command::new("git").args(["ls-files", "-z"]).current_dir(repo).output()?;
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

pub(crate) fn git(repo: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<String> {
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
pub(crate) fn commit_changing(repo: &Path, n: usize, salt: usize, scratch: &Path) -> Result<String> {
    commit_changing_from(repo, "HEAD", n, 0, salt, scratch)
}

/// A commit on top of `parent` that changes `n` text files by appending a line, passing over
/// the first `skip` candidates (so a chain of commits can touch different files).
pub(crate) fn commit_changing_from(
    repo: &Path,
    parent: &str,
    n: usize,
    skip: usize,
    salt: usize,
    scratch: &Path,
) -> Result<String> {
    let index = scratch.join(format!("index-{salt}"));
    let index = index.to_string_lossy().into_owned();
    let env = [("GIT_INDEX_FILE", index.as_str())];
    git(repo, &["read-tree", parent], &env)?;
    let listing = git(repo, &["ls-files", "-s"], &env)?;
    let mut changed = 0;
    let mut skipped = 0;
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
        if mode != "100644" || !(path.ends_with(".c") || path.ends_with(".rs") || path.ends_with(".py")) {
            continue;
        }
        let content = Command::new("git").args(["cat-file", "blob", blob]).current_dir(repo).output()?.stdout;
        if content.len() > 200_000 {
            continue;
        }
        if skipped < skip {
            skipped += 1;
            continue;
        }
        let mut changed_content = content;
        changed_content.extend_from_slice(format!("\n// codecompass bench edit {salt}\n").as_bytes());
        let tmp = scratch.join("blob");
        std::fs::write(&tmp, &changed_content)?;
        let new_blob = git(repo, &["hash-object", "-w", &tmp.to_string_lossy()], &[])?;
        git(repo, &["update-index", "--cacheinfo", &format!("100644,{new_blob},{path}")], &env)?;
        changed += 1;
    }
    let tree = git(repo, &["write-tree"], &env)?;
    let commit = git(
        repo,
        &["commit-tree", &tree, "-p", parent, "-m", &format!("bench edit {salt}")],
        &[
            ("GIT_AUTHOR_NAME", "bench"),
            ("GIT_AUTHOR_EMAIL", "bench@example.com"),
            ("GIT_COMMITTER_NAME", "bench"),
            ("GIT_COMMITTER_EMAIL", "bench@example.com"),
        ],
    )?;
    Ok(commit)
}

pub(crate) fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

pub(crate) fn max_rss(samples: &[Sample]) -> Option<u64> {
    samples.iter().filter_map(|s| s.peak_rss).max()
}

/// `cargo xtask bench index`.
pub fn index(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let repo = &args.repo;
    let scratch = Scratch::new("bench-index")?;
    let store = scratch.0.join("store");
    let _stop = measure::StopWatcher { bin: &bin, store: &store, repo };
    let (files, bytes) = source_size(repo)?;
    eprintln!("corpus: {} ({files} files, {:.1} MiB), {} runs each", repo.display(), mib(bytes), args.runs);

    let cc = |extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.arg("--store").arg(&store).arg("--quiet").args(extra).current_dir(repo);
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
            Command::new("ctags").args(["-R", "--exclude=.git", "-f"]).arg(&tags).arg(".").current_dir(repo),
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
        unchanged_ref.push(measure::run(&mut cc(&["index", "--ref", "HEAD", "--json"]))?.0.wall);
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
    println!("store           {:.1} MiB = {:.2}x the source", mib(store_bytes), store_bytes as f64 / bytes as f64);
    println!(
        "re-index        unchanged worktree {}  unchanged ref {}",
        secs(median(&unchanged)),
        secs(median(&unchanged_ref))
    );
    println!("ref 10 files    {}  (blobs parsed per run: {ten_parsed:?})", secs(median(&ten)));
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
    let engine = Engine::open(repo, &EngineOptions { store_dir: Some(store.to_owned()), ..Default::default() })?;
    let names: Vec<String> = {
        let db = codecompass::store::Store::open(store, false)?;
        let mut stmt = db.conn().prepare(
            "SELECT name FROM symbols WHERE declaration = 0 AND name NOT GLOB '*[^A-Za-z0-9_]*'
             GROUP BY name HAVING count(*) = 1
             ORDER BY substr(min(stable_id), 1, 8) LIMIT 200",
        )?;

        stmt.query_map([], |r| r.get::<_, String>(0))?.filter_map(Result::ok).collect()
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

/// Timings of one query class: ours (worktree), ours (at another ref), rg, git grep,
/// in-process.
type ClassTimes = (&'static str, Vec<Duration>, Vec<Duration>, Vec<Duration>, Vec<Duration>, Vec<Duration>);

/// One query of the search benchmark.
struct SearchCase {
    class: &'static str,
    /// Our arguments after `search`.
    ours: Vec<String>,
    /// The same question to `rg` on the checkout.
    rg: Vec<String>,
    /// The same question to `git grep` at another ref (`None`: not comparable).
    git_grep: Option<Vec<String>>,
}

pub(crate) fn sample_names(store: &Path, limit: usize, common: bool) -> Result<Vec<String>> {
    let db = codecompass::store::Store::open(store, false)?;
    let sql = if common {
        "SELECT name FROM symbols WHERE length(name) >= 4 AND name NOT GLOB '*[^A-Za-z0-9_]*'
         GROUP BY name ORDER BY count(*) DESC, name LIMIT ?1"
    } else {
        "SELECT name FROM symbols WHERE declaration = 0 AND length(name) >= 6 AND name NOT GLOB '*[^A-Za-z0-9_]*'
         GROUP BY name HAVING count(*) = 1 ORDER BY substr(min(stable_id), 1, 8) LIMIT ?1"
    };
    let mut stmt = db.conn().prepare(sql)?;
    let rows = stmt.query_map([limit as i64], |r| r.get::<_, String>(0))?.filter_map(Result::ok).collect();
    Ok(rows)
}

/// Runs of two or more characters other than ASCII in the tracked text (words of other
/// scripts in comments and strings, symbols such as `→`), at most `limit`, spread over the
/// distinct ones: exact search narrows them by index format 5's trigrams of every window of
/// bytes. None when the text has none (or `git grep -P` is missing).
fn sample_other_characters(repo: &Path, limit: usize) -> Vec<String> {
    let found = git(repo, &["grep", "-h", "-o", "-I", "-P", "[^\\x00-\\x7F]{2,}"], &[("LC_ALL", "C.UTF-8")]);
    let all: std::collections::BTreeSet<String> = found
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|run| run.chars().count() >= 2 && !run.contains('\u{FFFD}'))
        .map(str::to_owned)
        .collect();
    let step = (all.len() / limit.max(1)).max(1);
    all.into_iter().step_by(step).take(limit).collect()
}

fn sample_paths(repo: &Path, limit: usize) -> Result<Vec<String>> {
    let listing = git(repo, &["ls-files"], &[])?;
    let all: Vec<&str> = listing.lines().collect();
    let step = (all.len() / limit.max(1)).max(1);
    Ok(all.iter().step_by(step).take(limit).map(|p| p.rsplit('/').next().unwrap_or(p).to_owned()).collect())
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| (*x).to_owned()).collect()
}

/// `cargo xtask bench search`.
pub fn search(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let repo = &args.repo;
    let scratch = Scratch::new("bench-search")?;
    let store = scratch.0.join("store");
    let _stop = measure::StopWatcher { bin: &bin, store: &store, repo };
    let (files, bytes) = source_size(repo)?;
    eprintln!("corpus: {} ({files} files, {:.1} MiB)", repo.display(), mib(bytes));
    let other = commit_changing(repo, 10, std::process::id() as usize, &scratch.0)?;
    let cc = |extra: &[String]| {
        let mut c = Command::new(&bin);
        c.arg("--store").arg(&store).arg("--quiet").args(extra).current_dir(repo);
        c
    };
    let (index_sample, _) = measure::run(&mut cc(&s(&["index"])))?;
    measure::run(&mut cc(&s(&["index", "--ref", &other])))?;
    eprintln!("indexed in {}", secs(index_sample.wall));
    let fts_bytes = measure::dir_size(&store.join("fts"));
    let sqlite_bytes = std::fs::metadata(store.join("store.sqlite")).map(|m| m.len()).unwrap_or(0);

    let n = args.runs.max(10);
    let selective = sample_names(&store, n, false)?;
    let common = sample_names(&store, n, true)?;
    let paths = sample_paths(repo, n)?;
    let others = sample_other_characters(repo, n);
    if others.is_empty() {
        eprintln!("no text of other characters than ASCII: that class is left out");
    }
    let mut cases: Vec<SearchCase> = Vec::new();
    for name in &selective {
        cases.push(SearchCase {
            class: "selective identifier",
            ours: s(&[name]),
            rg: s(&["-n", "-F", name]),
            git_grep: Some(s(&["-n", "-F", name])),
        });
        cases.push(SearchCase {
            class: "symbol",
            ours: s(&["--mode", "symbol", name]),
            rg: s(&["-n", "-F", name]),
            git_grep: Some(s(&["-n", "-F", name])),
        });
        let literal = format!("{name}(");
        cases.push(SearchCase {
            class: "literal with punctuation",
            ours: s(&["--mode", "literal", &literal]),
            rg: s(&["-n", "-F", &literal]),
            git_grep: Some(s(&["-n", "-F", &literal])),
        });
        let regex = format!(r"{name}\s*\(");
        cases.push(SearchCase {
            class: "regex with literal",
            ours: s(&["--mode", "regex", &regex]),
            rg: s(&["-n", "-e", &regex]),
            git_grep: Some(s(&["-n", "-P", &regex])),
        });
    }
    for name in &common {
        cases.push(SearchCase {
            class: "common identifier",
            ours: s(&[name]),
            rg: s(&["-n", "-F", name]),
            git_grep: Some(s(&["-n", "-F", name])),
        });
    }
    for text in &others {
        cases.push(SearchCase {
            class: "other characters",
            ours: s(&["--mode", "literal", text]),
            rg: s(&["-n", "-F", text]),
            git_grep: Some(s(&["-n", "-F", text])),
        });
    }
    for regex in [r"[A-Z]{4,}_[A-Z]{4,}_[0-9]+", r"\w+_\w+\(\w+, \w+\)", r"[0-9]{6,}", r"\(\w+ \*\*\w+\)"] {
        cases.push(SearchCase {
            class: "regex without literal",
            ours: s(&["--mode", "regex", regex]),
            rg: s(&["-n", "-e", regex]),
            git_grep: Some(s(&["-n", "-P", regex])),
        });
    }
    for path in &paths {
        cases.push(SearchCase {
            class: "path",
            ours: s(&["--mode", "path", path]),
            rg: s(&["--files", "-g", &format!("*{path}*")]),
            git_grep: None,
        });
    }

    // Whole processes, side by side per query.
    // Per class: ours (worktree), ours (at the other ref), rg, git grep, in-process.
    let mut by_class: Vec<ClassTimes> = Vec::new();
    let time = |c: &mut Command| -> Result<Duration> {
        let started = Instant::now();
        let output = c.output()?;
        let elapsed = started.elapsed();
        if output.status.code().is_none_or(|code| code > 1) {
            bail!("{c:?} failed: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok(elapsed)
    };
    for case in &cases {
        let mut ours_args = s(&["search", "--limit", "100"]);
        ours_args.extend(case.ours.iter().cloned());
        let ours = time(&mut cc(&ours_args))?;
        let mut at_ref = ours_args.clone();
        at_ref.extend(s(&["--ref", &other]));
        let ours_ref = time(&mut cc(&at_ref))?;
        let rg = time(Command::new("rg").args(&case.rg).current_dir(repo))?;
        let gg = match &case.git_grep {
            Some(a) => Some(time(Command::new("git").arg("grep").args(a).arg(&other).current_dir(repo))?),
            None => None,
        };
        let entry = match by_class.iter_mut().position(|e| e.0 == case.class) {
            Some(i) => &mut by_class[i],
            None => {
                by_class.push((case.class, Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()));
                by_class.last_mut().expect("just pushed")
            }
        };
        entry.1.push(ours);
        entry.2.push(ours_ref);
        entry.3.push(rg);
        if let Some(g) = gg {
            entry.4.push(g);
        }
    }

    // In-process: the library, answering from the indexed views (no process start).
    {
        use codecompass::engine::{Engine, EngineOptions, Freshness};
        use codecompass::query::{Detail, Explain, Filters, Mode, SearchRequest};
        use codecompass::view::Scope;
        let engine = Engine::open(repo, &EngineOptions { store_dir: Some(store.clone()), ..Default::default() })?;
        for case in &cases {
            let mut mode = Mode::Auto;
            let mut query = case.ours.last().cloned().unwrap_or_default();
            if case.ours.len() == 3 {
                mode = match case.ours[1].as_str() {
                    "symbol" => Mode::Symbol,
                    "literal" => Mode::Literal,
                    "regex" => Mode::Regex,
                    "path" => Mode::Path,
                    _ => Mode::Auto,
                };
                query = case.ours[2].clone();
            }
            let request = SearchRequest {
                query,
                mode,
                limit: 100,
                context: 0,
                detail: Detail::Signature,
                compact: false,
                fuzzy: 0,
                case_sensitive: false,
                ignore_case: false,
                explain: Explain::Off,
                max_tokens: None,
                filters: Filters::default(),
                timeout: Duration::from_secs(60),
                files: false,
                grep: Default::default(),
                comparable: false,
            };
            let started = Instant::now();
            engine.search(&request, &Scope::Ref(other.clone()), Freshness::BestEffort)?;
            let elapsed = started.elapsed();
            if let Some(entry) = by_class.iter_mut().find(|e| e.0 == case.class) {
                entry.5.push(elapsed);
            }
        }
    }

    println!(
        "{:<26} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>8}",
        "class (p50 / p95)", "in-proc", "p95", "process", "p95", "at ref", "rg", "git-grep", "vs rg", "vs gg"
    );
    let mut report = Vec::new();
    for (class, ours, ours_ref, rg, gg, inproc) in &by_class {
        let (o50, o95) = (percentile(ours, 50.0), percentile(ours, 95.0));
        let (i50, i95) = (percentile(inproc, 50.0), percentile(inproc, 95.0));
        let rg50 = percentile(rg, 50.0);
        let r50 = percentile(ours_ref, 50.0);
        let g50 = percentile(gg, 50.0);
        let vs_rg = rg50.as_secs_f64() / o50.as_secs_f64();
        let vs_gg = if gg.is_empty() { f64::NAN } else { g50.as_secs_f64() / r50.as_secs_f64() };
        println!(
            "{class:<26} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7.1}x {:>8}",
            secs(i50),
            secs(i95),
            secs(o50),
            secs(o95),
            secs(r50),
            secs(rg50),
            if gg.is_empty() { "-".to_owned() } else { secs(g50) },
            vs_rg,
            if gg.is_empty() { "-".to_owned() } else { format!("{vs_gg:.1}x") }
        );
        report.push(json!({
            "class": class, "queries": ours.len(),
            "in_process_p50_ms": i50.as_secs_f64() * 1e3, "in_process_p95_ms": i95.as_secs_f64() * 1e3,
            "process_p50_ms": o50.as_secs_f64() * 1e3, "process_p95_ms": o95.as_secs_f64() * 1e3,
            "process_at_ref_p50_ms": r50.as_secs_f64() * 1e3,
            "rg_p50_ms": rg50.as_secs_f64() * 1e3, "git_grep_p50_ms": g50.as_secs_f64() * 1e3,
            "speedup_vs_rg": vs_rg, "speedup_vs_git_grep": vs_gg,
        }));
    }
    println!(
        "index size: full-text {:.1} MiB + store {:.1} MiB = {:.2}x the source ({:.2}x for full-text alone)",
        mib(fts_bytes),
        mib(sqlite_bytes),
        (fts_bytes + sqlite_bytes) as f64 / bytes as f64,
        fts_bytes as f64 / bytes as f64
    );
    if let Some(path) = &args.json {
        let figures = json!({"corpus": repo.display().to_string(), "files": files, "source_bytes": bytes,
            "fts_bytes": fts_bytes, "store_bytes": sqlite_bytes, "classes": report});
        std::fs::write(path, serde_json::to_string_pretty(&figures)?)?;
    }
    Ok(())
}

/// `cargo xtask bench mcp`: the server driven by the official Python client.
/// The release binary and the Python of the virtualenv that holds the official MCP client.
pub(crate) fn binary_and_mcp_client() -> Result<(PathBuf, PathBuf)> {
    let bin = release_binary()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("target/mcp-venv/bin/python");
    if !python.exists() {
        bail!("the MCP client is missing: run `.ci/test` once (it installs it into target/mcp-venv)");
    }
    Ok((bin, python))
}

pub fn mcp(args: &BenchArgs) -> Result<()> {
    let (bin, python) = binary_and_mcp_client()?;
    let repo = &args.repo;
    let scratch = Scratch::new("bench-mcp")?;
    let store = scratch.0.join("store");
    let (index_sample, _) = measure::run(
        Command::new(&bin).arg("--store").arg(&store).args(["--quiet", "index", "--ref", "HEAD"]).current_dir(repo),
    )?;
    eprintln!("indexed in {}", secs(index_sample.wall));
    let names = sample_names(&store, 10, false)?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mcp_bench.py");
    let mut runs = Vec::new();
    for _ in 0..args.runs.max(1) {
        let output = Command::new(&python)
            .arg(&script)
            .arg(&bin)
            .arg(repo)
            .arg(&store)
            .arg("5")
            .args(&names)
            .output()
            .context("running the MCP client")?;
        if !output.status.success() {
            bail!("the MCP bench failed: {}", String::from_utf8_lossy(&output.stderr));
        }
        let value: Value = serde_json::from_slice(&output.stdout)?;
        runs.push(value);
    }
    let cold: Vec<Duration> = runs
        .iter()
        .filter_map(|r| r["cold_start_to_first_locate_ms"].as_f64())
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .collect();
    let last = runs.last().cloned().unwrap_or(Value::Null);
    println!("cold start to first locate_symbol: median {} over {} runs", secs(median(&cold)), cold.len());
    if let Some(tools) = last["warm_ms"].as_object() {
        for (tool, v) in tools {
            println!(
                "  {tool:<20} p50 {:>7.2} ms  p95 {:>7.2} ms  ({} calls)",
                v["p50"].as_f64().unwrap_or(0.0),
                v["p95"].as_f64().unwrap_or(0.0),
                v["n"]
            );
        }
    }
    println!(
        "response bytes: full {} compact {} (compact = {:.0}% of full)",
        last["response_bytes"]["full"],
        last["response_bytes"]["compact"],
        last["response_bytes"]["compact_ratio"].as_f64().unwrap_or(0.0) * 100.0
    );
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&json!({"runs": runs}))?)?;
    }
    Ok(())
}
