//! The command line: parses arguments, calls the engine, renders its answers.
//!
//! Architecture invariant: no logic beyond argument handling and rendering lives here; what
//! the command line can answer, the MCP server answers the same way through the engine.

mod across;
mod commands;
mod docs;
mod graph;
mod grep;
mod history;
mod live;
mod output;
mod search_args;
mod xray;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, FromArgMatches, Parser};

use crate::engine::{Engine, EngineOptions, Error, Freshness, LocateRequest, OutlineRequest, Strategy};
use crate::indexer::IndexOptions;
use crate::query::{Detail, SearchRequest};
use crate::view::Scope;
use crate::view::live::LiveOptIn;
use commands::{Command, Depth, HooksAction, SnapshotAction, TransportArg};
use grep::from_directory;
use live::{confirmed, live_opt_in};
use output::Out;
use search_args::{DetailArg, SearchArgs, StrategyArg, search_request};

/// Git-native code search and code navigation.
#[derive(Debug, Parser)]
#[command(name = "git-codecompass", bin_name = "git codecompass", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Args)]
struct GlobalArgs {
    /// Print one JSON document instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Run as if started in DIR (`git -C DIR codecompass ...` does the same).
    #[arg(long = "dir", value_name = "DIR", global = true)]
    workspace: Option<PathBuf>,
    /// Keep the index in DIR instead of `<git common dir>/codecompass`.
    #[arg(long, value_name = "DIR", global = true)]
    store: Option<PathBuf>,
    /// No progress, hints or summaries ("nothing matched") on stderr: errors, and the notes an
    /// answer must be read with (partial, stale, answered another way), are still printed.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// When to colour the output (`NO_COLOR` turns colour off, never the layout).
    #[arg(long, value_enum, default_value_t = output::ColorChoice::Auto, global = true, value_name = "WHEN")]
    color: output::ColorChoice,
    /// Answer yes to the question asked before indexing a large directory that is not a
    /// repository.
    #[arg(long, global = true)]
    yes: bool,
}

