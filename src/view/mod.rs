//! Workspaces and scopes: the only module that knows refs, `HEAD` and worktrees.
//!
//! A workspace is a repository seen from one working tree (or a bare repository, or a plain
//! directory). A scope is what a query asks about: the live working tree (the default) or a
//! committed ref. Each scope resolves to a view key: `tree:<tree id>` for a ref, so two refs
//! with one tree share one view; `worktree:<id>` for a working tree; `live` for a directory
//! that is not a repository.

pub mod ignore_rules;
pub mod live;

use std::path::{Path, PathBuf};

use crate::git::{GitError, GitRepo, LocalRepo, ObjectId, Resolved};

/// What a query or an index run is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The working tree as it is on disk, uncommitted changes included (or the directory, for
    /// a workspace that is not a repository; or `HEAD`, for a bare repository).
    Worktree,
    /// A committed commit-ish: a branch, tag, commit id, `HEAD~3`.
    Ref(String),
}

impl Scope {
    /// The scope `--ref` gives: none means the working tree.
    pub fn from_option(reference: Option<&str>) -> Scope {
        match reference {
            None => Scope::Worktree,
            Some(r) => Scope::Ref(r.to_owned()),
        }
    }
}

/// The default size above which files are not parsed (`codecompass.maxFileSize`).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// A repository seen from one working tree, or a plain directory.
pub struct Workspace {
    root: PathBuf,
    git: Option<GitRepo>,
    store_dir: PathBuf,
}

/// What went wrong opening a workspace.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The directory does not exist.
    #[error("{path} does not exist or is not a directory")]
    NoSuchDirectory { path: PathBuf },
    /// Git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A plain directory, and indexing one was not asked for.
    #[error("{path} is not in a git repository")]
    NotARepository { path: PathBuf },
    /// A plain directory too broad to index without `--force`: `/` or the home directory.
    #[error("{path} is {what}: indexing all of it is almost never what was meant")]
    TooBroad { path: PathBuf, what: &'static str },
    /// A plain directory large enough to ask first.
    #[error("{path} holds {size}: indexing it takes a while and disk space")]
    NeedsConfirmation { path: PathBuf, size: String },
    /// Nowhere to keep a plain directory's index (no cache directory).
    #[error("there is no cache directory to keep the index of {path} in (HOME and XDG_CACHE_HOME are unset)")]
    NoCacheDir { path: PathBuf },
    /// A `codecompass.*` setting holds a value it cannot take.
    #[error("bad value `{value}` for `{key}` in git config: {expected}")]
    BadConfig { key: &'static str, value: String, expected: &'static str, example: &'static str },
}

/// Whether the plain directory `dir`, not indexed yet, may be: asked for, not `/` or the home
/// directory unless forced, and not above the size that asks first unless confirmed.
fn check_live(dir: &Path, opt_in: live::LiveOptIn) -> Result<(), WorkspaceError> {
    if !opt_in.allowed {
        return Err(WorkspaceError::NotARepository { path: dir.to_owned() });
    }
    let what = if dir.parent().is_none() {
        Some("the root of the file system")
    } else if live::home().and_then(|h| std::fs::canonicalize(h).ok()).as_deref() == Some(dir) {
        Some("your home directory")
    } else {
        None
    };
    if let (Some(what), false) = (what, opt_in.force) {
        return Err(WorkspaceError::TooBroad { path: dir.to_owned(), what });
    }
    if !opt_in.yes {
        let size = live::measure(dir);
        if size.over {
            let size = format!("more than {} files or {} MiB", size.files.saturating_sub(1), size.bytes >> 20);
            return Err(WorkspaceError::NeedsConfirmation { path: dir.to_owned(), size });
        }
    }
    Ok(())
}

/// Checks the `codecompass.*` settings whose values have a shape, as git checks its own keys:
/// a wrong value is an error naming the key, never silently the default.
fn check_config(repo: &GitRepo) -> Result<(), WorkspaceError> {
    let local = repo.local();
    let bad = |key: &'static str, value: String, expected: &'static str, example: &'static str| {
        Err(WorkspaceError::BadConfig { key, value, expected, example })
    };
    if let Some(value) = local.config_string("codecompass.freshness")
        && !["strict", "balanced", "best_effort", "best-effort"].contains(&value.as_str())
    {
        return bad("codecompass.freshness", value, "one of strict, balanced, best_effort", "balanced");
    }
    if let Some(value) = local.config_string("codecompass.maxFileSize")
        && local.config_integer("codecompass.maxFileSize").is_none_or(|v| v < 0)
    {
        return bad("codecompass.maxFileSize", value, "a size in bytes, with k, m or g allowed", "2m");
    }
    if let Some(value) = local.config_string("codecompass.watch")
        && !["auto", "always", "never"].contains(&value.as_str())
    {
        return bad("codecompass.watch", value, "one of auto, always, never", "auto");
    }
    if let Some(value) = local.config_string("codecompass.fetchMissing")
        && local.config_bool("codecompass.fetchMissing").is_none()
    {
        return bad("codecompass.fetchMissing", value, "a boolean (true or false)", "true");
    }
    Ok(())
}

