//! Queries across registered repositories (`--repo`): each repository answers from its own
//! store and views, in a bounded pool; the answers are merged into one ranking (`global`) or
//! given a share of the limit each (`per_repo`). A repository that cannot answer is reported
//! in `repos` with its error while the others answer (`result_completeness: partial`).
//!
//! Scores of different repositories come from different indexes (other document counts, other
//! term statistics), so raw BM25 scores are not compared, nor ranks alone (every repository has
//! a best result, whatever the question). The global ranking keeps each repository's order (but
//! for the definitions of names the question gives, which go first) and takes next the best of
//! the repositories' next results: by merit where the answer gives one (a ranked search: see
//! [`crate::query::merit`]), then by fused rank (reciprocal rank fusion, `1 / (60 + rank)`),
//! then by the score relative to the repository's best, then by alias (`merge.rs`). Unranked
//! answers (exact lines, references) keep each repository's order, repositories by alias.

use serde::Serialize;

use super::registry::{Registry, RepoEntry};
use super::{Engine, Error, Freshness, GraphRequest, LocateRequest, LocateResult, Metadata, Reference};
use crate::error::ErrorCode;
use crate::query::{SearchRequest, SearchResult};

mod merge;
use crate::store::Store;
use crate::view::Scope;
use merge::{Answer, merge, shares};

/// At most this many repositories answer at once.
const POOL: usize = 4;
/// Reciprocal rank fusion's constant.
const RRF_K: f64 = 60.0;
/// At most this many bytes stay held by engines whose closing is put off (see [`each`]),
/// counted as their full-text index files (what their mapped pages can reach) and
/// [`ENGINE_HEAP`] each.
const DEFERRED_BYTES: u64 = 48 << 20;
/// What an open engine holds besides its mapped index, at most (SQLite's page cache, the
/// object store's caches), as counted against [`DEFERRED_BYTES`].
const ENGINE_HEAP: u64 = 1 << 20;

/// Whether this process answers one command and exits (see [`set_one_shot`]).
static ONE_SHOT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Says this process answers one command and exits: the engines a query across repositories
/// put aside (see [`each`]) are then left for the system to unmap at exit, all at once, and
/// so is any engine's full-text reader (see the `Drop` of [`Engine`] below). A long-running
/// process (the MCP server) never says it.
pub fn set_one_shot() {
    ONE_SHOT.store(true, std::sync::atomic::Ordering::Relaxed);
}

thread_local! {
    /// Set on the threads of a pool asking several repositories at once (see [`each`]).
    static POOLED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a query on this thread may start threads of its own beside it (the walk of the
/// working tree, the opening of the full-text index): not on the threads of a pool asking
/// several repositories at once, which keep the cores busy already; there the extra threads
/// only cost their start, their end and the switches between them (stop 36: 4-6% of a
/// query across 20 repositories).
pub(super) fn helper_threads() -> bool {
    !POOLED.with(std::cell::Cell::get)
}

/// Drops what a query opened for itself (its store's connection), or, in a process that
/// answers one command and exits, leaves it to the exit: closing a connection finalizes its
/// statements and frees its copy of the schema, 4% of a query across 20 repositories, for
/// nothing the exit does not do. A query holds no transaction open when it is done, so its
/// writes (the view's last use) are committed either way; a long write-ahead log is folded
/// into the database first, as the close would have (see [`Store::settle_log`]).
pub(super) fn release(store: Store) {
    if ONE_SHOT.load(std::sync::atomic::Ordering::Relaxed) {
        store.settle_log();
        std::mem::forget(store);
    }
}

/// In a process that answers one command and exits, an engine's full-text reader (its index
/// files mapped, a reader per segment) is left to the exit instead of taken apart: unmapping
/// the kernel's index one segment at a time was 8% of a one-shot search there. It holds no
/// writer and nothing to write; the store's connection and locks are dropped as ever.
impl Drop for Engine {
    fn drop(&mut self) {
        if ONE_SHOT.load(std::sync::atomic::Ordering::Relaxed) {
            self.fulltext.leave_to_exit();
        }
    }
}

/// The bytes of an engine's full-text index files: what its mapped pages can reach.
fn index_bytes(engine: &Engine) -> u64 {
    let dir = crate::index::dir_of(engine.workspace().store_dir());
    std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(u64::MAX)
}

/// How answers of several repositories become one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// One ranking over all of them.
    Global,
    /// Each repository's best, the limit shared between them.
    PerRepo,
}

impl Aggregate {
    fn as_str(self) -> &'static str {
        match self {
            Aggregate::Global => "global",
            Aggregate::PerRepo => "per_repo",
        }
    }
}

