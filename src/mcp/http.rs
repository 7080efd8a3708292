//! The streamable-HTTP transport: `/mcp` (rmcp) and `/health`, behind checks of `Host` and
//! `Origin` (DNS rebinding) and, when configured, a bearer token. A body that is no JSON-RPC
//! message gets its JSON-RPC error (400), one whose body does not arrive within 30 s a 408;
//! sessions end after an idle time, and at most
//! [`MAX_SESSIONS`] are open: a new one closes the oldest, whose client is then told its
//! session is gone (404) and starts another.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{Options, Server};

/// Requests larger than this are refused (413).
const MAX_BODY: usize = 4 * 1024 * 1024;
/// A request body that takes longer than this to arrive is refused (408) and its connection
/// closed: a client trickling its body holds nothing for longer.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// A connection whose request headers take longer than this to arrive is closed.
const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long requests in flight may run on after a shutdown signal.
const DRAIN: Duration = Duration::from_secs(5);
/// Sessions open at once, at most.
const MAX_SESSIONS: usize = 256;
/// A session nobody used for this long is closed.
const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

#[derive(Clone)]
struct Guard {
    hosts: Arc<Vec<String>>,
    token: Option<Arc<String>>,
    /// Tokens scoped to repositories (`--auth-token-file`); each request carries its scope.
    tokens: Option<Arc<super::repos::Tokens>>,
    sessions: Arc<LocalSessionManager>,
    /// Session ids, oldest first.
    opened: Arc<tokio::sync::Mutex<VecDeque<Arc<str>>>>,
}

const SESSION_HEADER: &str = "mcp-session-id";

fn host_of(value: &str) -> String {
    // `[::1]:8080` -> `[::1]`, `localhost:8080` -> `localhost`.
    if let Some(rest) = value.strip_prefix('[') {
        return format!("[{}]", rest.split(']').next().unwrap_or(""));
    }
    value.split(':').next().unwrap_or("").to_ascii_lowercase()
}

/// For a POST to `/mcp`: the JSON-RPC check of its body, and room for a new session.
async fn admit(guard: &Guard, request: Request) -> Result<(Request, bool), Response> {
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(b)) => b,
        Ok(Err(_)) => return Err((StatusCode::PAYLOAD_TOO_LARGE, "the request is too large\n").into_response()),
        Err(_) => {
            let said = format!("the request body did not arrive within {} s\n", BODY_TIMEOUT.as_secs());
            return Err((StatusCode::REQUEST_TIMEOUT, [(header::CONNECTION, "close")], said).into_response());
        }
    };
    let json =
        parts.headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
    if json && let Err(reply) = super::stdio::check(&bytes) {
        return Err((StatusCode::BAD_REQUEST, axum::Json(reply)).into_response());
    }
    let new_session = !parts.headers.contains_key(SESSION_HEADER);
    if new_session {
        let mut opened = guard.opened.lock().await;
        let open = guard.sessions.sessions.read().await.len();
        if open >= MAX_SESSIONS {
            // Forget ids that ended by themselves, then close the oldest still open.
            let mut live = VecDeque::with_capacity(opened.len());
            for id in opened.drain(..) {
                if guard.sessions.has_session(&id).await.unwrap_or(false) {
                    live.push_back(id);
                }
            }
            *opened = live;
            while guard.sessions.sessions.read().await.len() >= MAX_SESSIONS {
                let Some(oldest) = opened.pop_front() else { break };
                let _ = guard.sessions.close_session(&oldest).await;
            }
        }
    }
    Ok((Request::from_parts(parts, Body::from(bytes)), new_session))
}

