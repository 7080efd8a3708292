//! `cargo xtask bench graph`: precision and recall of `references` and `callers` against an
//! external oracle, and their latency in-process.
//!
//! Oracles: a SCIP index (`--scip FILE`, or made here with `scip-python` / `scip-typescript`
//! installed from npm into a temp dir) gives the true references of Python and TypeScript
//! symbols; for other languages (`--oracle grep`), names defined exactly once are checked
//! against `git grep -n -w NAME` lines whose syntax shows a use (a call, a member access, an
//! argument). The repository is cloned (shared objects, nothing written to it) and indexed at
//! HEAD; every figure is computed in the same run.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codecompass::engine::{Direction, Engine, EngineOptions, Freshness, GraphRequest};
use codecompass::view::Scope;
use serde_json::json;

use crate::BenchArgs;
use crate::measure::{Scratch, median, percentile, secs};

/// `(path, line)`, lines 1-based.
type Site = (String, u32);

/// One symbol the oracle knows: how to ask for it and where it is used.
struct Case {
    /// The name as `references` takes it (module- or class-qualified when that pins it).
    query: String,
    /// Where the oracle says it is defined.
    definition: Site,
    /// Where the oracle says it is used.
    truth: BTreeSet<Site>,
}

/// One symbol's recall, precision, query, and a few misses and extras.
type Worst = (f64, f64, String, Vec<Site>, Vec<Site>);

/// Precision and recall counts.
#[derive(Default, Clone, Copy)]
struct Score {
    found: usize,
    correct: usize,
    truth: usize,
}

impl Score {
    fn add(&mut self, ours: &BTreeSet<Site>, truth: &BTreeSet<Site>) {
        self.found += ours.len();
        self.truth += truth.len();
        self.correct += ours.intersection(truth).count();
    }

    fn precision(&self) -> f64 {
        if self.found == 0 { 1.0 } else { self.correct as f64 / self.found as f64 }
    }

