//! The symbol graph's commands: `references`, `callers`, `callees`, `graph`, `imports`,
//! `importers`, `tests-for`. Arguments in, engine call, rendering out.

use clap::{Args, Subcommand, ValueEnum};

use super::across::{AcrossArgs, one_ref};
use super::output::{Out, quote_path};
use crate::engine::{
    Direction, Engine, Error, FileRequest, Freshness, GraphRequest, GraphResponse, ImportersResponse, ImportsResponse,
    ReferencesResponse, TestsForResponse,
};
use crate::error::ErrorCode;
use crate::view::Scope;

#[derive(Debug, Subcommand)]
pub(super) enum GraphCommand {
    /// Every use of a symbol, grouped by file, the definition first; each says how it was tied
    /// to the definition (resolved, import, same_package, unique_name, ambiguous).
    References {
        /// The name, bare (`find`) or qualified (`Index::find`, `Greeter.greet`).
        name: String,
        #[command(flatten)]
        args: GraphArgs,
        /// At most N uses.
        #[arg(long, default_value_t = 100, value_name = "N")]
        limit: usize,
        #[command(flatten)]
        across: AcrossArgs,
    },
    /// Who calls a symbol, N levels up.
    Callers {
        /// The name, bare or qualified.
        name: String,
        #[command(flatten)]
        args: GraphArgs,
        /// Levels of callers.
        #[arg(long, default_value_t = 1, value_name = "N")]
        depth: u32,
        /// At most N symbols in the answer (`--limit N` says the same).
        #[arg(long, visible_alias = "limit", default_value_t = 200, value_name = "N")]
        max_nodes: usize,
    },
    /// What a symbol calls, N levels down.
    Callees {
        /// The name, bare or qualified.
        name: String,
        #[command(flatten)]
        args: GraphArgs,
        /// Levels of callees.
        #[arg(long, default_value_t = 1, value_name = "N")]
        depth: u32,
        /// At most N symbols in the answer (`--limit N` says the same).
        #[arg(long, visible_alias = "limit", default_value_t = 200, value_name = "N")]
        max_nodes: usize,
    },
    /// The call graph around a symbol, as text, JSON, Graphviz dot or Mermaid.
    Graph {
        /// The name, bare or qualified.
        name: String,
        #[command(flatten)]
        args: GraphArgs,
        /// Callers (up), callees (down) or both.
        #[arg(long, value_enum, default_value_t = DirectionArg::Both)]
        direction: DirectionArg,
        /// Levels in each direction.
        #[arg(long, default_value_t = 2, value_name = "N")]
        depth: u32,
        /// At most N symbols in the answer (`--limit N` says the same).
        #[arg(long, visible_alias = "limit", default_value_t = 200, value_name = "N")]
        max_nodes: usize,
        /// Output format (`--json` is the same as `--format json`).
        #[arg(long, value_enum, default_value_t = FormatArg::Text)]
        format: FormatArg,
    },
    /// What a file imports, resolved to files of the view.
    Imports {
        /// The file, relative to the current directory or the repository root.
        path: String,
        /// Look at this commit-ish instead of the working tree.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
    },
    /// The files that import a file.
    Importers {
        /// The file, relative to the current directory or the repository root.
        path: String,
        /// Look at this commit-ish instead of the working tree.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
    },
    /// The tests of a symbol or a file: tests that use it or import its file, and test files
    /// named after it (`test_x.py`, `x_test.go`, `x.spec.ts`, `XTest.java`).
    TestsFor {
        /// A symbol name or a file path.
        target: String,
        /// Look at this commit-ish instead of the working tree.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
        /// At most N test files.
        #[arg(long, default_value_t = 50, value_name = "N")]
        limit: usize,
    },
}

