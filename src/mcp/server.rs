//! The MCP server handler: tool listing and calls, background indexing, progress.

use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock as Content, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::repos::{Route, Served, TokenScope};
use super::tools::{self, Health, IndexStatus, SyncAnswer, SyncParams, WorkspaceHealth};
use super::workspaces::{Registry, Workspace};
use crate::engine::{Error, PROTOCOL_VERSION};
use crate::error::ErrorCode;
use crate::store::{Store, StoreState};
use crate::view::Scope;

/// The server: shared by every session (stdio has one, HTTP one per client).
#[derive(Clone)]
pub struct Server {
    registry: Arc<Registry>,
    started: Instant,
    tools: Arc<Vec<Tool>>,
    /// The registered repositories served (`--all-repos`, `--repo`).
    served: Option<Arc<Served>>,
}

const INSTRUCTIONS: &str = "CodeCompass answers questions about this repository's code with exact path:line \
answers, for the working tree (default) or any branch, tag or commit (`ref`). Start with search_code or \
locate_symbol; use get_file_outline and read_source to read; get_code_context to gather context within a token \
budget; diff_context to see what a branch changed; search_commits and find_introducing_commit for when and why \
code changed. Answers carry metadata.freshness_status and \
result_completeness: `partial` means indexing is still running.";

impl Server {
    /// A server over the registered workspaces.
    pub fn new(registry: Arc<Registry>) -> Server {
        let tools = tools::specs()
            .into_iter()
            .map(|spec| {
                let annotations = super::tools::annotations(&spec);
                Tool::new(spec.name, spec.description, spec.input)
                    .with_raw_output_schema(spec.output)
                    .with_title(spec.title)
                    .annotate(annotations)
            })
            .collect();
        Server { registry, started: Instant::now(), tools: Arc::new(tools), served: None }
    }

