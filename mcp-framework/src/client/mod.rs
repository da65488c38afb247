//! An in-process MCP client for tests: it talks to a [`Server`] over an in-memory pipe
//! using the real stdio wire format, in modern (2026-07-28) or legacy mode, and answers
//! elicitation, sampling and roots requests through callbacks (retrying MRTR requests for
//! you, or answering legacy server-to-client requests).
//!
//! ```
//! # async fn demo(server: mcp_framework::Server) -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_framework::client::Client;
//! let client = Client::connect(&server).await?;
//! let tools = client.list_tools().await?;
//! let result = client.call_tool("add", serde_json::json!({"a": 1, "b": 2})).await?;
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, WriteHalf};
use tokio::sync::{Mutex, broadcast, mpsc, oneshot};

use crate::future::BoxFuture;
use crate::protocol::{
    CallToolResult, ClientCapabilities, CompleteResult, CreateMessageRequestParams,
    CreateMessageResult, DiscoverResult, ElicitRequestParams, ElicitResult, ErrorObject,
    GetPromptResult, Implementation, ListRootsResult, LoggingLevel, Prompt, ProtocolVersion,
    ReadResourceResult, RequestId, Resource, ResourceTemplate, Root, Tool, keys,
};
use crate::server::Server;

type Callback<P, R> = Arc<dyn Fn(P) -> BoxFuture<R> + Send + Sync>;

/// An error from the client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("{0}")]
    Rpc(ErrorObject),
    /// The connection closed.
    #[error("the connection to the server closed")]
    Closed,
    /// The server did not answer within the timeout.
    #[error("the server did not answer in time")]
    Timeout,
    /// A result did not have the expected shape.
    #[error("unexpected result: {0}")]
    Decode(String),
}

impl ClientError {
    /// The JSON-RPC error, if the server sent one.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Self::Rpc(e) => Some(e),
            _ => None,
        }
    }
}

/// Per-request options.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Ask for progress notifications with this token.
    pub progress_token: Option<Value>,
    /// Ask for log messages at or above this level (2026-07-28).
    pub log_level: Option<LoggingLevel>,
    /// Extra `_meta` keys.
    pub meta: Map<String, Value>,
}

impl RequestOptions {
    /// With a progress token.
    #[must_use]
    pub fn progress(mut self, token: impl Into<Value>) -> Self {
        self.progress_token = Some(token.into());
        self
    }

    /// With a log level.
    #[must_use]
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }
}

/// Configures a [`Client`].
#[must_use]
pub struct ClientBuilder {
    legacy: Option<ProtocolVersion>,
    capabilities: ClientCapabilities,
    info: Implementation,
    elicit: Option<Callback<ElicitRequestParams, ElicitResult>>,
    sample: Option<Callback<CreateMessageRequestParams, CreateMessageResult>>,
    roots: Option<Callback<(), Vec<Root>>>,
    timeout: Duration,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("legacy", &self.legacy)
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Speak a legacy revision: `initialize` first, then use the session.
    pub fn legacy(mut self, version: ProtocolVersion) -> Self {
        self.legacy = Some(version);
        self
    }

    /// Declares capabilities (callbacks declare theirs automatically).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answers form and URL elicitation (and declares the `elicitation` capability).
    pub fn on_elicit<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.elicit = Some(Arc::new(move |p| Box::pin(f(p))));
        let e = self
            .capabilities
            .elicitation
            .get_or_insert_with(Default::default);
        e.form.get_or_insert_with(Default::default);
        e.url.get_or_insert_with(Default::default);
        self
    }

    /// Answers sampling requests (and declares the `sampling` capability).
    pub fn on_sample<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.sample = Some(Arc::new(move |p| Box::pin(f(p))));
        self.capabilities
            .sampling
            .get_or_insert_with(Default::default);
        self
    }

    /// Answers `roots/list` (and declares the `roots` capability).
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(Arc::new(move |()| {
            let r = roots.clone();
            Box::pin(async move { r })
        }));
        self.capabilities.roots.get_or_insert_with(Default::default);
        self
    }

    /// How long to wait for each answer (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects to `server` (and initializes, in legacy mode).
    pub async fn connect(self, server: &Server) -> Result<Client, ClientError> {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        let server = server.clone();
        tokio::spawn(async move {
            let _ = server.serve_stream(server_read, server_write).await;
        });
        let (read, write) = tokio::io::split(client_io);
        let (notifications, _) = broadcast::channel(4096);
        let inner = Arc::new(Inner {
            write: Mutex::new(write),
            pending: std::sync::Mutex::new(HashMap::new()),
            subscriptions: std::sync::Mutex::new(HashMap::new()),
            notifications,
            next_id: AtomicI64::new(1),
            builder: self,
        });
        tokio::spawn(read_loop(inner.clone(), BufReader::new(read)));
        let client = Client { inner };
        if let Some(version) = client.inner.builder.legacy {
            let params = json!({
                "protocolVersion": version.as_str(),
                "capabilities": client.inner.builder.capabilities,
                "clientInfo": client.inner.builder.info,
            });
            let result = client.send("initialize", params).await?;
            let _: Value = result;
            client
                .notify("notifications/initialized", json!({}))
                .await?;
        }
        Ok(client)
    }
}

