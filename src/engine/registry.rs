//! The registry of repositories (`repos add|list|remove|sync`): which repositories queries with
//! `--repo` serve, under which aliases, and which refs each keeps fresh.
//!
//! One JSON file in the user's configuration directory: `$CODECOMPASS_HOME/repos.json`, else
//! `$XDG_CONFIG_HOME/codecompass/repos.json`, else `~/.config/codecompass/repos.json`. Changes
//! are made under a lock and written whole through a rename: two `repos add` at once lose
//! nothing, and a crash leaves the previous file. Each repository keeps its own store; the
//! registry only names them.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Engine, EngineOptions, Error, IndexResponse, PROTOCOL_VERSION};
use crate::error::ErrorCode;
use crate::indexer::IndexOptions;
use crate::store;
use crate::view::Scope;

const FILE: &str = "repos.json";
const FORMAT: u32 = 1;

/// One registered repository.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RepoEntry {
    /// The name queries use (`--repo ALIAS`, or a glob of aliases).
    pub alias: String,
    /// The root of its working tree (or the bare repository), absolute.
    pub path: String,
    /// Refs `repos sync` keeps fresh beside the ones every sync does (HEAD, the worktree,
    /// the default branch).
    #[serde(default)]
    pub refs: Vec<String>,
    /// When it was added (Unix seconds).
    pub added_at: i64,
}

#[derive(Serialize, Deserialize)]
struct RegistryFile {
    version: u32,
    repos: Vec<RepoEntry>,
}

/// Whether a registered repository is still where it was registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RepoState {
    /// There, a git repository.
    Ok,
    /// Its directory is gone (moved or deleted).
    Missing,
    /// Its directory is there but is no git repository any more.
    NotARepository,
}

impl RepoEntry {
    /// Whether it is still there: two `stat`s, no repository opened.
    pub fn state(&self) -> RepoState {
        let path = Path::new(&self.path);
        if !path.is_dir() {
            RepoState::Missing
        } else if path.join(".git").exists() || path.join("HEAD").is_file() && path.join("objects").is_dir() {
            RepoState::Ok
        } else {
            RepoState::NotARepository
        }
    }

    /// Opens its engine, or says why it cannot be.
    pub fn open(&self) -> Result<Engine, Error> {
        match self.state() {
            RepoState::Ok => Engine::open(Path::new(&self.path), &EngineOptions::default()),
            RepoState::Missing => Err(Error::new(
                ErrorCode::RepoMissing,
                format!("repository `{}` is gone from {} (moved or deleted)", self.alias, self.path),
            )
            .with_remedy(format!(
                "register it where it is now (`git codecompass repos remove {0}` then `repos add PATH --alias {0}`)",
                self.alias
            ))),
            RepoState::NotARepository => Err(Error::new(
                ErrorCode::RepoMissing,
                format!("repository `{}` at {} is no git repository any more", self.alias, self.path),
            )
            .with_remedy(format!("remove it with `git codecompass repos remove {}`", self.alias))),
        }
    }
}

/// Where the registry lives, or `None` when no configuration directory can be named.
pub fn registry_path() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CODECOMPASS_HOME").filter(|h| !h.is_empty()) {
        return Some(PathBuf::from(home).join(FILE));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| crate::view::live::home().map(|h| h.join(".config")))?;
    Some(base.join("codecompass").join(FILE))
}

fn no_home() -> Error {
    Error::new(ErrorCode::Io, "cannot tell where the registry of repositories lives")
        .with_remedy("set CODECOMPASS_HOME (or HOME) to a writable directory")
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("{}: {e}", path.display()))
}

/// The registered repositories.
#[derive(Clone, Debug)]
pub struct Registry {
    /// The file they are kept in.
    pub path: PathBuf,
    /// By alias.
    pub repos: Vec<RepoEntry>,
}