/// Runs the command line and returns the process exit code: 0 found, 1 nothing found,
/// 2 error.
pub fn main() -> ExitCode {
    let cli = match Cli::from_arg_matches(&docs::command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    crate::progress::set_quiet(cli.global.quiet);
    if !matches!(cli.command, Command::Mcp { .. } | Command::Watch { .. }) {
        crate::engine::across::set_one_shot();
    }
    let heading = match &cli.command {
        Command::Search { grep, .. } if grep.no_heading => Some(false),
        Command::Search { grep, .. } if grep.heading => Some(true),
        _ => None,
    };
    let mut out = Out::new(cli.global.json, cli.global.color, heading);
    let code = match run(&cli, &mut out) {
        Ok(found) => {
            if found {
                0
            } else {
                1
            }
        }
        Err(e) => {
            out.error(&e);
            2
        }
    };
    ExitCode::from(code)
}

/// A query with `--repo` asks registered repositories, not the one it stands in (which need
/// not be one); `None` for every other command.
fn run_across(cli: &Cli, out: &Out) -> Option<Result<bool, Error>> {
    match &cli.command {
        Command::Repos { action } => Some(across::repos(action, out)),
        Command::Search { search, across: args, jsonl, .. } if args.active() => Some(if *jsonl {
            Err(Error::new(crate::error::ErrorCode::InvalidArgument, "`--jsonl` is not available with `--repo`")
                .with_remedy("use `--json`"))
        } else {
            search_request(&cli.command, "").and_then(|request| across::search(args, &search.reference, &request, out))
        }),
        Command::Locate { name, kind, lang, reference, limit, across: args } if args.active() => {
            let request = LocateRequest {
                name: name.clone(),
                kind: kind.clone(),
                lang: lang.clone(),
                scope: Scope::Worktree,
                limit: *limit,
                freshness: Freshness::Strict,
            };
            Some(across::locate(args, reference, &request, out))
        }
        Command::Context { query, max_tokens, strategy, search, across: args } if args.active() => {
            let (request, strategy) = context_request(query, *max_tokens, *strategy, search);
            Some(across::context(args, &search.reference, &request, strategy, out))
        }
        Command::Graph(command) => graph::run_across(command, out),
        Command::Xray(args) => xray::run_across(args, Path::new("."), out),
        _ => None,
    }
}

/// The request and strategy of a `context` command.
fn context_request(
    query: &str,
    max_tokens: usize,
    strategy: StrategyArg,
    search: &SearchArgs,
) -> (SearchRequest, Strategy) {
    let mut request = search.request(query);
    request.max_tokens = Some(max_tokens);
    let strategy = match strategy {
        StrategyArg::Breadth => Strategy::Breadth,
        StrategyArg::Depth => Strategy::Depth,
    };
    (request, strategy)
}

fn run(cli: &Cli, out: &mut Out) -> Result<bool, Error> {
    if let Some(answer) = run_across(cli, out) {
        return answer;
    }
    match &cli.command {
        Command::Mcp { .. } => return run_mcp(cli, out),
        Command::Completions { shell } => {
            use std::io::Write;
            let _ = std::io::stdout().lock().write_all(&docs::completions(*shell));
            return Ok(true);
        }
        Command::InstallMan { dir } => {
            let dir = dir.clone().or_else(docs::default_man_dir).ok_or_else(|| {
                Error::new(crate::error::ErrorCode::InvalidArgument, "cannot tell where the binary is installed")
                    .with_remedy("give the man directory with --man-dir DIR")
            })?;
            let written = docs::install_man(&dir).map_err(|e| {
                Error::new(crate::error::ErrorCode::Io, format!("cannot write man pages into {}: {e}", dir.display()))
                    .with_remedy("give a writable man directory with --man-dir DIR")
            })?;
            out.man_installed(&dir, &written);
            return Ok(true);
        }
        Command::Gc { live: true, remove, .. } => {
            let remove = remove.as_ref().map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()));
            let mut kept = Vec::new();
            let mut removed = Vec::new();
            for index in crate::view::live::list() {
                let named = remove.as_ref().is_some_and(|d| Path::new(&index.directory) == d);
                if !index.directory_exists || named {
                    std::fs::remove_dir_all(&index.store).map_err(|e| {
                        Error::new(crate::error::ErrorCode::Io, format!("cannot delete {}: {e}", index.store))
                    })?;
                    removed.push(index);
                } else {
                    kept.push(index);
                }
            }
            out.live_indexes(&kept, &removed);
            return Ok(true);
        }
        _ => {}
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Error::new(crate::error::ErrorCode::Io, format!("cannot read the current directory: {e}")))?;
    let base = match &cli.global.workspace {
        Some(dir) => cwd.join(dir),
        None => cwd.clone(),
    };
    let options = EngineOptions { store_dir: cli.global.store.as_ref().map(|s| cwd.join(s)), live: live_opt_in(cli) };
    let engine = match Engine::open(&base, &options) {
        // A large plain directory: asked on a terminal, refused with the remedy otherwise.
        Err(e) if e.code == crate::error::ErrorCode::ConfirmationRequired && confirmed(&e.message) => {
            Engine::open(&base, &EngineOptions { live: LiveOptIn { yes: true, ..options.live }, ..options })?
        }
        other => other?,
    };
    out.follow_git_colors(&|key| engine.workspace().git().and_then(|g| g.local().config_string(key)));
    match &cli.command {
        Command::Index { refs, history: true, since, max_count, .. } => {
            let since = match since {
                None => None,
                Some(s) => Some(crate::git::parse_date(s).ok_or_else(|| {
                    Error::new(crate::error::ErrorCode::InvalidArgument, crate::git::unread_date("--since", s))
                })?),
            };
            let response = engine
                .index_history(refs, crate::indexer::HistoryOptions { max_count: *max_count, since, deepen: true })?;
            if out.is_json() {
                out.json(&response);
            } else {
                let r = &response.report;
                eprintln!(
                    "history: {} commits added ({} in all), {} changed files, {} blobs parsed in {} ms{}",
                    r.commits_added,
                    r.commits_total,
                    r.files_changed,
                    r.blobs_parsed,
                    r.duration_ms,
                    if r.cut { "; stopped at --since/--max-count" } else { "" }
                );
            }
            Ok(true)
        }
        Command::Index { refs, force, .. } => {
            let scopes: Vec<Scope> = if refs.is_empty() {
                vec![Scope::Worktree]
            } else {
                refs.iter().map(|r| Scope::Ref(r.clone())).collect()
            };
            let response = engine.index(&scopes, IndexOptions { force: *force, reparse: *force })?;
            out.index(&response);
            Ok(true)
        }
        Command::Search { search, grep, jsonl, .. } => {
            let prefix = engine.relative_path(&base, ".").unwrap_or_default();
            let request = search_request(&cli.command, &prefix)?;
            let scope = across::one_ref(&search.reference)?;
            let freshness = Freshness::configured(engine.workspace(), Freshness::Strict);
            let text = !*jsonl && !cli.global.json;
            // Text names paths from the current directory, as `git grep` does.
            let shown = |path: &str| {
                if grep.full_name || prefix.is_empty() { path.to_owned() } else { from_directory(path, &prefix) }
            };
            let context = grep.context.or(grep.after_context).or(grep.before_context).is_some_and(|n| n > 0);
            let mut printer = output::LinePrinter::new(!grep.no_filename, context, grep.files_with_matches, grep.count);
            let mut response = if !grep.files_without_match {
                // Exact lines are printed as each file is verified (as text, as JSON lines with
                // the summary last, or in the JSON document's `results` array with its other
                // fields after it): memory stays bounded however many lines match.
                let out_ref: &Out = out;
                let mut sink = |mut results: Vec<crate::query::SearchResult>| {
                    if *jsonl {
                        return out_ref.jsonl_results(&results);
                    }
                    if !text {
                        return out_ref.json_results(&results);
                    }
                    for result in &mut results {
                        result.path = shown(&result.path);
                    }
                    let refs: Vec<&crate::query::SearchResult> = results.iter().collect();
                    out_ref.write_now(&printer.file(out_ref, &refs));
                };
                engine.search_streaming(&request, &scope, freshness, &mut sink)?
            } else {
                engine.search(&request, &scope, freshness)?
            };
            let found = response.output.found();
            if *jsonl {
                out.search_jsonl(&response);
            } else if cli.global.json {
                out.search_json_end(&response);
            } else if response.output.streamed {
                out.streamed(&response);
            } else {
                for result in &mut response.output.results {
                    result.path = shown(&result.path);
                }
                if grep.files_with_matches || grep.files_without_match || grep.count {
                    out.file_list(&response, grep.count);
                } else {
                    out.search_lines(&response, !grep.no_filename, context);
                }
            }
            Ok(found)
        }
        Command::Context { query, max_tokens, strategy, search, .. } => {
            let (request, strategy) = context_request(query, *max_tokens, *strategy, search);
            let scope = across::one_ref(&search.reference)?;
            let response = engine.context(
                &request,
                strategy,
                &scope,
                Freshness::configured(engine.workspace(), Freshness::Strict),
            )?;
            out.context(&response);
            Ok(!response.results.is_empty())
        }
        Command::Locate { name, kind, lang, reference, limit, .. } => {
            let request = LocateRequest {
                name: name.clone(),
                kind: kind.clone(),
                lang: lang.clone(),
                scope: across::one_ref(reference)?,
                limit: *limit,
                freshness: Freshness::configured(engine.workspace(), Freshness::Strict),
            };
            let response = engine.locate(&request)?;
            out.locate(&response);
            Ok(!response.results.is_empty())
        }
        Command::Outline { path, depth, reference } => {
            let relative = engine.relative_path(&base, path)?;
            let request = OutlineRequest {
                path: relative,
                all: *depth == Depth::All,
                scope: Scope::from_option(reference.as_deref()),
                freshness: Freshness::configured(engine.workspace(), Freshness::Strict),
            };
            let response = engine.outline(&request)?;
            out.outline(&response);
            Ok(!response.symbols.is_empty())
        }
        Command::Graph(command) => graph::run(&engine, &base, command, out, cli.global.json),
        Command::Xray(args) => xray::run(&engine, &base, args, out),
        Command::Log(args) => {
            let prefix = engine.relative_path(&base, ".").unwrap_or_default();
            history::run(&engine, &prefix, args, out)
        }
        Command::History(args) => {
            let prefix = engine.relative_path(&base, ".").unwrap_or_default();
            history::run_history(&engine, &prefix, args, out)
        }
        Command::Jobs { action } => xray::jobs(&engine, action.as_ref(), out),
        Command::Status => {
            let response = engine.status()?;
            out.status(&response);
            Ok(true)
        }
        Command::Doctor { quick } => {
            let response = engine.doctor(*quick)?;
            out.doctor(&response);
            Ok(response.healthy)
        }
        Command::Snapshot { action } => match action {
            SnapshotAction::Export { output, refs } => {
                let report = engine.snapshot_export(&cwd.join(output), refs)?;
                out.snapshot_export(&report);
                Ok(true)
            }
            SnapshotAction::Import { file } => {
                let report = engine.snapshot_import(&cwd.join(file))?;
                out.snapshot_import(&report);
                Ok(true)
            }
            SnapshotAction::Inspect { file } => {
                let response = engine.snapshot_inspect(&cwd.join(file))?;
                out.snapshot_inspect(&response);
                Ok(true)
            }
        },
        Command::Sync { force, background, coalesce } => {
            if *background {
                let started = engine.spawn_background_sync();
                out.note_json(&serde_json::json!({ "background_sync_started": started }));
                return Ok(started);
            }
            if *coalesce {
                // A background sync (hooks, watchers, the balanced policy) yields the CPU to
                // the queries waiting for it: on few cores a query that runs beside the rest
                // of a sync would otherwise wait for its status walk and segment merges.
                #[cfg(unix)]
                // SAFETY: nice only changes this process's scheduling priority.
                unsafe {
                    libc::nice(10);
                }
                engine.coalesced_sync()?;
                return Ok(true);
            }
            let response = engine.sync(*force)?;
            out.index(&response);
            Ok(true)
        }
        Command::Refs => {
            let response = engine.refs()?;
            out.refs(&response);
            Ok(!response.refs.is_empty())
        }
        Command::Diff { reference, base, detail } => {
            let target = match reference {
                Some(r) => Scope::Ref(r.clone()),
                None if engine.workspace().has_worktree() => Scope::Worktree,
                None => Scope::Ref("HEAD".to_owned()),
            };
            let request = crate::engine::DiffRequest {
                target,
                base: base.clone(),
                detail: match detail {
                    DetailArg::Location => Detail::Location,
                    DetailArg::Signature => Detail::Signature,
                    DetailArg::Context => Detail::Context,
                },
            };
            let response = engine.diff(&request)?;
            out.diff(&response);
            Ok(!response.changed_files.is_empty())
        }
        Command::Gc { grace_days, .. } => {
            let report = engine.gc(*grace_days)?;
            out.gc(&report);
            Ok(true)
        }
        Command::Hooks { action } => {
            let repo = engine
                .workspace()
                .git()
                .ok_or_else(|| Error::new(crate::error::ErrorCode::NotARepository, "hooks need a git repository"))?;
            let report = match action {
                HooksAction::Install => crate::hooks::install(repo),
                HooksAction::Uninstall => crate::hooks::uninstall(repo),
                HooksAction::Status => crate::hooks::status(repo),
            }
            .map_err(|e| Error::new(crate::error::ErrorCode::Io, e.to_string()))?;
            out.hooks(&report);
            Ok(true)
        }
        Command::Mcp { .. } | Command::Completions { .. } | Command::InstallMan { .. } | Command::Repos { .. } => {
            unreachable!("handled before opening an engine")
        }
        Command::Watch { background, status, stop, idle_exit } => {
            let state = if *status {
                engine.watch_status()
            } else if *stop {
                engine.watch_stop()?
            } else if *background {
                engine.watch_background()?
            } else {
                engine.watch_foreground(idle_exit.map(std::time::Duration::from_secs))?;
                engine.watch_status()
            };
            out.watch(&state);
            Ok(true)
        }
    }
}

