//! From a classified request to a reply: the era (modern from the request's `_meta`,
//! legacy from the session), the method table, argument validation, the handler call
//! (with cancellation, panics and MRTR suspension), and the era's rendering.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures_util::FutureExt as _;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::cache::{ListKind, decode_cursor};
use crate::completion::{CompletionRequest, cap};
use crate::context::{Asker, Context, ContextInner, HttpParts, LogGate, Sink};
use crate::mrtr::{Binding, Round, digest};
use crate::outcome::{coerce_strings, error_result};
use crate::protocol::jsonrpc::Request;
use crate::protocol::meta::{RequestMeta, read_request_meta};
use crate::protocol::{
    ClientCapabilities, Completion, ErrorObject, Implementation, LoggingLevel, ProgressToken,
    ProtocolVersion, codes,
};
use crate::registry::{BoxFuture, ResourceRequest};
use crate::render;
use crate::server::ServerInner;
use crate::session::legacy::LegacySession;
use crate::subscriptions::Listen;

/// What a transport should send back for a request.
#[derive(Debug)]
pub(crate) enum Reply {
    /// An encoded `result` object.
    Result(Bytes),
    /// A JSON-RPC error, and what kind of failure it is (HTTP picks the status from it).
    Error(ErrorObject, Failure),
    /// A `subscriptions/listen` stream for the transport to drive.
    Listen(Box<Listen>),
    /// The request was cancelled: send nothing.
    Cancelled,
}

/// The class of a failed request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The request itself is malformed, or needs what the client did not declare (HTTP 400).
    BadRequest,
    /// Unknown method (HTTP 404).
    NotFound,
    /// The request was understood and failed (HTTP 200 with a JSON-RPC error).
    Failed,
}

impl Reply {
    fn bad(e: ErrorObject) -> Self {
        Self::Error(e, Failure::BadRequest)
    }

    fn failed(e: ErrorObject) -> Self {
        Self::Error(e, Failure::Failed)
    }
}

/// Where a request came from, as the transport knows it.
#[derive(Debug, Default)]
pub(crate) struct Origin {
    pub(crate) cancel: CancellationToken,
    pub(crate) sink: Option<Sink>,
    pub(crate) session: Option<Arc<LegacySession>>,
    pub(crate) http: Option<Arc<HttpParts>>,
    /// `params._meta`, when the transport already read it (HTTP validates headers with it).
    pub(crate) meta: Option<(RequestMeta, Option<Box<RawValue>>)>,
    /// Closes the response connection, keeping the stream (legacy HTTP).
    pub(crate) close_stream: Option<crate::context::StreamCloser>,
}

/// The protocol era of one request and what it brings along.
struct Era {
    version: ProtocolVersion,
    caps: Arc<ClientCapabilities>,
    client_info: Option<Arc<Implementation>>,
    log: LogGate,
    session: Option<Arc<LegacySession>>,
    progress_token: Option<ProgressToken>,
    meta: Option<Box<RawValue>>,
}

impl Era {
    fn legacy(&self) -> bool {
        !self.version.is_modern()
    }
}

fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::new(
        codes::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
    )
    .with_data(serde_json::json!({
        "supported": ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
        "requested": requested,
    }))
}

fn resolve_era(
    meta: RequestMeta,
    raw: Option<Box<RawValue>>,
    session: Option<&Arc<LegacySession>>,
) -> Result<Era, ErrorObject> {
    let progress_token = meta.progress_token;
    let Some(requested) = meta.protocol_version else {
        return match session {
            Some(s) => Ok(Era {
                version: s.version,
                caps: s.client_capabilities.clone(),
                client_info: s.client_info.clone(),
                log: LogGate::Session(s.clone()),
                session: Some(s.clone()),
                progress_token,
                meta: raw,
            }),
            None => Err(ErrorObject::invalid_params(format!(
                "Missing _meta[\"{}\"]: every request must carry its protocol version \
                 (or the client must initialize a legacy session first)",
                crate::protocol::keys::PROTOCOL_VERSION
            ))),
        };
    };
    let version =
        ProtocolVersion::parse(&requested).ok_or_else(|| unsupported_version(&requested))?;
    if !version.is_modern() {
        // A legacy version inside a session is that session; without one it is served
        // statelessly with the legacy result shapes (never rejected with -32022, which would
        // send a client that read `supported` into a loop).
        if let Some(s) = session {
            return Ok(Era {
                version: s.version,
                caps: s.client_capabilities.clone(),
                client_info: s.client_info.clone(),
                log: LogGate::Session(s.clone()),
                session: Some(s.clone()),
                progress_token,
                meta: raw,
            });
        }
    }
    let caps = meta.client_capabilities.ok_or_else(|| {
        ErrorObject::invalid_params(format!(
            "Missing _meta[\"{}\"]",
            crate::protocol::keys::CLIENT_CAPABILITIES
        ))
    })?;
    let level = meta
        .log_level
        .map(|l| {
            l.parse::<LoggingLevel>()
                .map_err(|e| ErrorObject::invalid_params(format!("Invalid log level: {e}")))
        })
        .transpose()?;
    Ok(Era {
        version,
        caps: Arc::new(caps),
        client_info: meta.client_info.map(Arc::new),
        log: LogGate::Request(level),
        session: None,
        progress_token,
        meta: raw,
    })
}

