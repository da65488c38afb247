//! Talking to a served [`Server`] over a real socket on 127.0.0.1 (HTTP) or an in-memory
//! pipe (stdio framing): start it, build requests as a conforming client would, read JSON
//! and SSE answers.

use futures_util::StreamExt as _;
use mcp_framework::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// A server served over HTTP on a free loopback port.
#[derive(Debug)]
pub struct Running {
    /// The endpoint's URL.
    pub url: String,
    /// The server (its handle, its shutdown).
    pub server: Server,
    /// A client for it.
    pub http: reqwest::Client,
}

/// Serves `server` over HTTP at `/mcp` on a free port of 127.0.0.1.
pub async fn start(server: Server) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    Running {
        url: format!("http://127.0.0.1:{port}/mcp"),
        server,
        http: reqwest::Client::new(),
    }
}

/// An application's own authentication layer, for tests: the `x-user` header names the
/// principal, `x-scopes` (space-separated) its scopes.
async fn principal_from_header(mut req: axum::extract::Request) -> axum::extract::Request {
    if let Some(user) = req.headers().get("x-user").and_then(|v| v.to_str().ok()) {
        let user = user.to_owned();
        let scopes = req
            .headers()
            .get("x-scopes")
            .and_then(|v| v.to_str().ok())
            .map(|s| s.split(' ').map(str::to_owned).collect::<Vec<_>>())
            .unwrap_or_default();
        req.extensions_mut()
            .insert(mcp_framework::Principal::new(user).with_scopes(scopes));
    }
    req
}

/// Serves the router of `server` behind an authentication layer that takes the
/// principal from the `x-user` header.
pub async fn start_authenticated(server: Server) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let router = server
        .router()
        .layer(axum::middleware::map_request(principal_from_header));
    tokio::spawn(async move { axum::serve(listener, router).await });
    Running {
        url: format!("http://127.0.0.1:{port}/mcp"),
        server,
        http: reqwest::Client::new(),
    }
}

/// The Server Card at `<endpoint>/server-card`, checked against the card schema.
pub async fn server_card(r: &Running) -> Value {
    let resp = r
        .http
        .get(format!("{}/server-card", r.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let card: Value = resp.json().await.unwrap();
    crate::assert_conforms("server-card", "ServerCard", &card);
    card
}

/// The request metadata of a 2026-07-28 client.
pub fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})
}

/// A 2026-07-28 request (`_meta` added unless `params` has one).
pub fn request(id: u64, method: &str, mut params: Value) -> Value {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})
}

/// A POST with the headers a conforming client derives from the body.
pub fn post(r: &Running, body: &Value) -> reqwest::RequestBuilder {
    let mut b = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(v) = body
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
    {
        b = b.header("MCP-Protocol-Version", v);
    }
    if let Some(m) = body["method"].as_str() {
        b = b.header("Mcp-Method", m);
        let name = match m {
            "tools/call" | "prompts/get" => body.pointer("/params/name"),
            "resources/read" => body.pointer("/params/uri"),
            "tasks/get" | "tasks/update" | "tasks/cancel" => body.pointer("/params/taskId"),
            _ => None,
        };
        if let Some(n) = name.and_then(Value::as_str) {
            b = b.header("Mcp-Name", n);
        }
    }
    b
}

/// The status and JSON body of a response.
pub async fn json_of(resp: reqwest::Response) -> (StatusCode, Value) {
    let status = resp.status();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text:?}")),
    )
}

/// Reads SSE events (the `data:` of each) until the stream ends or `limit` events.
pub async fn sse_events(resp: reqwest::Response, limit: usize) -> Vec<Value> {
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    let mut events = Vec::new();
    while events.len() < limit {
        let Some(Ok(chunk)) = stream.next().await else {
            break;
        };
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buf.find("\n\n") {
            let event: String = buf.drain(..end + 2).collect();
            for line in event.lines() {
                if let Some(data) = line.strip_prefix("data: ").filter(|d| !d.is_empty()) {
                    events.push(serde_json::from_str(data).unwrap());
                }
            }
        }
    }
    events
}

