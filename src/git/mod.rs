//! Git access: the only module that uses `gix`.
//!
//! It opens normal repositories, linked worktrees and bare repositories, resolves commit-ish
//! names, lists and diffs trees, reads blobs, hashes worktree files exactly as
//! `git hash-object` would (through the repository's filter pipeline), and reports which paths
//! of a working tree differ from `HEAD`.
//!
//! Architecture invariant: nothing above this module names a `gix` type. Object ids cross the
//! boundary as [`ObjectId`] (a plain 20-byte value), paths as raw bytes.

mod attributes;
mod commits;
mod dates;
mod status;
mod trees;

use std::path::{Path, PathBuf};

pub use attributes::{BinaryAttributes, DiffAttribute};
pub use commits::{CommitInfo, NewCommits, format_day};
pub use dates::{parse_date, unread_date};
pub use status::{IndexSnapshot, WorktreeChange};
pub use trees::{FileMode, Gitlinks, TreeChange, TreeFile, gitlink_text};

/// A git object id (SHA-1), named by kind at every use: `blob_id`, `tree_id`, `commit_id`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub [u8; 20]);

impl ObjectId {
    /// The id from its 20 raw bytes, if `bytes` has exactly 20.
    pub fn from_bytes(bytes: &[u8]) -> Option<ObjectId> {
        Some(ObjectId(bytes.try_into().ok()?))
    }

    /// The id from 40 hexadecimal digits.
    pub fn from_hex(hex: &str) -> Option<ObjectId> {
        if hex.len() != 40 {
            return None;
        }
        let mut out = [0u8; 20];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(ObjectId(out))
    }

    /// The 40 lowercase hexadecimal digits.
    pub fn to_hex(&self) -> String {
        use std::fmt::Write;
        let mut out = String::with_capacity(40);
        for byte in self.0 {
            let _ = write!(out, "{byte:02x}");
        }
        out
    }

    /// The id of `data` as a blob, as `git hash-object` computes it (without filters).
    pub fn for_blob(data: &[u8]) -> ObjectId {
        let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::object::Kind::Blob, data)
            .expect("hashing a byte buffer in memory cannot fail because it does no I/O");
        from_gix(id)
    }

    /// Whether `data` is this blob's content: git's blob id of it, computed with plain SHA-1.
    /// A check of content already named by this id (a clean file of the working tree read in
    /// place of the object), not an id to store: `for_blob` detects a collision attack as git
    /// does, at about three times the cost, which a file read on every match paid.
    pub fn is_blob_of(self, data: &[u8]) -> bool {
        use sha1::Digest;
        let mut hasher = sha1::Sha1::new();
        hasher.update(format!("blob {}\0", data.len()).as_bytes());
        hasher.update(data);
        hasher.finalize().as_slice() == self.0
    }

    fn to_gix(self) -> gix::ObjectId {
        gix::ObjectId::from_bytes_or_panic(&self.0)
    }
}

fn from_gix(id: impl AsRef<gix::oid>) -> ObjectId {
    ObjectId::from_bytes(id.as_ref().as_bytes()).expect("SHA-1 ids have 20 bytes because the store is SHA-1 only")
}

impl std::fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// What went wrong in git access.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// `path` is in no git repository.
    #[error("{path} is not in a git repository")]
    NotARepository { path: PathBuf },
    /// Opening the repository at `path` failed.
    #[error("cannot open the git repository at {path}: {source}")]
    Open { path: PathBuf, source: gix::Error },
    /// `spec` names no commit.
    #[error("unknown revision `{spec}`")]
    UnknownRevision { spec: String, source: Option<gix::Error> },
    /// `spec` names an object that is no commit (a tree or a blob).
    #[error("`{spec}` names a {kind}, not a commit")]
    NotACommit { spec: String, kind: &'static str },
    /// `spec` is a short object id that several objects start with.
    #[error("the short id `{spec}` is ambiguous")]
    AmbiguousRevision { spec: String },
    /// The object `id` is not in the object store (a partial clone or a shallow snapshot).
    #[error("object {id} is missing from the object store")]
    MissingObject { id: ObjectId, source: Option<gix::Error> },
    /// Any other failure while reading objects or the worktree.
    #[error("git: {context}: {source}")]
    Other { context: &'static str, source: gix::Error },
    /// Reading a worktree file failed.
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// An object database that remembers the last object it was asked for and did not have: a
/// tree diff's error does not say which object it missed.
struct NotingMissing<'a, T> {
    objects: &'a T,
    missing: std::cell::Cell<Option<gix::ObjectId>>,
}

impl<T: gix::objs::Find> gix::objs::Find for NotingMissing<'_, T> {
    fn try_find<'b>(&self, id: &gix::oid, buffer: &'b mut Vec<u8>) -> gix::Result<Option<gix::objs::Data<'b>>> {
        let found = self.objects.try_find(id, buffer);
        if matches!(found, Ok(None)) {
            self.missing.set(Some(id.to_owned()));
        }
        found
    }
}

