//! MCP-level middleware over real transports: Streamable HTTP in both eras (2026-07-28
//! requests, legacy sessions) and stdio framing in both eras. A layer that rejects a call,
//! one that answers it, a timeout whose handler sees the cancellation, a concurrency limit,
//! a rate limit per principal, layers of one item only, the order of the layers, and the
//! audit log.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use mcp_framework::middleware::{
    self, AuditLayer, BoxError, Call, CallOutput, Next, RateLimitLayer,
};
use mcp_framework::{
    BoxFuture, CallToolResult, Content, Context, ErrorObject, Server, ServerBuilder, State,
    ToolDefinition, ToolSet, prompt, prompts, resource, resources, tool, tools,
};
use serde_json::{Value, json};
use tests::fixture::obj;
use tests::wire::{
    Piped, json_of, legacy_post, legacy_session, meta, post, request, sse_events, start,
    start_authenticated,
};
use tower::{Layer, Service};

// --- The items ------------------------------------------------------------------------------

/// Echoes the text.
#[tool(register = false)]
fn echo(text: String) -> String {
    text
}

/// Only for the admin.
#[tool(register = false)]
fn guarded() -> &'static str {
    "the secret"
}

/// How many times `cached` ran.
static CACHED_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Answered by a layer: never runs.
#[tool(register = false)]
fn cached() -> &'static str {
    CACHED_RUNS.fetch_add(1, Ordering::SeqCst);
    "from the handler"
}

/// What handlers that were stopped saw: how many saw their context cancelled.
#[derive(Debug, Default)]
struct Seen {
    cancelled: AtomicUsize,
    notify: tokio::sync::Notify,
}

/// Sleeps for 10 s, unless its 200 ms timeout stops it; a task it spawns records the
/// cancellation.
#[tool(register = false, layer = middleware::timeout(Duration::from_millis(200)))]
async fn slow(#[ctx] seen: State<Arc<Seen>>, cx: Context) -> &'static str {
    let seen = seen.0.clone();
    tokio::spawn(async move {
        cx.cancelled().await;
        seen.cancelled.fetch_add(1, Ordering::SeqCst);
        seen.notify.notify_waiters();
    });
    tokio::time::sleep(Duration::from_secs(10)).await;
    "woke up"
}

/// Sleeps for 10 s (no timeout of its own); a task it spawns records the cancellation.
#[tool(register = false)]
async fn watched_nap(#[ctx] seen: State<Arc<Seen>>, cx: Context) -> &'static str {
    let seen = seen.0.clone();
    tokio::spawn(async move {
        cx.cancelled().await;
        seen.cancelled.fetch_add(1, Ordering::SeqCst);
        seen.notify.notify_waiters();
    });
    tokio::time::sleep(Duration::from_secs(10)).await;
    "woke up"
}

/// Sleeps for 2 s (no timeout of its own).
#[tool(register = false)]
async fn nap() -> &'static str {
    tokio::time::sleep(Duration::from_secs(2)).await;
    "rested"
}

/// Greets.
#[prompt(register = false)]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// A note.
#[resource(template = "note:///{id}", register = false)]
fn note(id: u32) -> String {
    format!("note {id}")
}

/// Asks the user for a name (an `InputRequiredResult` on 2026-07-28).
#[tool(register = false)]
async fn ask(cx: Context) -> Result<String, mcp_framework::ToolError> {
    #[derive(serde::Deserialize, schemars::JsonSchema, mcp_framework::Form)]
    struct Name {
        name: String,
    }
    let name = cx.elicit::<Name>("Your name?").await?;
    Ok(name.accepted().map_or_else(String::new, |n| n.name))
}

fn builder() -> ServerBuilder {
    Server::builder()
        .name("middleware-test")
        .tools(tools![echo, guarded, cached, slow, nap, ask])
        .prompts(prompts![greet])
        .resources(resources![note])
        // `slow` takes it (`build()` refuses a server without); tests that read it
        // register their own, which replaces this one.
        .state(Arc::new(Seen::default()))
}

// --- Talking to it over every transport and era ---------------------------------------------

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// The same request without `_meta`, as a legacy client sends it.
fn legacy(mut message: Value) -> Value {
    message["params"]
        .as_object_mut()
        .expect("params")
        .remove("_meta");
    message
}

/// The answer to a legacy POST, SSE or JSON.
async fn legacy_answer(resp: reqwest::Response) -> Value {
    if resp.headers()["content-type"] == "text/event-stream" {
        sse_events(resp, 1).await.remove(0)
    } else {
        json_of(resp).await.1
    }
}

