//! `log` and `index --history`: commits searched by words (their messages, the symbols and
//! paths they touched), or by what their diffs add and remove (`-S`, `-G`), as `git log`
//! walks them. History is indexed on first use (the newest commits, up to a bound) and kept
//! up to date from then on: only new commits and never-seen blobs cost anything.

use std::collections::HashMap;

use serde::Serialize;

use super::{Engine, Error, Metadata, PROTOCOL_VERSION};
use crate::error::ErrorCode;
use crate::git::{GitRepo, LocalRepo, ObjectId};
use crate::history::fts::CommitIndex;
use crate::history::log::{PickaxeQuery, pickaxe};
use crate::history::pickaxe::{Needle, Pickaxe};
use crate::history::walk::{Graph, WalkOptions};
use crate::indexer::{HistoryOptions, HistoryReport, IndexOptions};
use crate::query::pathspec::Pathspecs;
use crate::store::{CommitRow, Store};

/// A first `log` indexes at most this many commits by itself; `index --history` does all.
pub const AUTO_INDEX_COMMITS: usize = 10_000;

/// What `log` looks for.
#[derive(Clone, Debug)]
pub enum LogMode {
    /// Words or a pasted text: commits ranked by BM25 over messages, touched symbols, paths.
    Words(String),
    /// `-S STRING`: commits that change the number of occurrences of the string in a file.
    Count(String),
    /// `-G REGEX`: commits whose diff adds or removes a line matching the regex.
    Grep(String),
    /// `--grep REGEX`: commits whose message has a line matching the regex (`git log -E
    /// --grep`), in `git log`'s order.
    Message(String),
}

/// A `log` question.
#[derive(Clone, Debug, Default)]
pub struct LogRequest {
    /// What to look for.
    pub mode: Option<LogMode>,
    /// The commit to walk from (default `HEAD`).
    pub at: Option<String>,
    /// Git pathspecs, resolved against the root.
    pub pathspecs: Vec<String>,
    /// `--since`, as git reads it.
    pub since: Option<String>,
    /// `--until`, as git reads it.
    pub until: Option<String>,
    /// `--author`: a regex over `Name <email>`.
    pub author: Option<String>,
    /// `--first-parent`.
    pub first_parent: bool,
    /// `-i`: case ignored by `--grep`, `--author`, `-S` and `-G`, as git's `-i` does.
    pub ignore_case: bool,
    /// `--all`: walk from every ref, as `git log --all` (instead of `at`).
    pub all: bool,
    /// `--reverse`: oldest first (after `limit`, as git applies it).
    pub reverse: bool,
    /// At most this many commits.
    pub limit: usize,
}

/// One commit of an answer.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LogCommit {
    /// The commit id.
    pub commit: String,
    /// Its parents.
    pub parents: Vec<String>,
    /// `Name <email>`.
    pub author: String,
    /// Author time, seconds since the epoch.
    pub author_time: i64,
    /// Author date, `YYYY-MM-DD` (UTC).
    pub date: String,
    /// Committer time, seconds since the epoch (`git log`'s order).
    pub commit_time: i64,
    /// The message's first line.
    pub subject: String,
    /// `-S`/`-G`: the files whose change matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// Words: the BM25 score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// How much history answered.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct HistoryState {
    /// Commits stored for this repository.
    pub commits_indexed: u64,
    /// Commits this answer walked.
    pub commits_walked: u64,
    /// Commits whose changed files were read (`-S`/`-G`): the others were ruled out by the
    /// commits' trigram index.
    pub commits_checked: u64,
    /// Whether the walk reached commits that are not indexed (history indexed only so far
    /// back, or a shallow clone's boundary): older commits were not searched.
    pub boundary: bool,
    /// Whether the repository is a shallow clone.
    pub shallow: bool,
    /// Commits this query indexed first.
    pub commits_added: u64,
}

/// The answer of `log`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct LogResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The ref walked from, as named.
    #[serde(rename = "ref")]
    pub scope: String,
    /// Its commit.
    pub commit: Option<String>,
    /// `words`, `S`, `G` or `grep`.
    pub mode: &'static str,
    /// The words, string or regex.
    pub pattern: String,
    /// The commits, in `git log`'s order (`-S`/`-G`) or best first (words).
    pub commits: Vec<LogCommit>,
    /// How much history answered.
    pub history: HistoryState,
    /// Freshness and completeness.
    pub metadata: Metadata,
}