async fn guard(State(guard): State<Guard>, mut request: Request, next: Next) -> Response {
    let headers: &HeaderMap = request.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).map(host_of);
    if !host.as_deref().is_some_and(|h| guard.hosts.iter().any(|a| a == h)) {
        return (StatusCode::FORBIDDEN, "forbidden: unexpected Host header\n").into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        let origin_host = origin.split("://").nth(1).map(host_of);
        if origin != "null" && !origin_host.as_deref().is_some_and(|h| guard.hosts.iter().any(|a| a == h)) {
            return (StatusCode::FORBIDDEN, "forbidden: unexpected Origin header\n").into_response();
        }
    }
    if let Some(token) = &guard.token {
        let presented =
            headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer_token).unwrap_or("");
        if !same_secret(presented, token) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "unauthorized: a bearer token is required\n",
            )
                .into_response();
        }
    }
    if let Some(tokens) = &guard.tokens {
        let presented =
            headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(bearer_token).unwrap_or("");
        let Some(scope) = tokens.scope_of(presented) else {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "unauthorized: a bearer token is required\n",
            )
                .into_response();
        };
        // The tools read it from the request (rmcp hands them its parts).
        request.extensions_mut().insert(scope);
    }
    if request.method() != Method::POST || !request.uri().path().starts_with("/mcp") {
        return next.run(request).await;
    }
    let (request, new_session) = match admit(&guard, request).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let response = next.run(request).await;
    if new_session && let Some(id) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
        guard.opened.lock().await.push_back(Arc::from(id));
    }
    response
}

async fn health(State(server): State<Server>, request: Request) -> Response {
    let health = server.health_for(request.extensions().get::<super::repos::TokenScope>());
    axum::Json(health).into_response()
}

/// Serves until Ctrl-C or SIGTERM.
pub async fn serve(server: Server, options: &Options, tokens: Option<Arc<super::repos::Tokens>>) -> Result<()> {
    let bind = if options.bind.is_empty() { "127.0.0.1:8765".to_owned() } else { options.bind.clone() };
    let listener = tokio::net::TcpListener::bind(&bind).await.with_context(|| format!("cannot listen on {bind}"))?;
    let local = listener.local_addr()?;
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()];
    let bound_host = host_of(&bind);
    if !hosts.contains(&bound_host) && bound_host != "0.0.0.0" {
        hosts.push(bound_host);
    }
    let token =
        options.auth_token.clone().or_else(|| std::env::var("CODECOMPASS_MCP_TOKEN").ok()).filter(|t| !t.is_empty());
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(SESSION_IDLE);
    let sessions = Arc::new(manager);
    let guard_state = Guard {
        hosts: Arc::new(hosts),
        token: token.map(Arc::new),
        tokens,
        sessions: sessions.clone(),
        opened: Arc::default(),
    };

    let mut config = StreamableHttpServerConfig::default();
    config.max_request_body_bytes = MAX_BODY;
    config.allowed_hosts = vec![];
    let factory_server = server.clone();
    let service: StreamableHttpService<Server, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(factory_server.clone()), sessions, config);
    let router = axum::Router::new()
        .route("/health", get(health))
        .with_state(server.clone())
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(guard_state, guard));
    eprintln!("codecompass: MCP over HTTP on http://{local}/mcp (health: /health)");
    serve_connections(listener, router, shutdown_signal()).await
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing a SIGTERM handler succeeds on unix because the runtime has signals enabled");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// Accepts connections until `stop`, each served by HTTP/1 with a deadline for its request
/// headers ([`HEADER_TIMEOUT`]: a client trickling them is cut off); then lets the requests in
/// flight finish, for [`DRAIN`] at most (an open event stream would hold shutdown forever).
async fn serve_connections(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: impl std::future::Future<Output = ()>,
) -> Result<()> {
    let (stopping, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    tokio::pin!(stop);
    loop {
        while connections.try_join_next().is_some() {}
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of descriptors or a connection reset before it was taken: try again shortly.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let mut stop_rx = stop_rx.clone();
        connections.spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT);
            let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop_rx.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    let _ = stopping.send(true);
    let _ = tokio::time::timeout(DRAIN, async { while connections.join_next().await.is_some() {} }).await;
    Ok(())
}

/// Whether a presented secret is `secret`, compared without early exit, so timing tells
/// nothing about it.
pub(super) fn same_secret(presented: &str, secret: &str) -> bool {
    presented.len() == secret.len() && presented.bytes().zip(secret.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

/// The token of an `Authorization` value: the scheme is case-insensitive (RFC 9110), spaces
/// after it any number.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim_start())
}

#[cfg(test)]
mod tests {
    use super::{bearer_token, host_of};

    #[test]
    fn hosts_lose_their_ports() {
        assert_eq!(host_of("localhost:8765"), "localhost");
        assert_eq!(host_of("127.0.0.1"), "127.0.0.1");
        assert_eq!(host_of("[::1]:80"), "[::1]");
        assert_eq!(host_of("Evil.Example:80"), "evil.example");
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer abc"), Some("abc"));
        assert_eq!(bearer_token("BEARER  abc"), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