fn parse<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, ErrorObject> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text)
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
}

// Views of the request params this module reads. `_meta` is not among their fields, so
// serde skips it instead of building it a second time.

#[derive(Deserialize)]
struct ListView {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallView {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
    #[serde(default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetPromptView {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
    #[serde(default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReadView {
    uri: String,
    #[serde(default)]
    input_responses: Option<Map<String, Value>>,
    #[serde(default)]
    request_state: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "type")]
enum RefView {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Deserialize)]
struct ArgumentView {
    name: String,
    #[serde(default)]
    value: String,
}

#[derive(Deserialize, Default)]
struct CompletionContextView {
    #[serde(default)]
    arguments: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CompleteView {
    #[serde(rename = "ref")]
    reference: RefView,
    argument: ArgumentView,
    #[serde(default)]
    context: Option<CompletionContextView>,
}

#[derive(Deserialize)]
struct SetLevelView {
    level: String,
}

#[derive(Deserialize)]
struct UriView {
    uri: String,
}

/// Serves one request.
pub(crate) async fn dispatch(
    server: &Arc<ServerInner>,
    request: Request,
    mut origin: Origin,
) -> Reply {
    let params = request.params.as_deref();
    let (meta, raw_meta) = match origin
        .meta
        .take()
        .map_or_else(|| read_request_meta(params), Ok)
    {
        Ok(m) => m,
        Err(e) => return Reply::bad(e),
    };
    let era = match resolve_era(meta, raw_meta, origin.session.as_ref()) {
        Ok(era) => era,
        Err(e) => return Reply::bad(e),
    };
    let method = request.method.as_str();
    let legacy = era.legacy();
    match method {
        "server/discover" if !legacy => Reply::Result(render::discover(server)),
        "tools/list" => list(server, ListKind::Tools, &era, params),
        "prompts/list" => list(server, ListKind::Prompts, &era, params),
        "resources/list" => list(server, ListKind::Resources, &era, params),
        "resources/templates/list" => list(server, ListKind::Templates, &era, params),
        "tools/call" => call_tool(server, request, era, origin).await,
        "prompts/get" => get_prompt(server, request, era, origin).await,
        "resources/read" => read_resource(server, request, era, origin).await,
        "completion/complete" => complete(server, &era, params).await,
        "subscriptions/listen" if !legacy => match Listen::open(server, &request, params) {
            Ok(listen) => Reply::Listen(Box::new(listen)),
            Err(e) => Reply::bad(e),
        },
        "ping" if legacy => Reply::Result(render::empty()),
        "logging/setLevel" if legacy => match (parse::<SetLevelView>(params), &era.session) {
            (Ok(v), Some(session)) => match v.level.parse::<LoggingLevel>() {
                Ok(level) => {
                    session.set_log_level(level);
                    Reply::Result(render::empty())
                }
                Err(e) => Reply::failed(ErrorObject::invalid_params(format!(
                    "Invalid log level: {e}"
                ))),
            },
            (Err(e), _) => Reply::bad(e),
            (_, None) => Reply::failed(ErrorObject::invalid_params(
                "logging/setLevel needs a session",
            )),
        },
        "resources/subscribe" | "resources/unsubscribe" if legacy => {
            match (parse::<UriView>(params), &era.session) {
                (Ok(v), Some(session)) => {
                    let mut subs = session.subscriptions.lock().expect("subscriptions");
                    if method == "resources/subscribe" {
                        subs.insert(v.uri);
                    } else {
                        subs.remove(&v.uri);
                    }
                    Reply::Result(render::empty())
                }
                (Err(e), _) => Reply::bad(e),
                (_, None) => Reply::failed(ErrorObject::invalid_params(format!(
                    "{method} needs a session"
                ))),
            }
        }
        "initialize" if legacy => Reply::failed(ErrorObject::invalid_request(
            "initialize is only valid as the first request of a legacy session",
        )),
        _ => Reply::Error(ErrorObject::method_not_found(method), Failure::NotFound),
    }
}

fn list(server: &ServerInner, kind: ListKind, era: &Era, params: Option<&RawValue>) -> Reply {
    let view: ListView = match parse(params) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let catalog = server.catalog.load();
    let page = match view.cursor {
        None => 0,
        Some(c) => match decode_cursor(kind, &c, catalog.page_count(kind)) {
            Ok(p) => p,
            Err(e) => return Reply::failed(e),
        },
    };
    Reply::Result(render::list_page(server, &catalog, kind, era.version, page))
}

/// How a handler run ended.
enum Run<T> {
    Done(T),
    /// Stopped: questions to ask (MRTR) or a fatal error.
    Suspended,
    Cancelled,
    Panicked(String),
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

async fn run<T>(cx: &Context, fut: BoxFuture<T>) -> Run<T> {
    let cancel = cx.inner.cancel.clone();
    let fut = crate::logging::scope(cx.clone(), AssertUnwindSafe(fut).catch_unwind());
    let ran = tokio::select! {
        biased;
        out = fut => match out {
            Ok(v) => Run::Done(v),
            Err(payload) => Run::Panicked(panic_message(&*payload)),
        },
        () = cx.wait_suspended() => Run::Suspended,
        () = cancel.cancelled() => Run::Cancelled,
    };
    // A handler that watches its own cancellation may finish with a value: a cancelled
    // request still gets no response (the receiver of `notifications/cancelled` SHOULD
    // not send one), on every transport.
    if cancel.is_cancelled() {
        Run::Cancelled
    } else {
        ran
    }
}

/// Everything needed to build the handler's context.
struct Prepared {
    cx: Context,
    binding: Option<Binding>,
}

#[allow(clippy::too_many_arguments)]
fn prepare(
    server: &Arc<ServerInner>,
    request: &Request,
    era: Era,
    origin: Origin,
    method: &str,
    name: &str,
    arguments: &Value,
    state: Option<String>,
    responses: Option<Map<String, Value>>,
) -> Result<Prepared, ErrorObject> {
    let (asker, binding) = if let Some(session) = &era.session {
        (Asker::Legacy(session.clone()), None)
    } else if era.version.is_modern() {
        let binding = Binding {
            method: method.to_owned(),
            name: name.to_owned(),
            arguments_digest: digest(arguments),
            principal: origin
                .http
                .as_ref()
                .and_then(|h| h.principal.as_ref())
                .map(|p| p.0.clone()),
        };
        let opened = match state {
            Some(token) => Some(server.sealer.open(&token, &binding)?),
            None => None,
        };
        let round = Round::new(opened, responses.unwrap_or_default());
        (Asker::Mrtr(Mutex::new(round)), Some(binding))
    } else {
        (Asker::None, None)
    };
    let cx = Context::new(ContextInner {
        server: server.clone(),
        request_id: request.id.clone(),
        version: era.version,
        client_capabilities: era.caps,
        client_info: era.client_info,
        meta: era.meta,
        progress_token: era.progress_token,
        log: era.log,
        cancel: origin.cancel,
        sink: origin.sink,
        asker,
        http: origin.http,
        close_stream: origin.close_stream,
        suspended: Notify::new(),
        fatal: Mutex::new(None),
        suspend_flag: AtomicBool::new(false),
    });
    Ok(Prepared { cx, binding })
}

/// Turns a suspended run into its reply: the fatal error, or an `InputRequiredResult`.
fn suspended(server: &ServerInner, prepared: &Prepared) -> Reply {
    if let Some(e) = prepared.cx.inner.fatal.lock().expect("fatal").take() {
        return if e.code == codes::MISSING_REQUIRED_CLIENT_CAPABILITY {
            Reply::bad(e)
        } else {
            Reply::failed(e)
        };
    }
    let (Asker::Mrtr(round), Some(binding)) = (&prepared.cx.inner.asker, &prepared.binding) else {
        return Reply::failed(ErrorObject::internal("handler stopped without a reason"));
    };
    let round = round.lock().expect("round");
    let mut requests = Map::new();
    let mut pending = BTreeMap::new();
    for (key, (question_digest, question)) in &round.unanswered {
        requests.insert(
            key.clone(),
            serde_json::json!({"method": question.method, "params": question.params}),
        );
        pending.insert(key.clone(), question_digest.clone());
    }
    let state = server.sealer.seal(binding, round.answers(), pending);
    Reply::Result(render::input_required(server, requests, state))
}

/// Runs a handler and turns how it ended into a reply; `done` renders its outcome.
async fn execute<T>(
    server: &ServerInner,
    prepared: &Prepared,
    fut: BoxFuture<Result<T, ErrorObject>>,
    kind: &str,
    name: &str,
    done: impl FnOnce(Result<T, ErrorObject>) -> Reply,
) -> Reply {
    match run(&prepared.cx, fut).await {
        Run::Done(outcome) => done(outcome),
        Run::Suspended => suspended(server, prepared),
        Run::Cancelled => Reply::Cancelled,
        Run::Panicked(m) => handler_panicked(kind, name, &m),
    }
}

fn handler_panicked(kind: &str, name: &str, message: &str) -> Reply {
    tracing::error!(%kind, %name, panic = %message, "handler panicked");
    Reply::failed(ErrorObject::internal(format!(
        "{kind} `{name}` panicked: {message}"
    )))
}

async fn call_tool(server: &Arc<ServerInner>, request: Request, era: Era, origin: Origin) -> Reply {
    let view: CallView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let catalog = server.catalog.load();
    let Some(entry) = catalog.tool(&view.name).cloned() else {
        return Reply::failed(
            ErrorObject::invalid_params(format!("Unknown tool: {}", view.name))
                .with_data(serde_json::json!({"name": view.name})),
        );
    };
    drop(catalog);
    let version = era.version;
    let arguments = view.arguments.unwrap_or_else(|| Value::Object(Map::new()));
    if version.is_modern()
        && let Some(http) = &origin.http
        && let Err(e) = crate::transport::check_param_headers(http, &entry.headers, &arguments)
    {
        return Reply::bad(e);
    }
    if let Err(problems) = entry.validator.check(&arguments) {
        let result = error_result(format!(
            "Invalid arguments for tool `{}`: {problems}",
            view.name
        ));
        return Reply::Result(render::tool_result(server, version, &entry, result));
    }
    let prepared = match prepare(
        server,
        &request,
        era,
        origin,
        "tools/call",
        &view.name,
        &arguments,
        view.request_state,
        view.input_responses,
    ) {
        Ok(p) => p,
        Err(e) => return Reply::failed(e),
    };
    let fut = (entry.call)(arguments, prepared.cx.clone());
    execute(
        server,
        &prepared,
        fut,
        "tool",
        &view.name,
        |outcome| match outcome {
            Ok(result) => Reply::Result(render::tool_result(server, version, &entry, result)),
            Err(e) => Reply::failed(e),
        },
    )
    .await
}

fn stringify(values: Map<String, Value>) -> Vec<(String, String)> {
    values
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| match v {
            Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect()
}

async fn get_prompt(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    origin: Origin,
) -> Reply {
    let view: GetPromptView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let catalog = server.catalog.load();
    let Some(entry) = catalog.prompt(&view.name).cloned() else {
        return Reply::failed(ErrorObject::invalid_params(format!(
            "Unknown prompt: {}",
            view.name
        )));
    };
    drop(catalog);
    let version = era.version;
    let raw_args = view.arguments.unwrap_or_default();
    let arguments = Value::Object(coerce_strings(&entry.arguments_schema, stringify(raw_args)));
    if let Err(problems) = entry.validator.check(&arguments) {
        return Reply::failed(ErrorObject::invalid_params(format!(
            "Invalid arguments for prompt `{}`: {problems}",
            view.name
        )));
    }
    let prepared = match prepare(
        server,
        &request,
        era,
        origin,
        "prompts/get",
        &view.name,
        &arguments,
        view.request_state,
        view.input_responses,
    ) {
        Ok(p) => p,
        Err(e) => return Reply::failed(e),
    };
    let fut = (entry.get)(arguments, prepared.cx.clone());
    execute(
        server,
        &prepared,
        fut,
        "prompt",
        &view.name,
        |outcome| match outcome {
            Ok(mut result) => {
                if result.description.is_none() {
                    result.description.clone_from(&entry.prompt.description);
                }
                Reply::Result(render::prompt_result(server, version, result))
            }
            Err(e) => Reply::failed(e),
        },
    )
    .await
}

fn resource_not_found(version: ProtocolVersion, uri: &str) -> Reply {
    let code = if version.is_modern() {
        codes::INVALID_PARAMS
    } else {
        codes::LEGACY_RESOURCE_NOT_FOUND
    };
    Reply::failed(
        ErrorObject::new(code, format!("Resource not found: {uri}"))
            .with_data(serde_json::json!({"uri": uri})),
    )
}

async fn read_resource(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    origin: Origin,
) -> Reply {
    let view: ReadView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let version = era.version;
    let catalog = server.catalog.load();
    let (read, resource_request, cache) = if let Some(entry) = catalog.resource(&view.uri) {
        (
            entry.read.clone(),
            ResourceRequest {
                uri: view.uri.clone(),
                mime_type: entry.resource.mime_type.as_deref().map(Arc::from),
                variables: Map::new(),
            },
            entry.cache.apply(server.config.cache.read),
        )
    } else if let Some((entry, vars)) = catalog
        .templates
        .iter()
        .find_map(|t| t.matcher.match_uri(&view.uri).map(|vars| (t, vars)))
    {
        (
            entry.read.clone(),
            ResourceRequest {
                uri: view.uri.clone(),
                mime_type: entry.template.mime_type.as_deref().map(Arc::from),
                variables: coerce_strings(&entry.variables_schema, vars),
            },
            entry.cache.apply(server.config.cache.read),
        )
    } else {
        return resource_not_found(version, &view.uri);
    };
    drop(catalog);
    let arguments = Value::String(view.uri.clone());
    let prepared = match prepare(
        server,
        &request,
        era,
        origin,
        "resources/read",
        &view.uri,
        &arguments,
        view.request_state,
        view.input_responses,
    ) {
        Ok(p) => p,
        Err(e) => return Reply::failed(e),
    };
    let fut = read(resource_request, prepared.cx.clone());
    execute(
        server,
        &prepared,
        fut,
        "resource",
        &view.uri,
        |outcome| match outcome {
            Ok(contents) => Reply::Result(render::read_result(server, version, contents, cache)),
            Err(e)
                if e.code == codes::INVALID_PARAMS
                    && e.data.as_ref().is_some_and(|d| d.get("uri").is_some()) =>
            {
                resource_not_found(version, &view.uri)
            }
            Err(e) => Reply::failed(e),
        },
    )
    .await
}

/// Values of a schema property's `enum` (or `oneOf` consts), for completion without a
/// completer.
fn enum_values(schema: &crate::protocol::JsonObject, property: &str) -> Vec<String> {
    let Some(mut prop) = schema.get("properties").and_then(|p| p.get(property)) else {
        return Vec::new();
    };
    // `Option<Enum>`: `anyOf: [{$ref}, {type: null}]`.
    if let Some(first) = prop
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|alts| {
            alts.iter()
                .find(|a| a.get("type") != Some(&Value::from("null")))
        })
    {
        prop = first;
    }
    let prop = match prop
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => schema
            .get("$defs")
            .and_then(|d| d.get(name))
            .unwrap_or(prop),
        None => prop,
    };
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    prop.get("oneOf")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| v.get("const").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

async fn complete(server: &Arc<ServerInner>, era: &Era, params: Option<&RawValue>) -> Reply {
    let view: CompleteView = match parse(params) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let request = CompletionRequest {
        argument: view.argument.name.clone(),
        value: view.argument.value,
        context: view.context.unwrap_or_default().arguments,
    };
    let catalog = server.catalog.load();
    let (completer, schema) = match &view.reference {
        RefView::Prompt { name } => match catalog.prompt(name) {
            Some(p) => (
                p.completers.get(&view.argument.name).cloned(),
                p.arguments_schema.clone(),
            ),
            None => {
                return Reply::failed(ErrorObject::invalid_params(format!(
                    "Unknown prompt: {name}"
                )));
            }
        },
        RefView::Resource { uri } => match catalog.template(uri) {
            Some(t) => (
                t.completers.get(&view.argument.name).cloned(),
                t.variables_schema.clone(),
            ),
            None if catalog.resource(uri).is_some() => (None, Default::default()),
            None => {
                return Reply::failed(ErrorObject::invalid_params(format!(
                    "Unknown resource template: {uri}"
                )));
            }
        },
    };
    drop(catalog);
    let completion = match completer {
        Some(c) => match AssertUnwindSafe(c.complete(request)).catch_unwind().await {
            Ok(c) => c,
            Err(p) => {
                return handler_panicked("completer", &view.argument.name, &panic_message(&*p));
            }
        },
        None => Completion {
            values: request.matching(enum_values(&schema, &view.argument.name)),
            total: None,
            has_more: None,
        },
    };
    Reply::Result(render::completion_result(
        server,
        era.version,
        cap(completion),
    ))
}
