//! JSON-RPC middleware (SEP-3371) on the wire: the application's and an extension's, in
//! their documented order, over the stdio framing and Streamable HTTP, in both eras —
//! a request's `_meta` changed before it is resolved (the handler sees it), a request
//! answered by a middleware (the handler does not run), a response rewritten, a progress
//! notification dropped while the others go out, a client notification dropped or changed,
//! and a listen stream's notifications seen.

use std::sync::{Arc, Mutex};

use mcp_framework::extension::{Extension, Setup};
use mcp_framework::middleware::{RpcMessage, RpcMiddleware, RpcNotification, RpcRequest};
use mcp_framework::protocol::{ErrorObject, JsonObject};
use mcp_framework::{Context, Server};
use serde_json::{Value, json};
use tests::wire::{Piped, json_of, post, request};

type Log = Arc<Mutex<Vec<String>>>;

/// The application's: tags requests, refuses `add` of 13, adds 1000 to every sum, drops
/// progress 2, drops the client notification `com.example/hello` asking for it.
struct Policy(Log);

impl RpcMiddleware for Policy {
    fn request(&self, request: &mut RpcRequest) -> Option<Result<Value, ErrorObject>> {
        self.0
            .lock()
            .unwrap()
            .push(format!("app {}", request.method()));
        if request.method() == "tools/call"
            && request.params()["name"] == "add"
            && request.params()["arguments"]["a"] == 13
        {
            return Some(Err(ErrorObject::new(-32001, "unlucky")));
        }
        request
            .meta_mut()
            .insert("com.example/tag".into(), "tagged".into());
        None
    }

    fn message(&self, request: &RpcRequest, message: &mut RpcMessage) -> bool {
        let json = message.json();
        let what = json["method"].as_str().unwrap_or("response").to_owned();
        self.0
            .lock()
            .unwrap()
            .push(format!("app {} {what}", request.method()));
        if json["method"] == "notifications/progress" && json["params"]["progress"] == 2.0 {
            return false;
        }
        if let Some(sum) = json["result"]["structuredContent"]["sum"].as_f64() {
            message.json_mut()["result"]["structuredContent"]["sum"] = json!(sum + 1000.0);
        }
        true
    }

    fn notification(&self, notification: &mut RpcNotification) -> bool {
        if notification.method() == "com.example/hello" {
            if notification.params()["drop"] == true {
                return false;
            }
            notification.params_mut()["by"] = json!("middleware");
        }
        true
    }
}

/// An extension with a method that answers with its request's `_meta`, a notification it
/// records, and middleware of its own.
struct Probe(Log);

struct ProbeMiddleware(Log);

impl RpcMiddleware for ProbeMiddleware {
    fn request(&self, request: &mut RpcRequest) -> Option<Result<Value, ErrorObject>> {
        self.0
            .lock()
            .unwrap()
            .push(format!("ext {}", request.method()));
        None
    }

    fn message(&self, request: &RpcRequest, message: &mut RpcMessage) -> bool {
        let what = message.json()["method"]
            .as_str()
            .unwrap_or("response")
            .to_owned();
        self.0
            .lock()
            .unwrap()
            .push(format!("ext {} {what}", request.method()));
        true
    }
}

impl Extension for Probe {
    fn id(&self) -> &str {
        "com.example/probe"
    }

    fn setup(&self, setup: &mut Setup) {
        setup.request("com.example/meta", |_: Value, cx: Context| async move {
            Ok::<_, ErrorObject>(Value::Object(cx.meta().unwrap_or_default()))
        });
        let log = self.0.clone();
        setup.notification("com.example/hello", move |params: JsonObject| {
            let log = log.clone();
            async move {
                log.lock()
                    .unwrap()
                    .push(format!("hello {}", Value::Object(params)));
            }
        });
        setup.rpc_middleware(ProbeMiddleware(self.0.clone()));
    }
}

fn server(log: &Log) -> Server {
    tests::fixture::builder()
        .rpc_middleware(Policy(log.clone()))
        .extension(Probe(log.clone()))
        .build()
        .unwrap()
}