fn other(context: &'static str) -> impl FnOnce(gix::Error) -> GitError {
    move |source| GitError::Other { context, source }
}

fn boxed(e: impl std::error::Error + Send + Sync + 'static) -> gix::Error {
    gix::Error::from_error(e)
}

/// A commit-ish resolved to its commit and tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The commit the name peels to.
    pub commit_id: ObjectId,
    /// The commit's root tree.
    pub tree_id: ObjectId,
}

/// How the repository was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepoKind {
    /// A repository with its main working tree.
    Normal,
    /// A linked worktree (`git worktree add`).
    LinkedWorktree,
    /// A repository without a working tree.
    Bare,
}

/// An open repository, shareable between threads.
pub struct GitRepo {
    repo: gix::ThreadSafeRepository,
    kind: RepoKind,
    workdir: Option<PathBuf>,
    git_dir: PathBuf,
    common_dir: PathBuf,
}

/// How many commits' trees [`LocalRepo::head_remembered`] keeps.
const REMEMBERED_TREES: usize = 16;

impl GitRepo {
    /// Finds the repository that contains `path`, or `Ok(None)` when there is none.
    pub fn discover(path: &Path) -> Result<Option<GitRepo>, GitError> {
        // git reads its index without hashing it (only `fsck` checks the trailing checksum);
        // gix hashes the whole file unless `index.skipHash` is set, which for the kernel's
        // 8 MB index is a few milliseconds of every status. The setting lives in this process
        // only; nothing here writes `.git/index`.
        let mut trust: gix::sec::trust::Mapping<gix::open::Options> = Default::default();
        for options in [&mut trust.full, &mut trust.reduced] {
            *options = std::mem::take(options).config_overrides(["index.skipHash=true"]);
        }
        let found = gix::ThreadSafeRepository::discover_opts(path, Default::default(), trust);
        let repo = match found.map(|repo| repo.to_thread_local()) {
            Ok(repo) => repo,
            Err(e) => {
                // gix reports "not a repository" through the same error type as real failures;
                // telling them apart by the presence of a `.git` anywhere above is what git does.
                if has_git_marker(path) {
                    return Err(GitError::Open { path: path.to_owned(), source: e });
                }
                return Ok(None);
            }
        };
        Ok(Some(GitRepo::from_repo(repo)?))
    }

    /// Opens the repository that contains `path`, failing when there is none.
    pub fn open(path: &Path) -> Result<GitRepo, GitError> {
        GitRepo::discover(path)?.ok_or_else(|| GitError::NotARepository { path: path.to_owned() })
    }

    fn from_repo(repo: gix::Repository) -> Result<GitRepo, GitError> {
        let kind = if repo.is_bare() {
            RepoKind::Bare
        } else if matches!(repo.kind(), gix::repository::Kind::LinkedWorkTree) {
            RepoKind::LinkedWorktree
        } else {
            RepoKind::Normal
        };
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let workdir = repo.workdir().map(canonical);
        let git_dir = canonical(repo.git_dir());
        let common_dir = canonical(repo.common_dir());
        Ok(GitRepo { repo: repo.into_sync(), kind, workdir, git_dir, common_dir })
    }