/// A stdio connection (in memory) after a legacy `initialize`.
async fn legacy_pipe(server: &Server) -> Piped {
    let mut p = Piped::serve(server);
    p.send(
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    )
    .await;
    assert!(p.next().await["result"].is_object());
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    p
}

/// The response to `id` on a pipe (notifications before it are skipped).
async fn answer(p: &mut Piped, id: u64) -> Value {
    loop {
        let m = p.next().await;
        if m["id"] == id {
            return m;
        }
    }
}

/// `message` sent over modern HTTP, legacy HTTP, modern stdio and legacy stdio: the
/// responses, labelled.
async fn everywhere(server: &Server, message: &Value) -> Vec<(&'static str, Value)> {
    let id = message["id"].as_u64().expect("an id");
    let r = start(server.clone()).await;
    let (_, modern_http) = json_of(post(&r, message).send().await.unwrap()).await;
    let session = legacy_session(&r, "2025-11-25").await;
    let legacy_http = legacy_answer(
        legacy_post(&r, &session, &legacy(message.clone()))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let mut p = Piped::serve(server);
    p.send(message).await;
    let modern_stdio = answer(&mut p, id).await;
    let mut p = legacy_pipe(server).await;
    p.send(&legacy(message.clone())).await;
    let legacy_stdio = answer(&mut p, id).await;
    vec![
        ("modern http", modern_http),
        ("legacy http", legacy_http),
        ("modern stdio", modern_stdio),
        ("legacy stdio", legacy_stdio),
    ]
}

// --- Rejecting and answering ----------------------------------------------------------------

/// Refuses `guarded` to anyone but the `admin` principal.
fn admin_check(call: Call, next: Next) -> BoxFuture<Result<CallOutput, BoxError>> {
    Box::pin(async move {
        let admin = call.principal().is_some_and(|p| p.subject() == "admin");
        if call.name() == "guarded" && !admin {
            return Err(
                ErrorObject::new(-31403, "Forbidden: `guarded` is for the admin")
                    .with_data(json!({"needs": "admin"}))
                    .into(),
            );
        }
        next.run(call).await
    })
}

type Check = fn(Call, Next) -> BoxFuture<Result<CallOutput, BoxError>>;

fn admin_only() -> middleware::FromFnLayer<Check> {
    middleware::from_fn(admin_check as Check)
}

#[tokio::test]
async fn a_layer_rejects_a_call_with_a_json_rpc_error_on_every_transport() {
    let server = builder().layer(admin_only()).build().unwrap();
    for (transport, answer) in everywhere(&server, &call(7, "guarded", json!({}))).await {
        assert_eq!(answer["id"], 7, "{transport}: {answer}");
        assert_eq!(answer["error"]["code"], -31403, "{transport}: {answer}");
        assert_eq!(answer["error"]["data"]["needs"], "admin", "{transport}");
        assert!(answer.get("result").is_none(), "{transport}");
    }
    // Other calls pass, and the admin gets through.
    for (transport, answer) in everywhere(&server, &call(8, "echo", json!({"text":"hi"}))).await {
        assert_eq!(answer["result"]["content"][0]["text"], "hi", "{transport}");
    }
    let r = start_authenticated(server).await;
    let (status, body) = json_of(
        post(&r, &call(9, "guarded", json!({})))
            .header("x-user", "admin")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["content"][0]["text"], "the secret", "{body}");
    // The wire shape of a rejection over 2026-07-28 HTTP: 200 with the JSON-RPC error.
    let (status, body) = json_of(
        post(&r, &call(10, "guarded", json!({})))
            .header("x-user", "mallory")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), &body["error"]["code"]),
        (200, &json!(-31403))
    );
}