impl Workspace {
    /// Opens the workspace containing `path`. `store` overrides where the index lives; by
    /// default it is `<common git dir>/codecompass` (shared by all linked worktrees), or, for a
    /// directory that is not a repository, a directory of the user's cache ([`live`]). A plain
    /// directory not indexed yet is opened only as `live` allows.
    pub fn open(path: &Path, store: Option<&Path>, live: live::LiveOptIn) -> Result<Workspace, WorkspaceError> {
        let canonical =
            std::fs::canonicalize(path).map_err(|_| WorkspaceError::NoSuchDirectory { path: path.to_owned() })?;
        if !canonical.is_dir() {
            return Err(WorkspaceError::NoSuchDirectory { path: path.to_owned() });
        }
        let git = GitRepo::discover(&canonical)?;
        if let Some(repo) = &git {
            check_config(repo)?;
        }
        let (root, default_store) = match &git {
            Some(repo) => {
                let root = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
                (root, repo.common_dir().join("codecompass"))
            }
            None => {
                let cached = live::store_for(&canonical)
                    .ok_or_else(|| WorkspaceError::NoCacheDir { path: canonical.clone() })?;
                let store_dir = store.map_or(cached, Path::to_owned);
                if !store_dir.join(crate::store::DB_FILE).exists() {
                    check_live(&canonical, live)?;
                    let _ = live::record(&store_dir, &canonical);
                }
                return Ok(Workspace { root: canonical, git: None, store_dir });
            }
        };
        let store_dir = store.map_or(default_store, Path::to_owned);
        Ok(Workspace { root, git, store_dir })
    }

    /// The working tree's root (the git dir of a bare repository; the directory itself when
    /// it is not a repository).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The repository, if the workspace is one.
    pub fn git(&self) -> Option<&GitRepo> {
        self.git.as_ref()
    }

    /// Where the index lives.
    pub fn store_dir(&self) -> &Path {
        &self.store_dir
    }

    /// Whether the workspace has files on disk to index (not a bare repository).
    pub fn has_worktree(&self) -> bool {
        match &self.git {
            Some(repo) => repo.workdir().is_some(),
            None => true,
        }
    }

    /// The key of this working tree's view: one per worktree of a repository, keyed by its
    /// own git dir so linked worktrees never share one.
    pub fn worktree_view_key(&self) -> String {
        match &self.git {
            Some(repo) => {
                let id = blake3::hash(repo.git_dir().as_os_str().as_encoded_bytes()).to_hex();
                format!("worktree:{}", &id[..16])
            }
            None => "live".to_owned(),
        }
    }

    /// The name this working tree is listed under in `refs`.
    pub fn worktree_ref_name(&self) -> String {
        self.worktree_view_key()
    }

    /// The effective scope name reported in JSON: `worktree`, the ref as given, or `live`.
    pub fn scope_name(&self, scope: &Scope) -> String {
        match scope {
            Scope::Worktree if self.git.is_none() => "live".to_owned(),
            Scope::Worktree if !self.has_worktree() => "HEAD".to_owned(),
            Scope::Worktree => "worktree".to_owned(),
            Scope::Ref(r) => r.clone(),
        }
    }

    /// `codecompass.maxFileSize` from git config, or the default.
    pub fn max_file_size(&self) -> u64 {
        self.git
            .as_ref()
            .and_then(|g| g.local().config_integer("codecompass.maxFileSize"))
            .and_then(|v| u64::try_from(v).ok())
            .unwrap_or(DEFAULT_MAX_FILE_SIZE)
    }

