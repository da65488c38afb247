//! Streamable HTTP (feature `client-http`): every message is a POST to the endpoint; a
//! request's answer comes back as one JSON body or as an SSE stream of its notifications,
//! then its response. Modern (2026-07-28) requests carry `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` (a tool's, a prompt's, a resource's, a task's) and the `Mcp-Param-*` headers their tool's input schema asks
//! for (learnt from `tools/list` answers); closing a request's stream cancels it. Legacy
//! requests carry the session (`Mcp-Session-Id`, from `initialize`) and the negotiated
//! version; the session's GET stream brings the server's own messages; a session stream that
//! breaks off is taken up again with `Last-Event-ID`; `close` deletes the session.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use bytes::Bytes;
use eventsource_stream::Eventsource as _;
use futures_util::StreamExt as _;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::task::AbortHandle;

use super::sink::Sink;
use crate::client::error::ClientError;
use crate::headers::{HeaderParam, encode_value, header_params, param_headers};
use crate::protocol::{ProtocolVersion, RequestId};

/// The most of an error body kept in [`ClientError::Http`].
const ERROR_BODY_BYTES: usize = 512;

/// A Streamable HTTP endpoint and what this client keeps about it.
pub(in crate::client) struct Http {
    client: reqwest::Client,
    url: reqwest::Url,
    bearer: Option<String>,
    /// The largest JSON body or SSE event read.
    max_bytes: usize,
    /// What the tasks reading responses update too.
    state: Arc<State>,
}

/// How a legacy session's SSE stream that broke off is taken up again: a GET with the
/// session and `Last-Event-ID` (SEP-1699), after the server's `retry:` delay.
#[derive(Clone)]
struct Resume {
    client: reqwest::Client,
    url: reqwest::Url,
    bearer: Option<String>,
}

/// The most times one stream is taken up again in a row (a stream that delivers an event
/// starts counting again).
const MAX_RESUMES: u32 = 5;

/// The longest `retry:` delay honoured.
const MAX_RETRY: std::time::Duration = std::time::Duration::from_secs(10);

impl Resume {
    /// `GET` the session's stream, after `last_event_id` when there is one.
    async fn get(
        &self,
        state: &State,
        version: ProtocolVersion,
        last_event_id: Option<&str>,
    ) -> Result<reqwest::Response, Unresumed> {
        let mut get = self
            .client
            .get(self.url.clone())
            .header(ACCEPT, "text/event-stream")
            .header("MCP-Protocol-Version", version.as_str());
        if let Some(last) = last_event_id {
            get = get.header("Last-Event-ID", last);
        }
        if let Some(session) = state.session.lock().expect("session").clone() {
            get = get.header("Mcp-Session-Id", session);
        }
        if let Some(token) = &self.bearer {
            get = get.bearer_auth(token);
        }
        match get.send().await {
            Ok(r) if r.status().is_success() && is_sse(r.headers()) => Ok(r),
            Ok(r) if session_unknown(r.status()) => Err(Unresumed::SessionEnded),
            Ok(_) => Err(Unresumed::Refused),
            Err(_) => Err(Unresumed::Unreachable),
        }
    }
}

/// Why a session's stream was not taken up again.
enum Unresumed {
    /// The server no longer knows the session (it ended it, or restarted).
    SessionEnded,
    /// The server answered with something other than the stream.
    Refused,
    /// The server could not be reached.
    Unreachable,
}

/// Whether a refused GET of the session's stream says the server no longer knows the
/// session: `404` as the specification has it, or `400` as some servers answer an unknown
/// session id (the TypeScript SDK's examples among them).
fn session_unknown(status: reqwest::StatusCode) -> bool {
    status == reqwest::StatusCode::NOT_FOUND || status == reqwest::StatusCode::BAD_REQUEST
}

/// What an endpoint's requests learn and hold while they run.
#[derive(Default)]
struct State {
    /// The legacy session, once `initialize` returned one.
    session: std::sync::Mutex<Option<HeaderValue>>,
    /// The response streams of requests in flight, by request id.
    streams: std::sync::Mutex<HashMap<RequestId, AbortHandle>>,
    /// The legacy session's GET stream.
    listen: std::sync::Mutex<Option<AbortHandle>>,
    /// The `x-mcp-header` parameters of each tool `tools/list` has shown.
    tools: std::sync::Mutex<HashMap<String, Vec<HeaderParam>>>,
}

