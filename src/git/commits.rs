//! Commits: their headers and messages, and the walk that finds the ones not yet indexed.

use std::collections::{BinaryHeap, HashMap, HashSet};

use super::{GitError, LocalRepo, ObjectId, from_gix, other};

/// What history search keeps of one commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitInfo {
    /// The commit.
    pub id: ObjectId,
    /// Its root tree.
    pub tree_id: ObjectId,
    /// Its parents, first parent first.
    pub parents: Vec<ObjectId>,
    /// `Name <email>` of the author.
    pub author: String,
    /// The author's time, seconds since the epoch.
    pub author_time: i64,
    /// The committer's time, seconds since the epoch (what `git log` orders by).
    pub commit_time: i64,
    /// The whole message (lossy UTF-8).
    pub message: String,
}

impl CommitInfo {
    /// The first line of the message.
    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim_end()
    }
}

/// The commits a walk found that were not yet known, newest first by commit time.
#[derive(Debug, Default)]
pub struct NewCommits {
    /// The commits, newest first.
    pub commits: Vec<CommitInfo>,
    /// Whether the walk stopped at its limit (`max` or `since`) before the known history or the
    /// root commits.
    pub cut: bool,
    /// Parents the object store does not have (a shallow clone's boundary).
    pub absent_parents: usize,
}

impl LocalRepo {
    /// Reads the commit `id`.
    pub fn commit_info(&self, id: ObjectId) -> Result<CommitInfo, GitError> {
        let commit = self.repo.find_commit(id.to_gix()).map_err(|e| GitError::MissingObject { id, source: Some(e) })?;
        let decoded = commit.decode().map_err(|e| other("reading a commit")(super::boxed(e)))?;
        let time = |sig: Result<gix::actor::SignatureRef<'_>, _>| -> (String, i64) {
            match sig {
                Ok(sig) => {
                    let seconds = sig.time().map(|t| t.seconds).unwrap_or(0);
                    (format!("{} <{}>", sig.name, sig.email), seconds)
                }
                Err(_) => (String::new(), 0),
            }
        };
        let (author, author_time) = time(decoded.author());
        let (_, commit_time) = time(decoded.committer());
        Ok(CommitInfo {
            id,
            tree_id: from_gix(decoded.tree()),
            parents: decoded.parents().map(from_gix).collect(),
            author,
            author_time,
            commit_time,
            message: String::from_utf8_lossy(decoded.message).into_owned(),
        })
    }

    /// The commits reachable from `tips` that `known` does not know, newest first by commit
    /// time, stopping below known commits, after `max` new ones, and at commits older than
    /// `since` (their parents are not followed, as `git log --since` does).
    pub fn new_commits(
        &self,
        tips: &[ObjectId],
        known: impl Fn(ObjectId) -> bool,
        max: Option<usize>,
        since: Option<i64>,
    ) -> Result<NewCommits, GitError> {
        let mut out = NewCommits::default();
        let mut seen: HashSet<ObjectId> = HashSet::new();
        // Newest first; ties in the order met, as git's date-ordered walk has them.
        let mut queue: BinaryHeap<(i64, std::cmp::Reverse<u64>, ObjectId)> = BinaryHeap::new();
        let mut infos: HashMap<ObjectId, CommitInfo> = HashMap::new();
        let mut order = 0u64;
        let mut enqueue = |info: CommitInfo, queue: &mut BinaryHeap<_>, infos: &mut HashMap<_, _>| {
            order += 1;
            queue.push((info.commit_time, std::cmp::Reverse(order), info.id));
            infos.insert(info.id, info);
        };
        for tip in tips {
            if !known(*tip) && seen.insert(*tip) {
                enqueue(self.commit_info(*tip)?, &mut queue, &mut infos);
            }
        }
        while let Some((time, _, id)) = queue.pop() {
            let info = infos.remove(&id).expect("queued commits are read");
            if max.is_some_and(|max| out.commits.len() >= max) || since.is_some_and(|since| time < since) {
                out.cut = true;
                continue;
            }
            for parent in &info.parents {
                if known(*parent) || !seen.insert(*parent) {
                    continue;
                }
                match self.commit_info(*parent) {
                    Ok(parent_info) => enqueue(parent_info, &mut queue, &mut infos),
                    Err(GitError::MissingObject { .. }) => out.absent_parents += 1,
                    Err(e) => return Err(e),
                }
            }
            out.commits.push(info);
        }
        Ok(out)
    }

    /// Whether the repository is a shallow clone.
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow().unwrap_or(false)
    }
}

/// The day of a Unix time, `YYYY-MM-DD` in UTC.
pub fn format_day(seconds: i64) -> String {
    gix::date::Time::new(seconds, 0).format_or_unix(gix::date::time::format::SHORT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_is_the_first_line() {
        let info = CommitInfo {
            id: ObjectId([0; 20]),
            tree_id: ObjectId([0; 20]),
            parents: Vec::new(),
            author: String::new(),
            author_time: 0,
            commit_time: 0,
            message: "Fix the thing  \n\nBecause.\n".to_owned(),
        };
        assert_eq!(info.subject(), "Fix the thing");
    }
}