    fn recall(&self) -> f64 {
        if self.truth == 0 { 1.0 } else { self.correct as f64 / self.truth as f64 }
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git").args(args).current_dir(dir).output().context("running git")?;
    if !output.status.success() {
        bail!("git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A stable hash for a deterministic sample.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// `cargo xtask bench graph --repo PATH [--scip FILE] [--oracle scip|grep] [--names N]`.
pub fn graph(args: &BenchArgs) -> Result<()> {
    let bin = crate::bench::release_binary()?;
    let scratch = Scratch::new("graph")?;
    let checkout = scratch.0.as_path().join("checkout");
    eprintln!("cloning {} (shared objects)", args.repo.display());
    let status = Command::new("git")
        .args(["clone", "-q", "--shared"])
        .arg(&args.repo)
        .arg(&checkout)
        .status()
        .context("git clone")?;
    if !status.success() {
        bail!("git clone --shared {} failed", args.repo.display());
    }
    let commit = git(&checkout, &["rev-parse", "--short", "HEAD"])?.trim().to_owned();
    let files = git(&checkout, &["ls-files"])?.lines().count();

    let started = Instant::now();
    let output = Command::new(&bin).args(["index", "--ref", "HEAD", "--quiet"]).current_dir(&checkout).output()?;
    if !output.status.success() {
        bail!("index failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let index_time = started.elapsed();
    eprintln!("indexed {files} files at {commit} in {}", secs(index_time));

    let engine = Engine::open(&checkout, &EngineOptions { store_dir: None })
        .map_err(|e| anyhow::anyhow!("opening the index: {e}"))?;
    let language = main_language(&checkout)?;
    let oracle = match args.oracle.as_deref() {
        Some(o) => o.to_owned(),
        None if args.scip.is_some() || matches!(language.as_str(), "python" | "typescript" | "javascript") => {
            "scip".to_owned()
        }
        None => "grep".to_owned(),
    };
    let cases = if oracle == "scip" {
        let scip = match &args.scip {
            Some(file) => file.clone(),
            None => run_scip_indexer(&checkout, &language, scratch.0.as_path())?,
        };
        scip_cases(&scip, args.names)?
    } else {
        grep_cases(&engine, &checkout, args.names)?
    };
    if cases.is_empty() {
        bail!("the oracle gave no symbols to compare");
    }
    eprintln!("{} symbols from the {oracle} oracle", cases.len());

    let mut lines = Score::default();
    let mut files_score = Score::default();
    let mut sure = Score::default();
    let mut callers = Score::default();
    let mut ref_times = Vec::new();
    let mut caller_times = Vec::new();
    let mut worst: Vec<Worst> = Vec::new();
    for case in &cases {
        let request = GraphRequest {
            name: case.query.clone(),
            lang: None,
            path: None,
            scope: Scope::Ref("HEAD".to_owned()),
            limit: 100_000,
            depth: 1,
            freshness: Freshness::BestEffort,
        };
        let _ = engine.references(&request);
        let started = Instant::now();
        let response = engine.references(&request).map_err(|e| anyhow::anyhow!("{}: {e}", case.query))?;
        ref_times.push(started.elapsed());
        let pinned = response
            .definitions
            .iter()
            .any(|d| (d.path.as_str(), d.line) == (case.definition.0.as_str(), case.definition.1));
        let results: Vec<_> = if pinned { response.results } else { Vec::new() };
        let ours: BTreeSet<Site> = results.iter().map(|r| (r.path.clone(), r.line)).collect();
        let ours_sure: BTreeSet<Site> =
            results.iter().filter(|r| r.confidence != "ambiguous").map(|r| (r.path.clone(), r.line)).collect();
        lines.add(&ours, &case.truth);
        sure.add(&ours_sure, &case.truth);
        let file_set = |s: &BTreeSet<Site>| s.iter().map(|(p, _)| (p.clone(), 0)).collect::<BTreeSet<Site>>();
        files_score.add(&file_set(&ours), &file_set(&case.truth));

        let started = Instant::now();
        let graph = engine.call_graph(&request, Direction::Up).map_err(|e| anyhow::anyhow!("{}: {e}", case.query))?;
        caller_times.push(started.elapsed());
        let root: Option<usize> = graph
            .nodes
            .iter()
            .find(|n| n.depth == 0 && (n.path.as_str(), n.line) == (case.definition.0.as_str(), case.definition.1))
            .map(|n| n.id);
        let sites: BTreeSet<Site> = graph
            .edges
            .iter()
            .filter(|e| Some(e.to) == root)
            .flat_map(|e| e.sites.iter().map(|s| (s.path.clone(), s.line)))
            .collect();
        let mut c = Score::default();
        c.add(&sites, &case.truth);
        callers.found += c.found;
        callers.correct += c.correct;

        let mut one = Score::default();
        one.add(&ours, &case.truth);
        let misses: Vec<Site> = case.truth.difference(&ours).take(3).cloned().collect();
        let extras: Vec<Site> = ours.difference(&case.truth).take(3).cloned().collect();
        worst.push((one.recall(), one.precision(), case.query.clone(), misses, extras));
    }
    worst.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));

    let repo_name = args.repo.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    println!("### {repo_name} ({language}, {files} files, commit {commit}, oracle: {oracle})\n");
    println!("| figure | value |\n| --- | ---: |");
    println!("| symbols compared | {} |", cases.len());
    println!("| true uses | {} |", lines.truth);
    println!(
        "| reference precision / recall, lines | {:.1}% / {:.1}% |",
        100.0 * lines.precision(),
        100.0 * lines.recall()
    );
    println!(
        "| reference precision / recall, files | {:.1}% / {:.1}% |",
        100.0 * files_score.precision(),
        100.0 * files_score.recall()
    );
    println!(
        "| precision without `ambiguous` | {:.1}% (recall {:.1}%) |",
        100.0 * sure.precision(),
        100.0 * sure.recall()
    );
    println!("| caller precision (call sites, depth 1) | {:.1}% of {} |", 100.0 * callers.precision(), callers.found);
    let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
    println!(
        "| `references` in-process p50 / p95 | {} / {} |",
        ms(median(&ref_times)),
        ms(percentile(&ref_times, 95.0))
    );
    println!(
        "| `callers` in-process p50 / p95 | {} / {} |",
        ms(median(&caller_times)),
        ms(percentile(&caller_times, 95.0))
    );
    println!("| index at HEAD | {} |", secs(index_time));
    println!("\nlowest recall (recall, precision, a few misses and extras):");
    for (recall, precision, query, misses, extras) in worst.iter().take(10) {
        println!(
            "  {query}: recall {:.0}%, precision {:.0}%  missed {misses:?}  extra {extras:?}",
            100.0 * recall,
            100.0 * precision
        );
    }
    worst.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
    println!("\nlowest precision:");
    for (recall, precision, query, misses, extras) in worst.iter().take(10) {
        println!(
            "  {query}: recall {:.0}%, precision {:.0}%  missed {misses:?}  extra {extras:?}",
            100.0 * recall,
            100.0 * precision
        );
    }
    if let Some(path) = &args.json {
        let value = json!({
            "repository": repo_name, "language": language, "files": files, "commit": commit, "oracle": oracle,
            "symbols": cases.len(), "true_uses": lines.truth,
            "line_precision": lines.precision(), "line_recall": lines.recall(),
            "file_precision": files_score.precision(), "file_recall": files_score.recall(),
            "sure_precision": sure.precision(), "sure_recall": sure.recall(),
            "caller_precision": callers.precision(), "caller_sites": callers.found,
            "references_p50_ms": median(&ref_times).as_secs_f64() * 1000.0,
            "references_p95_ms": percentile(&ref_times, 95.0).as_secs_f64() * 1000.0,
            "callers_p50_ms": median(&caller_times).as_secs_f64() * 1000.0,
            "callers_p95_ms": percentile(&caller_times, 95.0).as_secs_f64() * 1000.0,
            "index_s": index_time.as_secs_f64(),
        });
        std::fs::write(path, serde_json::to_string_pretty(&value)?)?;
    }
    Ok(())
}

/// The language most tracked files are written in.
fn main_language(checkout: &Path) -> Result<String> {
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    for path in git(checkout, &["ls-files"])?.lines() {
        if let Some(l) = codecompass::lang::detect_by_path(path.as_bytes())
            && !matches!(l.name, "markdown" | "json" | "yaml" | "toml" | "xml" | "html" | "css")
        {
            *counts.entry(if l.name == "tsx" { "typescript" } else { l.name }).or_default() += 1;
        }
    }
    Ok(counts.into_iter().max_by_key(|(_, n)| *n).map(|(l, _)| l.to_owned()).unwrap_or_default())
}

/// Runs `scip-python` or `scip-typescript` (installed from npm into `tmp`) on the checkout.
fn run_scip_indexer(checkout: &Path, language: &str, tmp: &Path) -> Result<PathBuf> {
    let (package, binary) = match language {
        "python" => ("@sourcegraph/scip-python", "scip-python"),
        "typescript" | "javascript" => ("@sourcegraph/scip-typescript", "scip-typescript"),
        other => bail!("no SCIP indexer for {other}; pass --oracle grep or --scip FILE"),
    };
    let prefix = tmp.join("npm");
    eprintln!("npm install {package} (into a temp dir)");
    let status = Command::new("npm").args(["install", "--silent", "--prefix"]).arg(&prefix).arg(package).status()?;
    if !status.success() {
        bail!("npm install {package} failed");
    }
    let output = tmp.join("index.scip");
    let started = Instant::now();
    let mut command = Command::new(prefix.join("node_modules/.bin").join(binary));
    command.arg("index").arg("--output").arg(&output).current_dir(checkout);
    if language == "python" {
        command.args(["--project-name", "bench"]);
    } else {
        command.arg("--infer-tsconfig");
    }
    let status = command.status().context("running the SCIP indexer")?;
    if !status.success() || !output.exists() {
        bail!("{binary} failed");
    }
    eprintln!("{binary} indexed in {}", secs(started.elapsed()));
    Ok(output)
}

/// Protobuf wire reading, just enough for SCIP.
struct Wire<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Wire<'a> {
    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.data.get(self.at).context("truncated varint")?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        bail!("bad varint")
    }

    /// The next field: number, wire type, and its bytes (length-delimited) or value.
    fn field(&mut self) -> Result<Option<(u64, &'a [u8], u64)>> {
        if self.at >= self.data.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let (number, kind) = (key >> 3, key & 7);
        Ok(Some(match kind {
            0 => (number, &[][..], self.varint()?),
            1 => {
                self.at += 8;
                (number, &[][..], 0)
            }
            2 => {
                let len = self.varint()? as usize;
                let bytes = self.data.get(self.at..self.at + len).context("truncated field")?;
                self.at += len;
                (number, bytes, 0)
            }
            5 => {
                self.at += 4;
                (number, &[][..], 0)
            }
            other => bail!("unsupported wire type {other}"),
        }))
    }
}

/// SCIP symbols defined in the index with their uses, sampled into cases.
fn scip_cases(file: &Path, wanted: usize) -> Result<Vec<Case>> {
    let data = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let mut definitions: HashMap<String, Site> = HashMap::new();
    let mut uses: HashMap<String, BTreeSet<Site>> = HashMap::new();
    let mut index = Wire { data: &data, at: 0 };
    while let Some((number, bytes, _)) = index.field()? {
        if number != 2 {
            continue;
        }
        let mut document = Wire { data: bytes, at: 0 };
        let mut path = String::new();
        let mut occurrences = Vec::new();
        while let Some((n, b, _)) = document.field()? {
            match n {
                1 => path = String::from_utf8_lossy(b).into_owned(),
                2 => occurrences.push(b),
                _ => {}
            }
        }
        for occurrence in occurrences {
            let mut o = Wire { data: occurrence, at: 0 };
            let (mut line, mut symbol, mut roles) = (None, String::new(), 0);
            while let Some((n, b, v)) = o.field()? {
                match n {
                    1 => {
                        let mut packed = Wire { data: b, at: 0 };
                        line = Some(packed.varint()? as u32 + 1);
                    }
                    2 => symbol = String::from_utf8_lossy(b).into_owned(),
                    3 => roles = v,
                    _ => {}
                }
            }
            let Some(line) = line else { continue };
            if symbol.is_empty() || symbol.starts_with("local ") {
                continue;
            }
            if roles & 1 == 1 {
                definitions.entry(symbol).or_insert((path.clone(), line));
            } else {
                uses.entry(symbol).or_default().insert((path.clone(), line));
            }
        }
    }
    let mut candidates: Vec<(u64, Case)> = Vec::new();
    for (symbol, definition) in definitions {
        // Methods (`().`) and terms (`.`) of the project's own files, with uses.
        let Some(truth) = uses.remove(&symbol) else { continue };
        let Some(query) = scip_query(&symbol, &definition.0) else { continue };
        let truth: BTreeSet<Site> = truth.into_iter().filter(|s| *s != definition).collect();
        if truth.is_empty() {
            continue;
        }
        candidates.push((hash(&symbol), Case { query, definition, truth }));
    }
    candidates.sort_by_key(|(h, _)| *h);
    Ok(candidates.into_iter().take(wanted).map(|(_, c)| c).collect())
}

/// The `references` query for a SCIP symbol: its module path and descriptors, as
/// `pkg.mod.Class.method`. `None` for symbols other than functions, methods and classes.
fn scip_query(symbol: &str, path: &str) -> Option<String> {
    // `scheme manager package version descriptors...`; descriptors after the 4th space.
    let descriptors = symbol.splitn(5, ' ').nth(4)?;
    let is_method = descriptors.ends_with(").");
    let is_term = descriptors.ends_with('.') && !is_method;
    let is_type = descriptors.ends_with('#');
    if !(is_method || is_term || is_type) {
        return None;
    }
    // The names: strip the file/namespace part (`` `a.b`/ ``) and the suffix characters.
    let after_namespace = descriptors.rsplit('/').next().unwrap_or(descriptors);
    let mut names: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = after_namespace.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' | '.' => {
                if !current.is_empty() {
                    names.push(std::mem::take(&mut current));
                }
            }
            '(' => {
                // `(+1)` disambiguators and `()` method suffixes.
                for d in chars.by_ref() {
                    if d == ')' {
                        break;
                    }
                }
            }
            '`' | '[' | ']' => {}
            other => current.push(other),
        }
    }
    if !current.is_empty() {
        names.push(current);
    }
    let last = names.last()?;
    if last.is_empty() || last.starts_with('<') || last.chars().any(|c| !(c.is_alphanumeric() || c == '_' || c == '$'))
    {
        return None;
    }
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    let module: Vec<&str> = stem.split('/').filter(|s| *s != "__init__" && *s != "index").collect();
    Some(format!("{}.{}", module.join("."), names.join(".")))
}