/// One repository asked, at its scope.
#[derive(Clone)]
pub struct Target {
    /// The registered repository.
    pub entry: RepoEntry,
    /// Where in it (`--ref REF` for all, `--ref ALIAS=REF` for one).
    pub scope: Scope,
    /// Its engine when the caller keeps one open (the MCP server); opened for the query
    /// otherwise.
    pub engine: Option<std::sync::Arc<Engine>>,
}

/// The repositories `patterns` name, each at the scope `refs` give it: `REF` for every
/// repository, `ALIAS=REF` (or `PATTERN=REF`) for those it names; the last that applies wins.
pub fn targets(patterns: &[String], refs: &[String]) -> Result<Vec<Target>, Error> {
    let registry = Registry::load()?;
    let chosen = registry.select(patterns)?;
    targets_of(&registry, chosen, refs)
}

/// `chosen` (repositories of `registry`) at the scopes `refs` give them, as [`targets`] reads
/// `refs`.
pub fn targets_of(registry: &Registry, chosen: Vec<RepoEntry>, refs: &[String]) -> Result<Vec<Target>, Error> {
    let mut targets: Vec<Target> =
        chosen.into_iter().map(|entry| Target { entry, scope: Scope::Worktree, engine: None }).collect();
    for value in refs {
        let per_repo = value.split_once('=').filter(|(alias, _)| !alias.is_empty());
        match per_repo.and_then(|(pattern, r)| registry.select(&[pattern.to_owned()]).ok().map(|m| (m, r))) {
            Some((named, r)) => {
                let mut used = false;
                for target in targets.iter_mut().filter(|t| named.iter().any(|n| n.alias == t.entry.alias)) {
                    target.scope = Scope::Ref(r.to_owned());
                    used = true;
                }
                if !used {
                    return Err(Error::new(
                        ErrorCode::InvalidArgument,
                        format!("`--ref {value}` names a repository that `--repo` does not select"),
                    )
                    .with_remedy("select it with `--repo` too"));
                }
            }
            None => {
                for target in &mut targets {
                    target.scope = Scope::Ref(value.clone());
                }
            }
        }
    }
    Ok(targets)
}

/// Runs `ask` on each target's engine, at most [`POOL`] at once; answers in target order.
///
/// Closing an engine unmaps its index files, and an unmapping while the pool's other threads
/// run interrupts every core to flush its address translations (12% of a query across 24
/// repositories). Engines are put aside instead, while their index files total at most
/// [`DEFERRED_BYTES`], and closed once the pool is done, or left to the exit of a one-shot
/// process; the others are closed at once, as before.
pub fn each<T: Send>(
    targets: &[Target],
    ask: impl Fn(&Engine, &Target) -> Result<T, Error> + Sync,
) -> Vec<Result<T, Error>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<Result<T, Error>>>> =
        targets.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let aside: std::sync::Mutex<(Vec<Engine>, u64)> = std::sync::Mutex::new((Vec::new(), 0));
    let order = largest_first(targets);
    std::thread::scope(|scope| {
        for _ in 0..targets.len().min(POOL) {
            scope.spawn(|| {
                POOLED.with(|pooled| pooled.set(targets.len() > 1));
                while let Some(&i) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let target = &targets[i];
                    let answer = match &target.engine {
                        Some(engine) => ask(engine, target),
                        None => target.entry.open().and_then(|engine| {
                            let answer = ask(&engine, target);
                            let bytes = index_bytes(&engine).saturating_add(ENGINE_HEAP);
                            let mut aside = aside.lock().unwrap_or_else(|p| p.into_inner());
                            if aside.1.saturating_add(bytes) <= DEFERRED_BYTES {
                                aside.1 += bytes;
                                aside.0.push(engine);
                            }
                            answer
                        }),
                    };
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(answer);
                }
            });
        }
    });
    let (aside, _) = aside.into_inner().unwrap_or_else(|p| p.into_inner());
    if ONE_SHOT.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(aside);
    } else {
        drop(aside);
    }
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err(Error::new(ErrorCode::Internal, "a repository was not asked")))
        })
        .collect()
}

/// The order in which the pool takes `targets`: the largest working trees first (by the size
/// of git's index, which grows with the files a query checks), so that the last repositories
/// taken are short ones and no core waits at the end for one large repository started last.
fn largest_first(targets: &[Target]) -> Vec<usize> {
    let size = |target: &Target| {
        std::fs::metadata(std::path::Path::new(&target.entry.path).join(".git").join("index")).map_or(0, |m| m.len())
    };
    let sizes: Vec<u64> = targets.iter().map(size).collect();
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    order
}