impl Registry {
    /// Reads the registry; a missing file is an empty registry.
    pub fn load() -> Result<Registry, Error> {
        let path = registry_path().ok_or_else(no_home)?;
        let repos = read(&path)?;
        Ok(Registry { path, repos })
    }

    /// Changes the registry under its lock: read, `change`, write whole.
    fn update<R>(change: impl FnOnce(&mut Vec<RepoEntry>) -> Result<R, Error>) -> Result<R, Error> {
        let path = registry_path().ok_or_else(no_home)?;
        let dir = path.parent().expect("the registry file has a directory");
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let lock_path = path.with_extension("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| io(&lock_path, e))?;
        lock.lock().map_err(|e| io(&lock_path, e))?;
        let mut repos = read(&path)?;
        let result = change(&mut repos)?;
        repos.sort_by(|a, b| a.alias.cmp(&b.alias));
        let text = serde_json::to_vec_pretty(&RegistryFile { version: FORMAT, repos })
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        crate::replace::replace(&path, &text).map_err(|e| io(&path, e))?;
        Ok(result)
    }

    /// Whether the repository whose root is `root` is registered.
    pub fn is_registered(&self, root: &Path) -> bool {
        let root = root.to_string_lossy();
        self.repos.iter().any(|r| r.path == root)
    }

    /// The repositories the patterns name (aliases, or globs of them: `svc-*`, `*`), each once,
    /// by alias. A pattern that names none is an error that lists the aliases there are.
    pub fn select(&self, patterns: &[String]) -> Result<Vec<RepoEntry>, Error> {
        let mut chosen: Vec<RepoEntry> = Vec::new();
        for pattern in patterns {
            let matcher = globset::GlobBuilder::new(pattern)
                .literal_separator(false)
                .build()
                .map_err(|e| Error::new(ErrorCode::InvalidArgument, format!("`--repo {pattern}`: {e}")))?
                .compile_matcher();
            let matched: Vec<&RepoEntry> =
                self.repos.iter().filter(|r| r.alias == *pattern || matcher.is_match(&r.alias)).collect();
            if matched.is_empty() {
                let known: Vec<&str> = self.repos.iter().map(|r| r.alias.as_str()).collect();
                let remedy = if known.is_empty() {
                    "register repositories with `git codecompass repos add PATH [--alias NAME]`".to_owned()
                } else {
                    format!("registered: {} (`git codecompass repos list`)", known.join(", "))
                };
                return Err(Error::new(
                    ErrorCode::RepoNotRegistered,
                    format!("no registered repository is named `{pattern}`"),
                )
                .with_remedy(remedy));
            }
            for entry in matched {
                if !chosen.iter().any(|c| c.alias == entry.alias) {
                    chosen.push(entry.clone());
                }
            }
        }
        chosen.sort_by(|a, b| a.alias.cmp(&b.alias));
        Ok(chosen)
    }
}

fn read(path: &Path) -> Result<Vec<RepoEntry>, Error> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(path, e)),
    };
    let file: RegistryFile = serde_json::from_slice(&bytes).map_err(|e| {
        Error::new(ErrorCode::InvalidArgument, format!("the registry {} cannot be read: {e}", path.display()))
            .with_remedy("fix or remove the file (it only lists repositories: their indexes stay where they are)")
    })?;
    if file.version != FORMAT {
        return Err(Error::new(
            ErrorCode::IndexIncompatible,
            format!("the registry {} has format {} (this build reads {FORMAT})", path.display(), file.version),
        )
        .with_remedy("use the build that wrote it, or remove the file and register the repositories again"));
    }
    Ok(file.repos)
}

/// Whether `alias` can name a repository: letters, digits, `.`, `_`, `-`; no glob characters.
fn valid_alias(alias: &str) -> bool {
    !alias.is_empty()
        && alias.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        && !alias.starts_with(['.', '-'])
}

/// The alias a directory gets when none is given: its name, with other characters as `-`.
fn default_alias(root: &Path) -> String {
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let alias: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '-' }).collect();
    let alias = alias.trim_start_matches(['.', '-']).to_owned();
    if alias.is_empty() { "repo".to_owned() } else { alias }
}

