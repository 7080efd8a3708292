//! The subcommands and their arguments, as clap reads them.

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::grep::GrepArgs;
use super::search_args::{DetailArg, ExplainArg, SearchArgs, StrategyArg};
use super::{across, graph, history, xray};

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Build or refresh the index of the working tree (default) or of refs.
    Index {
        /// A commit-ish to index (repeatable); without it, the working tree.
        #[arg(long = "ref", value_name = "REF")]
        refs: Vec<String>,
        /// Rebuild views from their full file lists (and repair an incompatible store); with
        /// `--live`, also index `/` or the home directory.
        #[arg(long)]
        force: bool,
        /// Index this directory as it is, though it is not a git repository (kept in the
        /// user's cache directory).
        #[arg(long, conflicts_with = "refs")]
        live: bool,
        /// Index the commits reachable from `HEAD` and the indexed refs (or `--ref`s) for
        /// `log` and `history`: only commits and blobs not seen before cost anything.
        #[arg(long, conflicts_with_all = ["live", "force"])]
        history: bool,
        /// With `--history`: not commits older than DATE (`2024-01-31`, `1 year ago`).
        #[arg(long, value_name = "DATE", requires = "history")]
        since: Option<String>,
        /// With `--history`: at most the newest N commits not indexed yet.
        #[arg(long, value_name = "N", requires = "history")]
        max_count: Option<usize>,
    },
    /// Search code: names, words, paths, exact text or regexes, ranked or line by line.
    ///
    /// Exact search reads its flags as `git grep` does: `search -w -e foo -e bar -- src ':!src/gen'`.
    #[command(disable_help_flag = true)]
    Search {
        /// The query (a name, words, a path, "quoted text" or a regex), then git pathspecs
        /// limiting where to search (relative to the current directory; also after `--`).
        /// With `-e`, every argument is a pathspec.
        #[arg(value_name = "QUERY [PATHSPEC]", required_unless_present = "patterns")]
        args: Vec<String>,
        /// A pattern to match (repeatable: lines matching any of them); implies exact search.
        #[arg(short = 'e', long = "regexp", value_name = "PATTERN")]
        patterns: Vec<String>,
        #[command(flatten)]
        search: SearchArgs,
        #[command(flatten)]
        grep: GrepArgs,
        #[command(flatten)]
        across: across::AcrossArgs,
        /// How much to say per result.
        #[arg(long, value_enum, default_value_t = DetailArg::Signature)]
        detail: DetailArg,
        /// Only the essential fields.
        #[arg(long)]
        compact: bool,
        /// Explain the ranking.
        #[arg(long, value_enum, default_value_t = ExplainArg::Off)]
        explain: ExplainArg,
        /// Fit whole results into this many estimated tokens (`ceil(words * 1.3)`).
        #[arg(long, value_name = "N")]
        max_tokens: Option<usize>,
        /// One JSON line per result, then a summary line. Exact lines (text and regex modes)
        /// are printed as each file is verified, so memory stays bounded however many match.
        #[arg(long)]
        jsonl: bool,
        /// Rank files, not snippets: which files to read for a question or a pasted issue
        /// (each with its score, best lines and matching symbols).
        #[arg(long, conflicts_with_all = ["context", "before_context", "after_context"])]
        files: bool,
        /// Print help.
        #[arg(long, action = clap::ArgAction::Help)]
        help: Option<bool>,
    },
    /// Gather the code that answers a question, fitted whole into a token budget.
    Context {
        /// The question or name.
        query: String,
        /// The budget, in estimated tokens (`ceil(words * 1.3)`).
        #[arg(long, value_name = "N")]
        max_tokens: usize,
        /// Many short results, or few whole ones.
        #[arg(long, value_enum, default_value_t = StrategyArg::Breadth)]
        strategy: StrategyArg,
        #[command(flatten)]
        search: SearchArgs,
        #[command(flatten)]
        across: across::AcrossArgs,
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
        /// Look at this commit-ish instead of the working tree (with `--repo`, `ALIAS=REF`
        /// puts one repository at a ref; repeatable).
        #[arg(long = "ref", value_name = "REF")]
        reference: Vec<String>,
        /// At most N results.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[command(flatten)]
        across: across::AcrossArgs,
    },
    /// Registered repositories, which `--repo` queries ask: add, list, remove, sync.
    Repos {
        #[command(subcommand)]
        action: across::ReposCommand,
    },
    #[command(flatten)]
    Graph(graph::GraphCommand),
    /// Structural search: a driver (text every match contains) picks the candidate files
    /// through the index, a tree-sitter query or a sandboxed Rhai script runs on their syntax
    /// trees. `xray explore FILE` shows the nodes to write one against.
    Xray(xray::XrayArgs),
    /// Search commits: by words (messages, touched symbols and paths, ranked), or as
    /// `git log -S STRING` / `-G REGEX` answer it (the same commits, in the same order).
    Log(history::LogArgs),
    /// A symbol's history: the commits that added, modified, moved, renamed and deleted it,
    /// from the records of the blobs they changed.
    History(history::HistoryArgs),
    /// Background jobs (`xray --background`): list them, show one's progress and answer
    /// (partial while it runs), cancel one.
    Jobs {
        #[command(subcommand)]
        action: Option<xray::JobsAction>,
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
    /// Check the index, hooks, ignore rules and jobs; print the command that fixes each
    /// problem (exit 0 healthy, 1 problems found).
    Doctor {
        /// Skip the slow checks: SQLite's quick check instead of its integrity check, and only
        /// the full-text files changed since they were last verified.
        #[arg(long)]
        quick: bool,
    },
    /// Export the index to a file, import one, or show what one holds.
    Snapshot {
        #[command(subcommand)]
        action: SnapshotAction,
    },
    /// Bring up to date this worktree, HEAD, the default branch, every linked worktree's
    /// branch and the refs matching `codecompass.refs`.
    Sync {
        /// Rebuild from scratch.
        #[arg(long)]
        force: bool,
        /// Start the sync in a detached process and return at once (what hooks run).
        #[arg(long, conflicts_with = "force")]
        background: bool,
        /// Run syncs until no other process asks for one (the detached process's job).
        #[arg(long, hide = true)]
        coalesce: bool,
    },
    /// Every known ref and worktree with its commit, indexed commit and freshness.
    Refs,
    /// Symbol-level changes of REF (default: the working tree) since its merge base with BASE.
    Diff {
        /// The side with the changes.
        #[arg(value_name = "REF")]
        reference: Option<String>,
        /// The ref to compare with (default: the default branch).
        #[arg(long)]
        base: Option<String>,
        /// How much per symbol.
        #[arg(long, value_enum, default_value_t = DetailArg::Signature)]
        detail: DetailArg,
    },
    /// Drop records, file versions and documents no tracked ref or worktree reaches, and give
    /// their space back.
    Gc {
        /// Keep views used within this many days even when no ref reaches them.
        #[arg(long, default_value_t = 7, value_name = "DAYS")]
        grace_days: u64,
        /// Instead: list the indexes of directories that are not repositories (in the user's
        /// cache) and delete those whose directory is gone.
        #[arg(long)]
        live: bool,
        /// With `--live`: also delete the index of this directory.
        #[arg(long, value_name = "DIR", requires = "live")]
        remove: Option<PathBuf>,
    },
    /// Manage the git hooks that keep every branch fresh.
    Hooks {
        #[arg(value_enum)]
        action: HooksAction,
    },
    /// Serve the tools over the Model Context Protocol (stdio, or streamable HTTP).
    Mcp {
        /// `stdio` (default) or `http`.
        #[arg(long, value_enum, default_value_t = TransportArg::Stdio)]
        transport: TransportArg,
        /// Where to listen with `--transport http`.
        #[arg(long, default_value = "127.0.0.1:8765", value_name = "HOST:PORT")]
        bind: String,
        /// Accept workspaces named by requests, under the allowed roots.
        #[arg(long, requires = "allowed_roots")]
        auto_workspace: bool,
        /// A root auto workspaces must be under (repeatable).
        #[arg(long = "allowed-root", value_name = "DIR")]
        allowed_roots: Vec<PathBuf>,
        /// A repository to serve (repeatable; default: the current one).
        #[arg(long = "workspace", value_name = "PATH")]
        serve: Vec<PathBuf>,
        /// Do not index the workspaces at start.
        #[arg(long)]
        no_prewarm: bool,
        /// Require `Authorization: Bearer TOKEN` over HTTP (or set CODECOMPASS_MCP_TOKEN).
        #[arg(long, value_name = "TOKEN")]
        auth_token: Option<String>,
        /// Serve every registered repository (`repos add`); requests name one with `repo`.
        #[arg(long, conflicts_with = "repos")]
        all_repos: bool,
        /// Serve the registered repositories this alias or glob names (repeatable).
        #[arg(long = "repo", value_name = "ALIAS_OR_GLOB")]
        repos: Vec<String>,
        /// Over HTTP, accept the tokens of FILE, each for the repositories it names: one per
        /// line, `TOKEN ALIAS_OR_GLOB...` (with --all-repos or --repo).
        #[arg(long, value_name = "FILE", conflicts_with = "auth_token")]
        auth_token_file: Option<PathBuf>,
        /// Print the configuration snippet for an agent and exit.
        #[arg(long, value_name = "AGENT", value_parser = clap::builder::PossibleValuesParser::new(crate::mcp::AGENTS))]
        print_config: Option<String>,
    },
    /// Print the completion script for a shell (bash's also completes `git codecompass <TAB>`
    /// through git's own completion).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages (`git-codecompass.1`, one per subcommand), so `git codecompass
    /// --help` and `git help codecompass` find them.
    InstallMan {
        /// The man directory to write `man1/` into (default: `share/man` beside the binary's
        /// directory, which `man` searches for each directory on `PATH`).
        #[arg(long = "man-dir", value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Watch the worktree and sync on change (debounced).
    Watch {
        /// Run in a detached process.
        #[arg(long, conflicts_with_all = ["status", "stop"])]
        background: bool,
        /// Show the watcher's last sync and lag.
        #[arg(long, conflicts_with = "stop")]
        status: bool,
        /// Stop this worktree's watcher.
        #[arg(long)]
        stop: bool,
        /// Exit after this many seconds without a query (how queries start watchers).
        #[arg(long, value_name = "SECS", hide = true)]
        idle_exit: Option<u64>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum TransportArg {
    Stdio,
    Http,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum HooksAction {
    Install,
    Uninstall,
    Status,
}

#[derive(Debug, Subcommand)]
pub(super) enum SnapshotAction {
    /// Write the index (tree views and refs; never worktree state) to a `.tar.zst` file.
    Export {
        /// The file to write.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: PathBuf,
        /// Only what this commit-ish needs, brought up to date first (repeatable).
        #[arg(long = "ref", value_name = "REF")]
        refs: Vec<String>,
    },
    /// Verify a snapshot and install it (empty index) or merge it; `sync` then catches up.
    Import {
        /// The snapshot file.
        file: PathBuf,
    },
    /// Print a snapshot's manifest.
    Inspect {
        /// The snapshot file.
        file: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum Depth {
    Top,
    All,
}