fn run_mcp(cli: &Cli, out: &mut Out) -> Result<bool, Error> {
    let Command::Mcp {
        transport,
        bind,
        auto_workspace,
        allowed_roots,
        serve,
        no_prewarm,
        auth_token,
        print_config,
        all_repos,
        repos,
        auth_token_file,
    } = &cli.command
    else {
        unreachable!("called for the mcp command only")
    };
    let cwd = std::env::current_dir()
        .map_err(|e| Error::new(crate::error::ErrorCode::Io, format!("cannot read the current directory: {e}")))?;
    let base = cli.global.workspace.as_ref().map_or(cwd.clone(), |w| cwd.join(w));
    if let Some(agent) = print_config {
        let root =
            Engine::open(&base, &EngineOptions::default()).map(|e| e.workspace().root().to_owned()).unwrap_or(base);
        let text = crate::mcp::print_config(agent, &root)
            .map_err(|e| Error::new(crate::error::ErrorCode::InvalidArgument, e.to_string()))?;
        out.text(&text);
        return Ok(true);
    }
    let mut workspaces = serve.clone();
    let repos = if *all_repos { vec!["*".to_owned()] } else { repos.clone() };
    if workspaces.is_empty() && repos.is_empty() {
        workspaces.push(base);
    }
    let options = crate::mcp::Options {
        http: *transport == TransportArg::Http,
        bind: bind.clone(),
        workspaces,
        auto_workspace: *auto_workspace,
        allowed_roots: allowed_roots.clone(),
        no_prewarm: *no_prewarm,
        auth_token: auth_token.clone(),
        repos,
        auth_token_file: auth_token_file.clone(),
        store: cli.global.store.clone(),
        // Workspaces named on the command line, or by requests under the allowed roots, are
        // asked for; the current directory is not.
        live: {
            let asked = live_opt_in(cli);
            LiveOptIn { allowed: asked.allowed || !serve.is_empty() || *auto_workspace, ..asked }
        },
    };
    crate::mcp::run(options).map_err(|e| Error::new(crate::error::ErrorCode::Internal, format!("{e:#}")))?;
    Ok(true)
}