    /// The same repository opened again, with an object store of its own: the pages of the
    /// pack files that reading every blob maps into the process (on the Linux kernel all of
    /// its 240 MB pack) are unmapped once the last handle of this one is dropped, where the
    /// workspace's own store keeps what it mapped until the process exits.
    pub fn reopened(&self) -> Result<GitRepo, GitError> {
        let options = self.repo.to_thread_local().open_options().clone();
        let repo = gix::ThreadSafeRepository::open_opts(&self.git_dir, options)
            .map_err(|e| GitError::Open { path: self.git_dir.clone(), source: e })?;
        Ok(GitRepo {
            repo,
            kind: self.kind,
            workdir: self.workdir.clone(),
            git_dir: self.git_dir.clone(),
            common_dir: self.common_dir.clone(),
        })
    }

    /// A repository handle for the calling thread, with an object cache sized for indexing.
    pub fn local(&self) -> LocalRepo {
        let mut repo = self.repo.to_thread_local();
        repo.object_cache_size_if_unset(8 * 1024 * 1024);
        LocalRepo { repo }
    }

    /// Normal, linked worktree or bare.
    pub fn kind(&self) -> RepoKind {
        self.kind
    }

    /// The root of the working tree, canonical; `None` for a bare repository.
    pub fn workdir(&self) -> Option<&Path> {
        self.workdir.as_deref()
    }

    /// This worktree's own git dir (`.git`, or `.git/worktrees/<id>` for a linked worktree).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The git dir shared by every worktree, canonical.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }
}

fn has_git_marker(path: &Path) -> bool {
    path.ancestors().any(|p| p.join(".git").exists() || p.join("HEAD").is_file() && p.join("objects").is_dir())
}

/// A repository handle bound to one thread.
pub struct LocalRepo {
    repo: gix::Repository,
}

impl LocalRepo {
    /// Resolves `spec` (a branch, tag, commit id, `HEAD~2`, ...) to a commit and its tree.
    pub fn resolve(&self, spec: &str) -> Result<Resolved, GitError> {
        let unknown = |source| GitError::UnknownRevision { spec: spec.to_owned(), source };
        let id = self.repo.rev_parse_single(spec).map_err(|e| {
            if e.to_string().contains("ambiguous") {
                GitError::AmbiguousRevision { spec: spec.to_owned() }
            } else {
                unknown(Some(boxed(e)))
            }
        })?;
        let object = id.object().map_err(|e| unknown(Some(e)))?;
        let kind = object.kind;
        let commit = object.peel_to_commit().map_err(|e| match kind {
            gix::object::Kind::Tree => GitError::NotACommit { spec: spec.to_owned(), kind: "tree" },
            gix::object::Kind::Blob => GitError::NotACommit { spec: spec.to_owned(), kind: "blob" },
            _ => unknown(Some(e)),
        })?;
        let tree_id = commit.tree_id().map_err(|e| unknown(Some(e)))?;
        Ok(Resolved { commit_id: from_gix(commit.id), tree_id: from_gix(tree_id) })
    }

    /// The commit `HEAD` points at, or `None` on an unborn branch.
    pub fn head(&self) -> Result<Option<Resolved>, GitError> {
        let head = self.repo.head().map_err(other("reading HEAD"))?;
        if head.is_unborn() {
            return Ok(None);
        }
        self.resolve("HEAD").map(Some)
    }