impl Http {
    fn resume(&self) -> Resume {
        Resume {
            client: self.client.clone(),
            url: self.url.clone(),
            bearer: self.bearer.clone(),
        }
    }

    /// A transport to the endpoint `url`, with a bearer token if given.
    pub(in crate::client) fn new(
        url: reqwest::Url,
        bearer: Option<String>,
        max_bytes: usize,
    ) -> Result<Self, ClientError> {
        let client = reqwest::Client::builder()
            .build()
            .map_err(|e| ClientError::Transport(e.to_string()))?;
        Ok(Self {
            client,
            url,
            bearer,
            max_bytes,
            state: Arc::default(),
        })
    }

    /// POSTs the request `msg` on a task of its own, whose answer (a JSON body or an SSE
    /// stream) goes to the connection.
    pub(super) fn request(&self, conn: Arc<dyn Sink>, id: &RequestId, method: &str, msg: &Value) {
        let post = match self.post_request(&*conn, Some(method), msg) {
            Ok(post) => post,
            Err(e) => return conn.fail(id, e),
        };
        let weak = Arc::downgrade(&conn);
        drop(conn);
        let (id_, method_) = (id.clone(), method.to_owned());
        let (state, max_bytes, resume) = (self.state.clone(), self.max_bytes, self.resume());
        let task = tokio::spawn(async move {
            let outcome = post.send().await;
            if let Some(conn) = weak.upgrade() {
                match outcome {
                    Err(e) => conn.fail(&id_, ClientError::Transport(error_chain(&e))),
                    Ok(response) => {
                        let read = Read {
                            state: &state,
                            max_bytes,
                            resume: &resume,
                        };
                        answer(&conn, &read, &id_, &method_, response).await;
                    }
                }
            }
            state.streams.lock().expect("streams").remove(&id_);
        });
        let mut streams = self.state.streams.lock().expect("streams");
        if !task.is_finished() {
            streams.insert(id.clone(), task.abort_handle());
        }
    }

    /// POSTs a notification or a response and waits for the server to accept it.
    pub(super) async fn post(&self, conn: &dyn Sink, msg: Value) -> Result<(), ClientError> {
        let response = self
            .post_request(conn, None, &msg)?
            .send()
            .await
            .map_err(|e| ClientError::Transport(error_chain(&e)))?;
        if response.status().is_success() {
            Ok(())
        } else {
            Err(refusal(response, None).await.0)
        }
    }

    /// Modern: closes the stream of the request `id` (the cancellation signal) and fails
    /// it with `Cancelled`. Legacy requests are cancelled with a notification.
    pub(super) fn abort(&self, conn: &dyn Sink, id: &RequestId) -> bool {
        if conn.legacy().is_some() {
            return false;
        }
        if let Some(stream) = self.state.streams.lock().expect("streams").remove(id) {
            stream.abort();
        }
        conn.fail(id, ClientError::Cancelled);
        true
    }

    /// Closes every stream and deletes the legacy session.
    pub(super) async fn close(&self, conn: &dyn Sink) {
        for (_, stream) in self.state.streams.lock().expect("streams").drain() {
            stream.abort();
        }
        if let Some(listen) = self.state.listen.lock().expect("listen").take() {
            listen.abort();
        }
        let session = self.state.session.lock().expect("session").take();
        if let (Some(session), Some(version)) = (session, conn.legacy()) {
            let mut delete = self
                .client
                .delete(self.url.clone())
                .header("Mcp-Session-Id", session)
                .header("MCP-Protocol-Version", version.as_str());
            if let Some(token) = &self.bearer {
                delete = delete.bearer_auth(token);
            }
            let _ = delete.send().await;
        }
    }

