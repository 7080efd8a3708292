//! `cargo xtask bench graph`: precision and recall of `references` and `callers` against an
//! external oracle, and their latency in-process and as whole processes.
//!
//! Oracles: a SCIP index (`--scip FILE`, or made here with `scip-python` / `scip-typescript`
//! installed from npm into a temp dir) gives the true references of Python and TypeScript
//! symbols; for other languages (`--oracle grep`), names defined exactly once are checked
//! against `git grep -n -w NAME` lines whose syntax shows a use (a call, a member access, an
//! argument). The repository (a checkout or a bare mirror) is cloned into a scratch directory
//! (shared objects, nothing written to it) and indexed at HEAD; every figure is computed in
//! the same run.
//!
//! Each SCIP symbol is asked for the way a user would pin it: module-qualified from its
//! definition's path (`src.flask.app.Flask.run`), then class-qualified (`Flask.run`), then
//! bare (`run`); the first answer whose definitions hold the oracle's definition is scored.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use codecompass::engine::{Direction, Engine, EngineOptions, Freshness, GraphRequest};
use codecompass::view::Scope;
use serde_json::{Value, json};

use crate::BenchArgs;
use crate::measure::{Scratch, median, percentile, secs};

/// `(path, line)`, lines 1-based.
mod grep;
mod scip;

use grep::grep_cases;
use scip::{main_language, module_segments, run_scip_indexer, scip_cases};

/// `(path, line)`, lines 1-based.
type Site = (String, u32);

/// Names asked for as whole processes (each `references` and `callers`).
const WHOLE_PROCESS_NAMES: usize = 15;
/// An overload's signature this many lines from the definition CodeCompass keeps is the same
/// (jotai's `atom` has six signatures over 24 lines before its implementation).
const OVERLOAD_LINES: u32 = 40;
/// Uses asked for per name: all of them.
const LIMIT: usize = 100_000;
/// Worst symbols printed, and examples of misses and extras printed for each.
const WORST: usize = 10;
const EXAMPLES: usize = 3;