/// Opens a legacy session of `version` over HTTP and returns its id.
pub async fn legacy_session(r: &Running, version: &str) -> String {
    let resp = legacy_initialize(r, version).await;
    assert_eq!(resp.status(), 200);
    resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// A legacy `initialize` of `version` over HTTP, as sent.
pub async fn legacy_initialize(r: &Running, version: &str) -> reqwest::Response {
    initialize_with(
        r,
        json!({"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}),
    )
    .await
}

/// An `initialize` with these params over HTTP, as sent.
pub async fn initialize_with(r: &Running, params: Value) -> reqwest::Response {
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":params});
    r.http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .unwrap()
}

/// A POST within a legacy session.
pub fn legacy_post(r: &Running, session: &str, body: &Value) -> reqwest::RequestBuilder {
    r.http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
}

/// A server served with stdio framing over an in-memory pipe.
#[derive(Debug)]
pub struct Piped {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
}

impl Piped {
    /// Serves `server` on a new pipe.
    pub fn serve(server: &Server) -> Self {
        let (client_in, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_out) = tokio::io::duplex(1 << 20);
        let s = server.clone();
        tokio::spawn(async move { s.serve_stream(server_in, server_out).await });
        Self {
            input: client_in,
            output: BufReader::new(client_out).lines(),
        }
    }

    /// Writes one message.
    pub async fn send(&mut self, message: &Value) {
        self.input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next message the server writes.
    pub async fn next(&mut self) -> Value {
        let line =
            tokio::time::timeout(std::time::Duration::from_secs(10), self.output.next_line())
                .await
                .expect("the server answers within 10 s")
                .unwrap()
                .expect("the server keeps the pipe open");
        serde_json::from_str(&line).unwrap()
    }
}

/// A `subscriptions/listen` stream over HTTP, read message by message.
pub struct Listener {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl std::fmt::Debug for Listener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Listener").finish_non_exhaustive()
    }
}

impl Listener {
    /// Listens on `r` for the notifications `filter` names (a `SubscriptionFilter`), and
    /// waits for the acknowledgement.
    pub async fn open(r: &Running, filter: Value) -> Self {
        let body = request(7, "subscriptions/listen", json!({"notifications": filter}));
        Self::open_request(r, &body).await
    }

    /// Reads the SSE stream of `resp` (a legacy session's `GET` stream, say), message by
    /// message.
    pub fn follow(resp: reqwest::Response) -> Self {
        Self {
            stream: resp.bytes_stream().boxed(),
            buffer: String::new(),
        }
    }

    /// Sends this `subscriptions/listen` request (its own `_meta`) and waits for the
    /// acknowledgement.
    pub async fn open_request(r: &Running, body: &Value) -> Self {
        let resp = post(r, body).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let mut listener = Self::follow(resp);
        let ack = listener
            .next(std::time::Duration::from_secs(5))
            .await
            .expect("acknowledged");
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        listener
    }

    /// The next JSON-RPC message on the stream, or `None` if none comes within `wait`.
    pub async fn next(&mut self, wait: std::time::Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue; // a keep-alive comment or a priming event
                }
                return Some(serde_json::from_str(&data).unwrap());
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .ok()??;
            self.buffer
                .push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        }
    }

    /// The method of the next notification within `wait`.
    pub async fn next_method(&mut self, wait: std::time::Duration) -> Option<String> {
        let m = self.next(wait).await?;
        Some(m["method"].as_str().unwrap_or_default().to_owned())
    }

    /// Skips what arrives until nothing has for `quiet`.
    pub async fn drain(&mut self, quiet: std::time::Duration) {
        while self.next(quiet).await.is_some() {}
    }
}

impl Running {
    /// A server served elsewhere (another process, behind a load balancer) at `url`;
    /// `server` is a placeholder that is never served.
    pub fn remote(url: String) -> Self {
        Self {
            url,
            server: Server::builder().build().unwrap(),
            http: reqwest::Client::new(),
        }
    }
}

/// The key of the first question an `InputRequiredResult` (or an `input_required` task)
/// asks.
pub fn first_input_key(result: &Value) -> String {
    result["inputRequests"]
        .as_object()
        .and_then(|q| q.keys().next())
        .unwrap_or_else(|| panic!("no inputRequests in {result}"))
        .clone()
}
