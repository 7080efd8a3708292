//! Git hooks that keep views fresh: install, uninstall, status.
//!
//! The scripts live in the repository's `hooks/` directory and are compiled in. Installing goes
//! into the directory git will use (`core.hooksPath` when set, else the common git dir's
//! `hooks/`, shared by linked worktrees). A hook already there is never overwritten: it is
//! renamed to `<name>.pre-codecompass` and run first by ours, with the same arguments and
//! input; uninstalling renames it back, so the previous state returns byte for byte.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::git::GitRepo;

/// The hooks installed, with their scripts.
pub const HOOKS: &[(&str, &str)] = &[
    ("post-checkout", include_str!("../../hooks/post-checkout")),
    ("post-merge", include_str!("../../hooks/post-merge")),
    ("post-rewrite", include_str!("../../hooks/post-rewrite")),
    ("post-commit", include_str!("../../hooks/post-commit")),
];

/// The line that marks a hook as ours.
const MARKER: &str = "# codecompass: keeps the code index fresh";
/// The suffix of a user's hook that ours chains to.
const CHAINED: &str = "pre-codecompass";

/// What went wrong with hooks.
#[derive(Debug, thiserror::Error)]
pub enum HookError {
    /// A bare repository or a plain directory has no hooks to install.
    #[error("{0}")]
    Unsupported(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A previous installation left a chained hook without ours in front of it.
    #[error("{path} exists but {hook} is not CodeCompass's: move one of them away first")]
    Conflict { path: PathBuf, hook: String },
}

/// The state of one hook.
#[derive(Clone, Debug, Serialize)]
pub struct HookState {
    /// The hook's name.
    pub name: &'static str,
    /// `installed`, `installed_chained` (ours, running the user's first), `foreign` (someone
    /// else's, ours absent) or `absent`.
    pub state: &'static str,
    /// Where it is.
    pub path: String,
}

/// The hooks of a repository.
#[derive(Clone, Debug, Serialize)]
pub struct HooksReport {
    /// The directory git runs hooks from.
    pub hooks_dir: String,
    /// Whether that directory comes from `core.hooksPath`.
    pub core_hooks_path: bool,
    /// Whether `git-codecompass` is on `PATH` (hooks do nothing without it).
    pub binary_on_path: bool,
    /// Per hook.
    pub hooks: Vec<HookState>,
}

/// The directory git runs hooks from.
pub fn hooks_dir(repo: &GitRepo) -> Result<(PathBuf, bool), HookError> {
    let local = repo.local();
    if let Some(configured) = local.config_string("core.hooksPath") {
        let path = PathBuf::from(shellexpand_home(&configured));
        // git resolves a relative hooksPath against the worktree root where hooks run.
        let base = repo.workdir().unwrap_or(repo.git_dir());
        return Ok((if path.is_absolute() { path } else { base.join(path) }, true));
    }
    Ok((repo.common_dir().join("hooks"), false))
}

fn shellexpand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_owned(),
    }
}

fn is_ours(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.contains(MARKER))
}

fn chained_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(CHAINED);
    path.with_file_name(name)
}

fn on_path(binary: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(binary).is_file()))
}

/// The state of every hook.
pub fn status(repo: &GitRepo) -> Result<HooksReport, HookError> {
    let (dir, configured) = hooks_dir(repo)?;
    let hooks = HOOKS
        .iter()
        .map(|(name, _)| {
            let path = dir.join(name);
            let state = if is_ours(&path) {
                if chained_path(&path).exists() { "installed_chained" } else { "installed" }
            } else if path.exists() {
                "foreign"
            } else {
                "absent"
            };
            HookState { name, state, path: path.to_string_lossy().into_owned() }
        })
        .collect();
    Ok(HooksReport {
        hooks_dir: dir.to_string_lossy().into_owned(),
        core_hooks_path: configured,
        binary_on_path: on_path("git-codecompass"),
        hooks,
    })
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> HookError + '_ {
    move |source| HookError::Io { path: path.to_owned(), source }
}

/// Installs the hooks, chaining to any hook already there.
pub fn install(repo: &GitRepo) -> Result<HooksReport, HookError> {
    if repo.workdir().is_none() {
        return Err(HookError::Unsupported("a bare repository has no checkouts to keep fresh".into()));
    }
    let (dir, _) = hooks_dir(repo)?;
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    for (name, script) in HOOKS {
        let path = dir.join(name);
        let chained = chained_path(&path);
        if is_ours(&path) {
            // Already installed: refresh the script, keep the chain.
            write_script(&path, script)?;
            continue;
        }
        if chained.exists() {
            return Err(HookError::Conflict { path: chained, hook: name.to_string() });
        }
        if path.exists() || std::fs::symlink_metadata(&path).is_ok() {
            std::fs::rename(&path, &chained).map_err(io(&path))?;
        }
        write_script(&path, script)?;
    }
    status(repo)
}

fn write_script(path: &Path, script: &str) -> Result<(), HookError> {
    let tmp = path.with_extension("codecompass-tmp");
    std::fs::write(&tmp, script).map_err(io(&tmp))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io(path))
}

/// Removes our hooks and puts back the ones they chained to.
pub fn uninstall(repo: &GitRepo) -> Result<HooksReport, HookError> {
    let (dir, _) = hooks_dir(repo)?;
    for (name, _) in HOOKS {
        let path = dir.join(name);
        if !is_ours(&path) {
            continue;
        }
        std::fs::remove_file(&path).map_err(io(&path))?;
        let chained = chained_path(&path);
        if std::fs::symlink_metadata(&chained).is_ok() {
            std::fs::rename(&chained, &path).map_err(io(&chained))?;
        }
    }
    status(repo)
}
