//! Streamable HTTP (axum): one endpoint, one POST per message.
//!
//! Modern (2026-07-28) requests are stateless: headers are checked against the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), the answer is JSON,
//! or an SSE stream when the handler sends request-scoped notifications first.
//! `subscriptions/listen` answers with a long-lived SSE stream. Closing a response stream
//! cancels its request. Legacy peers (`initialize`) get a `Mcp-Session-Id` and the
//! 2025-11-25 behaviour on the same endpoint.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::context::{HttpParts, Principal, Sink};
use crate::dispatch::{Failure, Origin, Reply, dispatch};
use crate::error::Error;
use crate::protocol::jsonrpc::{
    Incoming, Request as RpcRequest, parse_message, write_error, write_result,
};
use crate::protocol::meta::{RequestMeta, read_request_meta};
use crate::protocol::{ErrorObject, RequestId};
use crate::server::{Server, ServerInner};
use crate::session::legacy::{LegacySession, spawn_forwarder};
use crate::subscriptions::ListenEvent;

const SESSION_HEADER: &str = "mcp-session-id";

/// Settings of the HTTP transport: what it accepts and how long it keeps things.
///
/// Defaults: bodies up to the server's `max_message_bytes` (4 MiB); `Origin` (when present) must be a localhost origin; when
/// served on a loopback address the `Host` must be a localhost name (DNS-rebinding
/// protection); legacy sessions expire after 30 idle minutes, at most 10,000 at once;
/// listen streams get a keep-alive comment every 15 s.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `None`: the server's `max_message_bytes`.
    pub(crate) max_body_bytes: Option<usize>,
    pub(crate) allowed_origins: Option<Vec<String>>,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) keep_alive: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: None,
            allowed_origins: None,
            allowed_hosts: None,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            keep_alive: Duration::from_secs(15),
        }
    }
}

impl HttpConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows browser requests from this origin (`https://app.example.com`); `"*"` allows
    /// any. Requests without `Origin` (non-browser clients) are always allowed.
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins
            .get_or_insert_with(Vec::new)
            .push(origin.into());
        self
    }

    /// Allows this `Host` (`api.example.com`, with or without port); `"*"` allows any.
    /// Setting any host turns the automatic loopback-only check off.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts
            .get_or_insert_with(Vec::new)
            .push(host.into());
        self
    }

    /// The largest request body accepted (larger bodies get 413); by default the server's
    /// [`max_message_bytes`](crate::ServerBuilder::max_message_bytes).
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = Some(bytes);
        self
    }

    /// How long an unused legacy session lives.
    #[must_use]
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// The most legacy sessions at once (the least recently used one is closed to make room).
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// The interval of keep-alive comments on long-lived streams.
    #[must_use]
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval;
        self
    }
}

/// Legacy sessions by `Mcp-Session-Id`.
#[derive(Debug)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<Arc<str>, Arc<LegacySession>>>,
    idle: Duration,
    max: usize,
}

impl Sessions {
    pub(crate) fn new(config: &HttpConfig) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            idle: config.session_idle_timeout,
            max: config.max_sessions,
        }
    }

    fn get(&self, id: &str) -> Option<Arc<LegacySession>> {
        let mut map = self.map.lock().expect("sessions");
        let session = map.get(id)?.clone();
        if session.idle_for() > self.idle {
            map.remove(id);
            session.close();
            return None;
        }
        session.touch();
        Some(session)
    }

    fn insert(&self, session: Arc<LegacySession>) {
        let id = session.id.clone().expect("HTTP sessions have ids");
        let mut map = self.map.lock().expect("sessions");
        map.retain(|_, s| {
            let keep = s.idle_for() <= self.idle;
            if !keep {
                s.close();
            }
            keep
        });
        while map.len() >= self.max {
            let Some(oldest) = map
                .iter()
                .max_by_key(|(_, s)| s.idle_for())
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(s) = map.remove(&oldest) {
                s.close();
            }
        }
        map.insert(id, session);
    }

    fn remove(&self, id: &str) -> bool {
        let removed = self.map.lock().expect("sessions").remove(id);
        removed.map(|s| s.close()).is_some()
    }

    #[allow(dead_code)]
    pub(crate) fn len(&self) -> usize {
        self.map.lock().expect("sessions").len()
    }
}

fn new_session_id() -> Arc<str> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Arc::from(hex)
}

