//! `log` (commits searched by words, `-S STRING` or `-G REGEX`) and `history NAME` (a
//! symbol's steps through the commits). Arguments in, engine call, rendering out.

use clap::Args;

use super::output::Out;
use crate::engine::{Engine, Error, LogMode, LogRequest, LogResponse, SymbolAt, SymbolHistoryRequest};
use crate::error::ErrorCode;

#[derive(Debug, Args)]
pub(super) struct LogArgs {
    /// Words or a pasted text to rank commits by (their messages, the symbols and the paths
    /// they touched).
    #[arg(value_name = "WORDS")]
    words: Vec<String>,
    /// Commits that change the number of occurrences of STRING in a file (`git log -S`).
    #[arg(short = 'S', value_name = "STRING", conflicts_with_all = ["regex", "words"])]
    string: Option<String>,
    /// Commits whose diff adds or removes a line matching REGEX (`git log -G`).
    #[arg(short = 'G', value_name = "REGEX", conflicts_with_all = ["string", "words"])]
    regex: Option<String>,
    /// Commits whose message has a line matching REGEX (`git log -E --grep`).
    #[arg(long, value_name = "REGEX", conflicts_with_all = ["string", "regex", "words"])]
    grep: Option<String>,
    /// Ignore case in --grep, --author, -S and -G, as git's `-i` does.
    #[arg(short = 'i', long = "regexp-ignore-case")]
    ignore_case: bool,
    /// Walk from this commit-ish (default `HEAD`), or a range `A..B`: the commits B reaches
    /// and A does not, as `git log A..B` walks them.
    #[arg(long = "ref", value_name = "REF", conflicts_with = "all")]
    reference: Option<String>,
    /// Walk from every ref (branches, tags, remotes, stashes, notes) and every worktree's
    /// `HEAD`, as `git log --all` does.
    #[arg(long)]
    all: bool,
    /// Oldest first (after --max-count has cut the answer, as `git log --reverse`).
    #[arg(long)]
    reverse: bool,
    /// Only commits newer than DATE (`2024-01-31`, `3 weeks ago`); older ones stop the walk,
    /// as `git log --since` does.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only commits older than DATE.
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Only commits whose author (`Name <email>`) matches this regex.
    #[arg(long, value_name = "PATTERN")]
    author: Option<String>,
    /// Only changes to paths matching this git pathspec or glob (repeatable; also after `--`).
    #[arg(long = "path", value_name = "GLOB")]
    paths: Vec<String>,
    /// Follow only the first parent of merges (and diff merges against it, as git does).
    #[arg(long)]
    first_parent: bool,
    /// At most N commits (default: 20 for words, all for -S/-G, as `git log`).
    #[arg(short = 'n', long = "max-count", alias = "limit", value_name = "N")]
    max_count: Option<usize>,
    /// Git pathspecs, after `--`.
    #[arg(last = true, value_name = "PATHSPEC")]
    pathspecs: Vec<String>,
}

/// Runs `log`; `Ok(false)` when no commit matched.
pub(super) fn run(engine: &Engine, prefix: &str, args: &LogArgs, out: &Out) -> Result<bool, Error> {
    let invalid = |m: String| Error::new(ErrorCode::InvalidArgument, m);
    let mode = match (&args.string, &args.regex) {
        (Some(s), _) if s.is_empty() => return Err(invalid("-S needs a non-empty string".to_owned())),
        (Some(s), _) => LogMode::Count(s.clone()),
        (None, Some(re)) => LogMode::Grep(re.clone()),
        (None, None) if args.grep.is_some() => {
            let re = args.grep.clone().unwrap_or_default();
            LogMode::Message(re)
        }
        (None, None) if args.words.is_empty() => {
            return Err(invalid("give words to rank commits by, -S STRING, -G REGEX or --grep REGEX".to_owned())
                .with_remedy(
                    "`git codecompass log \"fix crash on empty input\"`, `git codecompass log -S parse_config`",
                ));
        }
        (None, None) => LogMode::Words(args.words.join(" ")),
    };
    let mut pathspecs = Vec::new();
    for spec in args.paths.iter().chain(&args.pathspecs) {
        pathspecs.push(crate::query::pathspec::resolve(spec, prefix).map_err(invalid)?);
    }
    let default_limit = if matches!(mode, LogMode::Words(_)) { 20 } else { 0 };
    let request = LogRequest {
        mode: Some(mode),
        at: args.reference.clone(),
        pathspecs,
        since: args.since.clone(),
        until: args.until.clone(),
        author: args.author.clone(),
        first_parent: args.first_parent,
        ignore_case: args.ignore_case,
        all: args.all,
        reverse: args.reverse,
        limit: args.max_count.unwrap_or(default_limit),
    };
    let response = engine.log(&request)?;
    render(&response, out);
    Ok(!response.commits.is_empty())
}