    /// Opens the legacy session's GET stream (the server's own messages), if the server
    /// offers one (a `405` says it does not).
    pub(in crate::client) fn open_listen(&self, conn: &Arc<dyn Sink>) {
        let Some(version) = conn.legacy() else { return };
        let mut get = self
            .client
            .get(self.url.clone())
            .header(ACCEPT, "text/event-stream")
            .header("MCP-Protocol-Version", version.as_str());
        if let Some(session) = self.state.session.lock().expect("session").clone() {
            get = get.header("Mcp-Session-Id", session);
        }
        if let Some(token) = &self.bearer {
            get = get.bearer_auth(token);
        }
        let weak = Arc::downgrade(conn);
        let (state, max_bytes, resume) = (self.state.clone(), self.max_bytes, self.resume());
        let task = tokio::spawn(async move {
            let Ok(response) = get.send().await else {
                return;
            };
            if response.status().is_success() && is_sse(response.headers()) {
                let read = Read {
                    state: &state,
                    max_bytes,
                    resume: &resume,
                };
                read_events(&weak, &read, None, "", response).await;
            }
        });
        *self.state.listen.lock().expect("listen") = Some(task.abort_handle());
    }

    /// A POST of `msg` with the headers its era asks for.
    fn post_request(
        &self,
        conn: &dyn Sink,
        method: Option<&str>,
        msg: &Value,
    ) -> Result<reqwest::RequestBuilder, ClientError> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        match conn.legacy() {
            Some(version) => {
                headers.insert(
                    "MCP-Protocol-Version",
                    HeaderValue::from_static(version.as_str()),
                );
                if let Some(session) = self.state.session.lock().expect("session").clone() {
                    headers.insert("Mcp-Session-Id", session);
                }
            }
            // The legacy handshake itself carries no version header.
            None if method == Some("initialize") => {}
            None => {
                headers.insert(
                    "MCP-Protocol-Version",
                    HeaderValue::from_static(ProtocolVersion::LATEST.as_str()),
                );
                if let Some(method) = method {
                    self.modern_headers(&mut headers, method, msg)?;
                }
            }
        }
        let mut post = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(serde_json::to_vec(msg).expect("messages serialize"));
        if let Some(token) = &self.bearer {
            post = post.bearer_auth(token);
        }
        Ok(post)
    }

    /// `Mcp-Method`, `Mcp-Name` and, for a tool that mirrors parameters, `Mcp-Param-*`.
    fn modern_headers(
        &self,
        headers: &mut HeaderMap,
        method: &str,
        msg: &Value,
    ) -> Result<(), ClientError> {
        let invalid = |what: &str| ClientError::Decode(format!("cannot send {what} as a header"));
        headers.insert(
            "Mcp-Method",
            HeaderValue::from_str(&encode_value(method)).map_err(|_| invalid("the method"))?,
        );
        let params = &msg["params"];
        let name = match method {
            "tools/call" | "prompts/get" => params["name"].as_str(),
            "resources/read" => params["uri"].as_str(),
            "tasks/get" | "tasks/update" | "tasks/cancel" => params["taskId"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            headers.insert(
                "Mcp-Name",
                HeaderValue::from_str(&encode_value(name)).map_err(|_| invalid("the name"))?,
            );
        }
        if method == "tools/call"
            && let Some(name) = name
            && let Some(mirrored) = self.state.tools.lock().expect("tools").get(name)
        {
            for (header, value) in param_headers(mirrored, &params["arguments"]) {
                let header =
                    HeaderName::try_from(header).map_err(|_| invalid("a parameter's name"))?;
                let value = HeaderValue::from_str(&value).map_err(|_| invalid("a parameter"))?;
                headers.insert(header, value);
            }
        }
        Ok(())
    }
}

impl State {
    /// Remembers the mirrored parameters of the tools of a `tools/list` page.
    fn learn_tools(&self, result: &Value) {
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let mut known = self.tools.lock().expect("tools");
        for tool in tools {
            let (Some(name), Some(schema)) = (
                tool.get("name").and_then(Value::as_str),
                tool.get("inputSchema").and_then(Value::as_object),
            ) else {
                continue;
            };
            let mut schema = schema.clone();
            match header_params(&mut schema) {
                Ok(params) if !params.is_empty() => {
                    known.insert(name.to_owned(), params);
                }
                _ => {
                    known.remove(name);
                }
            }
        }
    }
}

/// The answer to the request `id`: its messages to the connection; a refusal, or a body
/// that ends without the response, fails it.
/// What reading a response needs beside the connection.
struct Read<'a> {
    state: &'a State,
    max_bytes: usize,
    resume: &'a Resume,
}