/// The answer of `index --history`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct HistoryIndexResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The refs walked from.
    pub tips: Vec<String>,
    /// What the run did.
    #[serde(flatten)]
    pub report: HistoryReport,
}

pub(super) fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidArgument, message)
}

/// A commit row as an answer, with what the commit says besides (read for it alone).
pub fn log_commit(store: &Store, row: &CommitRow) -> Result<LogCommit, Error> {
    let details = store.commit_details(row.id)?.ok_or_else(|| {
        Error::new(ErrorCode::Internal, format!("commit {} left the store during the query", row.oid.to_hex()))
    })?;
    Ok(LogCommit {
        commit: row.oid.to_hex(),
        parents: row.parents.iter().map(ObjectId::to_hex).collect(),
        author: details.author,
        author_time: details.author_time,
        date: crate::git::format_day(details.author_time),
        commit_time: row.commit_time,
        subject: details.subject,
        paths: Vec::new(),
        score: None,
    })
}

impl Engine {
    pub(super) fn history_git(&self) -> Result<&GitRepo, Error> {
        self.ws.git().ok_or_else(|| {
            Error::new(ErrorCode::NotARepository, "history needs a git repository".to_owned())
                .with_remedy("run it inside a git repository")
        })
    }

    /// Indexes the history reachable from `HEAD` and the indexed refs (`--ref` adds others).
    pub fn index_history(&self, refs: &[String], options: HistoryOptions) -> Result<HistoryIndexResponse, Error> {
        let repo = self.history_git()?.local();
        let store = self.open_store(true)?;
        let mut tips: Vec<(String, ObjectId)> = Vec::new();
        if refs.is_empty() {
            if let Some(head) = repo.head()? {
                tips.push(("HEAD".to_owned(), head.commit_id));
            }
            for r in store.refs()? {
                if r.kind == "ref"
                    && let Ok(resolved) = repo.resolve(&r.name)
                {
                    tips.push((r.name, resolved.commit_id));
                }
            }
        } else {
            for name in refs {
                tips.push((name.clone(), repo.resolve(name)?.commit_id));
            }
        }
        let ids: Vec<ObjectId> = tips.iter().map(|(_, id)| *id).collect();
        let indexer = self.indexer(&store, IndexOptions::default())?;
        let report = indexer.index_history(&ids, options)?;
        indexer.finish()?;
        store.checkpoint();
        Ok(HistoryIndexResponse {
            codecompass_protocol_version: PROTOCOL_VERSION,
            tips: tips.into_iter().map(|(name, _)| name).collect(),
            report,
        })
    }

    /// Once history is indexed, a sync adds the new commits of the refs it keeps fresh.
    pub(super) fn sync_history(&self, scopes: &[crate::view::Scope]) -> Result<Option<HistoryReport>, Error> {
        let Some(git) = self.ws.git() else { return Ok(None) };
        let store = self.open_store(true)?;
        if store.history_count()? == 0 {
            return Ok(None);
        }
        let repo = git.local();
        let mut tips = Vec::new();
        for scope in scopes {
            let name = match scope {
                crate::view::Scope::Ref(name) => name.as_str(),
                crate::view::Scope::Worktree => "HEAD",
            };
            if let Ok(resolved) = repo.resolve(name) {
                tips.push(resolved.commit_id);
            }
        }
        let indexer = self.indexer(&store, IndexOptions::default())?;
        let report = indexer.index_history(&tips, HistoryOptions::default())?;
        indexer.finish()?;
        Ok(Some(report))
    }