fn render(response: &LogResponse, out: &Out) {
    if out.is_json() {
        out.json(response);
        return;
    }
    let mut text = String::new();
    for c in &response.commits {
        let name = c.author.split(" <").next().unwrap_or(&c.author);
        text.push_str(&format!(
            "{} {} {}  {}\n",
            out.paint("33", &c.commit[..c.commit.len().min(10)]),
            c.date,
            name,
            c.subject
        ));
        for path in &c.paths {
            text.push_str(&format!("    {}\n", out.path(path)));
        }
    }
    out.text(&text);
    for note in &response.metadata.notes {
        eprintln!("note: {note}");
    }
}

#[derive(Debug, Args)]
pub(super) struct HistoryArgs {
    /// The symbol, bare (`total`) or qualified (`Cart::total`, `Greeter.greet`).
    name: String,
    /// Walk from this commit-ish (default `HEAD`): the history as of that ref.
    #[arg(long = "ref", visible_alias = "at", value_name = "REF")]
    reference: Option<String>,
    /// Only commits newer than DATE.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Only commits older than DATE.
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Only files matching this git pathspec or glob (repeatable).
    #[arg(long = "path", value_name = "GLOB")]
    paths: Vec<String>,
    /// Follow only the first parent of merges.
    #[arg(long)]
    first_parent: bool,
    /// Print the definition's text at each step.
    #[arg(long)]
    show: bool,
    /// At most N steps.
    #[arg(short = 'n', long = "max-count", alias = "limit", value_name = "N")]
    max_count: Option<usize>,
}

/// Runs `history NAME`; `Ok(false)` when no step was found.
pub(super) fn run_history(engine: &Engine, prefix: &str, args: &HistoryArgs, out: &Out) -> Result<bool, Error> {
    let mut pathspecs = Vec::new();
    for spec in &args.paths {
        pathspecs.push(
            crate::query::pathspec::resolve(spec, prefix).map_err(|m| Error::new(ErrorCode::InvalidArgument, m))?,
        );
    }
    let request = SymbolHistoryRequest {
        name: args.name.clone(),
        at: args.reference.clone(),
        pathspecs,
        since: args.since.clone(),
        until: args.until.clone(),
        first_parent: args.first_parent,
        show: args.show,
        limit: args.max_count.unwrap_or(0),
    };
    let response = engine.symbol_history(&request)?;
    if out.is_json() {
        out.json(&response);
        return Ok(!response.events.is_empty());
    }
    let mut text = String::new();
    let mut last: Option<&str> = None;
    for e in &response.events {
        let c = &e.commit;
        if last != Some(c.commit.as_str()) {
            text.push_str(&format!(
                "{} {} {}\n",
                out.paint("33", &c.commit[..c.commit.len().min(10)]),
                c.date,
                c.subject
            ));
            last = Some(&c.commit);
        }
        let at = |s: &SymbolAt| format!("{}:{}-{}", out.path(&s.path), s.line_start, s.line_end);
        let line = match (e.change, &e.before, &e.after) {
            ("renamed" | "moved", Some(b), Some(a)) => {
                format!("{:<9} {} {} -> {} {}", e.change, b.qualified_name, at(b), a.qualified_name, at(a))
            }
            (_, _, Some(a)) => format!("{:<9} {} {}", e.change, a.qualified_name, at(a)),
            (_, Some(b), None) => format!("{:<9} {} {}", e.change, b.qualified_name, at(b)),
            _ => e.change.to_owned(),
        };
        text.push_str(&format!("    {line}\n"));
        if let Some(body) = e.after.as_ref().or(e.before.as_ref()).and_then(|s| s.text.as_ref()) {
            for l in body.lines() {
                text.push_str(&format!("      | {l}\n"));
            }
        }
    }
    out.text(&text);
    for note in &response.metadata.notes {
        eprintln!("note: {note}");
    }
    Ok(!response.events.is_empty())
}
