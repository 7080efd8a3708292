//! Project tasks: `cargo xtask bench <what> --repo PATH`.
//!
//! Benchmarks run CodeCompass side by side with the tools a user would pick instead, in the
//! same run, and report medians and ratios: the machines this runs on are shared and noisy.
//! They take a path to a real repository and never copy anything from it.

mod bench;
mod measure;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

const USAGE: &str = "\
usage: cargo xtask bench <index|search|refs|mcp|snapshot> --repo PATH [--runs N] [--json FILE]
       cargo xtask bench queries

  bench index   index a repository from scratch beside `ctags -R`, then re-index it
                unchanged, index a ref 10 files away, and time `locate`
  bench search  run query classes as whole processes and in-process beside `rg` on the
                checkout and `git grep` at a ref that is not checked out
  bench refs    branch switches with hooks installed (on a shared clone): time until the
                new branch is searchable, hook return time, store growth per branch
  bench mcp     drive the MCP server with the official Python client: cold start,
                warm per-tool latency, compact against full response sizes
  bench snapshot export and import a snapshot (time, size against the store), then import
                plus catch-up from a snapshot 20 commits behind against a fresh index
  bench queries how long each language's query takes to compile
";

/// Parsed arguments shared by the benchmarks.
pub struct BenchArgs {
    /// The repository to measure.
    pub repo: PathBuf,
    /// Repetitions per measurement (medians are reported).
    pub runs: usize,
    /// Where to also write the figures as JSON.
    pub json: Option<PathBuf>,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => {
            let what = args.get(1).map(String::as_str).unwrap_or("");
            if what == "queries" {
                return bench::queries();
            }
            let parsed = parse_bench_args(&args[2.min(args.len())..])?;
            match what {
                "index" => bench::index(&parsed),
                "search" => bench::search(&parsed),
                "mcp" => bench::mcp(&parsed),
                "refs" => bench::refs(&parsed),
                "snapshot" => bench::snapshot(&parsed),
                other => bail!("unknown benchmark `{other}`\n{USAGE}"),
            }
        }
        _ => {
            eprint!("{USAGE}");
            std::process::exit(2);
        }
    }
}

fn parse_bench_args(args: &[String]) -> Result<BenchArgs> {
    let mut repo = None;
    let mut runs = 3;
    let mut json = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--repo" => repo = Some(PathBuf::from(it.next().context("--repo needs a path")?)),
            "--runs" => runs = it.next().context("--runs needs a number")?.parse().context("--runs needs a number")?,
            "--json" => json = Some(PathBuf::from(it.next().context("--json needs a file")?)),
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let repo = repo.context("--repo PATH is required")?;
    let repo = std::fs::canonicalize(&repo).with_context(|| format!("{} does not exist", repo.display()))?;
    Ok(BenchArgs { repo, runs: runs.max(1), json })
}