#[derive(Debug, Clone)]
enum HostPolicy {
    Any,
    Loopback,
    List(Vec<String>),
}

#[derive(Debug)]
struct Endpoint {
    server: Arc<ServerInner>,
    hosts: HostPolicy,
}

impl Server {
    /// An axum router serving the MCP endpoint at `/mcp`. Mount it in your app, add tower
    /// layers (timeouts, tracing, authentication, CORS) as you like. `Host` is not checked
    /// unless [`HttpConfig::allow_host`] was set (the server does not know how it is bound).
    pub fn router(&self) -> Router {
        self.router_at("/mcp")
    }

    /// [`router`](Self::router) with the endpoint at `path`.
    pub fn router_at(&self, path: &str) -> Router {
        let hosts = match &self.inner.config.http.allowed_hosts {
            Some(list) => HostPolicy::List(list.clone()),
            None => HostPolicy::Any,
        };
        self.router_with(path, hosts)
    }

    fn router_with(&self, path: &str, hosts: HostPolicy) -> Router {
        let endpoint = Arc::new(Endpoint {
            server: self.inner.clone(),
            hosts,
        });
        Router::new()
            .route(path, axum::routing::any(handle))
            .with_state(endpoint)
    }

    /// Serves Streamable HTTP on `addr` at `/mcp` until shutdown (SIGINT/SIGTERM through
    /// [`run`](Self::run), or [`ServerHandle::shutdown`](crate::ServerHandle::shutdown)).
    pub async fn serve_http(&self, addr: SocketAddr) -> Result<(), Error> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.serve_http_listener(listener, "/mcp").await
    }

    /// Serves Streamable HTTP on a bound listener (bind `127.0.0.1:0` in tests and read
    /// the port from the listener first).
    pub async fn serve_http_listener(
        &self,
        listener: tokio::net::TcpListener,
        path: &str,
    ) -> Result<(), Error> {
        let local = listener.local_addr()?;
        let hosts = match &self.inner.config.http.allowed_hosts {
            Some(list) => HostPolicy::List(list.clone()),
            None if local.ip().is_loopback() => HostPolicy::Loopback,
            None => HostPolicy::Any,
        };
        let router = self.router_with(path, hosts);
        let shutdown = self.inner.shutdown.clone();
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await?;
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Responses

fn json_response(status: StatusCode, body: Bytes) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn error_response(status: StatusCode, id: Option<&RequestId>, error: &ErrorObject) -> Response {
    let mut out = Vec::with_capacity(128);
    write_error(&mut out, id, error);
    json_response(status, Bytes::from(out))
}

fn status_of(failure: Failure) -> StatusCode {
    match failure {
        Failure::BadRequest => StatusCode::BAD_REQUEST,
        Failure::NotFound => StatusCode::NOT_FOUND,
        Failure::Failed => StatusCode::OK,
    }
}

fn method_not_allowed() -> Response {
    let mut r = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &ErrorObject::new(-32600, "Method not allowed: the MCP endpoint accepts POST"),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

fn sse_response(
    events: impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
) -> Response {
    let mut r = Response::new(Body::from_stream(events));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// One SSE event carrying a JSON-RPC message.
fn sse_event(message: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(message.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

fn result_message(id: &RequestId, result: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + 48);
    write_result(&mut out, id, result);
    out
}

fn reply_message(id: &RequestId, reply: Reply) -> Option<Vec<u8>> {
    match reply {
        Reply::Result(bytes) => Some(result_message(id, &bytes)),
        Reply::Error(e, _) => {
            let mut out = Vec::new();
            write_error(&mut out, Some(id), &e);
            Some(out)
        }
        Reply::Cancelled | Reply::Listen(_) => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

fn origin_allowed(config: &HttpConfig, origin: &str) -> bool {
    match &config.allowed_origins {
        Some(list) => list
            .iter()
            .any(|o| o == "*" || o.eq_ignore_ascii_case(origin)),
        None => {
            let rest = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            rest.is_some_and(is_loopback_host)
        }
    }
}

/// `localhost`, `127.0.0.1` or `[::1]`, with any port.
fn is_loopback_host(hostport: &str) -> bool {
    let host = if let Some(rest) = hostport.strip_prefix('[') {
        rest.split(']')
            .next()
            .map(|h| format!("[{h}]"))
            .unwrap_or_default()
    } else {
        hostport.split(':').next().unwrap_or_default().to_owned()
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "[::1]"
    )
}

fn host_allowed(policy: &HostPolicy, host: Option<&str>) -> bool {
    match policy {
        HostPolicy::Any => true,
        HostPolicy::Loopback => host.is_some_and(is_loopback_host),
        HostPolicy::List(list) => host.is_some_and(|h| {
            let bare = h.split(':').next().unwrap_or(h);
            list.iter()
                .any(|a| a == "*" || a.eq_ignore_ascii_case(h) || a.eq_ignore_ascii_case(bare))
        }),
    }
}

fn forbidden(message: &str) -> Response {
    error_response(
        StatusCode::FORBIDDEN,
        None,
        &ErrorObject::new(-32600, message),
    )
}

/// The rejection of a request whose `Origin` or `Host` is not allowed, if it is one.
fn check_security(ep: &Endpoint, parts: &Parts) -> Option<Response> {
    let headers = &parts.headers;
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin
            .to_str()
            .is_ok_and(|o| origin_allowed(&ep.server.config.http, o));
        if !ok {
            return Some(forbidden("Forbidden: origin not allowed"));
        }
    }
    // HTTP/2 carries the host in the `:authority` pseudo-header (the URI), not in `Host`.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()));
    if !host_allowed(&ep.hosts, host) {
        return Some(forbidden("Forbidden: host not allowed"));
    }
    None
}

/// Whether the client accepts SSE; `None` when it accepts neither JSON nor SSE.
fn accepts(headers: &HeaderMap) -> Option<bool> {
    if !headers.contains_key(header::ACCEPT) {
        return Some(true);
    }
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
        .to_ascii_lowercase();
    let has = |t: &str| {
        accept
            .split(',')
            .any(|part| part.trim().split(';').next() == Some(t))
    };
    let any = has("*/*");
    let json = any || has("application/json") || has("application/*");
    let sse = any || has("text/event-stream") || has("text/*");
    (json || sse).then_some(sse)
}

#[derive(Deserialize)]
struct NameView {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
}

/// The single value of a header (several values are ambiguous: rejected).
pub(crate) fn single_header<'a>(
    headers: &'a HeaderMap,
    name: &str,
) -> Result<Option<&'a HeaderValue>, ErrorObject> {
    let mut values = headers.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(ErrorObject::header_mismatch(format!(
            "{name} has several values"
        )));
    }
    Ok(first)
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, ErrorObject> {
    single_header(headers, name)?
        .map(|v| {
            v.to_str().map_err(|_| {
                ErrorObject::header_mismatch(format!("{name} contains invalid characters"))
            })
        })
        .transpose()
}

/// The request-metadata headers of a modern request must mirror its body.
fn check_standard_headers(
    headers: &HeaderMap,
    request: &RpcRequest,
    body_version: &str,
) -> Result<(), ErrorObject> {
    match header_str(headers, "mcp-protocol-version")? {
        None => {
            return Err(ErrorObject::header_mismatch(
                "missing MCP-Protocol-Version header",
            ));
        }
        Some(v) if v != body_version => {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            )));
        }
        Some(_) => {}
    }
    match header_str(headers, "mcp-method")? {
        None => return Err(ErrorObject::header_mismatch("missing Mcp-Method header")),
        Some(m) if m != request.method => {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Method header value '{m}' does not match body value '{}'",
                request.method
            )));
        }
        Some(_) => {}
    }
    let body_name = match request.method.as_str() {
        "tools/call" | "prompts/get" | "resources/read" => {
            let view: NameView =
                serde_json::from_str(request.params.as_deref().map_or("{}", |p| p.get()))
                    .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?;
            if request.method == "resources/read" {
                view.uri
            } else {
                view.name
            }
        }
        _ => return Ok(()),
    };
    let Some(body_name) = body_name else {
        return Ok(()); // the dispatcher reports the missing field
    };
    let Some(raw) = single_header(headers, "mcp-name")? else {
        return Err(ErrorObject::header_mismatch("missing Mcp-Name header"));
    };
    let decoded = crate::headers::decode_value(raw.as_bytes())
        .map_err(|e| ErrorObject::header_mismatch(format!("Mcp-Name {e}")))?;
    if decoded != body_name {
        return Err(ErrorObject::header_mismatch(format!(
            "Mcp-Name header value '{decoded}' does not match body value '{body_name}'"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The endpoint

async fn handle(State(ep): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Some(rejection) = check_security(&ep, &parts) {
        return rejection;
    }
    match parts.method {
        Method::POST => post(ep, parts, body).await,
        Method::GET => get(&ep, &parts),
        Method::DELETE => delete(&ep, &parts),
        _ => method_not_allowed(),
    }
}

fn session_of(ep: &Endpoint, headers: &HeaderMap) -> Option<Result<Arc<LegacySession>, String>> {
    let id = headers.get(SESSION_HEADER)?;
    let id = id.to_str().unwrap_or_default();
    Some(ep.server.sessions.get(id).ok_or_else(|| id.to_owned()))
}

fn session_not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        None,
        &ErrorObject::new(-32600, "Session not found: initialize a new session"),
    )
}

fn get(ep: &Endpoint, parts: &Parts) -> Response {
    match session_of(ep, &parts.headers) {
        None => method_not_allowed(),
        Some(Err(_)) => session_not_found(),
        Some(Ok(session)) => {
            if let Some(last) = parts
                .headers
                .get("last-event-id")
                .and_then(|v| v.to_str().ok())
            {
                return resume(session, last);
            }
            let (tx, rx) = mpsc::channel::<Bytes>(64);
            session.attach(tx);
            let shutdown = ep.server.shutdown.clone();
            let closed = session.closed.clone();
            let keep_alive = ep.server.config.http.keep_alive;
            sse_response(stream::unfold(
                (rx, shutdown, closed),
                move |(mut rx, shutdown, closed)| async move {
                    tokio::select! {
                        () = shutdown.cancelled() => None,
                        () = closed.cancelled() => None,
                        m = rx.recv() => m.map(|m| (Ok(sse_event(&m)), (rx, shutdown, closed))),
                        () = tokio::time::sleep(keep_alive) => Some((Ok(Bytes::from_static(b":\n\n")), (rx, shutdown, closed))),
                    }
                },
            ))
        }
    }
}

fn delete(ep: &Endpoint, parts: &Parts) -> Response {
    match parts.headers.get(SESSION_HEADER) {
        None => method_not_allowed(),
        Some(id) => {
            if ep.server.sessions.remove(id.to_str().unwrap_or_default()) {
                Response::new(Body::empty())
            } else {
                session_not_found()
            }
        }
    }
}

async fn post(ep: Arc<Endpoint>, parts: Parts, body: Body) -> Response {
    let Some(sse_ok) = accepts(&parts.headers) else {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            &ErrorObject::new(
                -32600,
                "Not Acceptable: accept application/json and text/event-stream",
            ),
        );
    };
    if let Some(ct) = parts.headers.get(header::CONTENT_TYPE) {
        let ct = ct.to_str().unwrap_or_default();
        if !ct
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("application/json")
        {
            return error_response(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                None,
                &ErrorObject::new(-32600, "Unsupported Media Type: send application/json"),
            );
        }
    }
    let limit = ep
        .server
        .config
        .http
        .max_body_bytes
        .unwrap_or(ep.server.config.max_message_bytes);
    let too_large = || {
        error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            &ErrorObject::new(
                -32600,
                format!("Payload too large: the limit is {limit} bytes"),
            ),
        )
    };
    if parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
        .is_some_and(|n| n > limit)
    {
        return too_large();
    }
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return too_large();
    };
    let message = match parse_message(&bytes) {
        Ok(m) => m,
        Err(rejected) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                rejected.id.as_ref(),
                &rejected.error,
            );
        }
    };
    let session = match session_of(&ep, &parts.headers) {
        Some(Ok(s)) => Some(s),
        Some(Err(_)) => {
            // A stray session id on a modern request is ignored; on anything else it names
            // a session that is gone.
            let modern = matches!(&message, Incoming::Request(r) if read_request_meta(r.params.as_deref())
                .is_ok_and(|(m, _)| m.protocol_version.as_deref().is_some_and(|v| v.starts_with("2026"))));
            if !modern {
                return session_not_found();
            }
            None
        }
        None => None,
    };
    match message {
        Incoming::Notification(n) => {
            if let Some(session) = &session {
                session.on_notification(&n);
            }
            accepted()
        }
        Incoming::Response(r) => {
            if let Some(session) = &session {
                session.deliver(r);
            }
            accepted()
        }
        Incoming::Request(request) if LegacySession::is_handshake(&request) => {
            initialize(&ep, &request)
        }
        Incoming::Request(request) => serve_request(ep, parts, request, session, sse_ok).await,
    }
}