struct Inner {
    write: Mutex<WriteHalf<tokio::io::DuplexStream>>,
    pending: std::sync::Mutex<HashMap<RequestId, oneshot::Sender<Result<Value, ErrorObject>>>>,
    subscriptions: std::sync::Mutex<HashMap<RequestId, mpsc::UnboundedSender<Value>>>,
    notifications: broadcast::Sender<Value>,
    next_id: AtomicI64,
    builder: ClientBuilder,
}

/// A connected test client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("legacy", &self.inner.builder.legacy)
            .finish_non_exhaustive()
    }
}

async fn read_loop(
    inner: Arc<Inner>,
    mut read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
) {
    let mut line = String::new();
    loop {
        line.clear();
        match read.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(msg) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        let id = msg
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        match (id, method) {
            (Some(id), None) => {
                let outcome = match (msg.get("result"), msg.get("error")) {
                    (Some(r), _) => Ok(r.clone()),
                    (None, Some(e)) => Err(serde_json::from_value(e.clone())
                        .unwrap_or_else(|_| ErrorObject::internal("malformed error"))),
                    _ => continue,
                };
                let waiter = inner.pending.lock().expect("pending").remove(&id);
                if let Some(tx) = waiter {
                    let _ = tx.send(outcome);
                } else if let Some(tx) = inner.subscriptions.lock().expect("subs").remove(&id) {
                    // The final result of a listen closed by the server.
                    let _ = tx.send(msg.clone());
                }
            }
            (Some(id), Some(method)) => {
                // A legacy server-to-client request.
                let inner = inner.clone();
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                tokio::spawn(async move {
                    let answer = answer_request(&inner.builder, &method, params).await;
                    let mut reply = json!({"jsonrpc": "2.0", "id": id});
                    match answer {
                        Ok(result) => reply["result"] = result,
                        Err(e) => {
                            reply["error"] = serde_json::to_value(e).expect("error serializes");
                        }
                    }
                    let _ = write_line(&inner, &reply).await;
                });
            }
            (None, Some(_)) => {
                let sub = msg
                    .pointer("/params/_meta")
                    .and_then(|m| m.get(keys::SUBSCRIPTION_ID))
                    .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
                let routed =
                    sub.and_then(|id| inner.subscriptions.lock().expect("subs").get(&id).cloned());
                match routed {
                    Some(tx) => {
                        let _ = tx.send(msg);
                    }
                    None => {
                        // A server-side teardown of a subscription (stdio).
                        if msg["method"] == "notifications/cancelled"
                            && let Ok(id) = serde_json::from_value::<RequestId>(
                                msg["params"]["requestId"].clone(),
                            )
                            && let Some(tx) = inner.subscriptions.lock().expect("subs").remove(&id)
                        {
                            let _ = tx.send(msg);
                            continue;
                        }
                        let _ = inner.notifications.send(msg);
                    }
                }
            }
            (None, None) => {}
        }
    }
    inner.pending.lock().expect("pending").clear();
    inner.subscriptions.lock().expect("subs").clear();
}

