//! Many repositories: `repos add|list|remove|sync`, and `--repo` on `search`, `locate` and
//! `references`, which ask registered repositories instead of the current one.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use super::output::Out;
use crate::engine::across::{self, AcrossResponse, Aggregate, Tagged};
use crate::engine::registry::{self, ReposResponse, ReposSyncResponse};
use crate::engine::{Error, LocateResult, Reference};
use crate::error::ErrorCode;
use crate::indexer::IndexOptions;
use crate::query::SearchResult;
use crate::view::Scope;

#[derive(Debug, Subcommand)]
pub(super) enum ReposCommand {
    /// Register the repository containing PATH (and index its working tree).
    Add {
        /// A directory of the repository.
        path: PathBuf,
        /// The name queries use (`--repo NAME`); the directory's name by default.
        #[arg(long, value_name = "NAME")]
        alias: Option<String>,
        /// A ref `repos sync` keeps fresh besides HEAD and the default branch (repeatable).
        #[arg(long = "ref", value_name = "REF")]
        refs: Vec<String>,
        /// Register only; index on the first query or `repos sync`.
        #[arg(long)]
        no_index: bool,
    },
    /// The registered repositories, each with whether it is still where it was registered.
    List,
    /// Forget a repository (its index stays in it).
    Remove {
        /// Its alias.
        alias: String,
    },
    /// Bring registered repositories up to date (all, or those the aliases or globs name).
    Sync {
        /// Aliases or globs of aliases.
        patterns: Vec<String>,
    },
}

