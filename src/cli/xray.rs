//! `xray` and `xray explore`: arguments in, engine call, rendering out.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::output::Out;
use crate::engine::{BatchResponse, Engine, Error, ExploreRequest, ExploreResponse, Freshness, XrayResponse};
use crate::error::ErrorCode;
use crate::query::Filters;
use crate::view::Scope;
use crate::xray::{Batch, Evaluator, Scan, ScriptLimits, XrayRequest};

/// Evaluation errors printed on stderr (all are in `--json`).
const ERRORS_PRINTED: usize = 10;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct XrayArgs {
    #[command(subcommand)]
    command: Option<XrayCommand>,
    /// Text every match contains: a regex (Rust syntax), or a literal with -F. The index reads
    /// only the files that contain it; without it, the texts the query demands (its
    /// predicates' literals, its node kinds' keywords) do, else every file of the view is
    /// parsed.
    #[arg(value_name = "DRIVER")]
    driver: Option<String>,
    /// A tree-sitter query run on each candidate's syntax tree; each match is reported at its
    /// `@match` capture, else at the span of its captures (`@_name` captures are not
    /// reported).
    #[arg(long, value_name = "QUERY", required_unless_present_any = ["script", "batch"], conflicts_with = "script")]
    query: Option<String>,
    /// A Rhai script run on each candidate's syntax tree, sandboxed (`-` reads standard
    /// input); it returns the matches (docs/xray.md).
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// The driver is a literal, not a regex.
    #[arg(short = 'F', long = "fixed-strings")]
    literal: bool,
    /// The driver ignores case.
    #[arg(short = 'i', long = "ignore-case")]
    ignore_case: bool,
    /// Look at this commit-ish instead of the working tree (with `--repo`, `ALIAS=REF` puts
    /// one repository at a ref; repeatable).
    #[arg(long = "ref", value_name = "REF")]
    reference: Vec<String>,
    /// Only these languages (repeatable).
    #[arg(long, value_name = "LANG")]
    lang: Vec<String>,
    /// Only paths matching these globs (repeatable).
    #[arg(long, value_name = "GLOB")]
    path: Vec<String>,
    /// Not paths matching these globs (repeatable).
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// At most N matches.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    limit: usize,
    /// At most N files parsed (in path order).
    #[arg(long, value_name = "N")]
    max_files: Option<usize>,
    /// Stop after this many seconds; what was found is kept and the answer marked partial.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// A script's operation budget per file.
    #[arg(long, default_value_t = ScriptLimits::default().max_operations, value_name = "N")]
    max_operations: u64,
    /// A script's time budget per file, in milliseconds.
    #[arg(long, default_value_t = ScriptLimits::default().file_time.as_millis() as u64, value_name = "MS")]
    file_time: u64,
    /// Run the scans of a batch file: JSON with `scans` (each with `driver`, `query` or
    /// `script`/`script_file`, `lang`, `path`, `exclude`, `limit`), `refs`, `timeout_seconds`
    /// and `max_files` (docs/xray.md).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["query", "script", "driver"])]
    batch: Option<PathBuf>,
    /// Run as a background job: print its id and return at once; `git codecompass jobs show
    /// ID` gives its progress and answer.
    #[arg(long)]
    background: bool,
    #[command(flatten)]
    across: super::across::AcrossArgs,
}

/// `jobs`: background jobs.
#[derive(Debug, Subcommand)]
pub(super) enum JobsAction {
    /// A job's status, progress and answer (partial while it runs).
    Show {
        /// The job's id.
        id: String,
        /// Wait until it ends.
        #[arg(long)]
        wait: bool,
    },
    /// Ask a job to stop; it keeps what it found so far.
    Cancel {
        /// The job's id.
        id: String,
    },
    /// Run a queued job in this process (what a job's own process does).
    #[command(hide = true)]
    Run {
        /// The job's id.
        id: String,
    },
}

#[derive(Debug, Subcommand)]
enum XrayCommand {
    /// Print a file's syntax tree (node kinds, fields, positions, short texts), or the node of
    /// one line, or what a query captures: the way to write a query or a script.
    Explore {
        /// The file, relative to the current directory or the repository root.
        path: String,
        /// Only the node of this line and below.
        #[arg(long, value_name = "N")]
        line: Option<u32>,
        /// Show what this query captures instead of the nodes.
        #[arg(long, value_name = "QUERY")]
        query: Option<String>,
        /// Anonymous nodes too (punctuation, keywords).
        #[arg(long)]
        all: bool,
        /// At most N nodes.
        #[arg(long, default_value_t = 2000, value_name = "N")]
        max_nodes: usize,
        /// Look at this commit-ish instead of the working tree.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
    },
}