/// One symbol the oracle knows: how to ask for it and where it is used.
struct Case {
    /// The oracle's name for it (a SCIP symbol, or the bare name).
    symbol: String,
    /// The last name (what `references` matches definitions by).
    name: String,
    /// The queries to try, most specific first, each with how it qualifies the name
    /// (`module`, `class`, `bare`).
    queries: Vec<(String, &'static str)>,
    /// `function` (functions and methods), `type`, `variable` (attributes, variables,
    /// constants) or `nested` (anything defined in a function's body).
    kind: &'static str,
    /// Where the oracle says it is defined (the line of its name).
    definition: Site,
    /// Every definition site of the symbol (a reassigned variable has several): no uses.
    definition_sites: BTreeSet<Site>,
    /// Where the oracle says it is used.
    truth: BTreeSet<Site>,
    /// Where the oracle ties the same name to other symbols (a use it decided is not this
    /// one's), when it can say so.
    elsewhere: Option<BTreeSet<Site>>,
}

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

/// What CodeCompass answered for one case.
struct Outcome {
    /// The query whose definitions held the oracle's, and how it was qualified.
    matched: Option<(String, &'static str)>,
    /// Definitions that query named.
    definitions: usize,
    /// Uses found, with their confidence and the line's text.
    ours: BTreeMap<Site, (&'static str, &'static str, String)>,
    /// Call sites `callers` reported into the definition.
    sites: BTreeSet<Site>,
    references_time: Duration,
    callers_time: Duration,
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

fn pct(v: f64) -> String {
    format!("{:.1}%", 100.0 * v)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `cargo xtask bench graph --repo PATH [--scip FILE] [--oracle scip|grep] [--names N]`.
pub fn graph(args: &BenchArgs) -> Result<()> {
    let bin = crate::bench::release_binary()?;
    let scratch = Scratch::new("graph")?;
    let checkout = scratch.0.as_path().join("checkout");
    let (commit, left_out) = check_out(&args.repo, &checkout)?;
    let files = git(&checkout, &["ls-files"])?.lines().count();
    let ours_commit = codecompass_commit();

    let started = Instant::now();
    let output = Command::new(&bin).args(["index", "--ref", "HEAD", "--quiet"]).current_dir(&checkout).output()?;
    if !output.status.success() {
        bail!("index failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let index_time = started.elapsed();
    eprintln!("indexed {files} files at {commit} in {}", secs(index_time));

    let engine = Engine::open(&checkout, &EngineOptions { store_dir: None, ..Default::default() })
        .map_err(|e| anyhow::anyhow!("opening the index: {e}"))?;
    let language = main_language(&checkout)?;
    let oracle = match args.oracle.as_deref() {
        Some(o) => o.to_owned(),
        None if args.scip.is_some() || matches!(language.as_str(), "python" | "typescript" | "javascript") => {
            "scip".to_owned()
        }
        None => "grep".to_owned(),
    };
    // A line that declares the name again (an overload's signature, a property's setter) is
    // neither a use nor a mistake, whichever side reports it.
    let declarations: HashSet<(String, u32, String)> = engine
        .all_symbols(&Scope::Ref("HEAD".to_owned()), Freshness::BestEffort)
        .map_err(|e| anyhow::anyhow!("listing symbols: {e}"))?
        .into_iter()
        .map(|s| {
            let name = s.qualified_name.rsplit(['.', ':']).next().unwrap_or(&s.qualified_name).to_owned();
            (s.path, s.line, name)
        })
        .collect();
    let (cases, oracle_note) = if oracle == "scip" {
        let (scip, note) = match &args.scip {
            Some(file) => (file.clone(), format!("the SCIP index {} (--scip)", file.display())),
            None => run_scip_indexer(&checkout, &language, scratch.0.as_path())?,
        };
        (scip_cases(&scip, args.names, &declarations, &mut FileLines::new(&checkout))?, note)
    } else {
        let note = "`git grep -n -w NAME HEAD` lines whose syntax shows a use".to_owned();
        (grep_cases(&engine, &checkout, args.names, &language)?, note)
    };
    if cases.is_empty() {
        bail!("the oracle gave no symbols to compare");
    }
    eprintln!("{} symbols from the {oracle} oracle", cases.len());

    // One warm-up call: the first query of a run opens the store and reads the view.
    let warm = request(&cases[0].queries[0].0);
    let _ = engine.references(&warm);
    let _ = engine.call_graph(&warm, Direction::Up);

    let mut outcomes = Vec::new();
    for case in &cases {
        outcomes.push(evaluate(&engine, case)?);
    }

    // Whole processes: the first names found, each asked once.
    let mut whole_references = Vec::new();
    let mut whole_callers = Vec::new();
    for query in outcomes.iter().filter_map(|o| o.matched.as_ref()).map(|m| m.0.as_str()).take(WHOLE_PROCESS_NAMES) {
        let limit = LIMIT.to_string();
        for (times, command) in [
            (&mut whole_references, vec!["references", query, "--ref", "HEAD", "--json", "--quiet", "--limit", &limit]),
            (&mut whole_callers, vec!["callers", query, "--ref", "HEAD", "--json", "--quiet", "--depth", "1"]),
        ] {
            let started = Instant::now();
            let status = Command::new(&bin)
                .args(&command)
                .current_dir(&checkout)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()?;
            // 1 is a found definition without uses.
            if matches!(status.code(), Some(0 | 1)) {
                times.push(started.elapsed());
            }
        }
    }

    // Scores.
    let mut lines = Score::default();
    let mut files_score = Score::default();
    let mut sure = Score::default();
    let mut pinned_lines = Score::default();
    let mut callers = Score::default();
    let mut call_refs = Score::default();
    let mut by_confidence: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut by_tier: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut multiple = 0;
    let mut by_kind: BTreeMap<&'static str, (usize, Score)> = BTreeMap::new();
    // Extras the oracle ties to another symbol, and extras it says nothing about.
    let (mut decided_wrong, mut undecided) = (0, 0);
    // The same for call sites `callers` gives.
    let (mut callers_decided_wrong, mut callers_undecided) = (0usize, 0usize);
    for (case, outcome) in cases.iter().zip(&outcomes) {
        let ours: BTreeSet<Site> = outcome.ours.keys().cloned().collect();
        let ours_sure: BTreeSet<Site> =
            outcome.ours.iter().filter(|(_, v)| v.0 != "ambiguous").map(|(k, _)| k.clone()).collect();
        lines.add(&ours, &case.truth);
        sure.add(&ours_sure, &case.truth);
        let kind = by_kind.entry(case.kind).or_default();
        kind.0 += 1;
        kind.1.add(&ours, &case.truth);
        if let Some(elsewhere) = &case.elsewhere {
            for site in ours.difference(&case.truth) {
                if elsewhere.contains(site) {
                    decided_wrong += 1;
                } else {
                    undecided += 1;
                }
            }
        }
        let file_set = |s: &BTreeSet<Site>| s.iter().map(|(p, _)| (p.clone(), 0)).collect::<BTreeSet<Site>>();
        files_score.add(&file_set(&ours), &file_set(&case.truth));
        *by_tier.entry(outcome.matched.as_ref().map_or("not found", |m| m.1)).or_default() += 1;
        if outcome.matched.is_some() {
            pinned_lines.add(&ours, &case.truth);
            if outcome.definitions > 1 {
                multiple += 1;
            }
        }
        for (site, (confidence, _, _)) in &outcome.ours {
            let entry = by_confidence.entry(confidence).or_default();
            entry.0 += 1;
            entry.1 += usize::from(case.truth.contains(site));
        }
        let mut c = Score::default();
        c.add(&outcome.sites, &case.truth);
        callers.found += c.found;
        callers.correct += c.correct;
        if let Some(elsewhere) = &case.elsewhere {
            for site in outcome.sites.difference(&case.truth) {
                if elsewhere.contains(site) {
                    callers_decided_wrong += 1;
                } else {
                    callers_undecided += 1;
                }
            }
        }
        // Callers against the correct call references: does `callers` show every call that
        // `references` tied to the definition?
        let correct_calls: BTreeSet<Site> = outcome
            .ours
            .iter()
            .filter(|(site, v)| v.1 == "call" && case.truth.contains(*site))
            .map(|(k, _)| k.clone())
            .collect();
        call_refs.add(&outcome.sites, &correct_calls);
    }
    let ref_times: Vec<Duration> = outcomes.iter().map(|o| o.references_time).collect();
    let caller_times: Vec<Duration> = outcomes.iter().map(|o| o.callers_time).collect();

    let repo_name = repo_name(&args.repo);
    println!(
        "### {repo_name} ({language}, {files} files, commit {commit}; CodeCompass {ours_commit}; oracle: {oracle})\n"
    );
    println!("oracle: {oracle_note}\n");
    if left_out > 0 {
        println!("{left_out} files whose blobs the repository lacks were left out (both sides).\n");
    }
    println!("| figure | value |\n| --- | ---: |");
    println!("| symbols compared | {} |", cases.len());
    println!(
        "| definition found by query (module-qualified / class-qualified / requalified from the answer / bare / not found) | {} / {} / {} / {} / {} |",
        by_tier.get("module").unwrap_or(&0),
        by_tier.get("class").unwrap_or(&0),
        by_tier.get("requalified").unwrap_or(&0),
        by_tier.get("bare").unwrap_or(&0),
        by_tier.get("not found").unwrap_or(&0)
    );
    println!("| queries naming more than one definition | {multiple} |");
    println!("| true uses (lines) | {} |", lines.truth);
    println!("| uses reported (lines) | {} |", lines.found);
    println!("| reference precision / recall, lines | {} / {} |", pct(lines.precision()), pct(lines.recall()));
    // Every symbol weighs the same: a name used everywhere does not decide the figure.
    let singles: Vec<Score> = cases
        .iter()
        .zip(&outcomes)
        .map(|(c, o)| {
            let mut s = Score::default();
            s.add(&o.ours.keys().cloned().collect(), &c.truth);
            s
        })
        .collect();
    let answered: Vec<&Score> = singles.iter().filter(|s| s.found > 0).collect();
    let macro_precision = answered.iter().map(|s| s.precision()).sum::<f64>() / answered.len().max(1) as f64;
    let macro_recall = singles.iter().map(Score::recall).sum::<f64>() / singles.len().max(1) as f64;
    println!(
        "| mean per symbol: precision (of {} with uses reported) / recall | {} / {} |",
        answered.len(),
        pct(macro_precision),
        pct(macro_recall)
    );
    println!(
        "| reference precision / recall, files | {} / {} |",
        pct(files_score.precision()),
        pct(files_score.recall())
    );
    println!("| recall where the definition was found | {} of {} |", pct(pinned_lines.recall()), pinned_lines.truth);
    println!("| precision without `ambiguous` (recall) | {} ({}) |", pct(sure.precision()), pct(sure.recall()));
    if oracle == "scip" {
        let decided = lines.correct as f64 / (lines.correct + decided_wrong).max(1) as f64;
        println!(
            "| precision where the oracle decided (extras it ties elsewhere / extras it has no symbol for) | {} ({decided_wrong} / {undecided}) |",
            pct(decided)
        );
    }
    if by_kind.contains_key("nested") {
        let mut top = Score::default();
        for (_, (_, score)) in by_kind.iter().filter(|(k, _)| **k != "nested") {
            top.found += score.found;
            top.correct += score.correct;
            top.truth += score.truth;
        }
        println!(
            "| precision / recall, lines, without `nested` (symbols defined in a function's body) | {} / {} |",
            pct(top.precision()),
            pct(top.recall())
        );
    }
    for (kind, (n, score)) in &by_kind {
        println!("| {kind}s ({n}): precision / recall, lines | {} / {} |", pct(score.precision()), pct(score.recall()));
    }
    let confidences: Vec<String> = by_confidence
        .iter()
        .map(|(k, (n, ok))| format!("{k} {} of {n}", pct(if *n == 0 { 1.0 } else { *ok as f64 / *n as f64 })))
        .collect();
    println!("| precision by confidence | {} |", confidences.join(", "));
    println!("| caller precision (call sites, depth 1) | {} of {} |", pct(callers.precision()), callers.found);
    let callers_decided = callers.correct as f64 / (callers.correct + callers_decided_wrong).max(1) as f64;
    if cases.iter().any(|c| c.elsewhere.is_some()) {
        println!(
            "| caller precision where the oracle decided (sites it ties elsewhere / sites it has no symbol for) | {} ({} / {}) |",
            pct(callers_decided),
            callers_decided_wrong,
            callers_undecided
        );
    }
    println!("| callers' recall of correct call references | {} of {} |", pct(call_refs.recall()), call_refs.truth);
    println!(
        "| `references` in-process p50 / p95 | {:.1} / {:.1} ms |",
        ms(median(&ref_times)),
        ms(percentile(&ref_times, 95.0))
    );
    println!(
        "| `callers` in-process p50 / p95 | {:.1} / {:.1} ms |",
        ms(median(&caller_times)),
        ms(percentile(&caller_times, 95.0))
    );
    println!(
        "| whole process median, `references` / `callers` ({} names) | {:.1} / {:.1} ms |",
        whole_references.len(),
        ms(median(&whole_references)),
        ms(median(&whole_callers))
    );
    println!("| index at HEAD | {} |", secs(index_time));

    // The worst symbols, with the lines behind the figures.
    let mut order: Vec<usize> = (0..cases.len()).collect();
    let one = |i: usize| {
        let mut s = Score::default();
        s.add(&outcomes[i].ours.keys().cloned().collect(), &cases[i].truth);
        s
    };
    order.sort_by(|&a, &b| {
        let (sa, sb) = (one(a), one(b));
        sa.recall()
            .total_cmp(&sb.recall())
            .then(sa.precision().total_cmp(&sb.precision()))
            .then(sb.truth.cmp(&sa.truth))
    });
    let mut texts = FileLines::new(&checkout);
    let mut worst_json = Vec::new();
    println!("\n#### lowest recall, then precision\n");
    for &i in order.iter().take(WORST) {
        worst_json.push(describe(&cases[i], &outcomes[i], one(i), &mut texts));
    }
    order.sort_by(|&a, &b| {
        let (sa, sb) = (one(a), one(b));
        sa.precision()
            .total_cmp(&sb.precision())
            .then(sa.recall().total_cmp(&sb.recall()))
            .then((sb.found - sb.correct).cmp(&(sa.found - sa.correct)))
    });
    println!("\n#### lowest precision\n");
    for &i in order.iter().filter(|&&i| one(i).precision() < 1.0).take(WORST) {
        worst_json.push(describe(&cases[i], &outcomes[i], one(i), &mut texts));
    }

    if let Some(path) = &args.json {
        let per_symbol: Vec<Value> = cases
            .iter()
            .zip(&outcomes)
            .map(|(case, outcome)| {
                let ours: BTreeSet<Site> = outcome.ours.keys().cloned().collect();
                let missed: Vec<Value> = case
                    .truth
                    .difference(&ours)
                    .map(|site| json!({"site": format!("{}:{}", site.0, site.1), "text": texts.line(site)}))
                    .collect();
                let extra: Vec<Value> = ours
                    .difference(&case.truth)
                    .map(|site| {
                        let (confidence, kind, text) = &outcome.ours[site];
                        json!({
                            "site": format!("{}:{}", site.0, site.1), "text": text, "kind": kind,
                            "confidence": confidence,
                            "oracle_elsewhere": case.elsewhere.as_ref().map(|e| e.contains(site)),
                        })
                    })
                    .collect();
                let found_confidence: BTreeMap<&str, usize> =
                    outcome.ours.values().fold(BTreeMap::new(), |mut m, v| {
                        *m.entry(v.0).or_default() += 1;
                        m
                    });
                json!({
                    "kind": case.kind,
                    "missed": missed,
                    "extra": extra,
                    "confidences": found_confidence,
                    "symbol": case.symbol,
                    "definition": format!("{}:{}", case.definition.0, case.definition.1),
                    "query": outcome.matched.as_ref().map(|m| m.0.clone()),
                    "matched_by": outcome.matched.as_ref().map(|m| m.1),
                    "definitions": outcome.definitions,
                    "truth": case.truth.len(),
                    "found": ours.len(),
                    "correct": ours.intersection(&case.truth).count(),
                    "call_sites": outcome.sites.len(),
                    "call_sites_correct": outcome.sites.intersection(&case.truth).count(),
                    "references_ms": ms(outcome.references_time),
                    "callers_ms": ms(outcome.callers_time),
                })
            })
            .collect();
        let mut value = json!({
            "repository": repo_name, "language": language, "files": files, "commit": commit, "files_left_out": left_out,
            "codecompass_commit": ours_commit, "oracle": oracle, "oracle_run": oracle_note,
            "symbols": cases.len(), "true_uses": lines.truth, "uses_reported": lines.found,
            "found_by": by_tier, "multiple_definitions": multiple,
            "line_precision": lines.precision(), "line_recall": lines.recall(),
            "file_precision": files_score.precision(), "file_recall": files_score.recall(),
            "pinned_recall": pinned_lines.recall(),
            "mean_precision": macro_precision, "mean_recall": macro_recall,
            "decided_precision": (oracle == "scip").then(|| lines.correct as f64 / (lines.correct + decided_wrong).max(1) as f64),
            "extras_tied_elsewhere": decided_wrong, "extras_unknown_to_oracle": undecided,
            "by_kind": by_kind.iter().map(|(k, (n, sc))| (k.to_string(), json!({"symbols": n, "precision": sc.precision(), "recall": sc.recall(), "truth": sc.truth, "found": sc.found, "correct": sc.correct}))).collect::<serde_json::Map<_, _>>(),
            "sure_precision": sure.precision(), "sure_recall": sure.recall(),
            "precision_by_confidence": by_confidence.iter().map(|(k, (n, ok))| (k.to_string(), json!({"reported": n, "correct": ok}))).collect::<serde_json::Map<_, _>>(),
            "caller_precision": callers.precision(), "caller_sites": callers.found,
            "caller_recall_of_call_references": call_refs.recall(),
            "references_p50_ms": ms(median(&ref_times)),
            "references_p95_ms": ms(percentile(&ref_times, 95.0)),
            "callers_p50_ms": ms(median(&caller_times)),
            "callers_p95_ms": ms(percentile(&caller_times, 95.0)),
            "whole_process_references_ms": ms(median(&whole_references)),
            "whole_process_callers_ms": ms(median(&whole_callers)),
            "index_s": index_time.as_secs_f64(),
            "worst": worst_json,
            "per_symbol": per_symbol,
        });
        value["caller_precision_where_decided"] = json!(callers_decided);
        value["caller_sites_tied_elsewhere"] = json!(callers_decided_wrong);
        value["caller_sites_undecided"] = json!(callers_undecided);
        std::fs::write(path, serde_json::to_string_pretty(&value)?)?;
    }
    Ok(())
}

/// Clones `repo` (a checkout or a bare mirror; objects shared, nothing written to it) into
/// `checkout` and checks out HEAD. A mirror may lack some large blobs: those files are left out
/// by a commit on top of HEAD, which is what gets indexed. Returns HEAD's short hash and how
/// many files were left out.
fn check_out(repo: &Path, checkout: &Path) -> Result<(String, usize)> {
    eprintln!("cloning {} (shared objects) into a scratch checkout", repo.display());
    let status = Command::new("git")
        .args(["clone", "-q", "--shared", "--no-checkout"])
        .arg(repo)
        .arg(checkout)
        .status()
        .context("git clone")?;
    if !status.success() {
        bail!("git clone --shared {} failed", repo.display());
    }
    let commit = git(checkout, &["rev-parse", "--short", "HEAD"])?.trim().to_owned();
    // `mode type oid\tpath`; gitlinks (submodules) have no blob.
    let tree = git(checkout, &["ls-tree", "-r", "-z", "HEAD"])?;
    let entries: Vec<(&str, &str)> = tree
        .split('\0')
        .filter_map(|e| {
            let (meta, path) = e.split_once('\t')?;
            let mut meta = meta.split(' ');
            let (_, kind, oid) = (meta.next()?, meta.next()?, meta.next()?);
            (kind == "blob").then_some((oid, path))
        })
        .collect();
    let mut batch = Command::new("git")
        .args(["cat-file", "--batch-check"])
        .current_dir(checkout)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("git cat-file")?;
    let mut stdin = batch.stdin.take().context("git cat-file stdin")?;
    let oids: String = entries.iter().map(|(oid, _)| format!("{oid}\n")).collect();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, oids.as_bytes()));
    let output = batch.wait_with_output()?;
    writer.join().map_err(|_| anyhow::anyhow!("writing to git cat-file"))??;
    let answers = String::from_utf8_lossy(&output.stdout);
    let missing: Vec<&str> = entries
        .iter()
        .zip(answers.lines())
        .filter(|(_, answer)| answer.ends_with(" missing"))
        .map(|((_, path), _)| *path)
        .collect();
    if missing.is_empty() {
        git(checkout, &["checkout", "-q", "HEAD"])?;
        return Ok((commit, 0));
    }
    eprintln!("{} files whose blobs the repository lacks are left out (a commit on top of HEAD)", missing.len());
    git(checkout, &["read-tree", "HEAD"])?;
    let mut remove = Command::new("git")
        .args(["update-index", "--force-remove", "-z", "--stdin"])
        .current_dir(checkout)
        .stdin(Stdio::piped())
        .spawn()
        .context("git update-index")?;
    let list: String = missing.iter().map(|p| format!("{p}\0")).collect();
    std::io::Write::write_all(&mut remove.stdin.take().context("git update-index stdin")?, list.as_bytes())?;
    if !remove.wait()?.success() {
        bail!("git update-index failed");
    }
    git(checkout, &["checkout-index", "-a", "-f"])?;
    git(
        checkout,
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "commit",
            "-q",
            "--no-verify",
            "-m",
            "without the blobs the repository lacks",
        ],
    )?;
    Ok((commit, missing.len()))
}

/// The commit of the CodeCompass source measured, `+changes` when its sources differ from it,
/// `, CODECOMPASS_BIN` when a given binary is measured instead of a fresh build.
fn codecompass_commit() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let commit = git(&root, &["log", "-1", "--format=%h"]).map(|c| c.trim().to_owned()).unwrap_or_default();
    let changed = git(&root, &["status", "--porcelain", "--", "src", "Cargo.toml", "Cargo.lock"])
        .is_ok_and(|s| !s.trim().is_empty());
    let given = std::env::var_os("CODECOMPASS_BIN").is_some();
    format!("{commit}{}{}", if changed { "+changes" } else { "" }, if given { ", CODECOMPASS_BIN" } else { "" })
}

fn repo_name(repo: &Path) -> String {
    // A mirror's directory is often `owner+name/repo`: name it by its parent then.
    let name = repo.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    if matches!(name.as_str(), "repo" | "repo.git" | ".git")
        && let Some(parent) = repo.parent().and_then(Path::file_name)
    {
        return parent.to_string_lossy().into_owned();
    }
    name
}

fn request(name: &str) -> GraphRequest {
    GraphRequest {
        name: name.to_owned(),
        lang: None,
        path: None,
        scope: Scope::Ref("HEAD".to_owned()),
        limit: LIMIT,
        depth: 1,
        freshness: Freshness::BestEffort,
    }
}

/// Asks `references` and `callers` for one case.
fn evaluate(engine: &Engine, case: &Case) -> Result<Outcome> {
    let (path, line) = (&case.definition.0, case.definition.1);
    let mut matched = None;
    let mut response = None;
    let mut references_time = Duration::ZERO;
    // The oracle's definition line, or one within this definition, or an overload beside it
    // (a TypeScript or `@overload` signature: the oracle names the first, CodeCompass keeps
    // the implementation).
    let ours_of = |d: &codecompass::engine::GraphDefinition| {
        d.path == *path
            && (d.line == line
                || (d.name == case.name
                    && ((d.line_start <= line && line <= d.line_end) || d.line.abs_diff(line) <= OVERLOAD_LINES)))
    };
    for (query, tier) in &case.queries {
        let started = Instant::now();
        let answer = engine.references(&request(query)).map_err(|e| anyhow::anyhow!("{query}: {e}"))?;
        references_time = started.elapsed();
        let Some(definition) = answer.definitions.iter().find(|d| ours_of(d)) else { continue };
        // A name that means several definitions is pinned the way a user would, from the
        // answer: the module path and the qualified name it shows for the one meant.
        if answer.definitions.len() > 1 {
            let pinned = format!("{}.{}", module_segments(path).join("."), definition.qualified_name);
            let started = Instant::now();
            let again = engine.references(&request(&pinned)).map_err(|e| anyhow::anyhow!("{pinned}: {e}"))?;
            let elapsed = started.elapsed();
            if again.definitions.iter().any(&ours_of) && again.definitions.len() < answer.definitions.len() {
                references_time = elapsed;
                matched = Some((pinned, "requalified"));
                response = Some(again);
                break;
            }
        }
        matched = Some((query.clone(), *tier));
        response = Some(answer);
        break;
    }
    let Some(response) = response else {
        return Ok(Outcome {
            matched: None,
            definitions: 0,
            ours: BTreeMap::new(),
            sites: BTreeSet::new(),
            references_time,
            callers_time: Duration::ZERO,
        });
    };
    let query = matched.as_ref().map(|m| m.0.clone()).unwrap_or_default();
    // CodeCompass's own line for the definition (an overload's implementation, say).
    let own = response.definitions.iter().find(|d| ours_of(d)).map(|d| format!("{}:{}", d.path, d.line));
    let ours = response
        .results
        .into_iter()
        .filter(|r| !case.definition_sites.contains(&(r.path.clone(), r.line)))
        // An ambiguous use of a name with several definitions counts only where it could
        // mean this one.
        .filter(|r| r.candidates.is_empty() || r.candidates.iter().any(|c| own.as_ref() == Some(c)))
        // A use resolved to another of the name's definitions is not this one's.
        .filter(|r| r.definition.is_none() || r.definition == own)
        .map(|r| ((r.path, r.line), (r.confidence, r.kind, r.text)))
        .collect();

    let started = Instant::now();
    let graph = engine.call_graph(&request(&query), Direction::Up).map_err(|e| anyhow::anyhow!("{query}: {e}"))?;
    let callers_time = started.elapsed();
    let roots: Vec<&codecompass::engine::GraphNode> =
        graph.nodes.iter().filter(|n| n.depth == 0 && n.path == *path).collect();
    let root = roots
        .iter()
        .find(|n| n.line == line)
        .or_else(|| roots.iter().filter(|n| n.name == case.name).min_by_key(|n| n.line.abs_diff(line)))
        .map(|n| n.id);
    let sites = graph
        .edges
        .iter()
        .filter(|e| Some(e.to) == root)
        .flat_map(|e| e.sites.iter().map(|s| (s.path.clone(), s.line)))
        .filter(|s| !case.definition_sites.contains(s))
        .collect();
    Ok(Outcome { matched, definitions: response.definitions.len(), ours, sites, references_time, callers_time })
}

/// Lines of the checkout's files, read once each, for examples.
struct FileLines {
    root: PathBuf,
    files: HashMap<String, Vec<String>>,
}

impl FileLines {
    fn new(root: &Path) -> FileLines {
        FileLines { root: root.to_path_buf(), files: HashMap::new() }
    }