#[derive(Debug, Args)]
pub(super) struct GraphArgs {
    /// Only this language.
    #[arg(long)]
    lang: Option<String>,
    /// Only uses in files under this path.
    #[arg(long, value_name = "PATH")]
    path: Option<String>,
    /// Look at this commit-ish instead of the working tree (with `references --repo`,
    /// `ALIAS=REF` puts one repository at a ref; repeatable).
    #[arg(long = "ref", value_name = "REF")]
    reference: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum DirectionArg {
    Up,
    Down,
    Both,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum FormatArg {
    Text,
    Json,
    Dot,
    Mermaid,
}

impl GraphArgs {
    fn request(&self, engine: &Engine, name: &str, limit: usize, depth: u32) -> Result<GraphRequest, Error> {
        Ok(GraphRequest {
            name: name.to_owned(),
            lang: self.lang.clone(),
            path: self.path.clone(),
            scope: one_ref(&self.reference)?,
            limit,
            depth,
            freshness: Freshness::configured(engine.workspace(), Freshness::Strict),
        })
    }
}

/// `references --repo`; `None` for every other graph command, or without `--repo`.
pub(super) fn run_across(command: &GraphCommand, out: &Out) -> Option<Result<bool, Error>> {
    let GraphCommand::References { name, args, limit, across } = command else {
        return None;
    };
    if !across.active() {
        return None;
    }
    if *limit == 0 {
        return Some(Err(Error::new(ErrorCode::InvalidArgument, "--limit must be at least 1")));
    }
    let request = GraphRequest {
        name: name.to_owned(),
        lang: args.lang.clone(),
        path: args.path.clone(),
        scope: Scope::Worktree,
        limit: *limit,
        depth: 1,
        freshness: Freshness::Strict,
    };
    Some(super::across::references(across, &args.reference, &request, out))
}

/// Runs a graph command; `Ok(false)` when it found nothing.
pub(super) fn run(
    engine: &Engine,
    base: &std::path::Path,
    command: &GraphCommand,
    out: &Out,
    json: bool,
) -> Result<bool, Error> {
    let file_request = |path: &str, reference: &Option<String>| -> Result<FileRequest, Error> {
        Ok(FileRequest {
            target: engine.relative_path(base, path)?,
            scope: Scope::from_option(reference.as_deref()),
            limit: 1000,
            freshness: Freshness::configured(engine.workspace(), Freshness::Strict),
        })
    };
    if let GraphCommand::References { limit: 0, .. } | GraphCommand::TestsFor { limit: 0, .. } = command {
        return Err(Error::new(ErrorCode::InvalidArgument, "--limit must be at least 1"));
    }
    if let GraphCommand::Callers { max_nodes: 0, .. }
    | GraphCommand::Callees { max_nodes: 0, .. }
    | GraphCommand::Graph { max_nodes: 0, .. } = command
    {
        return Err(Error::new(ErrorCode::InvalidArgument, "--max-nodes must be at least 1"));
    }
    match command {
        GraphCommand::References { name, args, limit, .. } => {
            let response = engine.references(&args.request(engine, name, *limit, 1)?)?;
            references(out, &response);
            Ok(!response.results.is_empty())
        }
        GraphCommand::Callers { name, args, depth, max_nodes } => {
            let response = engine.call_graph(&args.request(engine, name, *max_nodes, *depth)?, Direction::Up)?;
            calls(out, &response, Direction::Up);
            Ok(!response.edges.is_empty())
        }
        GraphCommand::Callees { name, args, depth, max_nodes } => {
            let response = engine.call_graph(&args.request(engine, name, *max_nodes, *depth)?, Direction::Down)?;
            calls(out, &response, Direction::Down);
            Ok(!response.edges.is_empty() || !response.external.is_empty())
        }
        GraphCommand::Graph { name, args, direction, depth, max_nodes, format } => {
            let direction = match direction {
                DirectionArg::Up => Direction::Up,
                DirectionArg::Down => Direction::Down,
                DirectionArg::Both => Direction::Both,
            };
            let response = engine.call_graph(&args.request(engine, name, *max_nodes, *depth)?, direction)?;
            match (json, format) {
                (true, _) | (false, FormatArg::Json) => out.json(&response),
                (false, FormatArg::Text) => calls(out, &response, direction),
                (false, FormatArg::Dot) => out.text(&dot(&response)),
                (false, FormatArg::Mermaid) => out.text(&mermaid(&response)),
            }
            Ok(!response.nodes.is_empty())
        }
        GraphCommand::Imports { path, reference } => {
            let response = engine.imports(&file_request(path, reference)?)?;
            imports(out, &response);
            Ok(!response.imports.is_empty())
        }
        GraphCommand::Importers { path, reference } => {
            let response = engine.importers(&file_request(path, reference)?)?;
            importers(out, &response);
            Ok(!response.importers.is_empty())
        }
        GraphCommand::TestsFor { target, reference, limit } => {
            // A path that exists is a file; anything else is a symbol name.
            let as_path = engine.relative_path(base, target).ok().filter(|p| {
                engine.workspace().root().join(p).is_file()
                    || target.contains('/')
                    || target.contains('.') && !target.contains("::")
            });
            let request = FileRequest {
                target: as_path.unwrap_or_else(|| target.clone()),
                scope: Scope::from_option(reference.as_deref()),
                limit: *limit,
                freshness: Freshness::configured(engine.workspace(), Freshness::Strict),
            };
            let response = engine.tests_for(&request)?;
            tests_for(out, &response);
            Ok(!response.tests.is_empty())
        }
    }
}

fn notes(response_notes: &[String]) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    for note in response_notes {
        let _ = writeln!(stderr, "note: {note}");
    }
}

fn references(out: &Out, response: &ReferencesResponse) {
    if out.is_json() {
        return out.json(response);
    }
    notes(&response.metadata.notes);
    let mut text = String::new();
    for d in &response.definitions {
        text.push_str(&format!(
            "{}:{}: definition {} {}  {}\n",
            out.path(&d.path),
            out.paint("32", &d.line.to_string()),
            d.kind,
            out.paint("1", &d.qualified_name),
            d.signature
        ));
    }
    let mut last_path = "";
    for r in &response.results {
        if r.path != last_path {
            text.push_str(&format!("{}\n", out.path(&r.path)));
            last_path = &r.path;
        }
        let caller = r.caller.as_ref().map_or(String::new(), |c| format!("  in {}", c.qualified_name));
        let candidates = if r.candidates.is_empty() { String::new() } else { format!(": {}", r.candidates.join(", ")) };
        text.push_str(&format!(
            "{}:{}: {}  [{} {}{candidates}]{caller}\n",
            out.paint("32", &r.line.to_string()),
            r.column,
            r.text,
            r.kind,
            r.confidence
        ));
    }
    if response.total_matches > response.results.len() {
        text.push_str(&format!(
            "... {} more uses (--limit N shows more)\n",
            response.total_matches - response.results.len()
        ));
    }
    if response.results.is_empty() && response.metadata.notes.is_empty() {
        notes(&[format!("no uses of `{}` in {}", response.query, response.scope)]);
    }
    out.text(&text);
}

fn calls(out: &Out, response: &GraphResponse, direction: Direction) {
    if out.is_json() {
        return out.json(response);
    }
    notes(&response.metadata.notes);
    let mut text = String::new();
    let node = |id: usize| &response.nodes[id];
    let label = |id: usize| {
        let n = node(id);
        format!("{} {}  {}:{}", n.kind, out.paint("1", &n.qualified_name), out.path(&n.path), n.line)
    };
    for root in response.nodes.iter().filter(|n| n.depth == 0) {
        text.push_str(&format!("{}\n", label(root.id)));
        for (go_up, arrow) in [(true, "<-"), (false, "->")] {
            if (go_up && direction == Direction::Down) || (!go_up && direction == Direction::Up) {
                continue;
            }
            walk(response, root.id, go_up, arrow, 1, &mut vec![root.id], &label, &mut text);
        }
    }
    if !response.external.is_empty() {
        text.push_str(&format!("  calls outside the view: {}\n", response.external.join(", ")));
    }
    if response.truncated {
        text.push_str("... the graph was cut at --max-nodes\n");
    }
    out.text(&text);
}

#[allow(clippy::too_many_arguments)]
fn walk(
    response: &GraphResponse,
    id: usize,
    go_up: bool,
    arrow: &str,
    level: usize,
    path: &mut Vec<usize>,
    label: &dyn Fn(usize) -> String,
    text: &mut String,
) {
    for e in response.edges.iter().filter(|e| if go_up { e.to == id } else { e.from == id }) {
        let other = if go_up { e.from } else { e.to };
        let sites: Vec<String> =
            e.sites.iter().take(3).map(|s| format!("{}:{}", quote_path(&s.path), s.line)).collect();
        let more = if e.sites.len() > 3 { format!(" +{}", e.sites.len() - 3) } else { String::new() };
        text.push_str(&format!(
            "{}{arrow} {}  [{}] at {}{more}\n",
            "  ".repeat(level),
            label(other),
            e.confidence,
            sites.join(", ")
        ));
        if !path.contains(&other) {
            path.push(other);
            walk(response, other, go_up, arrow, level + 1, path, label, text);
            path.pop();
        }
    }
}

fn dot(response: &GraphResponse) -> String {
    let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut text = String::from("digraph calls {\n  rankdir=LR;\n  node [shape=box];\n");
    for n in &response.nodes {
        let style = if n.depth == 0 { ", style=bold" } else { "" };
        text.push_str(&format!(
            "  n{} [label=\"{}\\n{}:{}\"{style}];\n",
            n.id,
            quote(&n.qualified_name),
            quote(&n.path),
            n.line
        ));
    }
    for e in &response.edges {
        let style = if e.confidence == "ambiguous" { " [style=dashed]" } else { "" };
        text.push_str(&format!("  n{} -> n{}{style};\n", e.from, e.to));
    }
    text.push_str("}\n");
    text
}

fn mermaid(response: &GraphResponse) -> String {
    let quote = |s: &str| s.replace('"', "#quot;");
    let mut text = String::from("flowchart LR\n");
    for n in &response.nodes {
        text.push_str(&format!("  n{}[\"{}<br/>{}:{}\"]\n", n.id, quote(&n.qualified_name), quote(&n.path), n.line));
    }
    for e in &response.edges {
        let arrow = if e.confidence == "ambiguous" { "-.->" } else { "-->" };
        text.push_str(&format!("  n{} {arrow} n{}\n", e.from, e.to));
    }
    text
}

fn imports(out: &Out, response: &ImportsResponse) {
    if out.is_json() {
        return out.json(response);
    }
    let mut text = String::new();
    for i in &response.imports {
        let resolved = if i.resolved.is_empty() { "(outside the view)".to_owned() } else { i.resolved.join(", ") };
        text.push_str(&format!(
            "{}:{}: {}  -> {resolved}\n",
            out.path(&response.path),
            out.paint("32", &i.line.to_string()),
            i.module
        ));
    }
    out.text(&text);
}

fn importers(out: &Out, response: &ImportersResponse) {
    if out.is_json() {
        return out.json(response);
    }
    let mut text = String::new();
    for i in &response.importers {
        text.push_str(&format!("{}:{}: {}\n", out.path(&i.path), out.paint("32", &i.line.to_string()), i.module));
    }
    out.text(&text);
}

fn tests_for(out: &Out, response: &TestsForResponse) {
    if out.is_json() {
        return out.json(response);
    }
    notes(&response.metadata.notes);
    let mut text = String::new();
    for t in &response.tests {
        let lines: Vec<String> = t.lines.iter().take(5).map(u32::to_string).collect();
        let at = if lines.is_empty() { String::new() } else { format!(":{}", lines.join(",")) };
        let symbols = if t.symbols.is_empty() { String::new() } else { format!("  {}", t.symbols.join(", ")) };
        text.push_str(&format!("{}{at}  [{}]{symbols}\n", out.path(&t.path), t.reasons.join(", ")));
    }
    out.text(&text);
}
