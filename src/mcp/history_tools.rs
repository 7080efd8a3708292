//! History's tools: `search_commits` (words, or `git log -S/-G`), `find_introducing_commit`
//! (the oldest commit of a `-S`/`-G` answer), `symbol_history` and
//! `compare_symbol_between_commits`.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tools::{Common, TableTool, input, json_of, parse, relaxed};
use super::workspaces::Workspace;
use crate::engine::{
    CompareSymbolResponse, Error, HistoryState, LogCommit, LogMode, LogRequest, LogResponse, Metadata,
    SymbolHistoryRequest, SymbolHistoryResponse,
};
use crate::error::ErrorCode;

/// `search_commits`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchCommitsParams {
    /// Words or a pasted issue: commits ranked by their messages, the symbols and the paths
    /// they touched.
    pub query: Option<String>,
    /// Instead: commits that change how many times this string occurs in a file (`git log -S`).
    pub string: Option<String>,
    /// Instead: commits whose diff adds or removes a line matching this regex (`git log -G`).
    pub regex: Option<String>,
    /// Instead: commits whose message has a line matching this regex (`git log -E --grep`).
    pub message_regex: Option<String>,
    /// Only commits newer than this date (`2024-01-31`, `3 weeks ago`), read as git reads it: a
    /// day without a time is that day at the current time of day (`2024-01-31 00:00` for its
    /// start), in the local time zone unless one is given.
    pub since: Option<String>,
    /// Only commits older than this date.
    pub until: Option<String>,
    /// Only commits whose author (`Name <email>`) matches this regex.
    pub author: Option<String>,
    /// Only changes to paths matching these git pathspecs or globs.
    pub paths: Option<Vec<String>>,
    /// Follow only first parents (and diff merges against them).
    pub first_parent: Option<bool>,
    /// Ignore case in string, regex, message_regex and author (`git log -i`).
    pub ignore_case: Option<bool>,
    /// Walk from every ref and worktree `HEAD` instead of `ref` (`git log --all`).
    pub all_refs: Option<bool>,
    /// Oldest first, after `limit` has cut the answer (`git log --reverse`).
    pub reverse: Option<bool>,
    /// At most this many commits (default 20, at most 500).
    pub limit: Option<usize>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `find_introducing_commit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct IntroducingParams {
    /// The string whose introduction to find (as `git log -S`).
    pub string: Option<String>,
    /// Or a regex (as `git log -G`).
    pub regex: Option<String>,
    /// Ignore case in the string or regex (`git log -i`).
    pub ignore_case: Option<bool>,
    /// Only changes to paths matching these git pathspecs or globs.
    pub paths: Option<Vec<String>>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `symbol_history`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SymbolHistoryParams {
    /// The symbol, bare (`total`) or qualified (`Cart::total`, `Greeter.greet`).
    pub name: String,
    /// Only commits newer than this date.
    pub since: Option<String>,
    /// Only commits older than this date.
    pub until: Option<String>,
    /// Only files matching these git pathspecs or globs.
    pub paths: Option<Vec<String>>,
    /// The definition's text at each step.
    pub show: Option<bool>,
    /// At most this many steps (default 50).
    pub limit: Option<usize>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
}

/// `compare_symbol_between_commits`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareSymbolParams {
    /// The symbol, bare or qualified.
    pub name: String,
    /// The older commit-ish.
    pub from: String,
    /// The newer commit-ish (default `HEAD`).
    pub to: Option<String>,
    /// The repository to ask (a path); default: the server's first workspace.
    #[allow(dead_code, reason = "read by the server, which picks the workspace before the tool runs")]
    pub workspace: Option<String>,
}

/// The answer of `find_introducing_commit`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct IntroducingResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The ref walked from.
    #[serde(rename = "ref")]
    pub scope: String,
    /// Its commit.
    pub commit: Option<String>,
    /// `S` or `G`.
    pub mode: &'static str,
    /// The string or regex.
    pub pattern: String,
    /// The oldest commit that changed it (the last of `git log -S/-G`); none if none did.
    pub introducing: Option<LogCommit>,
    /// The newest such commit (the first of `git log -S/-G`).
    pub latest: Option<LogCommit>,
    /// How many commits changed it.
    pub commits_matching: usize,
    /// How much history answered.
    pub history: HistoryState,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// History's tools.
pub const TOOLS: &[TableTool] = &[
    TableTool {
        name: "search_commits",
        title: "Search commits",
        description: "Search the history: commits ranked by words (messages, touched symbols and paths; paste an \
                      issue to find the commit that fixed or broke it), or exactly as git log -S (string: count \
                      of a string changed) / -G (regex: a matching line added or removed) with the same commits \
                      in the same order, each with the files that matched. since, until, author, paths filter.",
        input: input::<SearchCommitsParams>,
        output: relaxed::<LogResponse>,
        handler: search_commits,
    },
    TableTool {
        name: "find_introducing_commit",
        title: "Find the commit that introduced a string",
        description: "The commit that introduced a string (or a regex's lines): the oldest commit of git log -S \
                      (or -G), with the newest one and how many changed it. Use it to learn when and why code \
                      appeared.",
        input: input::<IntroducingParams>,
        output: relaxed::<IntroducingResponse>,
        handler: find_introducing_commit,
    },
    TableTool {
        name: "symbol_history",
        title: "A symbol's history",
        description: "The commits that added, modified (text or signature), moved, renamed and deleted a \
                      symbol, newest first, each with its message and where the symbol was; renames are \
                      followed to the old name; show=true adds the definition's text at each step. ref walks \
                      from another commit (the history as of it).",
        input: input::<SymbolHistoryParams>,
        output: relaxed::<SymbolHistoryResponse>,
        handler: symbol_history,
    },
    TableTool {
        name: "compare_symbol_between_commits",
        title: "Compare a symbol between commits",
        description: "A symbol's definition and signature at two commits, with a unified diff of the two texts.",
        input: input::<CompareSymbolParams>,
        output: relaxed::<CompareSymbolResponse>,
        handler: compare_symbol,
    },
];

fn mode_of(query: Option<String>, string: Option<String>, regex: Option<String>) -> Result<LogMode, Error> {
    match (string.filter(|s| !s.is_empty()), regex.filter(|s| !s.is_empty()), query.filter(|s| !s.trim().is_empty())) {
        (Some(s), None, None) => Ok(LogMode::Count(s)),
        (None, Some(r), None) => Ok(LogMode::Grep(r)),
        (None, None, Some(q)) => Ok(LogMode::Words(q)),
        (None, None, None) => Err(Error::new(ErrorCode::InvalidArgument, "give query, string or regex")),
        _ => Err(Error::new(ErrorCode::InvalidArgument, "give one of query, string or regex")),
    }
}

fn pathspecs(paths: Option<Vec<String>>) -> Result<Vec<String>, Error> {
    paths
        .unwrap_or_default()
        .iter()
        .map(|p| crate::query::pathspec::resolve(p, "").map_err(|e| Error::new(ErrorCode::InvalidArgument, e)))
        .collect()
}

fn search_commits(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: SearchCommitsParams = parse(args)?;
    let run = || -> Result<Value, Error> {
        let request = LogRequest {
            mode: Some(match p.message_regex.filter(|m| !m.is_empty()) {
                Some(m) if p.query.is_none() && p.string.is_none() && p.regex.is_none() => LogMode::Message(m),
                Some(_) => {
                    return Err(Error::new(
                        ErrorCode::InvalidArgument,
                        "give one of query, string, regex or message_regex",
                    ));
                }
                None => mode_of(p.query, p.string, p.regex)?,
            }),
            at: p.common.reference.filter(|r| !r.is_empty()),
            pathspecs: pathspecs(p.paths)?,
            since: p.since,
            until: p.until,
            author: p.author,
            first_parent: p.first_parent.unwrap_or(false),
            ignore_case: p.ignore_case.unwrap_or(false),
            all: p.all_refs.unwrap_or(false),
            reverse: p.reverse.unwrap_or(false),
            limit: p.limit.unwrap_or(20).clamp(1, 500),
        };
        ws.engine.log(&request).map(|r| json_of(&r))
    };
    Ok(run())
}

fn find_introducing_commit(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: IntroducingParams = parse(args)?;
    let run = || -> Result<Value, Error> {
        let mode = mode_of(None, p.string, p.regex)?;
        let request = LogRequest {
            mode: Some(mode),
            at: p.common.reference.filter(|r| !r.is_empty()),
            pathspecs: pathspecs(p.paths)?,
            ignore_case: p.ignore_case.unwrap_or(false),
            limit: 0,
            ..LogRequest::default()
        };
        let r = ws.engine.log(&request)?;
        let answer = IntroducingResponse {
            codecompass_protocol_version: r.codecompass_protocol_version,
            scope: r.scope,
            commit: r.commit,
            mode: r.mode,
            pattern: r.pattern,
            commits_matching: r.commits.len(),
            latest: r.commits.first().cloned(),
            introducing: r.commits.last().cloned(),
            history: r.history,
            metadata: r.metadata,
        };
        Ok(json_of(&answer))
    };
    Ok(run())
}

fn symbol_history(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: SymbolHistoryParams = parse(args)?;
    let run = || -> Result<Value, Error> {
        let request = SymbolHistoryRequest {
            name: p.name,
            at: p.common.reference.filter(|r| !r.is_empty()),
            pathspecs: pathspecs(p.paths)?,
            since: p.since,
            until: p.until,
            first_parent: false,
            show: p.show.unwrap_or(false),
            limit: p.limit.unwrap_or(50).clamp(1, 1000),
        };
        ws.engine.symbol_history(&request).map(|r| json_of(&r))
    };
    Ok(run())
}

fn compare_symbol(args: Option<&JsonObject>, ws: &Arc<Workspace>) -> Result<Result<Value, Error>, String> {
    let p: CompareSymbolParams = parse(args)?;
    let to = p.to.unwrap_or_else(|| "HEAD".to_owned());
    Ok(ws.engine.compare_symbol(&p.name, &p.from, &to).map(|r| json_of(&r)))
}
