//! Project tasks: `cargo xtask bench <what> --repo PATH`, `cargo xtask codegen`.
//!
//! Benchmarks run CodeCompass side by side with the tools a user would pick instead, in the
//! same run, and report medians and ratios: the machines this runs on are shared and noisy.
//! They take a path to a real repository and never copy anything from it.

mod bench;
mod bench_graph;
mod bench_history;
mod bench_load;
mod bench_nl;
mod bench_queries;
mod bench_refs;
mod bench_repos;
mod bench_xray;
mod codegen;
mod measure;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

const USAGE: &str = "\
usage: cargo xtask bench <index|search|refs|mcp|mcp-load|snapshot|nl|graph|xray|history> --repo PATH [--runs N] [--json FILE]
       cargo xtask bench repos --repo DIR_OF_REPOSITORIES [--runs N] [--json FILE]
       cargo xtask bench nl --repo PATH [--tasks N] [--runs N] [--no-files] [--json FILE]
       cargo xtask bench graph --repo PATH [--scip FILE] [--oracle scip|grep] [--names N] [--json FILE]
       cargo xtask bench xray --repo PATH [--lang python|typescript|rust|c] [--runs N] [--json FILE]
       cargo xtask bench queries [--lang NAME] [--patterns] [--top N] [--query FILE]
       cargo xtask codegen [--check]

  bench index   index a repository from scratch beside `ctags -R`, then re-index it
                unchanged, index a ref 10 files away, and time `locate`
  bench search  run query classes as whole processes and in-process beside `rg` on the
                checkout and `git grep` at a ref that is not checked out
  bench refs    branch switches with hooks installed (on a shared clone): time until the
                new branch is searchable, hook return time, store growth per branch
  bench mcp     drive the MCP server with the official Python client: cold start,
                warm per-tool latency, compact against full response sizes
  bench mcp-load the MCP server over HTTP on the loopback: one client alone, then 8 at once
                beside hostile-size queries, slow connections and abandoned calls
                (--seconds N per phase, default 20); latencies, answers, failures, peak RSS
  bench snapshot export and import a snapshot (time, size against the store), then import
                plus catch-up from a snapshot 20 commits behind against a fresh index
  bench nl      file localization from the repository's own history: each commit's message
                is a question, the source files it changed the answer, asked at its parent;
                top-1/5/10 and MRR of `search --files` beside a whole-file BM25 (default 100
                tasks); --no-files ranks snippet results deduplicated by file instead
  bench graph   precision and recall of `references` and `callers` against SCIP (Python and
                TypeScript: scip-python / scip-typescript from npm, run in a temp dir, or
                --scip FILE) or, for other languages, names defined once against `git grep -w`
                lines whose syntax shows a use; in-process p50/p95 latency (default 200 names)
  bench xray    X-Ray's rules beside ast-grep (`ast-grep-cli` from PyPI, in a temp virtualenv)
                with the same rules as ast-grep patterns: equal match sets (files and lines),
                what only one finds, whole-process medians at the worktree and --ref HEAD
  bench repos   20 registered repositories (clones of those under DIR, forks with 5% of their
                files changed make up the rest): index time of each fork against its original
                (records shared), query classes across all 20 against the slowest single
                repository, `repos list` with 100 registered
  bench history index a repository's whole history (time, store growth against one commit's
                index), then log -S / log -G for 20 strings beside git log -S / -G (identical
                commits, ratio) and history NAME for 20 functions beside git log -L :NAME:FILE
  bench queries how long each language's query takes to compile; --patterns: the --top N
                (default 10) patterns of each that take longest to compile alone; --query FILE
                compiles that file against --lang's grammar instead (a query being rewritten)
  codegen       write src/grammars/src/kind_texts.tsv (the texts every node of a kind
                contains, from the grammars' grammar.json); --check only says if it is stale

  CODECOMPASS_BIN=PATH measures that git-codecompass instead of building the release binary
                (a debug build while working on a benchmark; its figures are not comparable)
";

/// `bench queries [--lang NAME] [--patterns] [--top N] [--query FILE]`.
fn queries(args: &[String]) -> Result<()> {
    let (mut lang, mut patterns, mut top, mut file) = (None, false, 10, None);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--lang" => lang = Some(args.next().context("--lang needs a language name")?.clone()),
            "--patterns" => patterns = true,
            "--query" => file = Some(PathBuf::from(args.next().context("--query needs a file")?)),
            "--top" => top = args.next().context("--top needs a number")?.parse().context("--top needs a number")?,
            other => bail!("unknown argument `{other}`\n\n{USAGE}"),
        }
    }
    bench_queries::queries(lang.as_deref(), patterns, top, file.as_deref())
}

