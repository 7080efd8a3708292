//! The stored commits as a graph, walked in `git log`'s order: newest commit time first, ties
//! in the order met, each commit once; `--since` stops below a commit older than it (its
//! parents are not followed), `--until` and `--author` only hide commits; with paths, a merge
//! that equals one of its parents there is followed through that parent alone (git's default
//! history simplification).

use std::collections::{BinaryHeap, HashMap, HashSet};

use crate::git::ObjectId;
use crate::store::{CommitRow, Store, StoreError};

/// Every stored commit.
pub struct Graph {
    rows: Vec<CommitRow>,
    /// Each row's author, when loaded for a walk by author.
    authors: Option<Vec<String>>,
    by_oid: HashMap<ObjectId, usize>,
    by_key: HashMap<u64, Vec<usize>>,
}

/// Which commits a walk shows.
#[derive(Default)]
pub struct WalkOptions {
    /// Follow first parents only (`--first-parent`).
    pub first_parent: bool,
    /// Not commits older than this, nor their ancestors through them.
    pub since: Option<i64>,
    /// Not commits newer than this (their ancestors still are).
    pub until: Option<i64>,
    /// Only commits whose author (`Name <email>`) matches.
    pub author: Option<regex::Regex>,
    /// Commits neither shown nor walked through: those reachable from the left side of a
    /// range (`A..B` hides `A` and its ancestors, as git does).
    pub hidden: HashSet<ObjectId>,
}

/// A walk's commits, in order, and whether it reached commits that are not stored.
pub struct Walk<'g> {
    /// The commits shown, in `git log`'s order.
    pub commits: Vec<&'g CommitRow>,
    /// Whether a parent was not stored (history indexed only so far back, or a shallow clone).
    pub boundary: bool,
}

impl Graph {
    /// Loads the stored commits, with their authors for a walk by author (`authors`).
    pub fn load(store: &Store, authors: bool) -> Result<Graph, StoreError> {
        let (rows, names) = store.history_commits(authors)?;
        let authors = authors.then_some(names);
        let by_oid = rows.iter().enumerate().map(|(i, r)| (r.oid, i)).collect();
        let mut by_key: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            by_key.entry(super::fts::key_of(r.oid)).or_default().push(i);
        }
        Ok(Graph { rows, authors, by_oid, by_key })
    }

    /// The stored commits whose document key is `key`.
    pub fn by_key(&self, key: u64) -> impl Iterator<Item = &CommitRow> {
        self.by_key.get(&key).into_iter().flatten().map(|&i| &self.rows[i])
    }

    /// How many commits are stored.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `tip` and every stored commit reachable from it through any parent, and whether a
    /// parent was not stored (the set may then lack commits below it).
    pub fn reachable(&self, tip: ObjectId) -> (HashSet<ObjectId>, bool) {
        let mut seen: HashSet<ObjectId> = HashSet::from([tip]);
        let mut boundary = false;
        let mut stack = vec![tip];
        while let Some(id) = stack.pop() {
            let Some(&i) = self.by_oid.get(&id) else {
                boundary = true;
                continue;
            };
            for parent in &self.rows[i].parents {
                if seen.insert(*parent) {
                    stack.push(*parent);
                }
            }
        }
        (seen, boundary)
    }

    /// The commits reachable from `tips` in `git log`'s order (tips of equal times in the
    /// order given). `simplify` is asked about each merge: `Some(i)` follows only its parent
    /// `i` (paths given and the merge equals that parent there).
    pub fn walk<'g>(
        &'g self,
        tips: &[ObjectId],
        options: &WalkOptions,
        simplify: &mut dyn FnMut(&CommitRow) -> Option<usize>,
    ) -> Walk<'g> {
        let mut out = Walk { commits: Vec::new(), boundary: false };
        let mut seen: HashSet<ObjectId> = HashSet::new();
        let mut queue: BinaryHeap<(i64, std::cmp::Reverse<u64>, usize)> = BinaryHeap::new();
        let mut order = 0u64;
        for &tip in tips {
            if options.hidden.contains(&tip) || !seen.insert(tip) {
                continue;
            }
            match self.by_oid.get(&tip) {
                Some(&start) => {
                    order += 1;
                    queue.push((self.rows[start].commit_time, std::cmp::Reverse(order), start));
                }
                None => out.boundary = true,
            }
        }
        while let Some((time, _, i)) = queue.pop() {
            let row = &self.rows[i];
            if options.since.is_some_and(|since| time < since) {
                continue;
            }
            let parents: Vec<ObjectId> = if options.first_parent {
                row.parents.iter().take(1).copied().collect()
            } else if row.parents.len() > 1 {
                match simplify(row) {
                    Some(p) => vec![row.parents[p]],
                    None => row.parents.clone(),
                }
            } else {
                row.parents.clone()
            };
            for parent in parents {
                if options.hidden.contains(&parent) || !seen.insert(parent) {
                    continue;
                }
                match self.by_oid.get(&parent) {
                    Some(&p) => {
                        order += 1;
                        queue.push((self.rows[p].commit_time, std::cmp::Reverse(order), p));
                    }
                    None => out.boundary = true,
                }
            }
            if options.until.is_some_and(|until| time > until) {
                continue;
            }
            if let Some(author) = &options.author {
                let authors = self.authors.as_ref().expect("a graph walked by author is loaded with its authors");
                if !author.is_match(&authors[i]) {
                    continue;
                }
            }
            out.commits.push(row);
        }
        out
    }
}