    /// [`LocalRepo::head`], with the trees of the commits `HEAD` pointed at remembered in the
    /// file `remembered` (the store's): a commit's tree never changes, so when `HEAD` names a
    /// commit met before, its tree is known without opening the object store (the pack
    /// indexes a first object lookup loads are most of the cost of resolving `HEAD` on a
    /// small repository). A file that cannot be read or written only costs the lookup.
    pub fn head_remembered(&self, remembered: &Path) -> Result<Option<Resolved>, GitError> {
        let head = self.repo.head().map_err(other("reading HEAD"))?;
        if head.is_unborn() {
            return Ok(None);
        }
        // The id `HEAD`'s ref holds, not peeled: a commit, unless it names a tag object.
        let Some(named) = head.id().map(|id| from_gix(id.detach())) else {
            return self.resolve("HEAD").map(Some);
        };
        let known = std::fs::read_to_string(remembered).unwrap_or_default();
        let trees: Vec<(ObjectId, ObjectId)> = known
            .lines()
            .filter_map(|line| line.split_once(' '))
            .filter_map(|(commit, tree)| Some((ObjectId::from_hex(commit)?, ObjectId::from_hex(tree)?)))
            .collect();
        if let Some(&(commit_id, tree_id)) = trees.iter().find(|(commit, _)| *commit == named) {
            return Ok(Some(Resolved { commit_id, tree_id }));
        }
        let resolved = self.resolve("HEAD")?;
        // Only a commit named by the ref itself is remembered (never a tag's peeled commit),
        // with the most recent ones kept: a store two worktrees share sees two `HEAD`s.
        if resolved.commit_id == named {
            let kept = trees.iter().rev().take(REMEMBERED_TREES - 1).rev();
            let text: String = kept
                .chain(std::iter::once(&(resolved.commit_id, resolved.tree_id)))
                .map(|(commit, tree)| format!("{} {}\n", commit.to_hex(), tree.to_hex()))
                .collect();
            // Two threads of one process may both write: failing only forgets the tree.
            let _ = crate::replace::replace(remembered, text.as_bytes());
        }
        Ok(Some(resolved))
    }

    /// The full name of the branch `HEAD` points at (`refs/heads/main`), `None` when detached.
    pub fn head_ref_name(&self) -> Option<String> {
        let name = self.repo.head_name().ok()??;
        Some(name.as_bstr().to_string())
    }

    /// The size of the object `id` in bytes, read from its header without inflating it.
    pub fn object_size(&self, id: ObjectId) -> Result<u64, GitError> {
        let header = self.repo.find_header(id.to_gix()).map_err(|e| GitError::MissingObject { id, source: Some(e) })?;
        Ok(header.size())
    }

    /// The content of the blob `blob_id`, appended to `buf` after clearing it.
    pub fn read_blob_into(&self, blob_id: ObjectId, buf: &mut Vec<u8>) -> Result<(), GitError> {
        let blob = self
            .repo
            .find_blob(blob_id.to_gix())
            .map_err(|e| GitError::MissingObject { id: blob_id, source: Some(e) })?;
        buf.clear();
        buf.extend_from_slice(&blob.data);
        Ok(())
    }

    /// Whether `id` is in the object store.
    pub fn has_object(&self, id: ObjectId) -> bool {
        self.repo.has_object(id.to_gix())
    }