    /// The same server, serving the registered repositories `served` (`repo` in requests).
    pub fn serving(self, served: Option<Arc<Served>>) -> Server {
        Server { served, ..self }
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Starts the background index of `ws` unless one runs; `warming` for the start-up one.
    pub fn start_background(&self, ws: &Arc<Workspace>, state: &str, progress: Option<ProgressSender>) -> bool {
        if ws.busy() {
            return false;
        }
        ws.update(|p| {
            p.state = state.to_owned();
            p.phase = "starting".into();
            p.done = 0;
            p.total = 0;
            p.started_at = Some(crate::store::now());
            p.last_error = None;
        });
        let ws = ws.clone();
        tokio::task::spawn_blocking(move || {
            let sink_ws = ws.clone();
            let result = crate::progress::with_sink(
                move |label, done, total| {
                    sink_ws.update(|p| {
                        p.phase = label.to_owned();
                        p.done = done;
                        p.total = total;
                    });
                    if let Some(tx) = &progress {
                        let _ = tx.send((label.to_owned(), done, total));
                    }
                },
                || ws.engine.sync(false),
            );
            ws.update(|p| {
                p.finished_at = Some(crate::store::now());
                match &result {
                    Ok(_) => {
                        p.state = "idle".into();
                        p.last_error = None;
                    }
                    Err(e) => {
                        p.state = "failed".into();
                        p.last_error = Some(e.to_string());
                    }
                }
            });
        });
        true
    }

    /// The health of one workspace.
    pub fn workspace_health(ws: &Workspace) -> WorkspaceHealth {
        let (state, _) = Store::classify(ws.engine.workspace().store_dir());
        let progress = ws.snapshot();
        let indexing_status = match (progress.state.as_str(), state) {
            ("indexing" | "warming", _) => "indexing",
            ("failed", _) => "failed",
            (_, StoreState::Compatible) => "ready",
            _ => "not_indexed",
        };
        WorkspaceHealth {
            workspace: ws.root.to_string_lossy().into_owned(),
            store_state: state.as_str().to_owned(),
            indexing_status: indexing_status.to_owned(),
            progress,
        }
    }

    /// The server's health.
    pub fn health(&self) -> Health {
        self.health_for(None)
    }

    /// The health of the workspaces a token may see (all of them without a scoped token).
    pub fn health_for(&self, token: Option<&TokenScope>) -> Health {
        let visible = |ws: &Arc<Workspace>| match (token, &self.served) {
            (None, _) => true,
            (Some(token), Some(served)) => served.allows_root(token, &ws.root),
            (Some(_), None) => false,
        };
        let workspaces: Vec<WorkspaceHealth> =
            self.registry.all().iter().filter(|ws| visible(ws)).map(|ws| Self::workspace_health(ws)).collect();
        let status = if workspaces.iter().any(|w| w.progress.state == "warming") {
            "warming"
        } else if workspaces.iter().any(|w| w.indexing_status == "indexing") {
            "indexing"
        } else if workspaces.iter().any(|w| w.indexing_status == "failed" || w.store_state == "corrupt") {
            "error"
        } else {
            "ready"
        };
        Health {
            status: status.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            uptime_seconds: self.started.elapsed().as_secs(),
            workspaces,
        }
    }
}

/// Where index progress goes to become notifications.
pub type ProgressSender = tokio::sync::mpsc::UnboundedSender<(String, u64, u64)>;

fn error_result(e: &Error) -> CallToolResult {
    let mut text = format!("error [{}]: {}", e.code.as_str(), e.message);
    if let Some(remedy) = &e.remedy {
        text.push_str(&format!("\nwhat to do: {remedy}"));
    }
    let mut result = CallToolResult::error(vec![Content::text(text)]);
    result.structured_content = Some(json!({
        "codecompass_protocol_version": PROTOCOL_VERSION,
        "error": { "code": e.code.as_str(), "message": e.message, "data": { "remedy": e.remedy } }
    }));
    result
}

fn ok_result(name: &str, value: Value) -> CallToolResult {
    let text = tools::text_of(name, &value);
    let mut result = CallToolResult::success(vec![Content::text(text)]);
    result.structured_content = Some(value);
    result
}

/// The answer of a query tool while the workspace has no index yet: nothing, said so.
fn partial(ws: &Workspace, scope: &str) -> CallToolResult {
    let progress = ws.snapshot();
    let value = json!({
        "codecompass_protocol_version": PROTOCOL_VERSION,
        "ref": scope,
        "commit": null,
        "results": [],
        "metadata": {
            "freshness_status": "syncing",
            "indexing_status": "indexing",
            "result_completeness": "partial",
            "suppressed_duplicate_count": 0,
            "safety_limit_applied": false,
            "view": "",
            "progress": progress,
        }
    });
    let text = format!(
        "The workspace {} is being indexed ({} {}/{}); nothing can be answered yet. Try again shortly, or watch \
         index_status.",
        ws.root.display(),
        progress.phase,
        progress.done,
        progress.total
    );
    let mut result = CallToolResult::success(vec![Content::text(text)]);
    result.structured_content = Some(value);
    result
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("codecompass", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(McpError::invalid_params(format!("unknown tool `{name}`"), None));
        }
        let args = request.arguments.clone();
        let common: tools::CommonParams = tools::parse(args.as_ref())
            .map_err(|e| McpError::invalid_params(format!("invalid arguments: {e}"), None))?;
        // Over HTTP with `--auth-token-file`, the token's scope rides on the request.
        let token =
            context.extensions.get::<axum::http::request::Parts>().and_then(|p| p.extensions.get::<TokenScope>());
        if name == "list_repos" {
            let answer = super::repos::list(self.served.as_deref(), token);
            return Ok(ok_result(&name, serde_json::to_value(answer).unwrap_or(Value::Null)).into());
        }
        let default = self.registry.default_root();
        let requested = match super::repos::route(self.served.as_deref(), token, &common.common, default.as_deref()) {
            Ok(Route::Workspace(requested)) => requested,
            Ok(Route::One(entry)) => Some(entry.path),
            Ok(Route::Many(entries)) => {
                let served = self.served.clone().expect("several repositories are routed only when some are served");
                let workspaces = self.registry.clone();
                let call_name = name.clone();
                let outcome = tokio::task::spawn_blocking(move || {
                    super::repos::run_across(&call_name, args.as_ref(), &served, &workspaces, entries)
                })
                .await
                .map_err(|e| McpError::internal_error(format!("the tool crashed: {e}"), None))?;
                return match outcome {
                    Err(message) => Err(McpError::invalid_params(format!("invalid arguments: {message}"), None)),
                    Ok(Ok(value)) => Ok(ok_result(&name, value).into()),
                    Ok(Err(e)) => Ok(error_result(&e).into()),
                };
            }
            Err(e) => return Ok(error_result(&e).into()),
        };
        let ws = match self.registry.get(requested.as_deref()) {
            Ok(ws) => ws,
            Err(e) => return Ok(error_result(&e).into()),
        };
        let scope_name = ws.engine.workspace().scope_name(&Scope::from_option(common.common.reference.as_deref()));
        match name.as_str() {
            "health_check" => {
                let health = self.health_for(token);
                return Ok(ok_result(&name, serde_json::to_value(health).unwrap_or(Value::Null)).into());
            }
            "index_status" => {
                let engine_ws = ws.clone();
                let status = tokio::task::spawn_blocking(move || engine_ws.engine.status())
                    .await
                    .map_err(|e| McpError::internal_error(e.to_string(), None))?;
                return Ok(match status {
                    Ok(status) => {
                        let answer = IndexStatus {
                            codecompass_protocol_version: PROTOCOL_VERSION,
                            health: Self::workspace_health(&ws),
                            status,
                        };
                        ok_result(&name, serde_json::to_value(answer).unwrap_or(Value::Null))
                    }
                    Err(e) => error_result(&e),
                }
                .into());
            }
            "sync_repo" => {
                let params: SyncParams = tools::parse(args.as_ref())
                    .map_err(|e| McpError::invalid_params(format!("invalid arguments: {e}"), None))?;
                return Ok(self.sync(&ws, params, &context).await?.into());
            }
            _ => {}
        }
        // Query tools: an unindexed workspace answers `partial` at once and indexes behind.
        if !Store::exists(ws.engine.workspace().store_dir()) {
            self.start_background(&ws, "indexing", None);
            return Ok(partial(&ws, &scope_name).into());
        }
        let call_ws = ws.clone();
        let call_name = name.clone();
        let outcome = tokio::task::spawn_blocking(move || tools::run(&call_name, args.as_ref(), &call_ws))
            .await
            .map_err(|e| McpError::internal_error(format!("the tool crashed: {e}"), None))?;
        match outcome {
            Err(message) => Err(McpError::invalid_params(format!("invalid arguments: {message}"), None)),
            Ok(Ok(value)) => Ok(ok_result(&name, value).into()),
            Ok(Err(e)) if e.code == ErrorCode::NotIndexed && ws.busy() => Ok(partial(&ws, &scope_name).into()),
            Ok(Err(e)) => Ok(error_result(&e).into()),
        }
    }
}