    fn line(&mut self, site: &Site) -> String {
        let lines = self.files.entry(site.0.clone()).or_insert_with(|| {
            let data = std::fs::read(self.root.join(&site.0)).unwrap_or_default();
            String::from_utf8_lossy(&data).lines().map(str::to_owned).collect()
        });
        let text = lines.get(site.1 as usize - 1).map_or("", |l| l.trim());
        text.chars().take(100).collect()
    }
}

/// Prints one symbol's figures with a few misses and extras, and returns them as JSON.
fn describe(case: &Case, outcome: &Outcome, score: Score, texts: &mut FileLines) -> Value {
    let ours: BTreeSet<Site> = outcome.ours.keys().cloned().collect();
    let how = match &outcome.matched {
        Some((query, tier)) => format!("`{query}` ({tier}, {} definitions)", outcome.definitions),
        None => format!("`{}`: definition not found", case.queries[0].0),
    };
    println!(
        "- {how}, defined {}:{}: recall {} ({}/{}), precision {} ({}/{})",
        case.definition.0,
        case.definition.1,
        pct(score.recall()),
        score.correct,
        score.truth,
        pct(score.precision()),
        score.correct,
        score.found
    );
    let misses: Vec<Site> = case.truth.difference(&ours).take(EXAMPLES).cloned().collect();
    let extras: Vec<Site> = ours.difference(&case.truth).take(EXAMPLES).cloned().collect();
    let mut missed = Vec::new();
    for site in &misses {
        let text = texts.line(site);
        println!("  - missed {}:{}  `{text}`", site.0, site.1);
        missed.push(json!({"site": format!("{}:{}", site.0, site.1), "text": text}));
    }
    let mut extra = Vec::new();
    for site in &extras {
        let (confidence, kind, _) = &outcome.ours[site];
        let text = texts.line(site);
        println!("  - extra {}:{} [{kind}, {confidence}]  `{text}`", site.0, site.1);
        extra.push(json!({"site": format!("{}:{}", site.0, site.1), "text": text, "confidence": confidence}));
    }
    json!({
        "symbol": case.symbol,
        "query": outcome.matched.as_ref().map_or(case.queries[0].0.clone(), |m| m.0.clone()),
        "definition": format!("{}:{}", case.definition.0, case.definition.1),
        "recall": score.recall(), "precision": score.precision(),
        "truth": score.truth, "found": score.found, "correct": score.correct,
        "missed": missed, "extra": extra,
    })
}
