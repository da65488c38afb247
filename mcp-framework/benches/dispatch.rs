//! In-process dispatch cost: a whole `tools/call add` (parse, validate, call, check the
//! structured output, encode; without the output check; and through one pass-through
//! middleware layer: what the seam costs, a `Call`, a clone of the boxed stack, a boxed
//! future), a `tools/list` of 102 tools
//! served from cached bytes, and `resources/read` of a 1 MiB URI against a resource template
//! (matching is linear in the URI), through `Server::handle_message`; and `build()` of those
//! 102 tools under the standard and the portable schema profiles (the cost of shaping).
//!
//! `cargo bench -p mcp-framework --bench dispatch`
//!
//! With `DISPATCH_CALLS=N` (and `DISPATCH_LAYERED=1` for the pass-through layer) the
//! binary makes exactly `N` `tools/call add` calls and exits, for instruction counts:
//! run it under `valgrind --tool=callgrind` at two counts; the difference divided by the
//! difference of the counts is one call's instructions, set-up cancelled out.

use criterion::{BatchSize, Criterion, criterion_group};
use mcp_framework::middleware::Call;
use mcp_framework::protocol::TextResourceContents;
use mcp_framework::{
    CallToolResult, Content, OutputValidation, PromptSet, ResourceContents, ResourceDefinition,
    ResourceSet, SchemaProfile, Server, ServerBuilder, ToolDefinition, ToolSet,
};
use serde_json::{Value, json};

fn object(v: Value) -> mcp_framework::protocol::JsonObject {
    match v {
        Value::Object(o) => o,
        _ => panic!("an object"),
    }
}

fn builder() -> ServerBuilder {
    let mut tools = ToolSet::new()
        .with_fn(
            ToolDefinition::new(
                "add",
                object(json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false})),
            )
            .output_schema(Some(object(json!({"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]})))),
            |args, _| async move {
                let sum = args["a"].as_f64().unwrap_or_default() + args["b"].as_f64().unwrap_or_default();
                let v = json!({ "sum": sum });
                Ok(CallToolResult {
                    content: vec![Content::text(v.to_string())],
                    structured_content: Some(v),
                    ..CallToolResult::default()
                })
            },
        )
        .with_fn(
            ToolDefinition::new("echo", object(json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}))),
            |args, _| async move { Ok(CallToolResult { content: vec![Content::text(args["text"].as_str().unwrap_or_default())], ..CallToolResult::default() }) },
        );
    for i in 0..100 {
        tools = tools.with_fn(
            ToolDefinition::new(
                format!("tool_{i:03}"),
                object(json!({"type":"object","properties":{"s":{"type":"string"},"n":{"type":"integer"},"f":{"type":"boolean"}},"required":["s","n","f"],"additionalProperties":false})),
            )
            .description(format!("Filler tool number {i}.")),
            |_, _| async move { Ok(CallToolResult { content: vec![Content::text("ok")], ..CallToolResult::default() }) },
        );
    }
    Server::builder()
        .name("bench")
        .version("0.1.0")
        // The 3 MiB URI case measures template matching, not the URI limit.
        .max_uri_bytes(4 << 20)
        .tools(tools)
        .prompts(PromptSet::new())
        .resources(ResourceSet::new().with_fn(
            ResourceDefinition::template(
                "test://{a}/{b}/{c}/data",
                "data",
                object(json!({"type":"object","properties":{
                    "a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}}})),
            ),
            |req, _| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents {
                    uri: req.uri().to_owned(),
                    mime_type: None,
                    text: "data".into(),
                    meta: None,
                })])
            },
        ))
}

fn server() -> Server {
    builder().build().expect("builds")
}

const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}}}"#;
const LIST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}}}"#;

/// `resources/read` of `test://<1 MiB>/<1 MiB>/<1 MiB>/<tail>`.
fn read_huge(tail: &str) -> Vec<u8> {
    let long = "z".repeat(1 << 20);
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"test://{long}/{long}/{long}/{tail}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
    .into_bytes()
}

/// A pass-through layer's service: it forwards readiness and the call (tower's `Identity`
/// hands the inner service back unwrapped, which costs nothing and so measures nothing).
#[derive(Clone)]
struct Forward<S>(S);