fn taken(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[tokio::test]
async fn over_stdio_framing_every_message_passes_the_middleware_in_order() {
    let log = Log::default();
    let server = server(&log);
    let mut p = Piped::serve(&server);

    // The handler sees the `_meta` the middleware added (and the client's own).
    p.send(&request(1, "com.example/meta", json!({}))).await;
    let meta = p.next().await;
    assert_eq!(meta["result"]["com.example/tag"], "tagged", "{meta}");
    assert!(
        meta["result"]
            .get("io.modelcontextprotocol/protocolVersion")
            .is_some(),
        "{meta}"
    );
    // Requests go outermost first (the application's, then the extension's); what is sent
    // for them innermost first.
    assert_eq!(
        taken(&log),
        [
            "app com.example/meta",
            "ext com.example/meta",
            "ext com.example/meta response",
            "app com.example/meta response",
        ]
    );

    // A response rewritten on its way out.
    p.send(&request(
        2,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
    ))
    .await;
    let sum = p.next().await;
    assert_eq!(sum["result"]["structuredContent"]["sum"], 1003.0, "{sum}");
    // Answered by the middleware: the handler (and the middleware inside) never ran.
    p.send(&request(
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 13, "b": 2}}),
    ))
    .await;
    let refused = p.next().await;
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    assert_eq!(refused["id"], 3);
    // The second one stopped at the application's middleware, the outermost: the
    // extension's never saw it, and its answer passed through nothing outside it.
    assert_eq!(
        taken(&log),
        [
            "app tools/call",
            "ext tools/call",
            "ext tools/call response",
            "app tools/call response",
            "app tools/call",
        ]
    );

    // Notifications sent for a request pass it one by one; a dropped one is not sent, the
    // others are, and the response comes last.
    let mut params = json!({"name": "count", "arguments": {"n": 3, "delay_ms": 1}});
    params["_meta"] = tests::wire::meta();
    params["_meta"]["progressToken"] = json!("t");
    p.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params}))
        .await;
    let mut progress = Vec::new();
    let done = loop {
        let m = p.next().await;
        if m["method"] == "notifications/progress" {
            progress.push(m["params"]["progress"].as_f64().unwrap());
        } else {
            break m;
        }
    };
    assert_eq!(progress, [1.0, 3.0]);
    assert_eq!(done["id"], 4, "{done}");
    let seen = taken(&log);
    let sent: Vec<&String> = seen
        .iter()
        .filter(|l| l.starts_with("app tools/call "))
        .collect();
    assert_eq!(
        sent,
        [
            "app tools/call notifications/progress",
            "app tools/call notifications/progress",
            "app tools/call notifications/progress",
            "app tools/call response",
        ]
    );

    // Client notifications: dropped, or changed before the handler reads them.
    let hello = |drop: bool| json!({"jsonrpc": "2.0", "method": "com.example/hello", "params": {"drop": drop}});
    p.send(&hello(true)).await;
    p.send(&hello(false)).await;
    p.send(&request(5, "ping", json!({}))).await;
    assert_eq!(p.next().await["id"], 5);
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let hellos: Vec<String> = taken(&log)
        .into_iter()
        .filter(|l| l.starts_with("hello"))
        .collect();
    assert_eq!(hellos, [r#"hello {"drop":false,"by":"middleware"}"#]);
}

#[tokio::test]
async fn over_http_in_both_eras_and_on_listen_streams() {
    let log = Log::default();
    let server = server(&log);
    let r = tests::wire::start(server.clone()).await;

    // Modern.
    let (_, sum) = json_of(
        post(
            &r,
            &request(
                1,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 2, "b": 2}}),
            ),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(sum["result"]["structuredContent"]["sum"], 1004.0, "{sum}");
    let (_, refused) = json_of(
        post(
            &r,
            &request(
                2,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 13, "b": 0}}),
            ),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32001, "{refused}");

    // Legacy: the same middleware on the session's requests.
    let session = tests::wire::legacy_session(&r, "2025-11-25").await;
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "add", "arguments": {"a": 1, "b": 1}}});
    let resp = tests::wire::legacy_post(&r, &session, &body)
        .send()
        .await
        .unwrap();
    let events = tests::wire::sse_events(resp, 5).await;
    let answer = events.iter().find(|e| e["id"] == 3).expect("the answer");
    assert_eq!(
        answer["result"]["structuredContent"]["sum"], 1002.0,
        "{events:?}"
    );

    // A listen stream's notifications pass the middleware of the listen request.
    taken(&log);
    let mut listen = tests::wire::Listener::open(&r, json!({"toolsListChanged": true})).await;
    server
        .handle()
        .add_tools(mcp_framework::ToolSet::new().with_fn(
            mcp_framework::ToolDefinition::new(
                "late",
                json!({"type": "object"}).as_object().cloned().unwrap(),
            ),
            |_: Value, _cx: Context| async move { Ok(mcp_framework::CallToolResult::default()) },
        ))
        .unwrap();
    let changed = listen
        .next(std::time::Duration::from_secs(5))
        .await
        .expect("list_changed");
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    let seen = taken(&log);
    assert!(
        seen.contains(&"app subscriptions/listen notifications/tools/list_changed".to_owned()),
        "{seen:?}"
    );
}
