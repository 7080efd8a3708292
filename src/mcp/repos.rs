//! Serving the registry of repositories (`mcp --all-repos`, `mcp --repo PATTERN`): which
//! repositories a request may name with `repo`, what each HTTP token may see
//! (`--auth-token-file`), `list_repos`, and the three tools that answer across several
//! repositories at once (`search_code`, `locate_symbol`, `find_references`).
//!
//! The served repositories are read from the registry when the server starts; each is also a
//! workspace of the server, so a request naming one alias is an ordinary request to it. A
//! token's scope is checked before anything is opened: a request for a repository outside it
//! is refused with nothing read.

use std::path::{Path, PathBuf};

use rmcp::model::JsonObject;
use serde::Serialize;
use serde_json::Value;

use super::tools::{AggregateParam, Common, LocateParams, SearchParams, json_of, parse};
use crate::engine::across::{self, Aggregate};
use crate::engine::registry::{ListedRepo, Registry, RepoEntry};
use crate::engine::{Error, Freshness, PROTOCOL_VERSION};
use crate::error::ErrorCode;

/// The registered repositories a server serves, read at start.
#[derive(Clone, Debug)]
pub struct Served {
    registry: Registry,
}

impl Served {
    /// The registered repositories `patterns` name (`*` for all).
    pub fn load(patterns: &[String]) -> Result<Served, Error> {
        let registry = Registry::load()?;
        let repos = registry.select(patterns)?;
        Ok(Served { registry: Registry { path: registry.path, repos } })
    }

    /// Whether `token` may see the served repository whose root is `root`.
    pub fn allows_root(&self, token: &TokenScope, root: &Path) -> bool {
        self.registry.repos.iter().any(|r| Path::new(&r.path) == root && token.allows(&r.alias))
    }

    /// Their roots, for the server's workspaces: those still there.
    pub fn roots(&self) -> Vec<PathBuf> {
        self.registry
            .repos
            .iter()
            .filter(|r| r.state() == crate::engine::registry::RepoState::Ok)
            .map(|r| PathBuf::from(&r.path))
            .collect()
    }
}

/// The repositories one HTTP token may ask: aliases or globs of them.
#[derive(Clone, Debug)]
pub struct TokenScope(Vec<globset::GlobMatcher>);

impl TokenScope {
    fn allows(&self, alias: &str) -> bool {
        self.0.iter().any(|m| m.is_match(alias))
    }
}

/// The tokens of `--auth-token-file`, each with its scope.
#[derive(Clone, Debug, Default)]
pub struct Tokens(Vec<(String, TokenScope)>);

impl Tokens {
    /// Reads a token file: one token per line, then the aliases or globs it may ask
    /// (`TOKEN svc-* api`); `#` starts a comment. A token with no pattern is refused: a scope
    /// must be said.
    pub fn read(path: &Path) -> anyhow::Result<Tokens> {
        use anyhow::Context;
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut tokens = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let Some(token) = words.next() else { continue };
            let patterns: Vec<&str> = words.collect();
            if patterns.is_empty() {
                anyhow::bail!(
                    "{}:{}: the token has no repository pattern (`TOKEN ALIAS_OR_GLOB...`; `*` for all)",
                    path.display(),
                    number + 1
                );
            }
            let matchers = patterns
                .iter()
                .map(|p| globset::Glob::new(p).map(|g| g.compile_matcher()))
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("{}:{}", path.display(), number + 1))?;
            tokens.push((token.to_owned(), TokenScope(matchers)));
        }
        if tokens.is_empty() {
            anyhow::bail!("{} holds no token", path.display());
        }
        Ok(Tokens(tokens))
    }

    /// The scope of the token presented, compared without early exit.
    pub fn scope_of(&self, presented: &str) -> Option<TokenScope> {
        let mut found = None;
        for (token, scope) in &self.0 {
            if super::http::same_secret(presented, token) {
                found = Some(scope.clone());
            }
        }
        found
    }
}

/// Where a request goes.
pub enum Route {
    /// The workspace it names (or the default one), as without a registry.
    Workspace(Option<String>),
    /// One served repository.
    One(RepoEntry),
    /// Several served repositories.
    Many(Vec<RepoEntry>),
}

fn refused(what: &str) -> Error {
    Error::new(ErrorCode::WorkspaceNotAllowed, format!("{what} is outside this token's scope"))
        .with_remedy("ask with `repo` for a repository the token may see (`list_repos` names them)")
}