/// Runs `xray` or `xray explore`; `Ok(false)` when nothing matched.
pub(super) fn run(engine: &Engine, base: &std::path::Path, args: &XrayArgs, out: &Out) -> Result<bool, Error> {
    let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
    if let Some(XrayCommand::Explore { path, line, query, all, max_nodes, reference }) = &args.command {
        let request = ExploreRequest {
            path: engine.relative_path(base, path)?,
            line: *line,
            query: query.clone(),
            all: *all,
            max_nodes: *max_nodes,
            scope: Scope::from_option(reference.as_deref()),
            freshness,
        };
        let response = engine.xray_explore(&request)?;
        explore(out, &response);
        return Ok(match &response.tree.captures {
            Some(c) => !c.is_empty(),
            None => !response.tree.nodes.is_empty(),
        });
    }
    let scope = super::across::one_ref(&args.reference)?;
    if let Some(file) = &args.batch {
        let mut batch = read_batch(base, file)?;
        if let Scope::Ref(reference) = &scope {
            batch.refs = vec![reference.clone()];
        }
        batch.timeout_seconds = batch.timeout_seconds.or(args.timeout);
        batch.max_files = batch.max_files.or(args.max_files);
        return run_batch(engine, &batch, args.background, out);
    }
    let script = args.script.as_ref().map(|file| read_script(base, file)).transpose()?;
    if args.background {
        let scan = Scan {
            driver: args.driver.clone(),
            literal: args.literal,
            ignore_case: args.ignore_case,
            query: args.query.clone(),
            script,
            lang: args.lang.clone(),
            path: args.path.clone(),
            exclude: args.exclude.clone(),
            limit: Some(args.limit),
            max_operations: Some(args.max_operations),
            file_time_ms: Some(args.file_time),
            ..Scan::default()
        };
        let batch = Batch {
            refs: args.reference.clone(),
            scans: vec![scan],
            timeout_seconds: args.timeout,
            max_files: args.max_files,
        };
        return run_batch(engine, &batch, true, out);
    }
    let (request, filters) = scan_request(args, script)?;
    let response = engine.xray(&request, &filters, &scope, freshness)?;
    matches(out, &response);
    Ok(!response.output.results.is_empty())
}

/// `xray --repo`: the scan in each registered repository the patterns name; `None` without
/// `--repo`.
pub(super) fn run_across(args: &XrayArgs, base: &std::path::Path, out: &Out) -> Option<Result<bool, Error>> {
    if !args.across.active() || args.command.is_some() {
        return None;
    }
    if args.batch.is_some() || args.background {
        return Some(Err(Error::new(
            ErrorCode::InvalidArgument,
            "`--batch` and `--background` are not available with `--repo`",
        )
        .with_remedy("run the scan across repositories in the foreground")));
    }
    let answer = args
        .script
        .as_ref()
        .map(|file| read_script(base, file))
        .transpose()
        .and_then(|script| scan_request(args, script))
        .and_then(|(request, filters)| super::across::xray(&args.across, &args.reference, &request, &filters, out));
    Some(answer)
}

/// The scan `args` asks for (a script already read) and its file filters.
fn scan_request(args: &XrayArgs, script: Option<String>) -> Result<(XrayRequest, Filters), Error> {
    let evaluator = match (&args.query, script) {
        (Some(q), _) => Evaluator::Query(q.clone()),
        (None, Some(script)) => Evaluator::Script(script),
        (None, None) => return Err(Error::new(ErrorCode::InvalidArgument, "xray needs --query or --script")),
    };
    let timeout = match args.timeout {
        Some(t) if !(t > 0.0 && t.is_finite()) => {
            return Err(Error::new(ErrorCode::InvalidArgument, "--timeout must be a positive number of seconds"));
        }
        t => t.map(Duration::from_secs_f64),
    };
    let request = XrayRequest {
        driver: args.driver.clone(),
        literal: args.literal,
        ignore_case: args.ignore_case,
        evaluator,
        limit: args.limit,
        max_files: args.max_files,
        timeout,
        limits: ScriptLimits { max_operations: args.max_operations, file_time: Duration::from_millis(args.file_time) },
    };
    let filters = Filters {
        langs: args.lang.clone(),
        paths: args.path.clone(),
        excludes: args.exclude.clone(),
        ..Filters::default()
    };
    Ok((request, filters))
}