/// How one repository answered.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RepoOutcome {
    /// Its alias.
    pub repo: String,
    /// Where it is.
    pub path: String,
    /// `ok` or `error`.
    pub status: &'static str,
    /// The scope it answered at.
    #[serde(rename = "ref")]
    pub scope: String,
    /// The commit it answered from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Its answer's freshness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness_status: Option<&'static str>,
    /// Its results in this answer.
    pub returned: usize,
    /// Its results before the limit.
    pub total: usize,
    /// Why it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

/// A result and the repository it comes from.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Tagged<R> {
    /// The repository's alias.
    pub repo: String,
    /// The result, as the one-repository answer gives it.
    #[serde(flatten)]
    pub result: R,
}

/// The answer of a query across repositories.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct AcrossResponse<R> {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The query.
    pub query: String,
    /// The scope every repository answered at, or `mixed` (each one's is in `repos`).
    #[serde(rename = "ref")]
    pub scope: String,
    /// Always `null`: each repository's commit is in `repos`.
    pub commit: Option<String>,
    /// `global` or `per_repo`.
    pub aggregate: &'static str,
    /// Each repository asked, by alias: how it answered.
    pub repos: Vec<RepoOutcome>,
    /// The results, each with its repository.
    pub results: Vec<Tagged<R>>,
    /// Whether the limit (or the token budget) left results out.
    pub truncated: bool,
    /// `context`: the token budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// `context`: the estimated tokens of the results kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_tokens: Option<usize>,
    /// Freshness (the stalest repository's) and completeness (`partial` when a repository
    /// failed).
    pub metadata: Metadata,
}

/// How many results each repository is asked for: the whole limit for one global ranking
/// (its top `limit` may all belong to one repository), its share for `per_repo`.
fn asked(limit: usize, targets: usize, aggregate: Aggregate, i: usize) -> usize {
    match aggregate {
        Aggregate::Global => limit,
        Aggregate::PerRepo => shares(limit, targets)[i].max(1),
    }
}

/// Asks each target (see [`each`]) with the limit it gets (see [`asked`]).
fn ask_each<R: Send>(
    targets: &[Target],
    aggregate: Aggregate,
    limit: usize,
    ask: impl Fn(&Engine, &Target, usize) -> Result<Answer<R>, Error> + Sync,
) -> Vec<Result<Answer<R>, Error>> {
    each(targets, |engine, target| {
        let i = targets.iter().position(|o| o.entry.alias == target.entry.alias).unwrap_or(0);
        ask(engine, target, asked(limit, targets.len(), aggregate, i))
    })
}

/// `search --repo`.
pub fn search(
    targets: &[Target],
    request: &SearchRequest,
    aggregate: Aggregate,
) -> Result<AcrossResponse<SearchResult>, Error> {
    let answers = ask_each(targets, aggregate, request.limit, |engine, target, limit| {
        // One ranking over all of them compares the results' merits.
        let request = SearchRequest { limit, comparable: aggregate == Aggregate::Global, ..request.clone() };
        let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
        let response = engine.search(&request, &target.scope, freshness)?;
        Ok(Answer {
            total: response.output.total_candidates.max(response.output.results.len()),
            results: response.output.results,
            scope: response.scope,
            commit: response.commit,
            metadata: response.metadata,
            word_stats: response.output.word_stats,
        })
    });
    merge(&request.query, targets, answers, aggregate, request.limit, |r: &SearchResult| r.score, |r| r.merit.as_ref())
}

/// `locate --repo`.
pub fn locate(
    targets: &[Target],
    request: &LocateRequest,
    aggregate: Aggregate,
) -> Result<AcrossResponse<LocateResult>, Error> {
    let answers = ask_each(targets, aggregate, request.limit, |engine, target, limit| {
        let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
        let request = LocateRequest { scope: target.scope.clone(), limit, freshness, ..request.clone() };
        let response = engine.locate(&request)?;
        Ok(Answer {
            total: response.total_matches,
            results: response.results,
            scope: response.scope,
            commit: response.commit,
            metadata: response.metadata,
            word_stats: None,
        })
    });
    // Locate's answers are ordered by how well each place matches the name, with no score:
    // their ranks are fused, every rank-1 answer alike.
    merge(&request.name, targets, answers, aggregate, request.limit, |_: &LocateResult| Some(1.0), |_| None)
}

/// `references --repo`: every repository's uses, repositories by alias.
pub fn references(
    targets: &[Target],
    request: &GraphRequest,
    aggregate: Aggregate,
) -> Result<AcrossResponse<Reference>, Error> {
    let answers = ask_each(targets, aggregate, request.limit, |engine, target, limit| {
        let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
        let request = GraphRequest { scope: target.scope.clone(), limit, freshness, ..request.clone() };
        let response = engine.references(&request)?;
        Ok(Answer {
            total: response.total_matches,
            results: response.results,
            scope: response.scope,
            commit: response.commit,
            metadata: response.metadata,
            word_stats: None,
        })
    });
    merge(&request.name, targets, answers, aggregate, request.limit, |_: &Reference| None, |_| None)
}