/// Parsed arguments shared by the benchmarks.
pub struct BenchArgs {
    /// The repository to measure.
    pub repo: PathBuf,
    /// Repetitions per measurement (medians are reported).
    pub runs: usize,
    /// Where to also write the figures as JSON.
    pub json: Option<PathBuf>,
    /// Tasks for `bench nl`.
    pub tasks: usize,
    /// `bench nl`: rank snippet results deduplicated by file instead of `search --files`.
    pub no_files: bool,
    /// `bench graph`: a SCIP index to compare with.
    pub scip: Option<PathBuf>,
    /// `bench graph`: `scip` or `grep`.
    pub oracle: Option<String>,
    /// `bench graph`: how many symbols.
    pub names: usize,
    /// `bench mcp-load`: seconds per phase.
    pub seconds: Option<usize>,
    /// `bench xray`: only the rules of this language.
    pub lang: Option<String>,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("codegen") => codegen::codegen(&args[1..]),
        Some("bench") => {
            let what = args.get(1).map(String::as_str).unwrap_or("");
            if what == "queries" {
                return queries(&args[2..]);
            }
            let parsed = parse_bench_args(&args[2.min(args.len())..])?;
            match what {
                "index" => bench::index(&parsed),
                "search" => bench::search(&parsed),
                "mcp" => bench::mcp(&parsed),
                "mcp-load" => bench_load::mcp_load(&parsed),
                "refs" => bench_refs::refs(&parsed),
                "snapshot" => bench_refs::snapshot(&parsed),
                "nl" => bench_nl::nl(&parsed),
                "graph" => bench_graph::graph(&parsed),
                "xray" => bench_xray::xray(&parsed),
                "repos" => bench_repos::repos(&parsed),
                "history" => bench_history::history(&parsed),
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
    let mut tasks = 100;
    let mut no_files = false;
    let mut scip = None;
    let mut oracle = None;
    let mut names = 200;
    let mut seconds = None;
    let mut lang = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--repo" => repo = Some(PathBuf::from(it.next().context("--repo needs a path")?)),
            "--runs" => runs = it.next().context("--runs needs a number")?.parse().context("--runs needs a number")?,
            "--json" => json = Some(PathBuf::from(it.next().context("--json needs a file")?)),
            "--tasks" => {
                tasks = it.next().context("--tasks needs a number")?.parse().context("--tasks needs a number")?;
            }
            "--no-files" => no_files = true,
            "--scip" => scip = Some(PathBuf::from(it.next().context("--scip needs a file")?)),
            "--oracle" => {
                let o = it.next().context("--oracle needs scip or grep")?;
                if o != "scip" && o != "grep" {
                    bail!("--oracle is scip or grep, not `{o}`");
                }
                oracle = Some(o.clone());
            }
            "--names" => {
                names = it.next().context("--names needs a number")?.parse().context("--names needs a number")?;
            }
            "--seconds" => {
                seconds =
                    Some(it.next().context("--seconds needs a number")?.parse().context("--seconds needs a number")?);
            }
            "--lang" => lang = Some(it.next().context("--lang needs a language")?.clone()),
            other => bail!("unknown argument `{other}`\n{USAGE}"),
        }
    }
    let repo = repo.context("--repo PATH is required")?;
    let repo = std::fs::canonicalize(&repo).with_context(|| format!("{} does not exist", repo.display()))?;
    Ok(BenchArgs {
        repo,
        runs: runs.max(1),
        json,
        tasks: tasks.max(1),
        no_files,
        scip,
        oracle,
        names: names.max(1),
        seconds,
        lang,
    })
}