/// The stores the repositories of `registry` other than the one at `own` keep, for records
/// shared between them: those that exist, but for `own_store` (two worktrees of one
/// repository share a store). Stores of another schema (or damaged) are left out where they
/// are opened.
pub fn donor_stores(registry: &Registry, own: &Path, own_store: &Path) -> Vec<PathBuf> {
    donors(registry, own, own_store).into_iter().map(|(_, store)| store).collect()
}

/// The same as [`donor_stores`], each with its repository's path.
pub fn donors(registry: &Registry, own: &Path, own_store: &Path) -> Vec<(PathBuf, PathBuf)> {
    let own = own.to_string_lossy();
    let own_store = canonical_store(own_store);
    registry
        .repos
        .iter()
        .filter(|r| r.path != own && r.state() == RepoState::Ok)
        .filter_map(|r| Some((PathBuf::from(&r.path), default_store_of(Path::new(&r.path))?)))
        // Whether a store is of this build's schema is checked where it is opened, not here:
        // most are never opened (`store::record_blobs`).
        .filter(|(_, dir)| canonical_store(dir) != own_store && store::Store::exists(dir))
        .collect()
}

/// `store` with its parent directory's path made canonical (the store itself may not exist
/// yet), so that two spellings of one store compare equal.
fn canonical_store(store: &Path) -> PathBuf {
    match (store.parent().and_then(|p| std::fs::canonicalize(p).ok()), store.file_name()) {
        (Some(parent), Some(name)) => parent.join(name),
        _ => store.to_owned(),
    }
}

/// Where a repository registered at `root` (a working tree's root, or a bare repository)
/// keeps its store when opened without `--store`: `<common git dir>/codecompass`, found from
/// the files git keeps (`.git` as a directory or as a `gitdir:` file, `commondir`) without
/// opening the repository. Every index run of a registered repository that meets blobs it has
/// no record of looks for donors among all registered ones, and opening each (its
/// configuration files, its references) cost about 1.5 ms apiece. A layout this does not
/// follow only leaves a donor out: records and seeded files are keyed by blob id and path,
/// never trusted for where they came from.
fn default_store_of(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        root.join(text.strip_prefix("gitdir:")?.trim())
    } else if root.join("HEAD").is_file() && root.join("objects").is_dir() {
        root.to_owned()
    } else {
        return None;
    };
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim()),
        Err(_) => git_dir,
    };
    Some(common.join("codecompass"))
}

/// One repository in `repos list`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ListedRepo {
    /// The registered entry.
    #[serde(flatten)]
    pub entry: RepoEntry,
    /// Whether it is still there.
    pub state: RepoState,
}

/// The answer of `repos list`, `repos add` and `repos remove`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ReposResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The registry file.
    pub registry: String,
    /// What the command did (`added`, `removed`; absent for `list`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<&'static str>,
    /// The alias added or removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// Every registered repository, by alias, with whether it is still there.
    pub repos: Vec<ListedRepo>,
    /// What indexing the repository added did (`repos add` without `--no-index`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexResponse>,
}

fn listed(registry: &Registry, action: Option<&'static str>, alias: Option<String>) -> ReposResponse {
    ReposResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        registry: registry.path.to_string_lossy().into_owned(),
        action,
        alias,
        repos: registry.repos.iter().map(|e| ListedRepo { entry: e.clone(), state: e.state() }).collect(),
        index: None,
    }
}

/// `repos list`.
pub fn list() -> Result<ReposResponse, Error> {
    Ok(listed(&Registry::load()?, None, None))
}