    /// Brings history up to `tips` (the commits not stored yet are indexed, the first time at
    /// most [`AUTO_INDEX_COMMITS`]) and opens the commits' index: what was added, and the index.
    /// `diffed_lines`: the answer reads which lines the commits changed (`log -G`).
    pub(super) fn history_up_to(
        &self,
        store: &Store,
        tips: &[ObjectId],
        diffed_lines: bool,
    ) -> Result<(u64, CommitIndex), Error> {
        let opened = CommitIndex::open_existing(store.dir());
        // Commits whose documents are gone would be ruled out of every answer: their index
        // missing or unreadable, history starts again.
        if opened.is_none() && store.history_count()? > 0 {
            let _lock = store.lock(true)?;
            store.clear_history()?;
        }
        // History an earlier build stored lacks submodule changes, and (read by `-G` only) has
        // the changed lines of another diff than git's: completed once, before anything is
        // read from it.
        let lacks_git_diff = diffed_lines && crate::indexer::history_lacks_git_diff(store)?;
        if crate::indexer::history_lacks_gitlinks(store)? || lacks_git_diff {
            let indexer = self.indexer(store, IndexOptions::default())?;
            indexer.record_history_gitlinks()?;
            if lacks_git_diff {
                indexer.record_history_git_diff()?;
            }
            indexer.finish()?;
        }
        let mut added = 0;
        let mut new_tips = Vec::new();
        for &tip in tips {
            if store.history_commit(tip)?.is_none() {
                new_tips.push(tip);
            }
        }
        if !new_tips.is_empty() {
            let first = store.history_count()? == 0;
            let options = HistoryOptions { max_count: first.then_some(AUTO_INDEX_COMMITS), since: None, deepen: false };
            let indexer = self.indexer(store, IndexOptions::default())?;
            added = indexer.index_history(&new_tips, options)?.commits_added;
            indexer.finish()?;
        }
        let index = match opened {
            Some(index) => index,
            None => {
                CommitIndex::open(store.dir()).map_err(|e| Error::new(ErrorCode::IndexIncompatible, e.to_string()))?
            }
        };
        Ok((added, index))
    }

    /// Searches commits.
    pub fn log(&self, request: &LogRequest) -> Result<LogResponse, Error> {
        let git = self.history_git()?;
        let repo = git.local();
        let mode = request.mode.clone().ok_or_else(|| invalid("give words, -S STRING or -G REGEX".to_owned()))?;
        if request.reverse && matches!(mode, LogMode::Words(_)) {
            return Err(invalid(
                "--reverse orders a `git log` answer (-S, -G, --grep) oldest first; words are ranked by relevance"
                    .to_owned(),
            ));
        }
        let at = match (&request.at, request.all) {
            (Some(_), true) => return Err(invalid("give --all or a ref to walk from, not both".to_owned())),
            (None, true) => "--all".to_owned(),
            (at, false) => at.clone().unwrap_or_else(|| "HEAD".to_owned()),
        };
        let (left, right) = if request.all { (None, "HEAD") } else { range_of(&at)? };
        // `--all`: every ref under `refs/`, then `HEAD` and the other worktrees' `HEAD`s, in the
        // order `git log --all` takes them; the answer names `HEAD`'s commit (or the first).
        let tips = if request.all { all_tips(git, &repo)? } else { vec![tip_of(&repo, right)?] };
        let Some(&tip) = tips.first() else {
            return Err(Error::new(ErrorCode::NotIndexed, "no ref names a commit yet, so there is no history"));
        };
        let tip = if request.all { repo.head()?.map_or(tip, |h| h.commit_id) } else { tip };
        let store = self.open_store(true)?;
        let diffed_lines = matches!(mode, LogMode::Grep(_));
        let (added, index) = self.history_up_to(&store, &tips, diffed_lines)?;
        let hide = match left {
            Some(left) => {
                let hide = tip_of(&repo, left)?;
                self.history_up_to(&store, &[hide], diffed_lines)?;
                Some(hide)
            }
            None => None,
        };
        let mut walk = self.walk_options(
            request.since.as_ref(),
            request.until.as_ref(),
            request.author.as_ref(),
            request.first_parent,
            request.ignore_case,
        )?;
        let graph = Graph::load(&store, walk.author.is_some())?;
        // `A..B`: what `A` reaches is hidden. Reaching unstored commits, it may lack some:
        // the answer then says it is partial, as for a walk that reaches them.
        let mut hidden_boundary = false;
        if let Some(hide) = hide {
            (walk.hidden, hidden_boundary) = graph.reachable(hide);
        }
        let pathspecs = Pathspecs::new(&request.pathspecs).map_err(invalid)?;
        let limit = if request.limit == 0 { usize::MAX } else { request.limit };
        let mut state = HistoryState {
            commits_indexed: graph.len() as u64,
            shallow: repo.is_shallow(),
            commits_added: added,
            ..HistoryState::default()
        };
        let mut words_dropped = 0;
        let (mode_name, pattern, mut commits, missing) = match &mode {
            LogMode::Words(words) => {
                let (commits, dropped) =
                    self.log_words(&store, &graph, &index, &tips, words, &walk, &pathspecs, limit, &mut state)?;
                words_dropped = dropped;
                ("words", words.clone(), commits, 0)
            }
            LogMode::Message(re) => {
                let commits = self.log_messages(
                    &repo,
                    &store,
                    &graph,
                    &tips,
                    (re, request.ignore_case),
                    &walk,
                    &pathspecs,
                    limit,
                    &mut state,
                )?;
                ("grep", re.clone(), commits, 0)
            }
            LogMode::Count(_) | LogMode::Grep(_) => {
                let (name, pattern, pickaxe_) = match &mode {
                    LogMode::Count(s) => ("S", s.clone(), Pickaxe::Count(Needle::new(s, request.ignore_case))),
                    LogMode::Grep(re) => (
                        "G",
                        re.clone(),
                        Pickaxe::Grep(
                            crate::query::Matcher::diff_lines(re, request.ignore_case)
                                .map_err(|e| invalid(e.to_string()))?,
                        ),
                    ),
                    LogMode::Words(_) | LogMode::Message(_) => unreachable!("handled above"),
                };
                // git cuts a reversed walk at `--max-count` before the pickaxe looks.
                let cut = request.reverse && limit != usize::MAX;
                let query = PickaxeQuery {
                    pickaxe: &pickaxe_,
                    walk: &walk,
                    pathspecs: &pathspecs,
                    limit: if cut { usize::MAX } else { limit },
                    shown_first: cut.then_some(limit),
                };
                let outcome = pickaxe(&store, git, &graph, &index, &tips, &query)
                    .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
                state.commits_walked = outcome.walked as u64;
                state.commits_checked = outcome.checked as u64;
                state.boundary = outcome.boundary;
                let commits = outcome
                    .hits
                    .into_iter()
                    .map(|hit| Ok(LogCommit { paths: hit.paths, ..log_commit(&store, hit.commit)? }))
                    .collect::<Result<_, Error>>()?;
                (name, pattern, commits, outcome.missing_blobs)
            }
        };
        state.boundary |= hidden_boundary;
        // `--reverse` turns the answer over after `--max-count` has cut it, as git does.
        if request.reverse {
            commits.reverse();
        }
        let mut notes = Vec::new();
        if state.boundary {
            notes.push(boundary_note(state.shallow));
        }
        if words_dropped > 0 {
            notes.push(format!(
                "the words have more distinct terms than a query weighs; the {words_dropped} most common were left out"
            ));
        }
        if missing > 0 {
            notes.push(format!(
                "{missing} changed files are missing from the object store (a partial clone?): commits that changed \
                 only them may be missing"
            ));
        }
        let complete = !state.boundary && missing == 0;
        Ok(LogResponse {
            codecompass_protocol_version: PROTOCOL_VERSION,
            scope: at,
            commit: Some(tip.to_hex()),
            mode: mode_name,
            pattern,
            commits,
            history: state,
            metadata: history_metadata(tip, complete, notes),
        })
    }