async fn answer(
    conn: &Arc<dyn Sink>,
    read: &Read<'_>,
    id: &RequestId,
    method: &str,
    response: reqwest::Response,
) {
    let (state, max_bytes) = (read.state, read.max_bytes);
    if method == "initialize"
        && let Some(session) = response.headers().get("mcp-session-id")
    {
        *state.session.lock().expect("session") = Some(session.clone());
    }
    if !response.status().is_success() {
        // A JSON-RPC error in the body is the server's answer (404 -32601, 400 -32022…);
        // a 404 that answers no request is a legacy session the server no longer knows.
        let gone = response.status() == reqwest::StatusCode::NOT_FOUND
            && conn.legacy().is_some()
            && method != "initialize"
            && state.session.lock().expect("session").is_some();
        let (refusal, answers) = refusal(response, Some(id)).await;
        if gone && !answers {
            return session_ended(conn, state, Some(id));
        }
        conn.fail(id, refusal);
        return;
    }
    if is_sse(response.headers()) {
        read_events(&Arc::downgrade(conn), read, Some(id), method, response).await;
    } else {
        match read_body(response, max_bytes).await {
            Ok(body) => match serde_json::from_slice::<Value>(&body) {
                Ok(Value::Array(batch)) => {
                    for msg in batch {
                        deliver(conn, state, method, msg);
                    }
                }
                Ok(msg) => deliver(conn, state, method, msg),
                Err(_) if body.is_empty() => {}
                Err(e) => conn.fail(
                    id,
                    ClientError::Decode(format!("a body that is not JSON: {e}")),
                ),
            },
            Err(e) => conn.fail(id, e),
        }
    }
    if conn.is_open(id) {
        conn.fail(
            id,
            ClientError::Transport("the response ended without answering the request".into()),
        );
    }
}

/// Reads an SSE stream into the connection, event by event, until it ends (or the
/// connection is gone); `id` is the request it answers, if any. A legacy session's stream
/// that ends or breaks while its request is still unanswered (or, for the session's GET
/// stream, at all) is taken up again from its last event id, up to [`MAX_RESUMES`] times
/// in a row.
async fn read_events(
    conn: &Weak<dyn Sink>,
    read: &Read<'_>,
    id: Option<&RequestId>,
    method: &str,
    response: reqwest::Response,
) {
    let (state, max_bytes) = (read.state, read.max_bytes);
    let mut response = response;
    let mut last_event_id: Option<String> = None;
    let mut retry = std::time::Duration::from_millis(500);
    let mut resumes = 0;
    loop {
        let mut events = response.bytes_stream().eventsource();
        let mut broken = None;
        while let Some(event) = events.next().await {
            let Some(conn) = conn.upgrade() else { return };
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    broken = Some(e.to_string());
                    break;
                }
            };
            if !event.id.is_empty() {
                last_event_id = Some(event.id.clone());
            }
            if let Some(r) = event.retry {
                retry = r.min(MAX_RETRY);
            }
            if event.data.len() > max_bytes {
                if let Some(id) = id {
                    conn.fail(
                        id,
                        ClientError::Decode(format!("an event over {max_bytes} bytes")),
                    );
                }
                return;
            }
            if event.data.trim().is_empty() {
                continue; // a priming event (an id for resumption, no message)
            }
            resumes = 0;
            match serde_json::from_str::<Value>(&event.data) {
                Ok(msg) => deliver(&conn, state, method, msg),
                Err(e) => {
                    tracing::debug!(target: "mcp_framework::client", "an event that is not JSON: {e}");
                }
            }
            if let Some(id) = id
                && !conn.is_open(id)
            {
                return; // answered: the stream has nothing more for it
            }
        }
        let Some(version) = resumable(conn, id, last_event_id.is_some(), broken) else {
            return;
        };
        if resumes >= MAX_RESUMES {
            fail(
                conn,
                id,
                format!("the stream broke off {MAX_RESUMES} times in a row"),
            );
            return;
        }
        resumes += 1;
        // While the server cannot be reached, the session's stream waits longer each
        // time (doubling up to `MAX_RETRY`, for as long as its client lives); a request's
        // gives up at once.
        let mut wait = retry;
        loop {
            tokio::time::sleep(wait).await;
            tracing::debug!(target: "mcp_framework::client", last_event_id = ?last_event_id, "taking up the stream again");
            let resumed = read
                .resume
                .get(state, version, last_event_id.as_deref())
                .await;
            let Some(live) = conn.upgrade() else { return };
            match resumed {
                Ok(next) => {
                    response = next;
                    break;
                }
                Err(Unresumed::SessionEnded) => return session_ended(&live, state, id),
                Err(Unresumed::Unreachable) if id.is_none() => {
                    wait = (wait * 2).min(MAX_RETRY);
                }
                Err(_) => {
                    let reason = "the stream broke off and could not be taken up again";
                    fail(conn, id, reason.into());
                    return;
                }
            }
        }
    }
}

