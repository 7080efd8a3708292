//! How the answers of several repositories become one (see the parent module): one ranking,
//! each repository's order kept and the best of their next results taken next, or each
//! repository's share of the limit.

use super::{AcrossResponse, Aggregate, RRF_K, RepoOutcome, Tagged, Target};
use crate::engine::{Error, Metadata, PROTOCOL_VERSION};
use crate::query::merit::{self, WordStats};
use crate::query::rank::ordered;
use crate::view::Scope;

/// What one repository's answer gives the merge.
pub(super) struct Answer<R> {
    pub(super) results: Vec<R>,
    pub(super) total: usize,
    pub(super) scope: String,
    pub(super) commit: Option<String>,
    pub(super) metadata: Metadata,
    /// A ranked search's words in this repository's index (see [`merit`]).
    pub(super) word_stats: Option<WordStats>,
}

/// A result as the global ranking orders it: its merit first (a definition of a name the
/// question gives, then its tier, then how well its text matches the query, see
/// [`merit::relevance`]), then its fused rank, then its score relative
/// to its repository's best, then its repository (by alias).
struct Pooled<R> {
    defines: bool,
    tier: u8,
    relevance: f64,
    fused: f64,
    relative: f64,
    repo: usize,
    result: R,
}

impl<R> Pooled<R> {
    /// Whether this result goes before `other` in the global ranking.
    fn before(&self, other: &Pooled<R>) -> bool {
        let key = |p: &Pooled<R>| {
            (!p.defines, p.tier, std::cmp::Reverse(ordered(p.relevance)), std::cmp::Reverse(ordered(p.fused)))
        };
        (key(self), std::cmp::Reverse(ordered(self.relative)), self.repo)
            < (key(other), std::cmp::Reverse(ordered(other.relative)), other.repo)
    }
}

/// The limit each of `n` repositories gets under `per_repo`: `limit` shared out, the first
/// ones getting the remainder. A share of 0 (more repositories than the limit) still reports
/// the repository's total.
pub(super) fn shares(limit: usize, n: usize) -> Vec<usize> {
    (0..n).map(|i| limit / n + usize::from(i < limit % n)).collect()
}

/// Merges the repositories' answers (in target order, each best first). `score` is a result's
/// own score when the answer is ranked, `merit_of` what it holds of the query (see [`merit`]).
pub(super) fn merge<R>(
    query: &str,
    targets: &[Target],
    answers: Vec<Result<Answer<R>, Error>>,
    aggregate: Aggregate,
    limit: usize,
    score: impl Fn(&R) -> Option<f64>,
    merit_of: impl Fn(&R) -> Option<&merit::Merit>,
) -> Result<AcrossResponse<R>, Error> {
    if let Some(Err(first)) = answers.iter().find(|a| a.is_err()).filter(|_| answers.iter().all(|a| a.is_err())) {
        return Err(first.clone());
    }
    // The query's words weighed over every repository that answered, and the average length of
    // the texts of the results.
    let weights = merit::weights(answers.iter().filter_map(|a| a.as_ref().ok()?.word_stats.as_ref()));
    let lengths: Vec<f64> = answers
        .iter()
        .filter_map(|a| a.as_ref().ok())
        .flat_map(|a| a.results.iter().filter_map(&merit_of).map(|m| f64::from(m.length)))
        .collect();
    let average = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
    let shares = shares(limit, targets.len());
    let mut repos = Vec::new();
    let mut queues: Vec<std::collections::VecDeque<Pooled<R>>> = Vec::new();
    let mut freshness = "fresh";
    let mut partial = false;
    let mut truncated = false;
    // Whether the answers are ranked: a result has a score, or a merit (a compact answer's
    // results have no score).
    let mut ranked = false;
    for (i, (target, answer)) in targets.iter().zip(answers).enumerate() {
        let entry = &target.entry;
        let answer = match answer {
            Ok(answer) => answer,
            Err(error) => {
                partial = true;
                repos.push(RepoOutcome {
                    repo: entry.alias.clone(),
                    path: entry.path.clone(),
                    status: "error",
                    scope: scope_name(&target.scope),
                    commit: None,
                    freshness_status: None,
                    returned: 0,
                    total: 0,
                    error: Some(error),
                });
                continue;
            }
        };
        if answer.metadata.freshness_status != "fresh" {
            freshness = answer.metadata.freshness_status;
        }
        truncated |= answer.metadata.result_completeness == "truncated" || answer.total > answer.results.len();
        let best = answer.results.first().and_then(&score).filter(|s| *s > 0.0);
        let keep = match aggregate {
            Aggregate::Global => answer.results.len(),
            Aggregate::PerRepo => shares[i],
        };
        truncated |= answer.results.len() > keep;
        let mut queue = std::collections::VecDeque::new();
        for (rank, result) in answer.results.into_iter().take(keep).enumerate() {
            let fused = 1.0 / (RRF_K + rank as f64 + 1.0);
            let relative = match (best, score(&result)) {
                (Some(best), Some(s)) => s / best,
                _ => 0.0,
            };
            let merit = merit_of(&result);
            ranked |= relative > 0.0 || merit.is_some();
            let (defines, tier, relevance) =
                merit.map_or((false, u8::MAX, 0.0), |m| (m.defines, m.tier, merit::relevance(m, &weights, average)));
            queue.push_back(Pooled { defines, tier, relevance, fused, relative, repo: i, result });
        }
        let returned = queue.len();
        queues.resize_with(i, Default::default);
        queues.push(queue);
        repos.push(RepoOutcome {
            repo: entry.alias.clone(),
            path: entry.path.clone(),
            status: "ok",
            scope: answer.scope,
            commit: answer.commit,
            freshness_status: Some(answer.metadata.freshness_status),
            returned,
            total: answer.total,
            error: None,
        });
    }
    let mut pooled: Vec<Pooled<R>> = Vec::new();
    if aggregate == Aggregate::Global && ranked {
        // Each repository's results keep their order, but for the definitions of names the
        // question gives, which go first; the next one taken is the best of the repositories'
        // next ones.
        for queue in &mut queues {
            queue.make_contiguous().sort_by_key(|p| !p.defines);
        }
        while let Some(next) = (0..queues.len())
            .filter(|&q| !queues[q].is_empty())
            .reduce(|a, b| if queues[b][0].before(&queues[a][0]) { b } else { a })
        {
            pooled.extend(queues[next].pop_front());
        }
    } else {
        pooled.extend(queues.into_iter().flatten());
    }
    if pooled.len() > limit {
        truncated = true;
        pooled.truncate(limit);
    }
    let mut results: Vec<Tagged<R>> = Vec::with_capacity(pooled.len());
    let mut returned = vec![0usize; targets.len()];
    for p in pooled {
        returned[p.repo] += 1;
        results.push(Tagged { repo: targets[p.repo].entry.alias.clone(), result: p.result });
    }
    for outcome in &mut repos {
        if let Some(i) = targets.iter().position(|t| t.entry.alias == outcome.repo) {
            outcome.returned = returned[i];
        }
    }
    let completeness = if partial {
        "partial"
    } else if truncated {
        "truncated"
    } else {
        "complete"
    };
    Ok(AcrossResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        query: query.to_owned(),
        scope: match targets.split_first() {
            Some((first, rest)) if rest.iter().all(|t| t.scope == first.scope) => scope_name(&first.scope),
            _ => "mixed".to_owned(),
        },
        commit: None,
        aggregate: aggregate.as_str(),
        repos,
        results,
        truncated,
        max_tokens: None,
        estimated_tokens: None,
        metadata: Metadata {
            freshness_status: freshness,
            indexing_status: "ready",
            result_completeness: completeness,
            suppressed_duplicate_count: 0,
            safety_limit_applied: false,
            view: format!("{} repositories", targets.len()),
            fallback: None,
            notes: Vec::new(),
        },
    })
}