fn accepted() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}

fn initialize(ep: &Endpoint, request: &RpcRequest) -> Response {
    let id = new_session_id();
    match LegacySession::initialize(&ep.server, request.params.as_deref(), Some(id.clone())) {
        Ok((session, result)) => {
            spawn_forwarder(&ep.server, &session);
            ep.server.sessions.insert(session);
            let mut r = json_response(
                StatusCode::OK,
                Bytes::from(result_message(&request.id, &result)),
            );
            r.headers_mut().insert(
                SESSION_HEADER,
                HeaderValue::from_str(&id).expect("hex is a valid header value"),
            );
            r
        }
        Err(e) => error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e),
    }
}

type ReplyFuture = Pin<Box<dyn Future<Output = Reply> + Send>>;

async fn serve_request(
    ep: Arc<Endpoint>,
    parts: Parts,
    request: RpcRequest,
    session: Option<Arc<LegacySession>>,
    sse_ok: bool,
) -> Response {
    let (meta, raw_meta): (RequestMeta, _) = match read_request_meta(request.params.as_deref()) {
        Ok(m) => m,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e),
    };
    let modern = session.is_none() || meta.protocol_version.is_some();
    if let (true, Some(version)) = (modern, meta.protocol_version.as_deref())
        && let Err(e) = check_standard_headers(&parts.headers, &request, version)
    {
        return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e);
    }
    if let (false, Some(session), true) = (modern, &session, sse_ok) {
        return serve_legacy_request(&ep, parts, request, session.clone(), meta, raw_meta);
    }
    let id = request.id.clone();
    let needs_stream =
        session.is_some() || meta.progress_token.is_some() || meta.log_level.is_some();
    let cancel = CancellationToken::new();
    let guard = cancel.clone().drop_guard();
    let (tx, rx) = if needs_stream {
        let (tx, rx) = mpsc::channel::<Bytes>(64);
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    let principal = parts.extensions.get::<Principal>().cloned();
    let http = Arc::new(HttpParts {
        headers: parts.headers,
        principal,
    });
    let origin = Origin {
        cancel: cancel.clone(),
        sink: tx.map(|tx| Sink::new(tx, cancel.clone())),
        session,
        http: Some(http),
        meta: Some((meta, raw_meta)),
        close_stream: None,
    };
    let server = ep.server.clone();
    let mut fut: ReplyFuture = Box::pin(async move { dispatch(&server, request, origin).await });
    let Some(mut rx) = rx else {
        return finish(&ep, &id, fut.await, guard);
    };
    // Wait for the reply, or for a first notification (which turns the answer into SSE).
    loop {
        tokio::select! {
            biased;
            Some(first) = rx.recv() => {
                if sse_ok {
                    return sse_request_stream(id, vec![first], Some(fut), None, rx, guard);
                }
                // The client takes JSON only: notifications cannot reach it.
            }
            reply = &mut fut => {
                let mut queued = Vec::new();
                while let Ok(n) = rx.try_recv() {
                    queued.push(n);
                }
                if queued.is_empty() || !sse_ok || matches!(reply, Reply::Listen(_)) {
                    return finish(&ep, &id, reply, guard);
                }
                let last = reply_message(&id, reply);
                return sse_request_stream(id, queued, None, last, rx, guard);
            }
        }
    }
}