async fn answer_request(
    builder: &ClientBuilder,
    method: &str,
    params: Value,
) -> Result<Value, ErrorObject> {
    let decode = |e: serde_json::Error| ErrorObject::invalid_params(e.to_string());
    match method {
        "elicitation/create" => {
            let f = builder
                .elicit
                .clone()
                .ok_or_else(|| ErrorObject::method_not_found(method))?;
            let p = serde_json::from_value(params).map_err(decode)?;
            Ok(serde_json::to_value(f(p).await).expect("serializes"))
        }
        "sampling/createMessage" => {
            let f = builder
                .sample
                .clone()
                .ok_or_else(|| ErrorObject::method_not_found(method))?;
            let p = serde_json::from_value(params).map_err(decode)?;
            Ok(serde_json::to_value(f(p).await).expect("serializes"))
        }
        "roots/list" => {
            let f = builder
                .roots
                .clone()
                .ok_or_else(|| ErrorObject::method_not_found(method))?;
            let roots = f(()).await;
            Ok(serde_json::to_value(ListRootsResult { roots, meta: None }).expect("serializes"))
        }
        "ping" => Ok(json!({})),
        other => Err(ErrorObject::method_not_found(other)),
    }
}

async fn write_line(inner: &Inner, msg: &Value) -> Result<(), ClientError> {
    let mut bytes = serde_json::to_vec(msg).expect("messages serialize");
    bytes.push(b'\n');
    let mut w = inner.write.lock().await;
    w.write_all(&bytes).await.map_err(|_| ClientError::Closed)?;
    w.flush().await.map_err(|_| ClientError::Closed)
}

/// An open `subscriptions/listen` stream.
#[derive(Debug)]
pub struct Subscription {
    id: RequestId,
    rx: mpsc::UnboundedReceiver<Value>,
    client: Client,
}

impl Subscription {
    /// The subscription id (the listen request's id).
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The next message of the stream (notifications, or the final result when the server
    /// ends it); `None` once it is over.
    pub async fn next(&mut self) -> Option<Value> {
        self.rx.recv().await
    }

    /// Ends the subscription (`notifications/cancelled`).
    pub async fn cancel(self) -> Result<(), ClientError> {
        self.client
            .inner
            .subscriptions
            .lock()
            .expect("subs")
            .remove(&self.id);
        self.client
            .notify(
                "notifications/cancelled",
                json!({"requestId": self.id.to_value()}),
            )
            .await
    }
}

impl Client {
    /// Connects in modern (2026-07-28) mode with no capabilities.
    pub async fn connect(server: &Server) -> Result<Self, ClientError> {
        Self::builder().connect(server).await
    }