/// Names defined exactly once (functions and methods), checked against `git grep -w`.
fn grep_cases(engine: &Engine, checkout: &Path, wanted: usize) -> Result<Vec<Case>> {
    let symbols = engine
        .all_symbols(&Scope::Ref("HEAD".to_owned()), Freshness::BestEffort)
        .map_err(|e| anyhow::anyhow!("listing symbols: {e}"))?;
    let mut by_name: BTreeMap<String, Vec<(Site, bool)>> = BTreeMap::new();
    let mut all_names: HashMap<String, usize> = HashMap::new();
    let mut declared: HashMap<String, BTreeSet<Site>> = HashMap::new();
    for s in &symbols {
        let name = s.qualified_name.rsplit(['.', ':']).next().unwrap_or(&s.qualified_name).to_owned();
        *all_names.entry(name.clone()).or_default() += 1;
        declared.entry(name.clone()).or_default().insert((s.path.clone(), s.line));
        if matches!(s.kind.as_str(), "function" | "method") {
            by_name.entry(name).or_default().push(((s.path.clone(), s.line), s.kind == "method"));
        }
    }
    let mut candidates: Vec<(u64, String, Site, bool)> = by_name
        .into_iter()
        .filter(|(name, defs)| defs.len() == 1 && declared.get(name).map_or(0, BTreeSet::len) <= 2 && name.len() >= 5)
        .map(|(name, defs)| (hash(&name), name, defs[0].0.clone(), defs[0].1))
        .collect();
    candidates.sort();
    let mut cases = Vec::new();
    let family = |path: &str| {
        codecompass::lang::detect_by_path(path.as_bytes()).map(|l| codecompass::graph::family(l.name).to_owned())
    };
    for (_, name, definition, method) in candidates {
        let home = family(&definition.0);
        if cases.len() == wanted {
            break;
        }
        let output =
            Command::new("git").args(["grep", "-n", "-w", "-I", "-e", &name, "HEAD"]).current_dir(checkout).output()?;
        let text = String::from_utf8_lossy(&output.stdout);
        let term = name.clone();
        let syntax = regex_lite_use(&term, method);
        let mut truth = BTreeSet::new();
        for line in text.lines() {
            // `HEAD:path:line:text`
            let mut parts = line.splitn(4, ':');
            let (_, Some(path), Some(number), Some(content)) = (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let Ok(number) = number.parse::<u32>() else { continue };
            let site = (path.to_owned(), number);
            let trimmed = content.trim_start();
            let comment = ["//", "/*", "*", "#"].iter().any(|c| trimmed.starts_with(c));
            // The definition and its declarations (a prototype in a header) are no uses.
            let declaration = declared.get(&name).is_some_and(|d| d.contains(&site));
            // Uses in other languages (docs, shell completions of a Go program) are not this
            // definition's.
            if !declaration && !comment && family(path) == home && syntax(content) {
                truth.insert(site);
            }
        }
        if !truth.is_empty() && truth.len() <= 500 {
            cases.push(Case { query: name, definition, truth });
        }
    }
    Ok(cases)
}

/// Whether a line uses `name` by its syntax: called, reached through `.`, `::` or `->`,
/// taken by `&`, or passed as an argument. A method is only reached through a receiver.
fn regex_lite_use(name: &str, method: bool) -> impl Fn(&str) -> bool + '_ {
    move |line: &str| {
        let bytes = line.as_bytes();
        let mut from = 0;
        while let Some(found) = line[from..].find(name) {
            let start = from + found;
            let end = start + name.len();
            from = end;
            let word = |i: usize| bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
            if (start > 0 && word(start - 1)) || word(end) {
                continue;
            }
            let after = line[end..].trim_start();
            let before = line[..start].trim_end();
            let through_receiver = before.ends_with('.') || before.ends_with("::") || before.ends_with("->");
            if method && !through_receiver {
                continue;
            }
            if after.starts_with('(')
                || after.starts_with(',')
                || after.starts_with(')')
                || after.starts_with(';') && (before.ends_with('=') || before.ends_with(','))
                || before.ends_with('.')
                || before.ends_with("::")
                || before.ends_with("->")
                || before.ends_with('&')
                || before.ends_with('(')
            {
                return true;
            }
            // A call without parentheses (Ruby, shell): the name first in a statement, then an
            // argument.
            let statement_start = before.is_empty() || before.ends_with(['=', '{', '|', ';']) || before.ends_with("&&");
            let argument = line[end..].starts_with(' ')
                && after.starts_with(|c: char| c.is_alphanumeric() || matches!(c, '"' | '\'' | ':' | '@' | '$' | '['));
            if statement_start && argument {
                return true;
            }
        }
        false
    }
}
