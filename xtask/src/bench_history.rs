//! `cargo xtask bench history --repo PATH`: history on a repository with a long history,
//! cloned into a scratch directory (the store is the benchmark's, never the user's).
//!
//! Measured, as whole processes, in the same run:
//! - `index` of the checkout, then `index --history` of all its commits: time, commits, and
//!   the store's growth against the single-commit index (target at most 2x for 5k commits);
//! - `log -S` and `log -G` for 20 strings (names defined once at `HEAD`) beside `git log -S`
//!   and `git log -G`: identical commit lists, median time of each and the ratio (target 10x);
//! - `history NAME` for 20 top-level functions beside `git log -L :NAME:FILE`: the commits
//!   git names that `history` names too (and the other way) along the lineage of the
//!   definition in FILE (its moves and renames; a move that changed no line is left out, as
//!   git shows none), and the time of each (target under 100 ms).

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::bench::{release_binary, sample_names};
use crate::measure::{Scratch, dir_size, median, secs};

/// The commits of `history`'s answer that changed the lines of the definition `name` at
/// `path` as `HEAD` has it, followed back through its moves and renames (events of other
/// definitions of the same name are another lineage); a move that left its text as it was
/// changed no line, so `git log -L` cannot show it, and is left out.
fn lineage(answer: &Value, name: &str, path: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let (mut path, mut name) = (path.to_owned(), name.to_owned());
    for event in answer["events"].as_array().into_iter().flatten() {
        let (before, after) = (&event["before"], &event["after"]);
        // By bare name: a class renamed around a method changes its qualified name in a commit
        // that touches none of its lines.
        if after["path"] != path.as_str() || after["name"] != name.as_str() {
            continue;
        }
        let unchanged_move = event["change"] == "moved" && before["text"] == after["text"];
        if !unchanged_move && let Some(commit) = event["commit"]["commit"].as_str() {
            out.insert(commit.to_owned());
        }
        match (before["path"].as_str(), before["name"].as_str()) {
            (Some(p), Some(n)) => (path, name) = (p.to_owned(), n.to_owned()),
            _ => break, // added: the lineage starts here
        }
    }
    out
}

/// How many strings and symbols.
const QUERIES: usize = 20;