    /// Configures a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder {
            legacy: None,
            capabilities: ClientCapabilities::default(),
            info: Implementation {
                name: "mcp-framework-test-client".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Implementation::default()
            },
            elicit: None,
            sample: None,
            roots: None,
            timeout: Duration::from_secs(30),
        }
    }

    /// Every notification not tied to a subscription (progress, log messages, legacy
    /// list changes), from now on.
    pub fn notifications(&self) -> broadcast::Receiver<Value> {
        self.inner.notifications.subscribe()
    }

    fn meta(&self, options: &RequestOptions) -> Map<String, Value> {
        let mut meta = options.meta.clone();
        if self.inner.builder.legacy.is_none() {
            meta.insert(
                keys::PROTOCOL_VERSION.into(),
                ProtocolVersion::LATEST.as_str().into(),
            );
            meta.insert(
                keys::CLIENT_CAPABILITIES.into(),
                serde_json::to_value(&self.inner.builder.capabilities).expect("serializes"),
            );
            meta.insert(
                keys::CLIENT_INFO.into(),
                serde_json::to_value(&self.inner.builder.info).expect("serializes"),
            );
            if let Some(level) = options.log_level {
                meta.insert(keys::LOG_LEVEL.into(), level.as_str().into());
            }
        }
        if let Some(token) = &options.progress_token {
            meta.insert(keys::PROGRESS_TOKEN.into(), token.clone());
        }
        meta
    }

    async fn send(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let (id, rx) = self.start(method, params).await?;
        match tokio::time::timeout(self.inner.builder.timeout, rx).await {
            Err(_) => {
                self.inner.pending.lock().expect("pending").remove(&id);
                Err(ClientError::Timeout)
            }
            Ok(Err(_)) => Err(ClientError::Closed),
            Ok(Ok(Err(e))) => Err(ClientError::Rpc(e)),
            Ok(Ok(Ok(v))) => Ok(v),
        }
    }

    async fn start(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(RequestId, oneshot::Receiver<Result<Value, ErrorObject>>), ClientError> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.inner
            .pending
            .lock()
            .expect("pending")
            .insert(id.clone(), tx);
        let msg =
            json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method, "params": params});
        write_line(&self.inner, &msg).await?;
        Ok((id, rx))
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        write_line(
            &self.inner,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        )
        .await
    }

    /// Sends a request with `params` exactly as given (no `_meta` added) and returns its
    /// raw `result`.
    pub async fn send_raw(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.send(method, params).await
    }

    /// Sends any request and returns its raw `result` (the `_meta` the mode needs is
    /// added to `params`).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.request_with(method, params, &RequestOptions::default())
            .await
    }

    /// [`request`](Self::request) with options (progress token, log level).
    pub async fn request_with(
        &self,
        method: &str,
        mut params: Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        if !params.is_object() {
            params = json!({});
        }
        let meta = self.meta(options);
        if !meta.is_empty() {
            params["_meta"] = Value::Object(meta);
        }
        self.send(method, params).await
    }

    /// Sends a request and, while the server answers `input_required`, answers its input
    /// requests with the callbacks and retries with `inputResponses` and `requestState`.
    /// A request answered with a task (the client declared the Tasks extension) is
    /// followed to its end: polled with `tasks/get`, its questions answered with
    /// `tasks/update`; its result is returned, its error is this call's.
    pub async fn request_resolving(
        &self,
        method: &str,
        params: Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        let mut params = params;
        for _ in 0..16 {
            let result = self.request_with(method, params.clone(), options).await?;
            match result.get("resultType").and_then(Value::as_str) {
                Some("input_required") => {}
                Some("task") => return self.follow_task(&result).await,
                _ => return Ok(result),
            }
            let responses = self.answer_all(result.get("inputRequests")).await?;
            params["inputResponses"] = Value::Object(responses);
            match result.get("requestState") {
                Some(state) => params["requestState"] = state.clone(),
                None => {
                    if let Some(p) = params.as_object_mut() {
                        p.remove("requestState");
                    }
                }
            }
        }
        Err(ClientError::Decode("too many input_required rounds".into()))
    }

    /// Answers `inputRequests` (MRTR or a task's) with the callbacks, by key.
    async fn answer_all(
        &self,
        requests: Option<&Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut responses = Map::new();
        for (key, req) in requests.and_then(Value::as_object).into_iter().flatten() {
            let method = req
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let p = req.get("params").cloned().unwrap_or_else(|| json!({}));
            let answer = answer_request(&self.inner.builder, method, p)
                .await
                .map_err(ClientError::Rpc)?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }

    /// Polls the task of a `CreateTaskResult` until it ends (within the client's timeout
    /// for each request, at most 10,000 polls), answering its questions once each.
    async fn follow_task(&self, created: &Value) -> Result<Value, ClientError> {
        let id = created
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::Decode("a task result without taskId".into()))?
            .to_owned();
        let interval = |t: &Value| {
            Duration::from_millis(
                t.get("pollIntervalMs")
                    .and_then(Value::as_u64)
                    .unwrap_or(100)
                    .clamp(5, 1_000),
            )
        };
        let mut wait = interval(created);
        let mut answered = std::collections::HashSet::new();
        for _ in 0..10_000 {
            tokio::time::sleep(wait).await;
            let task = self.request("tasks/get", json!({"taskId": id})).await?;
            wait = interval(&task);
            match task.get("status").and_then(Value::as_str) {
                Some("completed") => {
                    return Ok(task.get("result").cloned().unwrap_or_else(|| json!({})));
                }
                Some("failed") => {
                    let error = task.get("error").cloned().unwrap_or_default();
                    return Err(ClientError::Rpc(
                        serde_json::from_value(error).unwrap_or_else(|_| {
                            ErrorObject::internal("the task failed without an error")
                        }),
                    ));
                }
                Some("cancelled") => {
                    return Err(ClientError::Rpc(ErrorObject::internal(
                        "the task was cancelled",
                    )));
                }
                Some("input_required") => {
                    let mut fresh = Map::new();
                    if let Some(requests) = task.get("inputRequests").and_then(Value::as_object) {
                        for (key, req) in requests {
                            if answered.insert(key.clone()) {
                                fresh.insert(key.clone(), req.clone());
                            }
                        }
                    }
                    if !fresh.is_empty() {
                        let responses = self.answer_all(Some(&Value::Object(fresh))).await?;
                        self.request(
                            "tasks/update",
                            json!({"taskId": id, "inputResponses": responses}),
                        )
                        .await?;
                    }
                }
                _ => {}
            }
        }
        Err(ClientError::Timeout)
    }

    fn decode<T: DeserializeOwned>(v: Value) -> Result<T, ClientError> {
        serde_json::from_value(v).map_err(|e| ClientError::Decode(e.to_string()))
    }

    async fn list_all<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.request(method, params).await?;
            let items = page.get(field).cloned().unwrap_or_else(|| json!([]));
            out.extend(Self::decode::<Vec<T>>(items)?);
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(out),
            }
        }
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<DiscoverResult, ClientError> {
        Self::decode(self.request("server/discover", json!({})).await?)
    }

    /// Every tool (following `nextCursor`).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, ClientError> {
        self.list_all("tools/list", "tools").await
    }

    /// Every prompt.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, ClientError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// Every resource.
    pub async fn list_resources(&self) -> Result<Vec<Resource>, ClientError> {
        self.list_all("resources/list", "resources").await
    }

    /// Every resource template.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, ClientError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// Calls a tool, answering input requests through the callbacks.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, &RequestOptions::default())
            .await
    }

    /// [`call_tool`](Self::call_tool) with options.
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: &RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        Self::decode(
            self.request_resolving("tools/call", params, options)
                .await?,
        )
    }

    /// Gets a prompt.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, ClientError> {
        let params = json!({"name": name, "arguments": arguments});
        Self::decode(
            self.request_resolving("prompts/get", params, &RequestOptions::default())
                .await?,
        )
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let params = json!({"uri": uri});
        Self::decode(
            self.request_resolving("resources/read", params, &RequestOptions::default())
                .await?,
        )
    }

    /// Completes a prompt argument (`reference` = `ref/prompt` name) or a template variable
    /// (`ref/resource` URI template).
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Option<Value>,
    ) -> Result<CompleteResult, ClientError> {
        let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        if let Some(ctx) = context {
            params["context"] = json!({"arguments": ctx});
        }
        Self::decode(self.request("completion/complete", params).await?)
    }

    /// Opens a `subscriptions/listen` stream (modern mode). `filter` is the `notifications`
    /// object, e.g. `json!({"toolsListChanged": true})`. The first message is the
    /// acknowledgement.
    pub async fn listen(&self, filter: Value) -> Result<Subscription, ClientError> {
        let id = RequestId::Number(self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = mpsc::unbounded_channel();
        self.inner
            .subscriptions
            .lock()
            .expect("subs")
            .insert(id.clone(), tx);
        let mut params = json!({"notifications": filter});
        params["_meta"] = Value::Object(self.meta(&RequestOptions::default()));
        let msg = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": "subscriptions/listen", "params": params});
        write_line(&self.inner, &msg).await?;
        Ok(Subscription {
            id,
            rx,
            client: self.clone(),
        })
    }

    /// Cancels an in-flight request by id (`notifications/cancelled`).
    pub async fn cancel(&self, id: &RequestId) -> Result<(), ClientError> {
        self.notify(
            "notifications/cancelled",
            json!({"requestId": id.to_value()}),
        )
        .await
    }

    /// Starts a request without waiting; returns its id and a future of its outcome.
    pub async fn start_request(
        &self,
        method: &str,
        mut params: Value,
        options: &RequestOptions,
    ) -> Result<
        (
            RequestId,
            impl Future<Output = Result<Value, ClientError>> + use<>,
        ),
        ClientError,
    > {
        let meta = self.meta(options);
        if !meta.is_empty() {
            params["_meta"] = Value::Object(meta);
        }
        let (id, rx) = self.start(method, params).await?;
        Ok((id, async move {
            match rx.await {
                Err(_) => Err(ClientError::Closed),
                Ok(Err(e)) => Err(ClientError::Rpc(e)),
                Ok(Ok(v)) => Ok(v),
            }
        }))
    }
}