impl Server {
    async fn sync(
        &self,
        ws: &Arc<Workspace>,
        params: SyncParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let token = context.meta.get_progress_token();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, u64, u64)>();
        let forwarder = token.map(|token| {
            let peer = context.peer.clone();
            tokio::spawn(async move {
                let mut step = 0f64;
                while let Some((label, done, total)) = rx.recv().await {
                    step += 1.0;
                    let mut param = ProgressNotificationParam::new(token.clone(), step);
                    param.total = None;
                    param.message = Some(format!("{label}: {done}/{total}"));
                    if peer.notify_progress(param).await.is_err() {
                        break;
                    }
                }
            })
        });
        let sync_ws = ws.clone();
        let force = params.force.unwrap_or(false);
        let reference = params.common.reference.clone().filter(|r| !r.is_empty());
        ws.update(|p| {
            p.state = "indexing".into();
            p.started_at = Some(crate::store::now());
        });
        let progress_ws = ws.clone();
        let result = tokio::task::spawn_blocking(move || {
            crate::progress::with_sink(
                move |label, done, total| {
                    progress_ws.update(|p| {
                        p.phase = label.to_owned();
                        p.done = done;
                        p.total = total;
                    });
                    let _ = tx.send((label.to_owned(), done, total));
                },
                || match reference {
                    Some(r) => {
                        sync_ws.engine.index(&[Scope::Ref(r)], crate::indexer::IndexOptions { force, reparse: force })
                    }
                    None => sync_ws.engine.sync(force),
                },
            )
        })
        .await
        .map_err(|e| McpError::internal_error(format!("the sync crashed: {e}"), None))?;
        if let Some(f) = forwarder {
            let _ = f.await;
        }
        ws.update(|p| {
            p.state = if result.is_ok() { "idle".into() } else { "failed".into() };
            p.finished_at = Some(crate::store::now());
            p.last_error = result.as_ref().err().map(ToString::to_string);
        });
        Ok(match result {
            Ok(response) => {
                let answer = SyncAnswer {
                    codecompass_protocol_version: PROTOCOL_VERSION,
                    views: response.views,
                    total: response.total,
                };
                ok_result("sync_repo", serde_json::to_value(answer).unwrap_or(Value::Null))
            }
            Err(e) => error_result(&e),
        })
    }
}