/// Whether a stream that ended (`broken`, with why, or closed) is taken up again: a legacy
/// session's request still waiting for its answer, from its last event, or the session's
/// own stream (`id` none), from its last event or opened anew. Otherwise the request
/// fails with why the stream broke.
fn resumable(
    conn: &Weak<dyn Sink>,
    id: Option<&RequestId>,
    has_last_event: bool,
    broken: Option<String>,
) -> Option<ProtocolVersion> {
    let live = conn.upgrade()?;
    let waiting = id.is_none_or(|id| live.is_open(id));
    match live.legacy() {
        Some(version) if waiting && (has_last_event || id.is_none()) => Some(version),
        _ => {
            if let Some(e) = broken {
                fail(conn, id, e);
            }
            None
        }
    }
}

/// Fails the request `id`, if any and the connection is still there.
fn fail(conn: &Weak<dyn Sink>, id: Option<&RequestId>, reason: String) {
    if let (Some(conn), Some(id)) = (conn.upgrade(), id) {
        conn.fail(id, ClientError::Transport(reason));
    }
}

/// The server no longer knows the session: the request `id` (if any) fails with
/// [`ClientError::SessionEnded`], and so does the connection (its waiters, its listens,
/// what follows [`Client::closed`](crate::client::Client::closed)), for its owner to
/// connect again with a new session as the specification asks.
fn session_ended(conn: &Arc<dyn Sink>, state: &State, id: Option<&RequestId>) {
    tracing::info!(target: "mcp_framework::client", "the server ended the session");
    state.session.lock().expect("session").take();
    if let Some(id) = id {
        conn.fail(id, ClientError::SessionEnded);
    }
    conn.closed();
}

/// One message to the connection; a `tools/list` result teaches the transport the tools'
/// mirrored parameters first.
fn deliver(conn: &Arc<dyn Sink>, state: &State, method: &str, msg: Value) {
    if method == "tools/list"
        && let Some(result) = msg.get("result")
    {
        state.learn_tools(result);
    }
    conn.clone().deliver(msg);
}

/// What a refused request becomes: the JSON-RPC error its body carries, else the status
/// with the body's start (or, for 401/403, the `WWW-Authenticate` challenge); and whether
/// that error answers the request `id` (carries its id) rather than the HTTP request.
async fn refusal(response: reqwest::Response, id: Option<&RequestId>) -> (ClientError, bool) {
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = read_body(response, 64 * 1024).await.unwrap_or_default();
    if let Ok(msg) = serde_json::from_slice::<Value>(&body)
        && let Some(error) = msg.get("error")
        && let Ok(error) = serde_json::from_value(error.clone())
    {
        let answers = id.is_some_and(|id| {
            msg.get("id")
                .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok())
                .as_ref()
                == Some(id)
        });
        return (ClientError::Rpc(error), answers);
    }
    let message = challenge.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body);
        let text = text.trim();
        match text.char_indices().nth(ERROR_BODY_BYTES) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text.to_owned(),
        }
    });
    (ClientError::Http { status, message }, false)
}

/// A body of at most `max_bytes`.
async fn read_body(response: reqwest::Response, max_bytes: usize) -> Result<Bytes, ClientError> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| ClientError::Transport(error_chain(&e)))?;
        if body.len() + chunk.len() > max_bytes {
            return Err(ClientError::Decode(format!(
                "a body over {max_bytes} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.into())
}

/// Whether a response is an SSE stream.
fn is_sse(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// An error and its causes on one line (reqwest's own message omits the cause).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