/// A JSON answer (or, for `subscriptions/listen`, its stream).
fn finish(ep: &Endpoint, id: &RequestId, reply: Reply, guard: DropGuard) -> Response {
    match reply {
        Reply::Result(bytes) => {
            drop(guard.disarm());
            json_response(StatusCode::OK, Bytes::from(result_message(id, &bytes)))
        }
        Reply::Error(e, failure) => error_response(status_of(failure), Some(id), &e),
        Reply::Cancelled => error_response(
            StatusCode::OK,
            Some(id),
            &ErrorObject::new(-32600, "Request cancelled"),
        ),
        Reply::Listen(listen) => listen_stream(ep, id.clone(), *listen, guard),
    }
}

/// The SSE answer of a request that sent notifications before its reply: the queued
/// notifications, then whatever else the handler sends, then the reply.
fn sse_request_stream(
    id: RequestId,
    queued: Vec<Bytes>,
    fut: Option<ReplyFuture>,
    reply: Option<Vec<u8>>,
    rx: mpsc::Receiver<Bytes>,
    guard: DropGuard,
) -> Response {
    struct Running {
        id: RequestId,
        fut: Option<ReplyFuture>,
        reply: Option<Vec<u8>>,
        rx: mpsc::Receiver<Bytes>,
        _guard: DropGuard,
    }
    let state = Running {
        id,
        fut,
        reply,
        rx,
        _guard: guard,
    };
    let head = stream::iter(
        queued
            .into_iter()
            .map(|n| Ok::<_, Infallible>(sse_event(&n))),
    );
    let rest = stream::unfold(state, |mut s| async move {
        loop {
            if let Some(fut) = s.fut.as_mut() {
                tokio::select! {
                    biased;
                    Some(n) = s.rx.recv() => return Some((Ok(sse_event(&n)), s)),
                    reply = fut => {
                        s.fut = None;
                        s.reply = reply_message(&s.id, reply);
                    }
                }
            } else {
                // Notifications sent in the same poll as the reply come first.
                if let Ok(n) = s.rx.try_recv() {
                    return Some((Ok(sse_event(&n)), s));
                }
                let last = s.reply.take()?;
                return Some((Ok(sse_event(&last)), s));
            }
        }
    });
    sse_response(futures_util::StreamExt::chain(head, rest))
}