/// Routes a request by its `repo` and `workspace`, within what the server serves and the
/// token may see. `default` is the server's default workspace.
pub fn route(
    served: Option<&Served>,
    token: Option<&TokenScope>,
    common: &Common,
    default: Option<&Path>,
) -> Result<Route, Error> {
    let Some(pattern) = common.repo.as_deref().filter(|r| !r.trim().is_empty()) else {
        let Some(token) = token else {
            return Ok(Route::Workspace(common.workspace.clone()));
        };
        // A scoped token names its repositories: a workspace path (or the default one) must
        // be one of them.
        let served = served.ok_or_else(|| refused("this workspace"))?;
        let path = match common.workspace.as_deref().filter(|w| !w.trim().is_empty()) {
            Some(w) => std::fs::canonicalize(w).map_err(|_| refused(&format!("workspace `{w}`")))?,
            None => default.map(Path::to_owned).ok_or_else(|| refused("the default workspace"))?,
        };
        return served
            .registry
            .repos
            .iter()
            .find(|r| path.starts_with(&r.path) && token.allows(&r.alias))
            .map(|r| Route::One(r.clone()))
            .ok_or_else(|| refused(&format!("workspace `{}`", path.display())));
    };
    let served = served.ok_or_else(|| {
        Error::new(ErrorCode::RepoNotRegistered, "this server serves no registry of repositories")
            .with_remedy("start it with `git codecompass mcp --all-repos` (or `--repo PATTERN`), or pass `workspace`")
    })?;
    let mut chosen = served.registry.select(&[pattern.to_owned()])?;
    if let Some(token) = token {
        let glob = pattern.contains(['*', '?', '[', '{']);
        if !glob && chosen.iter().any(|r| !token.allows(&r.alias)) {
            return Err(refused(&format!("repository `{pattern}`")));
        }
        chosen.retain(|r| token.allows(&r.alias));
        if chosen.is_empty() {
            return Err(refused(&format!("every repository `{pattern}` names")));
        }
    }
    Ok(if chosen.len() == 1 { Route::One(chosen.remove(0)) } else { Route::Many(chosen) })
}

/// The answer of `list_repos`.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ListReposAnswer {
    /// Protocol version.
    pub codecompass_protocol_version: &'static str,
    /// The repositories this server serves (that the token may see), by alias, each with
    /// whether it is still where it was registered.
    pub repos: Vec<ListedRepo>,
}

/// `list_repos`.
pub fn list(served: Option<&Served>, token: Option<&TokenScope>) -> ListReposAnswer {
    let repos = served
        .map(|s| s.registry.repos.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|r| token.is_none_or(|t| t.allows(&r.alias)))
        .map(|r| ListedRepo { entry: r.clone(), state: r.state() })
        .collect();
    ListReposAnswer { codecompass_protocol_version: PROTOCOL_VERSION, repos }
}

/// The tools that answer across several repositories.
pub const ACROSS_TOOLS: &[&str] = &["search_code", "locate_symbol", "find_references"];

/// Runs `name` across `entries` (of `served`). `Err(String)` for arguments that do not parse.
pub fn run_across(
    name: &str,
    args: Option<&JsonObject>,
    served: &Served,
    workspaces: &super::workspaces::Registry,
    entries: Vec<RepoEntry>,
) -> Result<Result<Value, Error>, String> {
    let common: super::tools::CommonParams = parse(args)?;
    let common = common.common;
    if !ACROSS_TOOLS.contains(&name) {
        return Ok(Err(Error::new(
            ErrorCode::InvalidArgument,
            format!("`repo` names {} repositories; `{name}` answers for one", entries.len()),
        )
        .with_remedy(format!("name one alias, or use {}", ACROSS_TOOLS.join(", ")))));
    }
    let refs: Vec<String> = common.reference.iter().filter(|r| !r.is_empty()).cloned().collect();
    let mut targets = match across::targets_of(&served.registry, entries, &refs) {
        Ok(targets) => targets,
        Err(e) => return Ok(Err(e)),
    };
    // The server's open workspaces answer (their full-text readers stay open between calls).
    for target in &mut targets {
        target.engine = workspaces.get(Some(&target.entry.path)).ok().map(|ws| ws.engine.clone());
    }
    let aggregate = match common.aggregate {
        Some(AggregateParam::PerRepo) => Aggregate::PerRepo,
        Some(AggregateParam::Global) | None => Aggregate::Global,
    };
    Ok(match name {
        "search_code" => {
            let p: SearchParams = parse(args)?;
            across::search(&targets, &super::tools::search_request(&p), aggregate).map(|r| json_of(&r))
        }
        "locate_symbol" => {
            let p: LocateParams = parse(args)?;
            let request = super::tools::locate_request(&p, Freshness::Strict);
            across::locate(&targets, &request, aggregate).map(|r| json_of(&r))
        }
        _ => {
            let p: super::graph_tools::ReferencesParams = parse(args)?;
            let request = super::graph_tools::references_request(&p, Freshness::Strict);
            across::references(&targets, &request, aggregate).map(|r| json_of(&r))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_names_each_tokens_repositories() {
        let dir = std::env::temp_dir().join(format!("cc-tokens-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tokens");
        std::fs::write(&file, "# agents\nabc svc-* api\nxyz *   # all\n").unwrap();
        let tokens = Tokens::read(&file).unwrap();
        let scope = tokens.scope_of("abc").unwrap();
        assert!(scope.allows("svc-a") && scope.allows("api") && !scope.allows("web"));
        assert!(tokens.scope_of("xyz").unwrap().allows("web"));
        assert!(tokens.scope_of("ab").is_none() && tokens.scope_of("abcd").is_none());
        std::fs::write(&file, "lonely\n").unwrap();
        assert!(Tokens::read(&file).unwrap_err().to_string().contains("no repository pattern"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