/// `xray --repo`: every repository's matches, repositories by alias.
pub fn xray(
    targets: &[Target],
    request: &crate::xray::XrayRequest,
    filters: &crate::query::Filters,
    aggregate: Aggregate,
) -> Result<AcrossResponse<crate::xray::XrayMatch>, Error> {
    let answers = ask_each(targets, aggregate, request.limit, |engine, target, limit| {
        let request = crate::xray::XrayRequest { limit, ..request.clone() };
        let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
        let response = engine.xray(&request, filters, &target.scope, freshness)?;
        Ok(Answer {
            total: (response.output.total_matches as usize).max(response.output.results.len()),
            results: response.output.results,
            scope: response.scope,
            commit: response.commit,
            metadata: response.metadata,
            word_stats: None,
        })
    });
    let query = request.driver.clone().unwrap_or_default();
    merge(&query, targets, answers, aggregate, request.limit, |_: &crate::xray::XrayMatch| None, |_| None)
}

/// `context --repo`: each repository gathers for the whole budget; the results are fused
/// (`global`) or taken by share (`per_repo`), then kept whole while they fit the budget.
pub fn context(
    targets: &[Target],
    request: &SearchRequest,
    strategy: super::Strategy,
    aggregate: Aggregate,
) -> Result<AcrossResponse<SearchResult>, Error> {
    let budget = request.max_tokens.unwrap_or(usize::MAX);
    let answers = each(targets, |engine, target| {
        let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
        let response = engine.context(request, strategy, &target.scope, freshness)?;
        Ok(Answer {
            total: response.total_candidates.max(response.results.len()),
            results: response.results,
            scope: response.scope,
            commit: response.commit,
            metadata: response.metadata,
            word_stats: None,
        })
    });
    // Ranks fused, every repository's best first, so the budget is spent fairly.
    let mut response =
        merge(&request.query, targets, answers, aggregate, usize::MAX, |_: &SearchResult| Some(1.0), |_| None)?;
    let mut spent = 0usize;
    let before = response.results.len();
    response.results.retain(|tagged| {
        let cost = tagged.result.estimated_tokens.unwrap_or(0);
        let fits = spent + cost <= budget;
        if fits {
            spent += cost;
        }
        fits
    });
    if response.results.len() < before {
        response.truncated = true;
        if response.metadata.result_completeness == "complete" {
            response.metadata.result_completeness = "truncated";
        }
    }
    for outcome in &mut response.repos {
        outcome.returned = response.results.iter().filter(|t| t.repo == outcome.repo).count();
    }
    response.max_tokens = request.max_tokens;
    response.estimated_tokens = Some(spent);
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_among_several_repositories_starts_no_threads_of_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let targets: Vec<Target> = ["a", "b", "c"]
            .iter()
            .map(|name| {
                let path = tmp.path().join(name);
                std::fs::create_dir_all(&path).unwrap();
                let init = std::process::Command::new("git").args(["init", "-q"]).current_dir(&path).status();
                assert!(init.unwrap().success());
                let entry = RepoEntry {
                    alias: (*name).to_owned(),
                    path: path.to_string_lossy().into_owned(),
                    refs: Vec::new(),
                    added_at: 0,
                };
                Target { entry, scope: Scope::Worktree, engine: None }
            })
            .collect();
        let asked = |targets: &[Target]| -> Vec<bool> {
            each(targets, |_, _| Ok(helper_threads())).into_iter().map(Result::unwrap).collect()
        };
        assert_eq!(asked(&targets), [false, false, false]);
        // One repository alone has the cores to itself, as outside a pool.
        assert_eq!(asked(&targets[..1]), [true]);
        assert!(helper_threads());
    }

    #[test]
    fn the_pool_takes_the_largest_working_trees_first() {
        let tmp = tempfile::tempdir().unwrap();
        let target = |name: &str, index: Option<usize>| {
            let path = tmp.path().join(name);
            std::fs::create_dir_all(path.join(".git")).unwrap();
            if let Some(bytes) = index {
                std::fs::write(path.join(".git").join("index"), vec![0u8; bytes]).unwrap();
            }
            let entry = RepoEntry {
                alias: name.to_owned(),
                path: path.to_string_lossy().into_owned(),
                refs: Vec::new(),
                added_at: 0,
            };
            Target { entry, scope: Scope::Worktree, engine: None }
        };
        let targets = [target("a", Some(10)), target("b", None), target("c", Some(300)), target("d", Some(20))];
        assert_eq!(largest_first(&targets), [2, 3, 0, 1]);
    }
}
