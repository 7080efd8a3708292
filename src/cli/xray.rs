//! `xray` and `xray explore`: arguments in, engine call, rendering out.

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::output::Out;
use crate::engine::{Engine, Error, ExploreRequest, ExploreResponse, Freshness, XrayResponse};
use crate::error::ErrorCode;
use crate::query::Filters;
use crate::view::Scope;
use crate::xray::{Evaluator, ScriptLimits, XrayRequest};

/// Evaluation errors printed on stderr (all are in `--json`).
const ERRORS_PRINTED: usize = 10;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct XrayArgs {
    #[command(subcommand)]
    command: Option<XrayCommand>,
    /// Text every match contains: a regex (Rust syntax), or a literal with -F. The index reads
    /// only the files that contain it; without it, every file of the view is parsed.
    #[arg(value_name = "DRIVER")]
    driver: Option<String>,
    /// A tree-sitter query run on each candidate's syntax tree; each match is reported at its
    /// `@match` capture, else at the span of its captures (`@_name` captures are not
    /// reported).
    #[arg(long, value_name = "QUERY", required_unless_present = "script", conflicts_with = "script")]
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
    /// Look at this commit-ish instead of the working tree.
    #[arg(long = "ref", value_name = "REF")]
    reference: Option<String>,
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
    let evaluator = match (&args.query, &args.script) {
        (Some(q), _) => Evaluator::Query(q.clone()),
        (None, Some(file)) => Evaluator::Script(read_script(base, file)?),
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
    let response = engine.xray(&request, &filters, &Scope::from_option(args.reference.as_deref()), freshness)?;
    matches(out, &response);
    Ok(!response.output.results.is_empty())
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