    pub(super) fn walk_options(
        &self,
        since: Option<&String>,
        until: Option<&String>,
        author: Option<&String>,
        first_parent: bool,
        ignore_case: bool,
    ) -> Result<WalkOptions, Error> {
        let date = |value: Option<&String>, flag: &str| -> Result<Option<i64>, Error> {
            match value {
                None => Ok(None),
                Some(v) => crate::git::parse_date(v).map(Some).ok_or_else(|| invalid(crate::git::unread_date(flag, v))),
            }
        };
        let author = match author {
            None => None,
            Some(a) => Some(
                regex::RegexBuilder::new(a)
                    .case_insensitive(ignore_case)
                    .build()
                    .map_err(|e| invalid(format!("--author: {e}")))?,
            ),
        };
        Ok(WalkOptions {
            first_parent,
            since: date(since, "--since")?,
            until: date(until, "--until")?,
            author,
            hidden: Default::default(),
        })
    }

    /// Commits whose message has a line matching `re`, in `git log`'s order; with paths, the
    /// commits git's walk shows there (that changed a file there; a merge that equals none of
    /// its parents there).
    #[allow(clippy::too_many_arguments)]
    fn log_messages(
        &self,
        repo: &LocalRepo,
        store: &Store,
        graph: &Graph,
        tips: &[ObjectId],
        (re, ignore_case): (&str, bool),
        walk: &WalkOptions,
        pathspecs: &Pathspecs,
        limit: usize,
        state: &mut HistoryState,
    ) -> Result<Vec<LogCommit>, Error> {
        let regex = regex::RegexBuilder::new(re)
            .multi_line(true)
            .case_insensitive(ignore_case)
            .build()
            .map_err(|e| invalid(format!("--grep: {e}")))?;
        let mut simplify = |row: &CommitRow| crate::history::log::simplify_merge(repo, row, pathspecs);
        let walked = graph.walk(tips, walk, &mut simplify);
        state.commits_walked = walked.commits.len() as u64;
        state.boundary = walked.boundary;
        let mut out = Vec::new();
        for row in walked.commits {
            if out.len() >= limit {
                break;
            }
            if !crate::history::log::shown_by_walk(store, repo, row, pathspecs, walk.first_parent)? {
                continue;
            }
            state.commits_checked += 1;
            if regex.is_match(&repo.commit_info(row.oid)?.message) {
                out.push(log_commit(store, row)?);
            }
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn log_words(
        &self,
        store: &Store,
        graph: &Graph,
        index: &CommitIndex,
        tips: &[ObjectId],
        words: &str,
        walk: &WalkOptions,
        pathspecs: &Pathspecs,
        limit: usize,
        state: &mut HistoryState,
    ) -> Result<(Vec<LogCommit>, usize), Error> {
        let mut simplify = |_: &CommitRow| None;
        let walked = graph.walk(tips, walk, &mut simplify);
        state.commits_walked = walked.commits.len() as u64;
        state.boundary = walked.boundary;
        let reachable: HashMap<ObjectId, &CommitRow> = walked.commits.iter().map(|r| (r.oid, *r)).collect();
        let ranked = index
            .ranked(words, (limit.saturating_mul(20)).clamp(200, 5000))
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let mut out = Vec::new();
        for (key, score) in ranked.hits {
            if out.len() >= limit {
                break;
            }
            for row in graph.by_key(key) {
                let Some(row) = reachable.get(&row.oid) else { continue };
                if !pathspecs.is_empty()
                    && !store
                        .commit_changes(row.id)?
                        .iter()
                        .any(|c| pathspecs.matches(&String::from_utf8_lossy(c.path())))
                {
                    continue;
                }
                out.push(LogCommit { score: Some(score), ..log_commit(store, row)? });
            }
        }
        Ok((out, ranked.dropped))
    }
}

/// The commit a history question walks from.
pub(super) fn tip_of(repo: &LocalRepo, at: &str) -> Result<ObjectId, Error> {
    if at == "HEAD" && repo.head()?.is_none() {
        return Err(Error::new(ErrorCode::NotIndexed, "the current branch has no commits yet, so it has no history")
            .with_remedy("commit first, or name another ref with `--ref`"));
    }
    Ok(repo.resolve(at)?.commit_id)
}

/// The tips `git log --all` walks from: every ref under `refs/` that peels to a commit (by
/// name), then `HEAD`, then the other worktrees' `HEAD`s; each commit once.
fn all_tips(git: &GitRepo, repo: &LocalRepo) -> Result<Vec<ObjectId>, Error> {
    let mut tips: Vec<ObjectId> = repo.all_references()?.into_iter().map(|(_, id)| id).collect();
    tips.extend(repo.head()?.map(|h| h.commit_id));
    for (_, head) in crate::view::worktree_heads(git.common_dir()) {
        tips.extend(repo.resolve(&head).ok().map(|r| r.commit_id));
    }
    let mut seen = std::collections::HashSet::new();
    tips.retain(|id| seen.insert(*id));
    Ok(tips)
}

/// The two sides of `A..B` (an empty side is `HEAD`), or `(None, at)` for one commit-ish.
fn range_of<'a>(at: &'a str) -> Result<(Option<&'a str>, &'a str), Error> {
    if at.contains("...") {
        return Err(invalid(format!(
            "`{at}`: a symmetric range (A...B) is not walked here; give A..B (the commits B reaches and A does not)"
        )));
    }
    Ok(match at.split_once("..") {
        Some((left, right)) => {
            let or_head = |side: &'a str| -> &'a str { if side.is_empty() { "HEAD" } else { side } };
            (Some(or_head(left)), or_head(right))
        }
        None => (None, at),
    })
}

pub(super) fn boundary_note(shallow: bool) -> String {
    if shallow {
        "the walk stopped at the shallow clone's boundary: older commits are not here (`git fetch --unshallow`)"
            .to_owned()
    } else {
        "history is indexed only so far back: older commits were not searched (`git codecompass index --history` \
         indexes all of it)"
            .to_owned()
    }
}

pub(super) fn history_metadata(tip: ObjectId, complete: bool, notes: Vec<String>) -> Metadata {
    Metadata {
        result_completeness: if complete { "complete" } else { "partial" },
        ..Metadata::fresh(format!("history:{}", tip.to_hex()), notes)
    }
}
