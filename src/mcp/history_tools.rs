//! History's tools: `search_commits` (words, or `git log -S/-G`) and
//! `find_introducing_commit` (the oldest commit of a `-S`/`-G` answer).

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tools::{Common, TableTool, input, json_of, parse, relaxed};
use super::workspaces::Workspace;
use crate::engine::{Error, HistoryState, LogCommit, LogMode, LogRequest, LogResponse, Metadata};
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
    /// Only commits newer than this date (`2024-01-31`, `3 weeks ago`).
    pub since: Option<String>,
    /// Only commits older than this date.
    pub until: Option<String>,
    /// Only commits whose author (`Name <email>`) matches this regex.
    pub author: Option<String>,
    /// Only changes to paths matching these git pathspecs or globs.
    pub paths: Option<Vec<String>>,
    /// Follow only first parents (and diff merges against them).
    pub first_parent: Option<bool>,
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
    /// Only changes to paths matching these git pathspecs or globs.
    pub paths: Option<Vec<String>>,
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub common: Common,
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
            mode: Some(mode_of(p.query, p.string, p.regex)?),
            at: p.common.reference.filter(|r| !r.is_empty()),
            pathspecs: pathspecs(p.paths)?,
            since: p.since,
            until: p.until,
            author: p.author,
            first_parent: p.first_parent.unwrap_or(false),
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