fn scope_name(scope: &Scope) -> String {
    match scope {
        Scope::Worktree => "worktree".to_owned(),
        Scope::Ref(r) => r.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::registry::RepoEntry;
    use crate::query::SearchResult;

    #[test]
    fn the_limit_is_shared_never_multiplied() {
        assert_eq!(shares(10, 3), [4, 3, 3]);
        assert_eq!(shares(2, 3), [1, 1, 0]);
        assert_eq!(shares(9, 1), [9]);
        assert_eq!(shares(10, 3).iter().sum::<usize>(), 10);
    }

    fn target(alias: &str) -> Target {
        let entry =
            RepoEntry { alias: alias.to_owned(), path: format!("/nowhere/{alias}"), refs: Vec::new(), added_at: 0 };
        Target { entry, scope: Scope::Worktree, engine: None }
    }

    /// A ranked search's answer: results named `path` with a score and a merit each.
    fn answer(results: &[(&str, f64, merit::Merit)], words: &[(&str, u64)]) -> Result<Answer<SearchResult>, Error> {
        let results: Vec<SearchResult> = results
            .iter()
            .map(|(path, score, merit)| SearchResult {
                path: (*path).to_owned(),
                score: Some(*score),
                merit: Some(merit.clone()),
                ..SearchResult::default()
            })
            .collect();
        let word_stats =
            WordStats { docs: 100, words: words.iter().map(|(w, n)| ((*w).to_owned(), 1.0, *n)).collect() };
        Ok(Answer {
            total: results.len(),
            results,
            scope: "worktree".to_owned(),
            commit: None,
            metadata: Metadata::fresh(String::new(), Vec::new()),
            word_stats: Some(word_stats),
        })
    }

    fn holding(words: &[&str], defines: bool) -> merit::Merit {
        merit::Merit { defines, tier: 4, holds: words.iter().map(|w| ((*w).to_owned(), 1)).collect(), length: 100 }
    }

    #[test]
    fn the_global_ranking_takes_the_best_next_result_and_named_definitions_first() {
        let targets = [target("a"), target("b")];
        let stats = [("render", 5), ("invoice", 1)];
        let answers = vec![
            answer(&[("a1", 2.0, holding(&["render"], false)), ("a2", 1.0, holding(&[], true))], &stats),
            answer(&[("b1", 3.0, holding(&["render", "invoice"], false)), ("b2", 1.0, holding(&[], false))], &stats),
        ];
        let merged =
            merge("q", &targets, answers, Aggregate::Global, 10, |r: &SearchResult| r.score, |r| r.merit.as_ref())
                .unwrap();
        let order: Vec<&str> = merged.results.iter().map(|t| t.result.path.as_str()).collect();
        // a's definition of a named name first (its own ranking put it second); then b's best,
        // which holds more of the query than a's; each repository's order kept otherwise.
        assert_eq!(order, ["a2", "b1", "a1", "b2"]);
        // Equal merits: the repositories alternate, each one's order kept.
        let same = [("x", 1)];
        let answers = vec![
            answer(&[("a1", 2.0, holding(&["x"], false)), ("a2", 1.0, holding(&["x"], false))], &same),
            answer(&[("b1", 9.0, holding(&["x"], false)), ("b2", 1.0, holding(&["x"], false))], &same),
        ];
        let merged =
            merge("q", &targets, answers, Aggregate::Global, 10, |r: &SearchResult| r.score, |r| r.merit.as_ref())
                .unwrap();
        let order: Vec<&str> = merged.results.iter().map(|t| t.result.path.as_str()).collect();
        assert_eq!(order, ["a1", "b1", "a2", "b2"]);
    }
}