/// Runs a batch here, or starts it as a background job.
fn run_batch(engine: &Engine, batch: &Batch, background: bool, out: &Out) -> Result<bool, Error> {
    if background {
        let state = engine.start_job(batch)?;
        if out.is_json() {
            out.json(&state);
        } else {
            out.text(&format!(
                "{}
",
                state.job_id
            ));
            stderr_lines(&[format!(
                "note: job {} started; `git codecompass jobs show {}` gives its progress and answer",
                state.job_id, state.job_id
            )]);
        }
        return Ok(true);
    }
    let response = engine.xray_batch(batch, Freshness::configured(engine.workspace(), Freshness::Strict), None)?;
    batch_answer(out, &response);
    Ok(response.total_matches > 0)
}

/// Reads a batch file; `script_file`s are read relative to it.
fn read_batch(base: &std::path::Path, file: &std::path::Path) -> Result<Batch, Error> {
    let path = base.join(file);
    let bad = |m: String| {
        Error::new(ErrorCode::InvalidArgument, format!("the batch {}: {m}", file.display())).with_remedy(
            "a batch is JSON: {\"refs\": [...], \"scans\": [{\"driver\": ..., \"query\": ...}]} (docs/xray.md)",
        )
    };
    let text = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
    let mut batch: Batch = serde_json::from_slice(&text).map_err(|e| bad(e.to_string()))?;
    let dir = path.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
    for scan in &mut batch.scans {
        if let Some(script_file) = scan.script_file.take() {
            if scan.script.is_some() {
                return Err(bad("a scan gives both `script` and `script_file`".to_owned()));
            }
            scan.script = Some(read_script(&dir, std::path::Path::new(&script_file))?);
        }
    }
    batch.validate().map_err(bad)?;
    Ok(batch)
}

/// Runs `jobs`: lists the jobs, or shows, cancels or runs one.
pub(super) fn jobs(engine: &Engine, action: Option<&JobsAction>, out: &Out) -> Result<bool, Error> {
    let state = match action {
        None => {
            let jobs = engine.jobs()?;
            if out.is_json() {
                out.json(&serde_json::json!({ "codecompass_protocol_version": crate::engine::PROTOCOL_VERSION, "jobs": jobs }));
            } else {
                let mut text = String::new();
                for j in &jobs {
                    text.push_str(&format!("{} {} {}/{} runs\n", j.job_id, j.status, j.runs_done, j.runs_total));
                }
                out.text(&text);
            }
            return Ok(!jobs.is_empty());
        }
        Some(JobsAction::Show { id, wait }) => {
            let mut state = engine.job(id)?;
            while *wait && !state.finished() {
                std::thread::sleep(Duration::from_millis(100));
                state = engine.job(id)?;
            }
            state
        }
        Some(JobsAction::Cancel { id }) => engine.cancel_job(id)?,
        Some(JobsAction::Run { id }) => engine.run_job(id)?,
    };
    if out.is_json() {
        out.json(&state);
        return Ok(true);
    }
    let mut info = vec![format!(
        "job {}: {}{}, {}/{} runs done",
        state.job_id,
        state.status,
        if state.cancel_requested && !state.finished() { " (cancel asked)" } else { "" },
        state.runs_done,
        state.runs_total
    )];
    if let Some(error) = &state.error {
        info.push(format!("error: {error}"));
    }
    stderr_lines(&info);
    if let Some(answer) = &state.answer {
        out.text(&runs_text(out, answer));
    }
    Ok(true)
}

fn batch_answer(out: &Out, response: &BatchResponse) {
    if out.is_json() {
        return out.json(response);
    }
    out.text(&runs_text(out, &serde_json::to_value(response).unwrap_or_default()));
    let mut info = Vec::new();
    if response.timed_out {
        info.push("note: the batch's time limit stopped it".to_owned());
    }
    info.push(format!(
        "{} match(es) in {} of {} run(s) ({})",
        response.total_matches,
        response.runs.len(),
        response.runs_total,
        response.result_completeness
    ));
    stderr_lines(&info);
}