/// The long-lived SSE answer of `subscriptions/listen`.
fn listen_stream(
    ep: &Endpoint,
    id: RequestId,
    listen: crate::subscriptions::Listen,
    guard: DropGuard,
) -> Response {
    let keep_alive = ep.server.config.http.keep_alive;
    let ack = listen.acknowledgement();
    struct Open {
        id: RequestId,
        listen: Option<crate::subscriptions::Listen>,
        _guard: DropGuard,
    }
    let state = Open {
        id,
        listen: Some(listen),
        _guard: guard,
    };
    let head = stream::once(async move { Ok::<_, Infallible>(sse_event(&ack)) });
    let rest = stream::unfold(state, move |mut s| async move {
        let listen = s.listen.as_mut()?;
        let event = tokio::select! {
            e = listen.next() => e,
            () = tokio::time::sleep(keep_alive) => return Some((Ok(Bytes::from_static(b":\n\n")), s)),
        };
        match event {
            ListenEvent::Notify(n) => Some((Ok(sse_event(&n)), s)),
            ListenEvent::End(result) => {
                s.listen = None;
                Some((Ok(sse_event(&result_message(&s.id, &result))), s))
            }
            // Close the stream: the client listens again.
            ListenEvent::Lagged => None,
        }
    });
    sse_response(futures_util::StreamExt::chain(head, rest))
}