#[tokio::test]
async fn a_layer_answers_a_call_itself_with_a_result_or_a_tool_execution_error() {
    let server = builder()
        .layer(middleware::from_fn(|call: Call, next: Next| async move {
            match call.name() {
                "cached" => Ok(CallOutput::Tool(CallToolResult::success(vec![
                    Content::text("from the layer"),
                ]))),
                // What the model should see as a failed call: `isError: true`.
                "echo" if call.arguments()["text"] == "forbidden word" => {
                    Ok(CallOutput::Tool(CallToolResult::error(vec![
                        Content::text("That word is not allowed; rephrase."),
                    ])))
                }
                _ => next.run(call).await,
            }
        }))
        .build()
        .unwrap();
    for (transport, answer) in everywhere(&server, &call(3, "cached", json!({}))).await {
        assert_eq!(
            answer["result"]["content"][0]["text"], "from the layer",
            "{transport}: {answer}"
        );
        assert!(answer["result"].get("isError").is_none(), "{transport}");
    }
    assert_eq!(
        CACHED_RUNS.load(Ordering::SeqCst),
        0,
        "the handler never ran"
    );
    let message = call(4, "echo", json!({"text":"forbidden word"}));
    for (transport, answer) in everywhere(&server, &message).await {
        assert_eq!(answer["result"]["isError"], true, "{transport}: {answer}");
        assert!(answer.get("error").is_none(), "{transport}");
    }
    // A modern answer keeps its shape (resultType, serverInfo) when a layer made it.
    let r = start(server).await;
    let (_, body) = json_of(
        post(&r, &call(5, "cached", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    tests::assert_modern("CallToolResult", &body["result"]);
}

#[tokio::test]
async fn an_answer_of_another_method_is_an_internal_error() {
    let server = builder()
        .layer(middleware::from_fn(|_: Call, _: Next| async {
            Ok(CallOutput::Resource(Vec::new()))
        }))
        .build()
        .unwrap();
    let r = start(server).await;
    let (_, body) = json_of(
        post(&r, &call(1, "echo", json!({"text":"x"})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("answered tools/call `echo` with resource contents"),
        "{body}"
    );
}

// --- Timeouts and limits --------------------------------------------------------------------

#[tokio::test]
async fn a_timeout_answers_with_an_error_and_the_handler_sees_the_cancellation() {
    let seen = Arc::new(Seen::default());
    let server = builder().state(seen.clone()).build().unwrap();
    let message = call(11, "slow", json!({}));
    let started = Instant::now();
    for (transport, answer) in everywhere(&server, &message).await {
        assert_eq!(answer["id"], 11, "{transport}: {answer}");
        assert_eq!(answer["error"]["code"], -32603, "{transport}: {answer}");
        assert_eq!(
            answer["error"]["message"], "tool `slow` timed out",
            "{transport}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "no call waited for the sleep"
    );
    // What each of the four handlers spawned saw its context cancelled.
    let all_four = async {
        loop {
            let notified = seen.notify.notified();
            if seen.cancelled.load(Ordering::SeqCst) == 4 {
                break;
            }
            notified.await;
        }
    };
    let cancelled = tokio::time::timeout(Duration::from_secs(2), all_four).await;
    assert!(
        cancelled.is_ok(),
        "{} of 4 handlers saw the cancellation",
        seen.cancelled.load(Ordering::SeqCst)
    );
}

#[tokio::test]
async fn a_cancelled_call_still_gets_no_answer_under_middleware() {
    let server = builder().layer(AuditLayer::new()).build().unwrap();
    let mut p = Piped::serve(&server);
    p.send(&call(21, "nap", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":21}}))
        .await;
    p.send(&call(22, "echo", json!({"text":"after"}))).await;
    let next = p.next().await;
    assert_eq!(next["id"], 22, "{next}");
    let quiet = tokio::time::timeout(Duration::from_millis(2500), p.next()).await;
    assert!(quiet.is_err(), "an answer to the cancelled call: {quiet:?}");
}

/// Waits for its context to be cancelled, and records it.
#[tool(register = false)]
async fn until_cancelled(#[ctx] seen: State<Arc<Seen>>, cx: Context) -> &'static str {
    cx.cancelled().await;
    seen.cancelled.fetch_add(1, Ordering::SeqCst);
    seen.notify.notify_waiters();
    "cancelled"
}

/// A layer that runs the rest of the stack on a task of its own (as a buffer does): when
/// the request is cancelled, dropping this layer's future does not stop the handler.
#[derive(Clone)]
struct Detach<S>(S);

impl<S> Service<Call> for Detach<S>
where
    S: Service<Call, Response = CallOutput, Error = BoxError> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = CallOutput;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallOutput, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let handle = tokio::spawn(self.0.call(call));
        Box::pin(async move { handle.await.map_err(BoxError::from)? })
    }
}

#[tokio::test]
async fn a_client_cancellation_reaches_a_handler_a_layer_runs_elsewhere() {
    let seen = Arc::new(Seen::default());
    let server = Server::builder()
        .tools(tools![until_cancelled])
        .state(seen.clone())
        .layer(tower::layer::layer_fn(Detach))
        .build()
        .unwrap();
    let mut p = Piped::serve(&server);
    let notified = seen.notify.notified();
    p.send(&call(31, "until_cancelled", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":31}}))
        .await;
    let heard = tokio::time::timeout(Duration::from_secs(2), notified).await;
    assert!(
        heard.is_ok() && seen.cancelled.load(Ordering::SeqCst) == 1,
        "the handler never saw the client's cancellation"
    );
}

/// A layer that gives up on the handler after 100 ms, then takes 200 ms more to answer
/// with a fallback of its own.
fn give_up_then_fall_back() -> middleware::FromFnLayer<Check> {
    fn layer(call: Call, next: Next) -> BoxFuture<Result<CallOutput, BoxError>> {
        Box::pin(async move {
            if let Ok(done) = tokio::time::timeout(Duration::from_millis(100), next.run(call)).await
            {
                return done;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(CallOutput::Tool(CallToolResult {
                content: vec![Content::text("fallback")],
                ..CallToolResult::default()
            }))
        })
    }
    middleware::from_fn(layer as Check)
}

#[tokio::test]
async fn a_layer_that_stops_the_handler_still_answers_after_it() {
    // The handler's context is cancelled when the layer drops it, and the layer's own
    // answer, which comes later, is still the call's: that cancellation is not the
    // client's.
    let seen = Arc::new(Seen::default());
    let server = Server::builder()
        .tools(tools![watched_nap])
        .state(seen.clone())
        .layer(give_up_then_fall_back())
        .build()
        .unwrap();
    let mut p = Piped::serve(&server);
    let started = Instant::now();
    p.send(&call(41, "watched_nap", json!({}))).await;
    let answer = tokio::time::timeout(Duration::from_secs(5), p.next())
        .await
        .expect("the layer's answer");
    assert_eq!(answer["id"], 41, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"], "fallback",
        "{answer}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the call waited for the nap"
    );
    assert_eq!(
        seen.cancelled.load(Ordering::SeqCst),
        1,
        "what the handler spawned saw no cancellation"
    );
}

#[tokio::test]
async fn a_concurrency_limit_runs_one_call_at_a_time() {
    let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (r2, m2) = (running.clone(), most.clone());
    let busy = ToolSet::new().with_fn(
        ToolDefinition::new("busy", obj(json!({"type":"object"})))
            .layer(middleware::concurrency_limit(1)),
        move |_, _| {
            let (running, most) = (r2.clone(), m2.clone());
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(150)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                Ok(CallToolResult::success(vec![Content::text("done")]))
            }
        },
    );
    let server = builder().add_tools(busy).build().unwrap();
    let r = start(server).await;
    let started = Instant::now();
    let calls = (0..3).map(|i| {
        let req = post(&r, &call(30 + i, "busy", json!({}))).send();
        async move { json_of(req.await.unwrap()).await.1 }
    });
    let answers = futures_util::future::join_all(calls).await;
    for a in &answers {
        assert_eq!(a["result"]["content"][0]["text"], "done", "{a}");
    }
    assert_eq!(most.load(Ordering::SeqCst), 1, "never two at once");
    assert!(started.elapsed() >= Duration::from_millis(450));
    // Other tools are not limited by it.
    let (_, body) = json_of(
        post(&r, &call(40, "echo", json!({"text":"free"})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(body["result"]["content"][0]["text"], "free");
}

#[tokio::test]
async fn the_rate_limit_counts_per_principal() {
    let server = builder()
        .layer(RateLimitLayer::per_principal(2, Duration::from_secs(60)))
        .build()
        .unwrap();
    let r = start_authenticated(server).await;
    let as_user = |user: &'static str, id: u64| {
        post(&r, &call(id, "echo", json!({"text": user})))
            .header("x-user", user)
            .send()
    };
    for id in [1, 2] {
        let (status, body) = json_of(as_user("alice", id).await.unwrap()).await;
        assert_eq!(
            (status.as_u16(), &body["result"]["content"][0]["text"]),
            (200, &json!("alice"))
        );
    }
    let refused = as_user("alice", 3).await.unwrap();
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    let (_, body) = json_of(refused).await;
    assert_eq!(body["error"]["code"], -32603, "{body}");
    let wait = body["error"]["data"]["retryAfterMs"].as_u64().unwrap();
    assert!(wait > 20_000 && wait <= 30_000, "{body}");
    // Bob has a budget of his own.
    let (status, body) = json_of(as_user("bob", 4).await.unwrap()).await;
    assert_eq!(
        (status.as_u16(), &body["result"]["content"][0]["text"]),
        (200, &json!("bob"))
    );
    // Alice in a legacy session shares her budget; an anonymous caller has another one.
    let session = legacy_session(&r, "2025-11-25").await;
    let answer = legacy_answer(
        legacy_post(&r, &session, &legacy(call(5, "echo", json!({"text":"x"}))))
            .header("x-user", "alice")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(answer["error"]["data"]["retryAfterMs"].is_u64(), "{answer}");
    let (status, _) = json_of(
        post(&r, &call(6, "echo", json!({"text":"anon"})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
}

// --- Which layers, in which order ------------------------------------------------------------

/// A layer of its own type (no `from_fn`): logs `label>` before the call and `<label` after.
#[derive(Clone)]
struct Mark {
    label: &'static str,
    log: &'static Mutex<Vec<String>>,
}

impl<S> Layer<S> for Mark {
    type Service = Marked<S>;

    fn layer(&self, inner: S) -> Marked<S> {
        Marked {
            mark: self.clone(),
            inner,
        }
    }
}

#[derive(Clone)]
struct Marked<S> {
    mark: Mark,
    inner: S,
}

impl<S> Service<Call> for Marked<S>
where
    S: Service<Call, Response = CallOutput, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = CallOutput;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallOutput, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        let Mark { label, log } = self.mark.clone();
        log.lock().unwrap().push(format!("{label}>"));
        let fut = self.inner.call(call);
        Box::pin(async move {
            let out = fut.await;
            log.lock().unwrap().push(format!("<{label}"));
            out
        })
    }
}

static ORDER: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Logs its own run between the layers' marks.
#[tool(register = false, layer = Mark { label: "item", log: &ORDER }, layer = Mark { label: "item2", log: &ORDER })]
fn ordered() -> &'static str {
    ORDER.lock().unwrap().push("handler".into());
    "ordered"
}

#[tokio::test]
async fn server_layers_run_in_the_order_added_outside_the_items_layers() {
    let server = builder()
        .add_tools(tools![ordered])
        .layer(Mark {
            label: "first",
            log: &ORDER,
        })
        .layer(Mark {
            label: "second",
            log: &ORDER,
        })
        .build()
        .unwrap();
    let mut p = Piped::serve(&server);
    p.send(&call(1, "ordered", json!({}))).await;
    assert_eq!(
        answer(&mut p, 1).await["result"]["content"][0]["text"],
        "ordered"
    );
    assert_eq!(
        std::mem::take(&mut *ORDER.lock().unwrap()),
        [
            "first>", "second>", "item>", "item2>", "handler", "<item2", "<item", "<second",
            "<first"
        ]
    );
    p.send(&call(2, "echo", json!({"text":"x"}))).await;
    answer(&mut p, 2).await;
    assert_eq!(
        std::mem::take(&mut *ORDER.lock().unwrap()),
        ["first>", "second>", "<second", "<first"],
        "the item layers are the item's only"
    );
}

static TAGGED: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[tokio::test]
async fn an_items_layer_applies_to_that_item_only() {
    // One from the attribute (`slow`, above: a timeout), one on a builder-defined tool.
    let tagged = ToolSet::new().with_fn(
        ToolDefinition::new("tagged", obj(json!({"type":"object"}))).layer(Mark {
            label: "tagged",
            log: &TAGGED,
        }),
        |_, _| async { Ok(CallToolResult::success(vec![Content::text("t")])) },
    );
    let server = builder().add_tools(tagged).build().unwrap();
    for (transport, answer) in everywhere(&server, &call(1, "tagged", json!({}))).await {
        assert_eq!(answer["result"]["content"][0]["text"], "t", "{transport}");
    }
    assert_eq!(
        TAGGED.lock().unwrap().len(),
        8,
        "{:?}",
        TAGGED.lock().unwrap()
    );
    TAGGED.lock().unwrap().clear();
    for (transport, answer) in everywhere(&server, &call(2, "echo", json!({"text":"e"}))).await {
        assert_eq!(answer["result"]["content"][0]["text"], "e", "{transport}");
    }
    assert!(TAGGED.lock().unwrap().is_empty());
    // `nap` has no timeout: it finishes its 2 s; `slow` has one.
    let r = start(server).await;
    let (_, body) = json_of(post(&r, &call(3, "nap", json!({}))).send().await.unwrap()).await;
    assert_eq!(body["result"]["content"][0]["text"], "rested");
}

// --- The audit log --------------------------------------------------------------------------

/// The fields of the audit events, as recorded.
#[derive(Clone, Default)]
struct Recorded(Arc<Mutex<Vec<serde_json::Map<String, Value>>>>);

struct Fields<'a>(&'a mut serde_json::Map<String, Value>);

impl tracing::field::Visit for Fields<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_f64(&mut self, field: &tracing::field::Field, value: f64) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().into(), format!("{value:?}").into());
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Recorded {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        if event.metadata().target() == "mcp_framework::audit" {
            let mut fields = serde_json::Map::new();
            event.record(&mut Fields(&mut fields));
            self.0.lock().unwrap().push(fields);
        }
    }
}

impl Recorded {
    fn take(&self) -> Vec<serde_json::Map<String, Value>> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

#[tokio::test]
async fn the_audit_layer_records_every_call_once_and_never_tells_the_client() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let recorded = Recorded::default();
    // The client log bridge is on too: audit events must not reach the client.
    let subscriber = tracing_subscriber::registry()
        .with(recorded.clone())
        .with(mcp_framework::logging::layer());
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = builder()
        .layer(AuditLayer::new())
        .layer(admin_only())
        .build()
        .unwrap();
    let mut p = Piped::serve(&server);
    let mut logged = meta();
    logged["io.modelcontextprotocol/logLevel"] = json!("debug");
    let with_logs = |mut m: Value| {
        m["params"]["_meta"] = logged.clone();
        m
    };
    p.send(&with_logs(call(1, "echo", json!({"text":"hi"}))))
        .await;
    let first = p.next().await;
    assert_eq!(
        first["id"], 1,
        "the answer comes first, no log message: {first}"
    );
    let event = &recorded.take()[0];
    assert_eq!(event["method"], "tools/call");
    assert_eq!(event["name"], "echo");
    assert_eq!(event["outcome"], "ok");
    assert_eq!(event["request_id"], "1");
    assert!(event["duration_ms"].as_f64().unwrap() >= 0.0);
    assert!(event.get("principal").is_none());

    let outcomes = [
        (call(2, "echo", json!({"wrong": 1})), "tool_error", None),
        (call(3, "guarded", json!({})), "error", Some(-31403)),
        (call(4, "slow", json!({})), "error", Some(-32603)),
        (
            request(
                5,
                "prompts/get",
                json!({"name":"greet","arguments":{"name":"Ada"}}),
            ),
            "ok",
            None,
        ),
        (
            request(6, "resources/read", json!({"uri":"note:///7"})),
            "ok",
            None,
        ),
    ];
    let seen = Arc::new(Seen::default());
    let server_with_state = builder()
        .state(seen)
        .layer(AuditLayer::new())
        .layer(admin_only())
        .build()
        .unwrap();
    let mut p = Piped::serve(&server_with_state);
    for (message, outcome, code) in outcomes {
        let id = message["id"].as_u64().unwrap();
        p.send(&message).await;
        answer(&mut p, id).await;
        let events = recorded.take();
        assert_eq!(events.len(), 1, "{message}: {events:?}");
        assert_eq!(events[0]["outcome"], outcome, "{message}");
        assert_eq!(
            events[0].get("code").and_then(Value::as_i64),
            code.map(i64::from)
        );
    }
    let events = {
        p.send(&request(7, "resources/read", json!({"uri":"note:///9"})))
            .await;
        answer(&mut p, 7).await;
        recorded.take()
    };
    assert_eq!(
        (&events[0]["method"], &events[0]["name"]),
        (&json!("resources/read"), &json!("note:///9"))
    );

    // A question to the client ends this round: `input_required`.
    let mut asking = call(8, "ask", json!({}));
    asking["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation":{"form":{}}});
    p.send(&asking).await;
    let round = answer(&mut p, 8).await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    assert_eq!(recorded.take()[0]["outcome"], "input_required");

    // A call the client cancels: `cancelled`.
    p.send(&call(9, "nap", json!({}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(recorded.take()[0]["outcome"], "cancelled");

    // The principal, over HTTP.
    let r = start_authenticated(server).await;
    post(&r, &call(10, "echo", json!({"text":"x"})))
        .header("x-user", "alice")
        .send()
        .await
        .unwrap();
    assert_eq!(recorded.take()[0]["principal"], "alice");
}