/// `repos add`: registers the repository containing `path` under `alias` (its directory's
/// name by default), with `refs` to keep fresh.
pub fn add(path: &Path, alias: Option<&str>, refs: &[String]) -> Result<(ReposResponse, Engine), Error> {
    let engine = Engine::open(path, &EngineOptions::default())?;
    let ws = engine.workspace();
    let Some(repo) = ws.git() else {
        return Err(Error::new(ErrorCode::NotARepository, format!("{} is not a git repository", path.display()))
            .with_remedy("register the root of a git repository"));
    };
    for r in refs {
        repo.local().resolve(r).map_err(|_| {
            Error::new(ErrorCode::UnknownRef, format!("`{r}` names nothing in {}", ws.root().display()))
        })?;
    }
    let root = ws.root().to_string_lossy().into_owned();
    let alias = match alias {
        Some(a) if valid_alias(a) => a.to_owned(),
        Some(a) => {
            return Err(Error::new(ErrorCode::InvalidArgument, format!("`{a}` cannot be an alias"))
                .with_remedy("use letters, digits, `.`, `_` and `-` (no glob characters)"));
        }
        None => default_alias(ws.root()),
    };
    let added = alias.clone();
    Registry::update(|repos| {
        if let Some(same) = repos.iter_mut().find(|r| r.path == root) {
            if same.alias != alias {
                return Err(Error::new(
                    ErrorCode::InvalidArgument,
                    format!("{root} is already registered as `{}`", same.alias),
                )
                .with_remedy(format!("remove it first: `git codecompass repos remove {}`", same.alias)));
            }
            // Adding it again adds refs to keep fresh.
            for r in refs {
                if !same.refs.contains(r) {
                    same.refs.push(r.clone());
                }
            }
            return Ok(());
        }
        if let Some(other) = repos.iter().find(|r| r.alias == alias) {
            return Err(Error::new(
                ErrorCode::InvalidArgument,
                format!("the alias `{alias}` already names {}", other.path),
            )
            .with_remedy("give another one with `--alias NAME`"));
        }
        repos.push(RepoEntry { alias: alias.clone(), path: root.clone(), refs: refs.to_vec(), added_at: store::now() });
        Ok(())
    })?;
    Ok((listed(&Registry::load()?, Some("added"), Some(added)), engine))
}

/// `repos remove`: forgets a repository (its index stays in it).
pub fn remove(alias: &str) -> Result<ReposResponse, Error> {
    Registry::update(|repos| {
        let before = repos.len();
        repos.retain(|r| r.alias != alias);
        if repos.len() == before {
            return Err(Error::new(
                ErrorCode::RepoNotRegistered,
                format!("no registered repository is named `{alias}`"),
            )
            .with_remedy("`git codecompass repos list` shows the aliases"));
        }
        Ok(())
    })?;
    Ok(listed(&Registry::load()?, Some("removed"), Some(alias.to_owned())))
}

/// One repository's part of `repos sync`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct SyncedRepo {
    /// Its alias.
    pub repo: String,
    /// Its path.
    pub path: String,
    /// `ok` or `error`.
    pub status: &'static str,
    /// The views brought up to date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexResponse>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

/// The answer of `repos sync`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ReposSyncResponse {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// Each repository synced, by alias.
    pub repos: Vec<SyncedRepo>,
    /// `complete`, or `partial` when some repository failed.
    pub result_completeness: &'static str,
}