/// The retry interval a client is told to wait before polling back (milliseconds).
const RETRY_MS: u32 = 500;

/// One SSE event with an id (legacy resumable streams).
fn sse_event_with_id(stream: u64, seq: u64, message: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(message.len() + 48);
    out.extend_from_slice(format!("id: {stream}-{seq}\nevent: message\ndata: ").as_bytes());
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// A legacy session's request: run detached from the connection (a dropped connection is
/// not a cancellation there), every message recorded in a resumable stream whose first
/// event primes the client with an id and a retry interval.
fn serve_legacy_request(
    ep: &Endpoint,
    parts: Parts,
    request: RpcRequest,
    session: Arc<LegacySession>,
    meta: RequestMeta,
    raw_meta: Option<Box<serde_json::value::RawValue>>,
) -> Response {
    let stream = session.open_stream();
    let attached = stream.attach(0);
    let id = request.id.clone();
    let cancel = CancellationToken::new();
    session.track(id.clone(), cancel.clone());
    let (tx, mut rx) = mpsc::channel::<Bytes>(64);
    let principal = parts.extensions.get::<Principal>().cloned();
    // Closing travels through the same channel as the messages (as an empty message), so
    // whatever the handler sent before closing still goes out on this connection.
    let closer = {
        let tx = tx.clone();
        crate::context::StreamCloser(Arc::new(move || {
            let _ = tx.try_send(Bytes::new());
        }))
    };
    let origin = Origin {
        cancel: cancel.clone(),
        sink: Some(Sink::new(tx.clone(), cancel)),
        session: Some(session.clone()),
        http: Some(Arc::new(HttpParts {
            headers: parts.headers,
            principal,
        })),
        meta: Some((meta, raw_meta)),
        close_stream: Some(closer),
    };
    let server = ep.server.clone();
    let recorder = stream.clone();
    let session_for_task = session.clone();
    drop(tx);
    let record = move |recorder: &crate::session::legacy::ResumableStream, n: Bytes| {
        if n.is_empty() {
            recorder.detach();
        } else {
            recorder.push(n, false);
        }
    };
    tokio::spawn(async move {
        let fut = dispatch(&server, request, origin);
        tokio::pin!(fut);
        let reply = loop {
            tokio::select! {
                biased;
                Some(n) = rx.recv() => record(&recorder, n),
                reply = &mut fut => break reply,
            }
        };
        while let Ok(n) = rx.try_recv() {
            record(&recorder, n);
        }
        match reply_message(&id, reply) {
            Some(message) => recorder.push(Bytes::from(message), true),
            None => recorder.detach(),
        }
        session_for_task.untrack(&id);
    });
    resumable_response(session, stream.id, attached)
}

/// An SSE response replaying and then following a resumable stream.
fn resumable_response(
    session: Arc<LegacySession>,
    stream: u64,
    attached: crate::session::legacy::Attached,
) -> Response {
    let prime = Bytes::from(format!("id: {stream}-0\nretry: {RETRY_MS}\ndata: \n\n"));
    let replay_done = attached.replay.iter().any(|(_, _, last)| *last);
    let replay: Vec<Result<Bytes, Infallible>> = std::iter::once(Ok(prime))
        .chain(
            attached
                .replay
                .into_iter()
                .map(|(seq, m, _)| Ok(sse_event_with_id(stream, seq, &m))),
        )
        .collect();
    if replay_done {
        session.forget_stream(stream);
    }
    struct Follow {
        live: Option<mpsc::Receiver<(u64, Bytes, bool)>>,
        session: Arc<LegacySession>,
        stream: u64,
        closing: bool,
    }
    let state = Follow {
        live: if replay_done { None } else { attached.live },
        session,
        stream,
        closing: false,
    };
    let rest = stream::unfold(state, |mut s| async move {
        if s.closing {
            return None;
        }
        let live = s.live.as_mut()?;
        match live.recv().await {
            Some((seq, m, last)) => {
                if last {
                    s.session.forget_stream(s.stream);
                    s.live = None;
                }
                Some((Ok(sse_event_with_id(s.stream, seq, &m)), s))
            }
            None => {
                // The server closed the connection but not the stream: tell the client
                // when to poll back, then end the body.
                s.closing = true;
                Some((Ok(Bytes::from(format!("retry: {RETRY_MS}\n\n"))), s))
            }
        }
    });
    sse_response(futures_util::StreamExt::chain(stream::iter(replay), rest))
}

/// `GET` with `Last-Event-ID`: resumes a legacy stream.
fn resume(session: Arc<LegacySession>, last_event_id: &str) -> Response {
    let parsed = last_event_id
        .split_once('-')
        .and_then(|(s, n)| Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
    let Some((stream_id, seq)) = parsed else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            &ErrorObject::new(-32600, "Invalid Last-Event-ID"),
        );
    };
    match session.stream(stream_id) {
        Some(stream) => {
            let attached = stream.attach(seq);
            resumable_response(session, stream_id, attached)
        }
        None => error_response(
            StatusCode::NOT_FOUND,
            None,
            &ErrorObject::new(-32600, "Unknown stream: it ended or expired"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins() {
        assert!(is_loopback_host("localhost:8080"));
        assert!(is_loopback_host("127.0.0.1"));
        assert!(is_loopback_host("[::1]:3000"));
        assert!(!is_loopback_host("evil.example.com"));
        assert!(!is_loopback_host("127.0.0.1.evil.com"));
        let config = HttpConfig::default();
        assert!(origin_allowed(&config, "http://localhost:3000"));
        assert!(!origin_allowed(&config, "http://evil.example.com"));
        assert!(!origin_allowed(&config, "null"));
        let config = HttpConfig::default().allow_origin("https://app.example.com");
        assert!(origin_allowed(&config, "https://app.example.com"));
        assert!(!origin_allowed(&config, "http://localhost:3000"));
    }

    #[test]
    fn accept_headers() {
        let mut h = HeaderMap::new();
        assert!(accepts(&h).unwrap());
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        assert!(accepts(&h).unwrap());
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert!(!accepts(&h).unwrap());
        h.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert!(accepts(&h).is_none());
    }
}