/// A batch answer (or a job's partial one) as text: each run's heading, then its matches.
fn runs_text(out: &Out, answer: &serde_json::Value) -> String {
    use serde_json::Value;
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let n = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let mut text = String::new();
    for run in answer.get("runs").and_then(Value::as_array).into_iter().flatten() {
        let body = run.get("partial").unwrap_or(run);
        text.push_str(&format!(
            "== {} at {}: {} match(es)",
            s(run, "scan"),
            s(run, "asked_ref"),
            n(body, "total_matches")
        ));
        if let Some(error) = run.get("error") {
            text.push_str(&format!(": error: {}", s(error, "message")));
        }
        text.push('\n');
        for m in body.get("results").and_then(Value::as_array).into_iter().flatten() {
            let first = s(m, "text");
            text.push_str(&format!(
                "{}:{}:{}: {}\n",
                out.path(&s(m, "path")),
                n(m, "line_start"),
                n(m, "column"),
                first.lines().next().unwrap_or("")
            ));
        }
    }
    text
}

fn read_script(base: &std::path::Path, file: &std::path::Path) -> Result<String, Error> {
    let mut text = String::new();
    let read = if file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(base.join(file)).map(|t| text = t)
    };
    read.map_err(|e| {
        Error::new(ErrorCode::InvalidArgument, format!("cannot read the script {}: {e}", file.display()))
            .with_remedy("give the path of a Rhai script, or - to read it from standard input")
    })?;
    Ok(text)
}

fn stderr_lines(lines: &[String]) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    for line in lines {
        let _ = writeln!(stderr, "{line}");
    }
}

fn matches(out: &Out, response: &XrayResponse) {
    if out.is_json() {
        return out.json(response);
    }
    let o = &response.output;
    let mut text = String::new();
    for m in &o.results {
        let first = m.text.lines().next().unwrap_or("");
        let more = if m.line_end > m.line_start { " …" } else { "" };
        text.push_str(&format!("{}:{}:{}: {first}{more}", out.path(&m.path), m.line_start, m.column));
        if let Some(value) = &m.value {
            text.push_str(&format!("  => {value}"));
        }
        text.push('\n');
        // Captures other than the one that placed the match.
        for c in m.captures.iter().filter(|c| c.line != m.line_start || c.column != m.column || c.text != m.text) {
            let first = c.text.lines().next().unwrap_or("");
            text.push_str(&format!("    @{} {}:{}: {first}\n", c.name, c.line, c.column));
        }
    }
    out.text(&text);
    let mut info: Vec<String> = response.metadata.notes.iter().chain(&o.notes).map(|n| format!("note: {n}")).collect();
    for e in o.evaluation_errors.iter().take(ERRORS_PRINTED) {
        info.push(format!("error: {}: {}: {}", e.path, e.kind, e.message));
    }
    if o.evaluation_error_count > ERRORS_PRINTED as u64 {
        info.push(format!(
            "error: {} more file(s) failed (all are listed with --json)",
            o.evaluation_error_count - ERRORS_PRINTED as u64
        ));
    }
    info.push(format!(
        "{} match(es) in {} file(s); {} candidate(s), {} parsed (prefilter: {}){}",
        o.total_matches,
        o.matched,
        o.candidates,
        o.files_parsed,
        o.prefilter,
        if o.truncated { "; cut by --limit or --max-files" } else { "" }
    ));
    stderr_lines(&info);
}

fn explore(out: &Out, response: &ExploreResponse) {
    if out.is_json() {
        return out.json(response);
    }
    let t = &response.tree;
    let mut text = String::new();
    if !t.ancestors.is_empty() {
        text.push_str(&format!("# in {}\n", t.ancestors.join(" > ")));
    }
    if let Some(captures) = &t.captures {
        for c in captures {
            let first = c.text.lines().next().unwrap_or("");
            text.push_str(&format!("{}:{}: @{} ({}) {first}\n", c.line, c.column, c.capture, c.kind));
        }
    } else {
        for n in &t.nodes {
            let field = n.field.as_deref().map_or(String::new(), |f| format!("{f}: "));
            let kind = if n.named { n.kind.clone() } else { format!("\"{}\"", n.kind) };
            let shown = n.text.as_deref().filter(|_| n.named).map_or(String::new(), |t| format!("  {t:?}"));
            let error = if n.error { "  (error)" } else { "" };
            text.push_str(&format!(
                "{}{field}{kind} [{}:{} - {}:{}]{shown}{error}\n",
                "  ".repeat(n.depth as usize),
                n.line_start,
                n.column,
                n.line_end,
                n.column_end
            ));
        }
    }
    out.text(&text);
    let mut info = Vec::new();
    if t.truncated {
        info.push(format!(
            "note: {} of {} shown (--max-nodes)",
            t.nodes.len().max(t.captures.as_ref().map_or(0, Vec::len)),
            t.total_nodes
        ));
    }
    if t.has_errors {
        info.push("note: the file has syntax errors; (error) marks them".to_owned());
    }
    stderr_lines(&info);
}