    /// `codecompass.fetchMissing`: whether indexing a partial clone may ask its promisor
    /// remote for the blobs a view needs (off by default: it reaches the network).
    pub fn fetch_missing(&self) -> bool {
        self.git.as_ref().and_then(|g| g.local().config_bool("codecompass.fetchMissing")).unwrap_or(false)
    }
}

/// A ref resolved for indexing: the name to store it under, its commit and tree.
#[derive(Clone, Debug)]
pub struct ResolvedRef {
    /// The full ref name when `spec` names a ref (`refs/heads/main`; `HEAD` gives the branch
    /// it points at), else the commit id.
    pub name: String,
    /// The commit and tree.
    pub target: Resolved,
}

/// Resolves `spec` in `repo`, preferring the full name of a branch or tag it names.
pub fn resolve_ref(repo: &LocalRepo, spec: &str) -> Result<ResolvedRef, GitError> {
    let target = repo.resolve(spec)?;
    let name = full_ref_name(repo, spec).unwrap_or_else(|| target.commit_id.to_hex());
    Ok(ResolvedRef { name, target })
}

fn full_ref_name(repo: &LocalRepo, spec: &str) -> Option<String> {
    if spec == "HEAD" {
        // `HEAD` differs between linked worktrees: store the branch it points at, or, when
        // detached, the commit (the caller's fallback).
        return repo.head_ref_name();
    }
    if spec.len() == 40 && spec.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let candidates = [
        spec.to_owned(),
        format!("refs/{spec}"),
        format!("refs/tags/{spec}"),
        format!("refs/heads/{spec}"),
        format!("refs/remotes/{spec}"),
    ];
    candidates.into_iter().filter(|c| c.starts_with("refs/")).find(|c| repo.has_reference(c))
}

/// The key of the view of tree `tree_id`.
pub fn tree_view_key(tree_id: ObjectId) -> String {
    format!("tree:{tree_id}")
}

/// The default branch: what `origin/HEAD` points at (as a local branch when one exists),
/// else `main` or `master`, else `init.defaultBranch`. `None` when none of them exists.
pub fn default_branch(repo: &LocalRepo) -> Option<String> {
    if let Some(target) = repo.symbolic_target("refs/remotes/origin/HEAD") {
        let local = target.replacen("refs/remotes/origin/", "refs/heads/", 1);
        if repo.has_reference(&local) {
            return Some(local);
        }
        if repo.has_reference(&target) {
            return Some(target);
        }
    }
    let configured = repo.config_string("init.defaultBranch").map(|b| format!("refs/heads/{b}"));
    ["refs/heads/main".to_owned(), "refs/heads/master".to_owned()]
        .into_iter()
        .chain(configured)
        .find(|r| repo.has_reference(r))
}

/// The branches checked out in every worktree of the repository (the main one and the linked
/// ones), read from their `HEAD` files. Detached heads give their commit id.
pub fn worktree_heads(common_dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let read_head = |git_dir: &Path| -> Option<String> {
        let text = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
        let text = text.trim();
        Some(text.strip_prefix("ref: ").unwrap_or(text).to_owned())
    };
    if let Some(head) = read_head(common_dir) {
        out.push((common_dir.to_owned(), head));
    }
    if let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) {
        for entry in entries.flatten() {
            let git_dir = entry.path();
            // A linked worktree whose directory is gone is prunable: skip it.
            let alive =
                std::fs::read_to_string(git_dir.join("gitdir")).ok().is_some_and(|p| Path::new(p.trim()).exists());
            if alive && let Some(head) = read_head(&git_dir) {
                out.push((git_dir, head));
            }
        }
    }
    out
}

/// The refs matching the `codecompass.refs` patterns (`refs/heads/*`, `refs/tags/v*`).
pub fn configured_refs(repo: &LocalRepo) -> Vec<String> {
    let patterns: Vec<globset::GlobMatcher> = repo
        .config_strings("codecompass.refs")
        .iter()
        .flat_map(|v| v.split(',').map(|p| p.trim().to_owned()).collect::<Vec<_>>())
        .filter(|p| !p.is_empty())
        .filter_map(|p| globset::Glob::new(&p).ok().map(|g| g.compile_matcher()))
        .collect();
    if patterns.is_empty() {
        return Vec::new();
    }
    repo.references()
        .unwrap_or_default()
        .into_iter()
        .map(|(name, _)| name)
        .filter(|name| patterns.iter().any(|p| p.is_match(name)))
        .collect()
}