/// `repos sync`: brings up to date what each selected repository's sync covers (HEAD, the
/// worktree, the default branch, `codecompass.refs`) and its registered refs, one repository
/// after another; one that fails is reported and the others still sync.
pub fn sync(patterns: &[String]) -> Result<ReposSyncResponse, Error> {
    let registry = Registry::load()?;
    let chosen = if patterns.is_empty() { registry.repos.clone() } else { registry.select(patterns)? };
    let mut repos = Vec::new();
    for entry in chosen {
        crate::progress::note(&format!("syncing {} ({})", entry.alias, entry.path));
        let result = entry.open().and_then(|engine| {
            let mut scopes = engine.sync_scopes();
            for r in &entry.refs {
                let scope = Scope::Ref(r.clone());
                if !scopes.contains(&scope) {
                    scopes.push(scope);
                }
            }
            engine.index(&scopes, IndexOptions::default())
        });
        repos.push(match result {
            Ok(index) => {
                SyncedRepo { repo: entry.alias, path: entry.path, status: "ok", index: Some(index), error: None }
            }
            Err(e) => SyncedRepo { repo: entry.alias, path: entry.path, status: "error", index: None, error: Some(e) },
        });
    }
    let failed = repos.iter().any(|r| r.error.is_some());
    Ok(ReposSyncResponse {
        codecompass_protocol_version: PROTOCOL_VERSION,
        repos,
        result_completeness: if failed { "partial" } else { "complete" },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_plain_names_and_defaults_are_made_from_directory_names() {
        assert!(valid_alias("svc-a"));
        assert!(valid_alias("lib_2.x"));
        assert!(!valid_alias("svc-*"));
        assert!(!valid_alias("a/b"));
        assert!(!valid_alias(""));
        assert!(!valid_alias("-x"));
        assert_eq!(default_alias(Path::new("/src/my repo")), "my-repo");
        assert_eq!(default_alias(Path::new("/src/.hidden")), "hidden");
        assert_eq!(default_alias(Path::new("/")), "repo");
    }

    #[test]
    fn patterns_select_by_alias_or_glob_each_once() {
        let entry =
            |alias: &str| RepoEntry { alias: alias.into(), path: format!("/r/{alias}"), refs: vec![], added_at: 0 };
        let registry =
            Registry { path: PathBuf::from("/x"), repos: vec![entry("api"), entry("svc-a"), entry("svc-b")] };
        let aliases = |patterns: &[&str]| -> Vec<String> {
            let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
            registry.select(&patterns).unwrap().into_iter().map(|e| e.alias).collect()
        };
        assert_eq!(aliases(&["svc-*"]), ["svc-a", "svc-b"]);
        assert_eq!(aliases(&["*"]), ["api", "svc-a", "svc-b"]);
        assert_eq!(aliases(&["svc-b", "api", "svc-*"]), ["api", "svc-a", "svc-b"]);
        let missing = registry.select(&["web".to_owned()]).unwrap_err();
        assert_eq!(missing.code, ErrorCode::RepoNotRegistered);
        assert!(missing.remedy.unwrap().contains("api, svc-a, svc-b"));
    }

    #[test]
    fn a_registered_repositorys_store_is_found_where_opening_it_would_put_it() {
        let tmp = tempfile::tempdir().unwrap();
        use crate::git::tests::git;
        let main = tmp.path().join("main");
        std::fs::create_dir(&main).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        std::fs::write(main.join("a.txt"), "a\n").unwrap();
        git(&main, &["add", "a.txt"]);
        git(&main, &["commit", "-qm", "a"]);
        // A linked worktree (a `gitdir:` file and a `commondir`), a repository whose git
        // directory is elsewhere (a `gitdir:` file alone), a bare repository.
        git(&main, &["worktree", "add", "-q", "../linked"]);
        git(tmp.path(), &["init", "-q", "--separate-git-dir", "elsewhere.git", "separate"]);
        git(tmp.path(), &["init", "-q", "--bare", "bare.git"]);
        for name in ["main", "linked", "separate", "bare.git"] {
            let root = std::fs::canonicalize(tmp.path().join(name)).unwrap();
            let opened = Engine::open(&root, &EngineOptions::default()).unwrap();
            let found = default_store_of(&root).unwrap();
            assert_eq!(canonical_store(&found), canonical_store(opened.workspace().store_dir()), "{name}");
        }
        assert_eq!(
            canonical_store(&default_store_of(&tmp.path().join("linked")).unwrap()),
            canonical_store(&main.join(".git").join("codecompass")),
            "a linked worktree shares its repository's store"
        );
        assert_eq!(default_store_of(tmp.path()), None, "not a repository");
    }
}
