//! The command line: parses arguments, calls the engine, renders its answers.
//!
//! Architecture invariant: no logic beyond argument handling and rendering lives here; what
//! the command line can answer, the MCP server answers the same way through the engine.

mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::engine::{Engine, EngineOptions, Error, Freshness, LocateRequest, OutlineRequest};
use crate::indexer::IndexOptions;
use crate::view::Scope;
use output::Out;

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
    /// Run as if started in DIR.
    #[arg(short = 'C', long = "workspace", value_name = "DIR", global = true)]
    workspace: Option<PathBuf>,
    /// Keep the index in DIR instead of `<git common dir>/codecompass`.
    #[arg(long, value_name = "DIR", global = true)]
    store: Option<PathBuf>,
    /// No progress or notes on stderr.
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build or refresh the index of the working tree (default) or of refs.
    Index {
        /// A commit-ish to index (repeatable); without it, the working tree.
        #[arg(long = "ref", value_name = "REF")]
        refs: Vec<String>,
        /// Rebuild views from their full file lists (and repair an incompatible store).
        #[arg(long)]
        force: bool,
    },
    /// Find where a symbol is defined.
    Locate {
        /// The name, bare (`find`) or qualified (`Index::find`, `Greeter.greet`).
        name: String,
        /// Only this kind (function, method, class, struct, ...).
        #[arg(long)]
        kind: Option<String>,
        /// Only this language.
        #[arg(long)]
        lang: Option<String>,
        /// Look at this commit-ish instead of the working tree.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
        /// At most N results.
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// List the symbols of a file.
    Outline {
        /// The file, relative to the current directory or the repository root.
        path: String,
        /// Top-level symbols only, or all of them nested.
        #[arg(long, value_enum, default_value_t = Depth::All)]
        depth: Depth,
        /// Look at this commit-ish instead of the working tree.
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
    },
    /// Show the index: store, versions, refs and their freshness.
    Status,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Depth {
    Top,
    All,
}

/// Runs the command line and returns the process exit code: 0 found, 1 nothing found,
/// 2 error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    crate::progress::set_quiet(cli.global.quiet);
    let mut out = Out::new(cli.global.json);
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

fn run(cli: &Cli, out: &mut Out) -> Result<bool, Error> {
    let cwd = std::env::current_dir().map_err(|e| {
        Error::new(
            crate::error::ErrorCode::Io,
            format!("cannot read the current directory: {e}"),
        )
    })?;
    let base = match &cli.global.workspace {
        Some(dir) => cwd.join(dir),
        None => cwd.clone(),
    };
    let options = EngineOptions {
        store_dir: cli.global.store.as_ref().map(|s| cwd.join(s)),
    };
    let engine = Engine::open(&base, &options)?;
    match &cli.command {
        Command::Index { refs, force } => {
            let scopes: Vec<Scope> = if refs.is_empty() {
                vec![Scope::Worktree]
            } else {
                refs.iter().map(|r| Scope::Ref(r.clone())).collect()
            };
            let response = engine.index(
                &scopes,
                IndexOptions {
                    force: *force,
                    reparse: *force,
                },
            )?;
            out.index(&response);
            Ok(true)
        }
        Command::Locate {
            name,
            kind,
            lang,
            reference,
            limit,
        } => {
            let request = LocateRequest {
                name: name.clone(),
                kind: kind.clone(),
                lang: lang.clone(),
                scope: Scope::from_option(reference.as_deref()),
                limit: *limit,
                freshness: Freshness::Strict,
            };
            let response = engine.locate(&request)?;
            out.locate(&response);
            Ok(!response.results.is_empty())
        }
        Command::Outline {
            path,
            depth,
            reference,
        } => {
            let relative = engine.relative_path(&base, path)?;
            let request = OutlineRequest {
                path: relative,
                all: *depth == Depth::All,
                scope: Scope::from_option(reference.as_deref()),
                freshness: Freshness::Strict,
            };
            let response = engine.outline(&request)?;
            out.outline(&response);
            Ok(!response.symbols.is_empty())
        }
        Command::Status => {
            let response = engine.status()?;
            out.status(&response);
            Ok(true)
        }
    }
}
