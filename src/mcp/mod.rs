//! `git codecompass mcp`: a Model Context Protocol server over stdio (default) or streamable
//! HTTP. The tools call the engine and answer with the command line's `--json` shapes.
//!
//! Architecture invariant: no logic of its own beyond parameters, confinement and transport;
//! stdout carries protocol messages only (logs go to stderr).

mod graph_tools;
mod history_tools;
mod http;
mod params;
pub mod repos;
mod server;
mod stdio;
pub mod tools;
pub mod workspaces;
mod xray_tools;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};

pub use server::Server;
use workspaces::{Policy, Registry};

/// How the server runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Serve over HTTP instead of stdio.
    pub http: bool,
    /// Where to listen (HTTP).
    pub bind: String,
    /// Workspaces to register; empty means the working directory's.
    pub workspaces: Vec<PathBuf>,
    /// Accept workspaces named by requests, under `allowed_roots`.
    pub auto_workspace: bool,
    /// Roots auto workspaces must be under.
    pub allowed_roots: Vec<PathBuf>,
    /// Skip indexing the registered workspaces at start.
    pub no_prewarm: bool,
    /// A bearer token HTTP clients must present.
    pub auth_token: Option<String>,
    /// Index store override.
    pub store: Option<PathBuf>,
    /// What is allowed for workspaces that are not repositories.
    pub live: crate::view::live::LiveOptIn,
    /// Registered repositories to serve, by alias or glob (`mcp --all-repos` is `*`).
    pub repos: Vec<String>,
    /// Bearer tokens with the repositories each may ask (HTTP).
    pub auth_token_file: Option<PathBuf>,
}

/// Runs the server until the client disconnects (stdio) or the process is stopped (HTTP).
pub fn run(options: Options) -> Result<()> {
    crate::progress::set_quiet(true);
    if options.auto_workspace && options.allowed_roots.is_empty() {
        anyhow::bail!("--auto-workspace needs at least one --allowed-root");
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    // The registry's repositories are the server's workspaces (with any named besides them).
    let served = if options.repos.is_empty() {
        None
    } else {
        Some(Arc::new(repos::Served::load(&options.repos).map_err(|e| anyhow::anyhow!("{e}"))?))
    };
    let paths = match &served {
        Some(served) => {
            let mut roots = served.roots();
            if roots.is_empty() {
                anyhow::bail!("none of the registered repositories it names is where it was registered");
            }
            roots.extend(options.workspaces.iter().map(|p| cwd.join(p)));
            roots
        }
        None if options.workspaces.is_empty() => vec![cwd.clone()],
        None => options.workspaces.iter().map(|p| cwd.join(p)).collect(),
    };
    let tokens = match &options.auth_token_file {
        Some(_) if served.is_none() => {
            anyhow::bail!(
                "--auth-token-file scopes tokens to registered repositories: serve them with --all-repos or --repo"
            )
        }
        Some(file) => Some(Arc::new(repos::Tokens::read(&cwd.join(file))?)),
        None => None,
    };
    let allowed_roots = options
        .allowed_roots
        .iter()
        .map(|r| {
            std::fs::canonicalize(cwd.join(r)).with_context(|| format!("allowed root {} does not exist", r.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    let policy =
        Policy { auto: options.auto_workspace, allowed_roots, store: options.store.clone(), live: options.live };
    let registry = Arc::new(Registry::new(&paths, policy).map_err(|e| anyhow::anyhow!("{e}"))?);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async move {
        let server = Server::new(registry.clone()).serving(served);
        if !options.no_prewarm {
            for ws in registry.all() {
                server.start_background(&ws, "warming", None);
            }
        }
        if options.http {
            http::serve(server, &options, tokens).await
        } else {
            stdio::serve(server).await.context("serving over stdio")
        }
    })
}

/// The agents `mcp --print-config` knows.
pub const AGENTS: &[&str] = &["claude", "cursor", "codex", "vscode", "windsurf", "zed", "generic"];

/// The configuration snippet that registers the server with `agent`. Project-level files (to
/// commit) hold no absolute path: the server takes the repository from its working directory
/// (which these clients set to the project) or from the client's workspace variable. Only a
/// user-level file that serves one repository names `workspace`. The formats follow each
/// client's documentation as listed in `docs/mcp.md`.
pub fn print_config(agent: &str, workspace: &std::path::Path) -> Result<String> {
    let exe = "git-codecompass";
    let ws = workspace.to_string_lossy();
    let json = |value: serde_json::Value| serde_json::to_string_pretty(&value).expect("JSON values serialize");
    Ok(match agent {
        "claude" => format!(
            "# Claude Code: run this once in the repository (writes .mcp.json, to commit)\n\
             claude mcp add --scope project codecompass -- {exe} mcp\n\n\
             # or put this in .mcp.json at the repository root (Claude Code starts the server there)\n{}\n",
            json(serde_json::json!({ "mcpServers": { "codecompass": { "command": exe, "args": ["mcp"] } } }))
        ),
        "cursor" => format!(
            "# Cursor: .cursor/mcp.json in the repository (to commit)\n{}\n",
            json(serde_json::json!({
                "mcpServers": { "codecompass": { "command": exe, "args": ["mcp", "--workspace", "${workspaceFolder}"] } }
            }))
        ),
        "vscode" => format!(
            "# VS Code: .vscode/mcp.json in the repository (to commit)\n{}\n",
            json(serde_json::json!({
                "servers": { "codecompass": {
                    "type": "stdio", "command": exe, "args": ["mcp", "--workspace", "${workspaceFolder}"]
                } }
            }))
        ),
        "codex" => format!(
            "# Codex: .codex/config.toml in the repository (read in trusted projects; Codex starts the\n\
             # server in the project), or ~/.codex/config.toml for every project\n\
             [mcp_servers.codecompass]\ncommand = \"{exe}\"\nargs = [\"mcp\"]\n"
        ),
        "zed" => format!(
            "# Zed: .zed/settings.json in the repository (to commit), or your user settings\n{}\n",
            json(serde_json::json!({
                "context_servers": { "codecompass": { "source": "custom", "command": exe, "args": ["mcp"], "env": {} } }
            }))
        ),
        "windsurf" => format!(
            "# Windsurf: ~/.codeium/windsurf/mcp_config.json (user-level, not committed; Windsurf has no\n\
             # per-project file, so it names this repository; for several, serve them all with\n\
             # `mcp --auto-workspace --allowed-root DIR` and let requests name their workspace)\n{}\n",
            json(serde_json::json!({
                "mcpServers": { "codecompass": { "command": exe, "args": ["mcp", "--workspace", ws] } }
            }))
        ),
        "generic" => format!(
            "# Any MCP client: a stdio server started in the repository\n{}\n\n# Or over HTTP: {exe} mcp --transport http \
             --bind 127.0.0.1:8765, then connect to http://127.0.0.1:8765/mcp (health: /health)\n",
            json(serde_json::json!({ "name": "codecompass", "transport": "stdio", "command": exe, "args": ["mcp"] }))
        ),
        other => anyhow::bail!("unknown agent `{other}`: use {}", AGENTS.join(", ")),
    })
}