/// The flags that turn a query into one across registered repositories.
#[derive(Debug, Args)]
pub(super) struct AcrossArgs {
    /// Ask these registered repositories instead of the current one: an alias or a glob of
    /// aliases (`svc-*`, `*` for all); repeatable. `--ref ALIAS=REF` puts one at a ref.
    #[arg(long = "repo", value_name = "ALIAS_OR_GLOB")]
    pub(super) repos: Vec<String>,
    /// With `--repo`: one ranking over all repositories, or each one's best with the limit
    /// shared between them.
    #[arg(long, value_enum, default_value_t = AggregateArg::Global, requires = "repos")]
    aggregate: AggregateArg,
    /// With `--repo`: results grouped under their repository.
    #[arg(long, value_enum, requires = "repos", value_name = "BY")]
    group_by: Option<GroupBy>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum AggregateArg {
    Global,
    PerRepo,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GroupBy {
    Repo,
}

impl AcrossArgs {
    /// Whether the query asks other repositories.
    pub(super) fn active(&self) -> bool {
        !self.repos.is_empty()
    }

    fn aggregate(&self) -> Aggregate {
        match self.aggregate {
            AggregateArg::Global => Aggregate::Global,
            AggregateArg::PerRepo => Aggregate::PerRepo,
        }
    }

    fn targets(&self, refs: &[String]) -> Result<Vec<across::Target>, Error> {
        across::targets(&self.repos, refs)
    }
}

/// The one `--ref` of a query that asks one repository.
pub(super) fn one_ref(refs: &[String]) -> Result<Scope, Error> {
    match refs {
        [] => Ok(Scope::Worktree),
        [one] => Ok(Scope::Ref(one.clone())),
        _ => Err(Error::new(ErrorCode::InvalidArgument, format!("`--ref` was given {} times", refs.len()))
            .with_remedy("give one ref; several (`--ref ALIAS=REF`) are for queries with `--repo`")),
    }
}

/// Runs a `repos` command.
pub(super) fn repos(command: &ReposCommand, out: &Out) -> Result<bool, Error> {
    match command {
        ReposCommand::Add { path, alias, refs, no_index } => {
            let (mut response, engine) = registry::add(path, alias.as_deref(), refs)?;
            if !*no_index {
                let mut scopes = vec![Scope::Worktree];
                scopes.extend(refs.iter().map(|r| Scope::Ref(r.clone())));
                response.index = Some(engine.index(&scopes, IndexOptions::default())?);
            }
            listed(out, &response);
            Ok(true)
        }
        ReposCommand::List => {
            let response = registry::list()?;
            listed(out, &response);
            Ok(true)
        }
        ReposCommand::Remove { alias } => {
            listed(out, &registry::remove(alias)?);
            Ok(true)
        }
        ReposCommand::Sync { patterns } => {
            let response = registry::sync(patterns)?;
            synced(out, &response);
            Ok(response.result_completeness == "complete")
        }
    }
}

fn listed(out: &Out, response: &ReposResponse) {
    if out.is_json() {
        return out.json(response);
    }
    let mut text = String::new();
    if let (Some(action), Some(alias)) = (response.action, &response.alias) {
        text.push_str(&format!("{action} {alias}"));
        if let Some(index) = &response.index {
            let total = &index.total;
            text.push_str(&format!(
                ": indexed in {} ms, {} blobs parsed, {} taken from other registered repositories",
                total.duration_ms, total.blobs_parsed, total.blobs_shared
            ));
        }
        text.push('\n');
    }
    let width = response.repos.iter().map(|r| r.entry.alias.len()).max().unwrap_or(0);
    for repo in &response.repos {
        let state = match repo.state {
            registry::RepoState::Ok => String::new(),
            registry::RepoState::Missing => format!("  {}", out.paint("31", "(missing: moved or deleted)")),
            registry::RepoState::NotARepository => format!("  {}", out.paint("31", "(no git repository any more)")),
        };
        let refs =
            if repo.entry.refs.is_empty() { String::new() } else { format!("  [{}]", repo.entry.refs.join(", ")) };
        text.push_str(&format!("{:width$}  {}{refs}{state}\n", repo.entry.alias, repo.entry.path));
    }
    if response.repos.is_empty() && response.action.is_none() {
        let _ = writeln!(
            std::io::stderr().lock(),
            "no repository is registered (in {}); add one with `git codecompass repos add PATH`",
            response.registry
        );
    }
    out.text(&text);
}

fn synced(out: &Out, response: &ReposSyncResponse) {
    if out.is_json() {
        return out.json(response);
    }
    let mut text = String::new();
    for repo in &response.repos {
        match (&repo.index, &repo.error) {
            (Some(index), _) => text.push_str(&format!(
                "{}: {} views, {} blobs parsed, {} ms\n",
                repo.repo,
                index.views.len(),
                index.total.blobs_parsed,
                index.total.duration_ms
            )),
            (None, Some(error)) => text.push_str(&format!("{}: {}\n", repo.repo, out.paint("31", &error.to_string()))),
            (None, None) => {}
        }
    }
    out.text(&text);
}

/// `search --repo`.
pub(super) fn search(
    args: &AcrossArgs,
    refs: &[String],
    request: &crate::query::SearchRequest,
    out: &Out,
) -> Result<bool, Error> {
    let response = across::search(&args.targets(refs)?, request, args.aggregate())?;
    render(out, args, response, |out, r: &SearchResult| {
        let mut text = String::new();
        if r.kind == "line" {
            for hit in &r.lines {
                text.push_str(&format!("{}:{}\n", out.paint("32", &hit.line.to_string()), hit.text));
            }
            return text;
        }
        let name = r.qualified_name.as_deref().or(r.name.as_deref()).unwrap_or_default();
        text.push_str(&format!("{}: {} {}", out.paint("32", &r.line_start.to_string()), r.kind, out.paint("1", name)));
        if let Some(signature) = &r.signature {
            text.push_str(&format!("  {signature}"));
        }
        text.push('\n');
        for hit in &r.lines {
            text.push_str(&format!("  {}: {}\n", out.paint("32", &hit.line.to_string()), hit.text.trim()));
        }
        text
    })
}

/// `locate --repo`.
pub(super) fn locate(
    args: &AcrossArgs,
    refs: &[String],
    request: &crate::engine::LocateRequest,
    out: &Out,
) -> Result<bool, Error> {
    let response = across::locate(&args.targets(refs)?, request, args.aggregate())?;
    render(out, args, response, |out, r: &LocateResult| {
        let decl = if r.role == "declaration" { " (declaration)" } else { "" };
        format!(
            "{}: {} {}{decl}  {}\n",
            out.paint("32", &r.line.to_string()),
            r.kind,
            out.paint("1", &r.qualified_name),
            r.signature
        )
    })
}

/// `references --repo`.
pub(super) fn references(
    args: &AcrossArgs,
    refs: &[String],
    request: &crate::engine::GraphRequest,
    out: &Out,
) -> Result<bool, Error> {
    let response = across::references(&args.targets(refs)?, request, args.aggregate())?;
    render(out, args, response, |out, r: &Reference| {
        format!("{}: {} ({})\n", out.paint("32", &r.line.to_string()), r.text.trim(), r.confidence)
    })
}

/// `xray --repo`.
pub(super) fn xray(
    args: &AcrossArgs,
    refs: &[String],
    request: &crate::xray::XrayRequest,
    filters: &crate::query::Filters,
    out: &Out,
) -> Result<bool, Error> {
    let response = across::xray(&args.targets(refs)?, request, filters, args.aggregate())?;
    render(out, args, response, |out, r: &crate::xray::XrayMatch| {
        let text = r.text.lines().next().unwrap_or_default().trim();
        format!("{}:{}: {text}\n", out.paint("32", &r.line_start.to_string()), r.column)
    })
}

/// `context --repo`.
pub(super) fn context(
    args: &AcrossArgs,
    refs: &[String],
    request: &crate::query::SearchRequest,
    strategy: crate::engine::Strategy,
    out: &Out,
) -> Result<bool, Error> {
    let response = across::context(&args.targets(refs)?, request, strategy, args.aggregate())?;
    let spent = response.estimated_tokens.unwrap_or(0);
    let found = render(out, args, response, |out, r: &SearchResult| {
        let name = r.qualified_name.as_deref().or(r.name.as_deref()).unwrap_or_default();
        let mut text = format!("{}: {} {}\n", out.paint("32", &r.line_start.to_string()), r.kind, out.paint("1", name));
        if let Some(preview) = &r.preview {
            for line in preview.lines() {
                text.push_str(&format!("  | {line}\n"));
            }
        }
        text
    })?;
    if !out.is_json() {
        let _ = writeln!(std::io::stderr().lock(), "~{spent} of {} tokens", request.max_tokens.unwrap_or(0));
    }
    Ok(found)
}

/// Something with a path, as every result is.
trait Located {
    fn path(&self) -> &str;
}

impl Located for SearchResult {
    fn path(&self) -> &str {
        &self.path
    }
}

impl Located for LocateResult {
    fn path(&self) -> &str {
        &self.path
    }
}

impl Located for crate::xray::XrayMatch {
    fn path(&self) -> &str {
        &self.path
    }
}

impl Located for Reference {
    fn path(&self) -> &str {
        &self.path
    }
}

/// Prints an answer across repositories: JSON, or one line per result (`repo:path:` then what
/// `line` renders), or under a heading per repository with `--group-by repo`. Repositories
/// that failed are named on stderr. `Ok(false)` when nothing was found.
fn render<R: Serialize + Located>(
    out: &Out,
    args: &AcrossArgs,
    mut response: AcrossResponse<R>,
    line: impl Fn(&Out, &R) -> String,
) -> Result<bool, Error> {
    let more = if response.max_tokens.is_some() {
        "(more results: raise --max-tokens, or --aggregate per-repo for each repository's best)"
    } else {
        "(more results: raise --limit, or --aggregate per-repo for each repository's best)"
    };
    let grouped = args.group_by == Some(GroupBy::Repo);
    if grouped {
        // Stable: each repository's results keep their order.
        response.results.sort_by(|a, b| a.repo.cmp(&b.repo));
    }
    let found = !response.results.is_empty();
    if out.is_json() {
        out.json(&response);
        return Ok(found);
    }
    let mut text = String::new();
    let mut current: Option<&str> = None;
    for Tagged { repo, result } in &response.results {
        if grouped {
            if current != Some(repo.as_str()) {
                let path = response.repos.iter().find(|r| r.repo == *repo).map_or("", |r| r.path.as_str());
                text.push_str(&format!("{} ({path})\n", out.paint("1;36", repo)));
                current = Some(repo);
            }
            text.push_str(&format!("{}:{}", out.path(result.path()), line(out, result)));
        } else {
            text.push_str(&format!("{}:{}:{}", out.paint("36", repo), out.path(result.path()), line(out, result)));
        }
    }
    out.text(&text);
    let mut stderr = std::io::stderr().lock();
    for failed in response.repos.iter().filter(|r| r.error.is_some()) {
        if let Some(error) = &failed.error {
            let _ = writeln!(stderr, "warning: {}: {error}", failed.repo);
        }
    }
    // With `--quiet`, only what the answer lacks (the warnings above) is said.
    if !crate::progress::is_quiet() {
        if !found {
            let _ = writeln!(stderr, "nothing matched in {} repositories", response.repos.len());
        } else if response.truncated {
            let _ = writeln!(stderr, "{more}");
        }
    }
    Ok(found)
}