impl<S: tower::Service<Call>> tower::Service<Call> for Forward<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> S::Future {
        self.0.call(call)
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = server();
    let layered = builder()
        .layer(tower::layer::layer_fn(Forward))
        .build()
        .expect("builds");
    for s in [&server, &layered] {
        let out = rt.block_on(s.handle_message(CALL)).expect("answer");
        assert!(std::str::from_utf8(&out).unwrap().contains(r#""sum":3.0"#));
    }
    let list = rt.block_on(server.handle_message(LIST)).expect("answer");
    eprintln!("tools/list response: {} bytes", list.len());
    c.bench_function("tools/call add", |b| {
        b.iter(|| rt.block_on(server.handle_message(std::hint::black_box(CALL))));
    });
    let unchecked = builder()
        .output_validation(OutputValidation::Off)
        .build()
        .expect("builds");
    c.bench_function("tools/call add, output unchecked", |b| {
        b.iter(|| rt.block_on(unchecked.handle_message(std::hint::black_box(CALL))));
    });
    c.bench_function("tools/call add, one pass-through layer", |b| {
        b.iter(|| rt.block_on(layered.handle_message(std::hint::black_box(CALL))));
    });
    // JSON-RPC middleware that lets everything through unread: what the seam itself costs
    // (nothing is parsed or written again unless a middleware looks).
    struct PassThrough;
    impl mcp_framework::middleware::RpcMiddleware for PassThrough {}
    let rpc = builder()
        .rpc_middleware(PassThrough)
        .build()
        .expect("builds");
    c.bench_function("tools/call add, one pass-through RpcMiddleware", |b| {
        b.iter(|| rt.block_on(rpc.handle_message(std::hint::black_box(CALL))));
    });
    #[cfg(feature = "events")]
    events(c, &rt);
    c.bench_function("tools/list (102 tools, cached)", |b| {
        b.iter(|| rt.block_on(server.handle_message(std::hint::black_box(LIST))));
    });
    let (hit, miss) = (read_huge("data"), read_huge("nope"));
    let found = rt.block_on(server.handle_message(&hit)).expect("answer");
    assert!(
        std::str::from_utf8(&found)
            .unwrap()
            .contains(r#""text":"data""#)
    );
    let mut group = c.benchmark_group("resources/read, 3 MiB URI");
    group.sample_size(10);
    group.bench_function("template matches", |b| {
        b.iter(|| rt.block_on(server.handle_message(std::hint::black_box(&hit))));
    });
    group.bench_function("no template matches", |b| {
        b.iter(|| rt.block_on(server.handle_message(std::hint::black_box(&miss))));
    });
    group.finish();
    let mut group = c.benchmark_group("build, 102 tools");
    group.sample_size(20);
    for profile in [SchemaProfile::Standard, SchemaProfile::Portable] {
        group.bench_function(profile.name(), |b| {
            b.iter_batched(
                || builder().schema_profile(profile),
                |b| b.build().expect("builds"),
                BatchSize::SmallInput,
            );
        });
    }
    group.finish();
}

/// An occurrence of the benchmark's event type.
#[cfg(feature = "events")]
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Tick {
    n: u64,
}

/// Which ticks a subscription wants.
#[cfg(feature = "events")]
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Every {
    nth: u64,
}

/// `events/poll` of 100 retained occurrences of which a tenth pass the filter, and one
/// `emit`, beside `tools/call add` (the same run gives the ratio).
#[cfg(feature = "events")]
fn events(c: &mut Criterion, rt: &tokio::runtime::Runtime) {
    use mcp_framework::events::{EventType, Events};
    let events = Events::new().event(
        EventType::new::<Tick>("tick")
            .arguments(|t: &Tick, every: &Every| t.n.is_multiple_of(every.nth)),
    );
    let emitter = events.emitter();
    let server = builder().extension(events).build().expect("builds");
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}"#;
    let first = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"events/poll","params":{{"name":"tick","arguments":{{"nth":10}},{meta}}}}}"#
    );
    let answer = rt
        .block_on(server.handle_message(first.as_bytes()))
        .expect("answer");
    let answer: Value = serde_json::from_slice(&answer).expect("JSON");
    let cursor = answer["result"]["cursor"]
        .as_str()
        .unwrap_or_else(|| panic!("a cursor: {answer}"))
        .to_owned();
    for n in 0..100 {
        emitter.emit(Tick { n }).expect("emits");
    }
    let poll = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"events/poll","params":{{"name":"tick","cursor":"{cursor}","arguments":{{"nth":10}},{meta}}}}}"#
    );
    let answer = rt
        .block_on(server.handle_message(poll.as_bytes()))
        .expect("answer");
    let answer: Value = serde_json::from_slice(&answer).expect("JSON");
    assert_eq!(
        answer["result"]["events"].as_array().map(Vec::len),
        Some(10)
    );
    c.bench_function("events/poll, 10 of 100 retained pass the filter", |b| {
        b.iter(|| rt.block_on(server.handle_message(std::hint::black_box(poll.as_bytes()))));
    });
    let mut n = 100;
    c.bench_function("events emit (no subscriber waiting)", |b| {
        b.iter(|| {
            n += 1;
            emitter.emit(Tick { n }).expect("emits")
        });
    });
}

criterion_group!(benches, bench);

fn main() {
    if let Some(n) = std::env::var("DISPATCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        calls(n, std::env::var_os("DISPATCH_LAYERED").is_some());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// `n` calls of `tools/call add`, no layer or one pass-through layer.
fn calls(n: u64, layered: bool) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut builder = builder();
    if layered {
        builder = builder.layer(tower::layer::layer_fn(Forward));
    }
    let server = builder.build().expect("builds");
    for _ in 0..n {
        let out = rt.block_on(server.handle_message(std::hint::black_box(CALL)));
        assert!(out.is_some());
    }
}