    /// Asks the promisor remote of a partial clone for `objects` in one request, as git's own
    /// lazy fetch does (a tree comes with the trees under it, never with blobs), and returns
    /// how many of them are here afterwards. Not a partial clone: `Ok(0)` and nothing run. A
    /// failed fetch is the error, with git's message.
    pub fn fetch_objects(&self, objects: &[ObjectId]) -> std::io::Result<usize> {
        use std::io::Write;
        let Some(remote) = self.promisor_remote() else {
            return Ok(0);
        };
        if objects.is_empty() {
            return Ok(0);
        }
        let mut child = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(self.repo.git_dir())
            .args(["-c", "fetch.negotiationAlgorithm=noop", "fetch", &remote])
            .args(["--no-tags", "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        let mut stdin = child.stdin.take().expect("stdin is piped");
        let ids: String = objects.iter().map(|id| format!("{id}\n")).collect();
        let written = stdin.write_all(ids.as_bytes());
        drop(stdin);
        let output = child.wait_with_output()?;
        if !output.status.success() {
            let message = String::from_utf8_lossy(&output.stderr).trim().to_owned();
            return Err(std::io::Error::other(format!("`git fetch {remote}` failed: {message}")));
        }
        written?;
        Ok(objects.iter().filter(|id| self.has_object(**id)).count())
    }

    /// The remote a partial clone fetches missing objects from: `extensions.partialClone`, or
    /// the first remote with `promisor = true`.
    fn promisor_remote(&self) -> Option<String> {
        self.config_string("extensions.partialClone").or_else(|| {
            self.repo
                .remote_names()
                .into_iter()
                .map(|name| name.to_string())
                .find(|name| self.config_bool(&format!("remote.{name}.promisor")) == Some(true))
        })
    }

    /// A value of git config, such as `codecompass.maxFileSize`.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo.config_snapshot().string(key).map(|v| v.to_string())
    }

    /// A boolean from git config (`true`/`yes`/`on`/`1`, `false`/...); `None` when unset or
    /// not a boolean.
    pub fn config_bool(&self, key: &str) -> Option<bool> {
        self.repo.config_snapshot().try_boolean(key).ok().flatten()
    }

    /// An integer from git config, understanding git's `k`/`m`/`g` suffixes.
    pub fn config_integer(&self, key: &str) -> Option<i64> {
        self.repo.config_snapshot().integer(key)
    }

    /// Every config value of a multi-valued key, in order.
    pub fn config_strings(&self, key: &str) -> Vec<String> {
        self.repo
            .config_snapshot()
            .strings(key)
            .map(|values| values.into_iter().map(|v| v.to_string()).collect())
            .unwrap_or_default()
    }

    /// The ids of the root commits reachable from `HEAD` (a repository's identity), sorted.
    pub fn root_commits(&self) -> Result<Vec<ObjectId>, GitError> {
        let Some(head) = self.head()? else {
            return Ok(Vec::new());
        };
        let walk = self.repo.rev_walk([head.commit_id.to_gix()]).all().map_err(other("walking history"))?;
        let mut roots = Vec::new();
        for info in walk {
            let info = info.map_err(other("walking history"))?;
            if info.parent_ids.is_empty() {
                roots.push(from_gix(info.id));
            }
        }
        roots.sort();
        Ok(roots)
    }

    /// The first-parent ancestors of `commit_id`, nearest first, at most `limit` of them.
    pub fn ancestors(&self, commit_id: ObjectId, limit: usize) -> Result<Vec<ObjectId>, GitError> {
        let walk =
            self.repo.rev_walk([commit_id.to_gix()]).first_parent_only().all().map_err(other("walking history"))?;
        let mut out = Vec::new();
        for info in walk.take(limit) {
            let info = info.map_err(other("walking history"))?;
            out.push(from_gix(info.id));
        }
        Ok(out)
    }

    /// The merge base of two commits, if they share history.
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>, GitError> {
        let base = self.repo.merge_base(a.to_gix(), b.to_gix()).map_err(other("computing a merge base"))?;
        Ok(base.map(from_gix))
    }

    /// The tree of the commit `commit_id`.
    pub fn commit_tree(&self, commit_id: ObjectId) -> Result<ObjectId, GitError> {
        let commit = self
            .repo
            .find_commit(commit_id.to_gix())
            .map_err(|e| GitError::MissingObject { id: commit_id, source: Some(e) })?;
        commit.tree_id().map(from_gix).map_err(other("reading a commit"))
    }

    /// The full name a symbolic reference points at (`refs/remotes/origin/HEAD` ->
    /// `refs/remotes/origin/main`).
    pub fn symbolic_target(&self, full_name: &str) -> Option<String> {
        let reference = self.repo.try_find_reference(full_name).ok()??;
        match reference.target() {
            gix::refs::TargetRef::Symbolic(name) => Some(name.as_bstr().to_string()),
            gix::refs::TargetRef::Object(_) => None,
        }
    }

    /// Whether a reference with this full name exists (`refs/heads/main`).
    pub fn has_reference(&self, full_name: &str) -> bool {
        matches!(self.repo.try_find_reference(full_name), Ok(Some(_)))
    }

    /// Every local branch and tag with the commit it peels to; refs that peel to no commit
    /// (a tag of a blob) are left out.
    pub fn references(&self) -> Result<Vec<(String, ObjectId)>, GitError> {
        self.references_where(|name| {
            name.starts_with("refs/heads/") || name.starts_with("refs/tags/") || name.starts_with("refs/remotes/")
        })
    }

    /// Every ref under `refs/` (stashes and notes too, as `git log --all` takes them) with the
    /// commit it peels to, sorted by name.
    pub fn all_references(&self) -> Result<Vec<(String, ObjectId)>, GitError> {
        self.references_where(|name| name.starts_with("refs/"))
    }

    fn references_where(&self, wanted: impl Fn(&str) -> bool) -> Result<Vec<(String, ObjectId)>, GitError> {
        let platform = self.repo.references().map_err(other("listing references"))?;
        let mut out = Vec::new();
        let iter = platform.all().map_err(other("listing references"))?;
        for reference in iter {
            let Ok(mut reference) = reference else {
                continue;
            };
            let name = reference.name().as_bstr().to_string();
            if !wanted(&name) {
                continue;
            }
            let Ok(id) = reference.peel_to_id() else {
                continue;
            };
            let Ok(object) = id.object() else { continue };
            let Ok(commit) = object.peel_to_commit() else {
                continue;
            };
            out.push((name, from_gix(commit.id)));
        }
        out.sort();
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Runs git in `dir` as a test author, failing the test when git fails; its output.
    pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
        let output = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(output.status.success(), "git {args:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    }

    /// Writes `text` to `path` under `dir`, making its directories.
    pub(super) fn write(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn a_blob_is_checked_against_the_id_git_gives_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut contents: Vec<Vec<u8>> =
            vec![Vec::new(), b"a\n".to_vec(), vec![0u8; 65], (0..=255u8).cycle().take(200_003).collect()];
        contents.push(b"line without newline".to_vec());
        for (i, data) in contents.iter().enumerate() {
            let path = dir.join(format!("f{i}"));
            std::fs::write(&path, data).unwrap();
            let git_id = git(dir, &["hash-object", "--no-filters", path.to_str().unwrap()]);
            let id = ObjectId::for_blob(data);
            assert_eq!(id.to_hex(), git_id);
            assert!(id.is_blob_of(data), "content {i}");
            let mut other = data.clone();
            other.push(b'x');
            assert!(!id.is_blob_of(&other), "content {i} and one byte more");
            if let Some(first) = other.first_mut() {
                *first ^= 1;
                other.pop();
                assert!(!id.is_blob_of(&other) || data.is_empty(), "content {i} with its first byte changed");
            }
        }
    }

    #[test]
    fn a_tree_diff_lists_the_files_git_diff_tree_lists_and_misses_no_object_silently() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        let write = |path: &str, text: &str| write(dir, path, text);
        write("a/x.txt", "x\n");
        write("a/deep/y.txt", "y\n");
        write("b/run.sh", "echo\n");
        write("keep.txt", "one\n");
        write("same/z.txt", "z\n");
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "one"]);
        let old = git(dir, &["rev-parse", "HEAD^{tree}"]);
        // A whole directory gone, one added two levels deep, an edit, a mode change, a file
        // that becomes a directory, a symlink.
        git(dir, &["rm", "-q", "-r", "a"]);
        write("c/d/new.txt", "new\n");
        write("keep.txt", "two\n");
        let mut mode = std::fs::metadata(dir.join("b/run.sh")).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        std::fs::set_permissions(dir.join("b/run.sh"), mode).unwrap();
        std::fs::remove_file(dir.join("keep.txt")).unwrap();
        write("keep.txt/inner.txt", "inner\n");
        std::os::unix::fs::symlink("same/z.txt", dir.join("link")).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "two"]);
        let new = git(dir, &["rev-parse", "HEAD^{tree}"]);

        let repo = GitRepo::open(dir).unwrap().local();
        let changes = repo.diff_trees(ObjectId::from_hex(&old).unwrap(), ObjectId::from_hex(&new).unwrap()).unwrap();
        let ours: Vec<String> = changes
            .iter()
            .flat_map(|c| {
                let path = String::from_utf8_lossy(&c.path).into_owned();
                let old = c.old.map(|(id, _)| format!("- {path} {id}"));
                let new = c.new.map(|(id, _)| format!("+ {path} {id}"));
                old.into_iter().chain(new)
            })
            .collect();
        // `git diff-tree -r`: `:old_mode new_mode old_id new_id status\tpath`, zeros for none.
        let zeros = "0".repeat(40);
        let mut theirs: Vec<String> = git(dir, &["diff-tree", "-r", "--no-renames", &old, &new])
            .lines()
            .flat_map(|line| {
                let (meta, path) = line.split_once('\t').unwrap();
                let fields: Vec<&str> = meta.split(' ').collect();
                let old = (fields[2] != zeros).then(|| format!("- {path} {}", fields[2]));
                let new = (fields[3] != zeros).then(|| format!("+ {path} {}", fields[3]));
                old.into_iter().chain(new).collect::<Vec<_>>()
            })
            .collect();
        theirs.sort_by(|a, b| a[2..].cmp(&b[2..]).then(a.cmp(b)));
        let mut sorted = ours.clone();
        sorted.sort_by(|a, b| a[2..].cmp(&b[2..]).then(a.cmp(b)));
        assert_eq!(sorted, theirs);
        assert!(ours.iter().any(|l| l.starts_with("- a/deep/y.txt")), "{ours:?}");
        assert!(changes.iter().any(|c| c.path == b"b/run.sh" && c.new.unwrap().1 == FileMode::Executable));

        // A subtree the object store lacks is named, not diffed around.
        let subtree = git(dir, &["rev-parse", "HEAD:c/d"]);
        let loose = dir.join(".git/objects").join(&subtree[..2]).join(&subtree[2..]);
        std::fs::remove_file(loose).unwrap();
        let repo = GitRepo::open(dir).unwrap().local();
        match repo.diff_trees(ObjectId::from_hex(&old).unwrap(), ObjectId::from_hex(&new).unwrap()) {
            Err(GitError::MissingObject { id, .. }) => assert_eq!(id.to_hex(), subtree),
            other => panic!("expected the missing subtree, got {other:?}"),
        }
    }

    #[test]
    fn head_remembered_answers_as_head_does_and_remembers_only_commits_the_ref_names() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        let trees = dir.join("head-trees");
        let local = || GitRepo::open(dir).unwrap().local();
        assert_eq!(local().head_remembered(&trees).unwrap(), None, "unborn");
        assert!(!trees.exists());

        std::fs::write(dir.join("a.txt"), "one\n").unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "one"]);
        let first = local().head().unwrap();
        assert_eq!(local().head_remembered(&trees).unwrap(), first);
        let one = first.unwrap();
        assert_eq!(
            std::fs::read_to_string(&trees).unwrap(),
            format!("{} {}\n", one.commit_id.to_hex(), one.tree_id.to_hex())
        );
        // Remembered: answered from the file (a tree written there by hand is what comes back).
        let other = ObjectId::from_hex(&git(dir, &["hash-object", "-t", "tree", "/dev/null"])).unwrap();
        std::fs::write(&trees, format!("{} {}\n", one.commit_id.to_hex(), other.to_hex())).unwrap();
        assert_eq!(local().head_remembered(&trees).unwrap().unwrap().tree_id, other);
        std::fs::write(&trees, format!("{} {}\n", one.commit_id.to_hex(), one.tree_id.to_hex())).unwrap();

        // A new commit is resolved and added; unreadable lines are skipped.
        std::fs::write(dir.join("a.txt"), "two\n").unwrap();
        git(dir, &["commit", "-q", "-am", "two"]);
        let mut text = std::fs::read_to_string(&trees).unwrap();
        text.push_str("not a line\n");
        std::fs::write(&trees, text).unwrap();
        let second = local().head().unwrap();
        assert_eq!(local().head_remembered(&trees).unwrap(), second);
        let lines = std::fs::read_to_string(&trees).unwrap();
        assert_eq!(lines.lines().count(), 2, "{lines}");

        // `HEAD` detached at an annotated tag's object: the commit it peels to is answered,
        // and the tag is not remembered as a commit.
        git(dir, &["tag", "-a", "-m", "v1", "v1"]);
        let tag = git(dir, &["rev-parse", "v1"]);
        std::fs::write(dir.join(".git/HEAD"), format!("{tag}\n")).unwrap();
        assert_eq!(local().head_remembered(&trees).unwrap(), second);
        assert!(!std::fs::read_to_string(&trees).unwrap().contains(&tag));
    }
}
