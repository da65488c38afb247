//! Traces leave the server over real OTLP/HTTP (JSON) into a receiver this test runs on
//! 127.0.0.1: `examples/everything`, started with the standard `OTEL_*` variables, exports
//! one server span per request, named and attributed after the MCP semantic conventions,
//! in the client's trace when the request carries `traceparent` (in `_meta` over stdio, as
//! an HTTP header over HTTP).

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID: &str = "b7ad6b7169203331";

/// An OTLP/HTTP receiver: every `POST /v1/traces` body (JSON), kept.
struct Receiver {
    url: String,
    bodies: Arc<Mutex<Vec<Value>>>,
}

async fn receiver() -> Receiver {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route(
            "/v1/traces",
            post(
                |State(bodies): State<Arc<Mutex<Vec<Value>>>>, body: axum::body::Bytes| async move {
                    let value: Value = serde_json::from_slice(&body).expect("OTLP JSON");
                    bodies.lock().unwrap().push(value);
                    "{}"
                },
            ),
        )
        .with_state(bodies.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Receiver { url, bodies }
}

impl Receiver {
    /// Every span received so far (`resourceSpans[].scopeSpans[].spans[]`), with the
    /// service name of its resource.
    fn spans(&self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for body in self.bodies.lock().unwrap().iter() {
            for rs in body["resourceSpans"].as_array().into_iter().flatten() {
                let service = attribute(&rs["resource"], "service.name")
                    .and_then(|v| v["stringValue"].as_str().map(str::to_owned))
                    .unwrap_or_default();
                for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                    for span in ss["spans"].as_array().into_iter().flatten() {
                        out.push((service.clone(), span.clone()));
                    }
                }
            }
        }
        out
    }

    /// Waits (up to 10 s) for a span named `name`.
    async fn span_named(&self, name: &str) -> (String, Value) {
        for _ in 0..200 {
            if let Some(found) = self.spans().into_iter().find(|(_, s)| s["name"] == name) {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let names: Vec<_> = self.spans().iter().map(|(_, s)| s.clone()).collect();
        panic!("no span `{name}` exported; got {names:?}");
    }
}

fn attribute<'a>(holder: &'a Value, key: &str) -> Option<&'a Value> {
    holder["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

fn string_attribute(span: &Value, key: &str) -> String {
    attribute(span, key)
        .and_then(|v| v["stringValue"].as_str())
        .unwrap_or_else(|| panic!("no string attribute {key} in {span}"))
        .to_owned()
}

fn everything(receiver: &Receiver, args: &[&str]) -> Child {
    Command::new(tests::example_binary("everything"))
        .args(args)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.url)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("OTEL_SERVICE_NAME", "everything-under-test")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn everything")
}

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

#[tokio::test]
async fn a_stdio_request_continues_the_clients_trace_from_meta() {
    let receiver = receiver().await;
    let mut child = everything(&receiver, &["stdio"]);
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let call = json!({"jsonrpc":"2.0","id":41,"method":"tools/call","params":{
        "name":"test_simple_text","arguments":{},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{},
                 "traceparent": traceparent(), "tracestate": "vendor=1"}}});
    stdin
        .write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    let line = tokio::time::timeout(Duration::from_secs(10), out.next_line())
        .await
        .expect("an answer")
        .unwrap()
        .unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], 41, "{answer}");
    // End of input: the server drains, exits and flushes the export.
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("exits")
        .unwrap();
    assert!(status.success());

    let (service, span) = receiver.span_named("tools/call test_simple_text").await;
    assert_eq!(service, "everything-under-test");
    assert_eq!(span["traceId"], TRACE_ID, "{span}");
    assert_eq!(span["parentSpanId"], PARENT_ID, "{span}");
    assert_eq!(span["kind"], 2, "a server span: {span}");
    assert_eq!(string_attribute(&span, "mcp.method.name"), "tools/call");
    assert_eq!(
        string_attribute(&span, "gen_ai.tool.name"),
        "test_simple_text"
    );
    assert_eq!(
        string_attribute(&span, "gen_ai.operation.name"),
        "execute_tool"
    );
    assert_eq!(string_attribute(&span, "network.transport"), "pipe");
    assert_eq!(
        string_attribute(&span, "mcp.protocol.version"),
        "2026-07-28"
    );
    assert_eq!(string_attribute(&span, "jsonrpc.request.id"), "41");
    // The handler ran in a child span of it.
    let (_, handler) = receiver.span_named("tool test_simple_text").await;
    assert_eq!(handler["traceId"], TRACE_ID);
    assert_eq!(handler["parentSpanId"], span["spanId"]);
}

#[tokio::test]
async fn an_http_request_continues_the_trace_of_its_traceparent_header_and_errors_are_marked() {
    let receiver = receiver().await;
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let bind = format!("127.0.0.1:{port}");
    let _child = everything(&receiver, &["http", "--bind", &bind]);
    let url = format!("http://{bind}/mcp");
    let http = reqwest::Client::new();
    let body = |id: u64, name: &str| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":{},
            "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                     "io.modelcontextprotocol/clientCapabilities":{}}}})
    };
    let send = |id: u64, name: &'static str| {
        http.post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", name)
            .header("traceparent", traceparent())
            .body(body(id, name).to_string())
            .send()
    };
    let mut answered = false;
    for _ in 0..100 {
        if let Ok(resp) = send(5, "test_simple_text").await {
            assert_eq!(resp.status(), 200);
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(answered, "the server came up");
    let resp = send(6, "test_error_handling").await.unwrap();
    let answer: Value = resp.json().await.unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");

    let (_, span) = receiver.span_named("tools/call test_simple_text").await;
    assert_eq!(span["traceId"], TRACE_ID, "{span}");
    assert_eq!(span["parentSpanId"], PARENT_ID, "{span}");
    assert_eq!(string_attribute(&span, "network.transport"), "tcp");
    let (_, failed) = receiver.span_named("tools/call test_error_handling").await;
    assert_eq!(string_attribute(&failed, "error.type"), "tool_error");
    assert_eq!(failed["status"]["code"], 2, "an error status: {failed}");
}