/// Runs a command, timing it; a non-zero exit other than 1 ("nothing found") is an error.
fn timed(command: &mut Command) -> Result<(Duration, String)> {
    let started = Instant::now();
    let output = command.output().with_context(|| format!("running {command:?}"))?;
    let wall = started.elapsed();
    if !output.status.success() && output.status.code() != Some(1) {
        bail!("{command:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok((wall, String::from_utf8_lossy(&output.stdout).into_owned()))
}

/// What a failed command said: the first line of its stderr (see [`timed`]).
fn first_line(text: &str) -> &str {
    let said = text.split_once(" failed: ").map_or(text, |(_, stderr)| stderr);
    said.lines().find(|l| !l.trim().is_empty()).unwrap_or(said)
}

fn commits_of(json: &Value, key: &str) -> Vec<String> {
    json[key]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["commit"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

pub fn history(args: &BenchArgs) -> Result<()> {
    let bin = release_binary()?;
    let scratch = Scratch::new("bench-history")?;
    let repo = scratch.0.join("repo");
    let store = scratch.0.join("store");
    crate::bench::git(
        &scratch.0,
        &["clone", "-q", &args.repo.to_string_lossy(), &repo.to_string_lossy()],
        &[("GIT_CONFIG_NOSYSTEM", "1")],
    )?;
    let cc = |extra: &[&str]| {
        let mut c = Command::new(&bin);
        c.arg("--store").arg(&store).args(extra).arg("--quiet").env("CODECOMPASS_HOME", scratch.0.join("home"));
        c.current_dir(&repo);
        c
    };
    let git = |extra: &[&str]| {
        let mut c = Command::new("git");
        c.args(extra).current_dir(&repo).env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_PAGER", "cat");
        c
    };
    let commits = crate::bench::git(&repo, &["rev-list", "--count", "HEAD"], &[])?.trim().parse::<u64>()?;
    println!("repository: {} ({commits} commits reachable from HEAD)", args.repo.display());

    // 1. One commit, then all of history.
    let (index_time, _) = timed(&mut cc(&["index"]))?;
    let single = dir_size(&store);
    let (history_time, out) = timed(&mut cc(&["index", "--history", "--json"]))?;
    let report: Value = serde_json::from_str(&out).unwrap_or(Value::Null);
    let whole = dir_size(&store);
    let growth = whole as f64 / single.max(1) as f64;
    println!(
        "index (one commit): {}, store {:.1} MiB\nindex --history: {} for {} commits ({} blobs parsed), store {:.1} MiB \
         = {growth:.2}x the single-commit index (target <= 2x)",
        secs(index_time),
        single as f64 / 1048576.0,
        secs(history_time),
        report["commits_added"],
        report["blobs_parsed"],
        whole as f64 / 1048576.0
    );

    // 2. log -S / -G beside git.
    let names = sample_names(&store, QUERIES, false)?;
    let mut pickaxe = Vec::new();
    for (flag, pattern_of) in [("-S", None), ("-G", Some("\\("))] {
        let (mut ours_t, mut git_t, mut same, mut ratios) = (Vec::new(), Vec::new(), 0usize, Vec::new());
        // Strings git itself cannot answer (a blob missing from the object store: git stops
        // with an error where `log` answers with a note) are not compared.
        let mut git_failed = 0usize;
        for name in &names {
            let pattern = match pattern_of {
                Some(suffix) => format!("{name}{suffix}"),
                None => name.clone(),
            };
            let (g, g_out) = match timed(&mut git(&["log", "--format=%H", flag, &pattern])) {
                Ok(answer) => answer,
                Err(e) => {
                    git_failed += 1;
                    println!("  log {flag} {pattern}: git failed, not compared ({})", first_line(&e.to_string()));
                    continue;
                }
            };
            let (o, o_out) = timed(&mut cc(&["log", flag, &pattern, "--json"]))?;
            let theirs: Vec<String> = g_out.lines().map(str::to_owned).collect();
            let ours = commits_of(&serde_json::from_str(&o_out).unwrap_or(Value::Null), "commits");
            if ours == theirs {
                same += 1;
            } else {
                println!("  log {flag} {pattern}: ours {} commits, git {} (differ)", ours.len(), theirs.len());
            }
            ratios.push(g.as_secs_f64() / o.as_secs_f64().max(1e-6));
            ours_t.push(o);
            git_t.push(g);
        }
        ratios.sort_by(f64::total_cmp);
        let ratio = ratios.get(ratios.len() / 2).copied().unwrap_or(0.0);
        println!(
            "log {flag}: {same}/{} identical to git log {flag}; median {} (git {}), median ratio {ratio:.1}x faster \
             (target 10x){}",
            names.len() - git_failed,
            secs(median(&ours_t)),
            secs(median(&git_t)),
            if git_failed > 0 { format!("; {git_failed} not compared: git failed") } else { String::new() }
        );
        pickaxe.push(
            json!({"flag": flag, "identical": same, "queries": names.len() - git_failed, "git_failed": git_failed,
            "median_ms": median(&ours_t).as_secs_f64() * 1e3, "git_median_ms": median(&git_t).as_secs_f64() * 1e3,
            "median_ratio": ratio}),
        );
    }

    // 3. history NAME beside git log -L :NAME:FILE, for top-level functions.
    let (mut agree, mut found_git, mut found_both, mut found_ours) = (0usize, 0usize, 0usize, 0usize);
    // Each name asked: its time (the median of `--runs` runs) beside `git log -L`'s. The
    // target is each under 100 ms, so all of them are listed, slowest first.
    let mut per_name: Vec<(String, usize, Duration, Duration)> = Vec::new();
    for name in &names {
        let (_, located) = timed(&mut cc(&["locate", name, "--json"]))?;
        let located: Value = serde_json::from_str(&located).unwrap_or(Value::Null);
        let Some(hit) = located["results"].as_array().and_then(|r| r.first()).cloned() else { continue };
        let Some(path) = hit["path"].as_str() else { continue };
        if hit["qualified_name"] != hit["name"] {
            continue; // git's funcname lines are top-level definitions
        }
        let Ok((g, g_out)) = timed(&mut git(&["log", "--format=%H", "-s", "-L", &format!(":{name}:{path}")])) else {
            continue; // git cannot express it (no funcname line it recognises)
        };
        let theirs: std::collections::BTreeSet<String> =
            g_out.lines().filter(|l| l.len() == 40).map(str::to_owned).collect();
        if theirs.is_empty() {
            continue;
        }
        let mut runs = Vec::new();
        for _ in 0..args.runs.max(1) {
            runs.push(timed(&mut cc(&["history", name, "--json"]))?.0);
        }
        let o = median(&runs);
        // Again with the texts, untimed: whether a move changed any line.
        let (_, o_out) = timed(&mut cc(&["history", name, "--json", "--show"]))?;
        let answer: Value = serde_json::from_str(&o_out).unwrap_or(Value::Null);
        let ours = lineage(&answer, name, path);
        per_name.push((name.clone(), answer["events"].as_array().map_or(0, Vec::len), o, g));
        found_git += theirs.len();
        found_ours += ours.len();
        found_both += theirs.intersection(&ours).count();
        if theirs == ours {
            agree += 1;
        } else {
            let only_git: Vec<&str> = theirs.difference(&ours).map(|c| &c[..10]).collect();
            let only_ours: Vec<&str> = ours.difference(&theirs).map(|c| &c[..10]).collect();
            println!("  history {name} ({path}): only git {only_git:?}, only ours {only_ours:?}");
        }
    }
    let asked = per_name.len();
    let history_median = median(&per_name.iter().map(|n| n.2).collect::<Vec<_>>());
    println!(
        "history NAME: {agree}/{asked} the same commits as git log -L; of git's {found_git} commits {found_both} found \
         ({:.0}%), {} of ours not in git's; median {} (target under 100 ms)",
        100.0 * found_both as f64 / found_git.max(1) as f64,
        found_ours - found_both,
        secs(history_median)
    );
    per_name.sort_by_key(|n| std::cmp::Reverse(n.2));
    let under = per_name.iter().filter(|n| n.2 < Duration::from_millis(100)).count();
    println!(
        "history NAME: {under}/{asked} under 100 ms; slowest {}",
        per_name.first().map_or_else(|| "-".to_owned(), |n| secs(n.2))
    );
    for (name, events, ours, theirs) in &per_name {
        println!("  history {name}: {} ({events} events; git log -L {})", secs(*ours), secs(*theirs));
    }
    if let Some(path) = &args.json {
        let names: Vec<Value> = per_name
            .iter()
            .map(|(name, events, ours, theirs)| {
                json!({"name": name, "events": events, "ms": ours.as_secs_f64() * 1e3,
                       "git_log_l_ms": theirs.as_secs_f64() * 1e3})
            })
            .collect();
        let figures = json!({
            "commits": commits, "index_ms": index_time.as_secs_f64() * 1e3, "history_ms": history_time.as_secs_f64() * 1e3,
            "store_single_bytes": single, "store_history_bytes": whole, "growth": growth, "pickaxe": pickaxe,
            "history": {"asked": asked, "identical": agree, "git_commits": found_git, "found": found_both,
                "ours_only": found_ours - found_both, "median_ms": history_median.as_secs_f64() * 1e3,
                "under_100_ms": under, "names": names},
        });
        std::fs::write(path, serde_json::to_string_pretty(&figures)?)?;
    }
    Ok(())
}
