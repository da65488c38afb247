//! Bounded fuzzing on the stable toolchain: every target takes inputs mutated from its seed
//! corpus (`tests/fuzz/corpus/<target>/`) for a fixed time and feeds them to the server
//! through its public entry points. A panic that escapes the framework, an input that takes
//! longer than [`HANG`] or a stdio stream that stops being one JSON message per line fails the
//! run; the input is written to `target/fuzz-failures/` and the seed of the run is printed,
//! so `FUZZ_SEED=<seed>` replays it.
//!
//! ```text
//! FUZZ_SECONDS=30 cargo test -p tests --test fuzz -- --nocapture     # 30 s per target
//! FUZZ_TARGET=uri FUZZ_SEED=42 cargo test -p tests --test fuzz       # one target, one seed
//! ```
//!
//! Targets: `message` (a whole JSON-RPC message: framing, envelope, `_meta`, every method),
//! `meta` (the `_meta` object of a call), `cursor` (list cursors), `uri` (resource URIs
//! against templates of every operator), `request_state` (sealed MRTR state and answers),
//! `http` (a whole HTTP request: method, headers, body), `param_header` (`Mcp-Param-*`
//! mirroring and the `=?base64?…?=` sentinel), `stdio` (a stream of lines, some of them
//! initialize handshakes, through the stdio transport).
//!
//! There is no coverage feedback (that needs a nightly toolchain): mutations are byte-level
//! (flips, interesting bytes, insertions and deletions, repeats, splices of two seeds) plus a
//! dictionary of tokens that matter to these parsers.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use futures_util::FutureExt as _;
use mcp_framework::protocol::{JsonObject, TextResourceContents};
use mcp_framework::{
    CallToolResult, CompletionRequest, Content, Elicitation, GetPromptResult, PromptDefinition,
    PromptMessage, PromptSet, ResourceContents, ResourceDefinition, ResourceSet, Role, Server,
    StateKey, ToolDefinition, ToolSet, completer,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tower::ServiceExt as _;

/// An input that runs longer than this is a hang.
const HANG: Duration = Duration::from_secs(10);

fn obj(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}

/// A server with something behind every parser: schemas with constraints and mirrored
/// headers, questions (MRTR), a prompt with a completer, templates of every operator. No
/// handler sleeps, so a slow input is the framework's.
fn server() -> Server {
    let tools = ToolSet::new()
        .with_fn(
            ToolDefinition::new(
                "add",
                obj(json!({"type":"object","properties":{
                    "a":{"type":"number","maximum":1e9},"b":{"type":"integer","minimum":-5},
                    "tags":{"type":"array","items":{"type":"string","maxLength":8},"maxItems":4}},
                    "required":["a","b"],"additionalProperties":false})),
            ),
            |args, _| async move {
                let sum = args["a"].as_f64().unwrap_or_default() + args["b"].as_f64().unwrap_or_default();
                Ok(CallToolResult { structured_content: Some(json!({"sum": sum})), content: vec![Content::text(sum.to_string())], ..Default::default() })
            },
        )
        .with_fn(
            ToolDefinition::new(
                "regional",
                obj(json!({"type":"object","properties":{
                    "region":{"type":"string","x-mcp-header":"Region"},
                    "shard":{"type":"integer","x-mcp-header":"Shard"}},"required":["region"]})),
            ),
            |args, _| async move { Ok(CallToolResult { content: vec![Content::text(args.to_string())], ..Default::default() }) },
        )
        .with_fn(
            ToolDefinition::new("ask", obj(json!({"type":"object"}))),
            |_, cx| async move {
                let form = obj(json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}));
                let (who, roots) = tokio::join!(cx.elicit_with_schema("Who?", form).key("who"), cx.roots());
                let who = match who {
                    Ok(Elicitation::Accept(c)) => c.get("name").cloned().unwrap_or_default(),
                    _ => Value::Null,
                };
                let n = roots.map(|r| r.len()).unwrap_or_default();
                Ok(CallToolResult { content: vec![Content::text(format!("{who} {n}"))], ..Default::default() })
            },
        );
    let prompts = PromptSet::new().with_fn(
        PromptDefinition::new(
            "review",
            obj(json!({"type":"object","properties":{"code":{"type":"string"},"strict":{"type":"boolean"}},"required":["code"]})),
        )
        .complete("code", completer(keywords)),
        |args, _| async move {
            Ok(GetPromptResult {
                messages: vec![PromptMessage { role: Role::User, content: Content::text(format!("Review {args}")) }],
                ..Default::default()
            })
        },
    );
    let mut resources = ResourceSet::new();
    for (i, template) in [
        "test://items/{id}",
        "test://files/{+path}",
        "test://doc{#section}",
        "test://host{.domain}",
        "test://repo{/owner,name}",
        "test://m{;x,y}",
        "test://search{?q,lang}",
        "test://s?fixed=1{&more*}",
        "test://p/{a:3}/{b*}",
    ]
    .into_iter()
    .enumerate()
    {
        let vars: Vec<&str> = template
            .split('{')
            .skip(1)
            .flat_map(|e| {
                e.split('}')
                    .next()
                    .unwrap_or_default()
                    .trim_start_matches(['+', '#', '.', '/', ';', '?', '&'])
                    .split(',')
            })
            .map(|v| {
                v.trim_end_matches('*')
                    .split(':')
                    .next()
                    .unwrap_or_default()
            })
            .collect();
        let properties: JsonObject = vars
            .iter()
            .map(|v| ((*v).to_owned(), json!({"type":"string"})))
            .collect();
        resources = resources.with_fn(
            ResourceDefinition::template(
                template,
                format!("t{i}"),
                obj(json!({"type":"object","properties":properties})),
            ),
            |req, _| async move {
                Ok(vec![ResourceContents::Text(TextResourceContents {
                    uri: req.uri().to_owned(),
                    mime_type: None,
                    text: Value::Object(req.variables().clone()).to_string(),
                    meta: None,
                })])
            },
        );
    }
    Server::builder()
        .name("fuzz")
        .version("1")
        .tools(tools)
        .prompts(prompts)
        .resources(resources)
        .page_size(1)
        .state_key(StateKey::new("fuzz", [3; 32]))
        .max_message_bytes(1 << 16)
        .build()
        .expect("the fuzz server builds")
}

fn keywords(req: CompletionRequest) -> Vec<String> {
    req.matching(["fn", "struct", "impl"])
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"roots":{}}}"#;

fn call(params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
}

// ---------------------------------------------------------------------------------------------
// Targets: each turns one input into requests and checks what only the framework can break.

async fn message(s: &Server, input: &[u8]) {
    let _ = s.handle_message(input).await;
}

async fn meta(s: &Server, input: &[u8]) {
    let input = String::from_utf8_lossy(input);
    let m = call(&format!(
        r#"{{"name":"add","arguments":{{"a":1,"b":2}},"_meta":{input}}}"#
    ));
    let _ = s.handle_message(m.as_bytes()).await;
}

async fn cursor(s: &Server, input: &[u8]) {
    let c = serde_json::to_string(&String::from_utf8_lossy(input)).unwrap_or_default();
    for method in ["tools/list", "prompts/list", "resources/templates/list"] {
        let m = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"{method}","params":{{"cursor":{c},"_meta":{META}}}}}"#
        );
        let _ = s.handle_message(m.as_bytes()).await;
    }
}

async fn uri(s: &Server, input: &[u8]) {
    let u = serde_json::to_string(&String::from_utf8_lossy(input)).unwrap_or_default();
    let m = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{{"uri":{u},"_meta":{META}}}}}"#
    );
    let _ = s.handle_message(m.as_bytes()).await;
    let m = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{{"ref":{{"type":"ref/resource","uri":{u}}},"argument":{{"name":"id","value":"1"}},"_meta":{META}}}}}"#
    );
    let _ = s.handle_message(m.as_bytes()).await;
}

/// The state and answers of a second round; the input is `state\nanswers-json`.
async fn request_state(s: &Server, input: &[u8]) {
    let input = String::from_utf8_lossy(input);
    let (state, answers) = input.split_once('\n').unwrap_or((&input, "{}"));
    let state = serde_json::to_string(state).unwrap_or_default();
    let m = call(&format!(
        r#"{{"name":"ask","arguments":{{}},"requestState":{state},"inputResponses":{answers},"_meta":{META}}}"#
    ));
    let _ = s.handle_message(m.as_bytes()).await;
}

/// `METHOD PATH\nName: value\n…\n\nbody`, through the router (no socket).
async fn http(s: &Server, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let first = lines.next().unwrap_or_default();
    let (method, path) = first.split_once(' ').unwrap_or((first, "/mcp"));
    let mut req = Request::builder()
        .method(
            axum::http::Method::from_bytes(method.as_bytes()).unwrap_or(axum::http::Method::POST),
        )
        .uri(
            axum::http::Uri::try_from(path)
                .unwrap_or_else(|_| axum::http::Uri::from_static("/mcp")),
        );
    let mut has_host = false;
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            has_host |= name.trim().eq_ignore_ascii_case("host");
            req = req.header(name.trim(), value.trim());
        }
    }
    if !has_host {
        // An HTTP/1.1 request without Host is refused before anything else is read.
        req = req.header("host", "localhost");
    }
    let Ok(req) = req.body(Body::from(body.to_owned())) else {
        return; // not a valid HTTP request at all (the http crate refused a header)
    };
    read_response(s.router().oneshot(req).await).await;
}

/// A `regional` call whose `Mcp-Param-Region` header is the input and whose body's
/// `region` is the input too, or a fixed value (so both match and mismatch are reached).
async fn param_header(s: &Server, input: &[u8]) {
    let value = String::from_utf8_lossy(input);
    let region = if input.first().is_some_and(|b| b % 2 == 0) {
        value.as_ref()
    } else {
        "eu"
    };
    let body = call(&format!(
        r#"{{"name":"regional","arguments":{{"region":{},"shard":3}},"_meta":{META}}}"#,
        serde_json::to_string(region).unwrap_or_default()
    ));
    let Ok(req) = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "regional")
        .header("mcp-param-region", value.as_ref())
        .header("mcp-param-shard", "3")
        .body(Body::from(body))
    else {
        return;
    };
    read_response(s.router().oneshot(req).await).await;
}

async fn read_response(resp: Result<axum::response::Response, std::convert::Infallible>) {
    let Ok(resp) = resp;
    let sse = resp
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    let body = axum::body::to_bytes(resp.into_body(), 1 << 24);
    if sse {
        // A listen stream or a legacy GET stream may stay open: that is not a hang.
        let _ = tokio::time::timeout(Duration::from_millis(200), body).await;
    } else {
        let _ = body.await;
    }
}

/// The input, as a byte stream, through the stdio transport: every line out must be one
/// JSON-RPC message.
async fn stdio(s: &Server, input: &[u8]) {
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_side);
    let serving = tokio::spawn({
        let s = s.clone();
        async move { s.serve_stream(read, write).await }
    });
    let input = input.to_vec();
    let (mut rx, mut tx) = tokio::io::split(client);
    let writer = async move {
        let _ = tx.write_all(&input).await;
        let _ = tx.shutdown().await;
    };
    let mut out = Vec::new();
    let reader = async { rx.read_to_end(&mut out).await };
    let (_, read) = tokio::join!(writer, reader);
    drop(read);
    let _ = serving.await;
    for line in out.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let v: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "stdout carried a line that is not JSON ({e}): {:?}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(v["jsonrpc"], "2.0", "not a JSON-RPC message: {v}");
    }
}

// ---------------------------------------------------------------------------------------------
// The driver.

type Target = for<'a> fn(&'a Server, &'a [u8]) -> futures_util::future::BoxFuture<'a, ()>;

macro_rules! target {
    ($f:ident) => {
        (stringify!($f), (|s, i| Box::pin($f(s, i))) as Target)
    };
}

const TARGETS: [(&str, Target); 8] = [
    target!(message),
    target!(meta),
    target!(cursor),
    target!(uri),
    target!(request_state),
    target!(http),
    target!(param_header),
    target!(stdio),
];

/// Tokens these parsers care about, spliced in by the mutator.
const DICTIONARY: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "\\",
    "\\u0000",
    "\\ud800",
    "null",
    "true",
    "-0",
    "1e999",
    "18446744073709551616",
    "\"jsonrpc\":\"2.0\"",
    "\"id\":",
    "\"method\":",
    "\"params\":",
    "\"_meta\":",
    "\"2026-07-28\"",
    "\"2025-11-25\"",
    "initialize",
    "tools/call",
    "resources/read",
    "subscriptions/listen",
    "notifications/cancelled",
    "%",
    "%2F",
    "%ZZ",
    "%C3%28",
    "{",
    "/",
    "?",
    "#",
    ";",
    "&",
    "=",
    "=?base64?",
    "?=",
    "AAAA",
    "\n",
    "\r\n",
    "\u{feff}",
    "\u{0}",
    "content-type: application/json",
    "accept: text/event-stream",
    "mcp-session-id: ",
    "mcp-protocol-version: 2026-07-28",
    "host: evil.example",
    "origin: null",
];

fn mutate(rng: &mut fastrand::Rng, input: &mut Vec<u8>, other: &[u8]) {
    for _ in 0..rng.usize(1..=6) {
        let len = input.len();
        match rng.u8(0..9) {
            0 if len > 0 => {
                let i = rng.usize(..len);
                input[i] ^= 1 << rng.u8(0..8);
            }
            1 if len > 0 => {
                let i = rng.usize(..len);
                input[i] = *[0u8, 0x7f, 0x80, 0xff, b'"', b'\\', b'{', b'%', b'\n']
                    .get(rng.usize(..9))
                    .unwrap_or(&0);
            }
            2 => {
                let word = DICTIONARY[rng.usize(..DICTIONARY.len())].as_bytes();
                let at = rng.usize(..=len);
                input.splice(at..at, word.iter().copied());
            }
            3 if len > 0 => {
                let a = rng.usize(..len);
                let b = (a + rng.usize(1..=16)).min(len);
                input.drain(a..b);
            }
            4 if len > 0 => {
                // Repeat a slice many times: long strings, deep nesting.
                let a = rng.usize(..len);
                let b = (a + rng.usize(1..=4)).min(len);
                let piece = input[a..b].to_vec();
                let times = if rng.bool() {
                    rng.usize(2..64)
                } else {
                    rng.usize(64..4096)
                };
                let at = rng.usize(..=input.len());
                input.splice(
                    at..at,
                    piece.iter().copied().cycle().take(piece.len() * times),
                );
            }
            5 if !other.is_empty() => {
                let cut = rng.usize(..=len);
                let from = rng.usize(..other.len());
                input.truncate(cut);
                input.extend_from_slice(&other[from..]);
            }
            6 => {
                let at = rng.usize(..=len);
                let bytes: Vec<u8> = (0..rng.usize(1..8)).map(|_| rng.u8(..)).collect();
                input.splice(at..at, bytes);
            }
            7 if len > 1 => {
                let a = rng.usize(..len);
                let b = rng.usize(..len);
                input.swap(a, b);
            }
            _ => {}
        }
    }
    input.truncate(1 << 17);
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("seed"))
        .collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// Seeds only a running server can make: real cursors and real sealed states.
async fn live_seeds(target: &str, s: &Server) -> Vec<Vec<u8>> {
    let answer = |m: String| async move {
        let out = s.handle_message(m.as_bytes()).await.expect("an answer");
        serde_json::from_slice::<Value>(&out).expect("JSON")
    };
    match target {
        "cursor" => {
            let m = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{META}}}}}"#
            );
            let list = answer(m).await;
            let cursor = list["result"]["nextCursor"]
                .as_str()
                .expect("a second page");
            vec![cursor.as_bytes().to_vec()]
        }
        "request_state" => {
            let first = answer(call(&format!(
                r#"{{"name":"ask","arguments":{{}},"_meta":{META}}}"#
            )))
            .await;
            let state = first["result"]["requestState"].as_str().expect("a state");
            let answers = r#"{"who":{"action":"accept","content":{"name":"Ada"}},"roots-2":{"roots":[{"uri":"file:///a"}]}}"#;
            vec![
                format!("{state}\n{answers}").into_bytes(),
                format!("{state}\n{{}}").into_bytes(),
            ]
        }
        _ => Vec::new(),
    }
}

fn save_failure(target: &str, n: usize, input: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{target}-{n}.bin"));
    let _ = std::fs::write(&path, input);
    path
}

/// Aborts the process when one input runs longer than [`HANG`], after writing it out.
fn watchdog(
    epoch: Instant,
    started: Arc<AtomicU64>,
    current: Arc<std::sync::Mutex<(String, Vec<u8>)>>,
) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(200));
            let since = started.load(Ordering::Relaxed);
            if since == 0 {
                continue;
            }
            let elapsed = (epoch.elapsed().as_millis() as u64).saturating_sub(since);
            if elapsed > HANG.as_millis() as u64 {
                let (target, input) = current.lock().expect("current input").clone();
                let path = save_failure(&target, 0, &input);
                eprintln!(
                    "fuzz: {target}: an input ran for more than {HANG:?}: {}",
                    path.display()
                );
                std::process::abort();
            }
        }
    });
}

#[test]
fn fuzz() {
    let seconds: f64 = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    let only = std::env::var("FUZZ_TARGET").ok();
    eprintln!("fuzz: seed {seed}, {seconds} s per target (FUZZ_SEED={seed} replays this run)");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let started = Arc::new(AtomicU64::new(0));
    let current = Arc::new(std::sync::Mutex::new((String::new(), Vec::new())));
    let t0 = Instant::now();
    watchdog(t0, started.clone(), current.clone());
    let mut failures = Vec::new();
    for (name, run) in TARGETS {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let server = rt.block_on(async { server() });
        let mut seeds = corpus(name);
        seeds.extend(rt.block_on(live_seeds(name, &server)));
        let mut rng = fastrand::Rng::with_seed(seed ^ fxhash(name));
        let deadline = Instant::now() + Duration::from_secs_f64(seconds);
        let mut runs = 0usize;
        // Every seed as it is first, then mutations.
        while Instant::now() < deadline || runs < seeds.len() {
            let mut input = seeds[runs % seeds.len()].clone();
            if runs >= seeds.len() {
                let other = &seeds[rng.usize(..seeds.len())];
                mutate(&mut rng, &mut input, other);
            }
            *current.lock().expect("current input") = (name.to_owned(), input.clone());
            started.store(t0.elapsed().as_millis() as u64 + 1, Ordering::Relaxed);
            let outcome = rt.block_on(AssertUnwindSafe(run(&server, &input)).catch_unwind());
            started.store(0, Ordering::Relaxed);
            if let Err(panic) = outcome {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                let path = save_failure(name, failures.len() + 1, &input);
                failures.push(format!("{name}: {message} (input: {})", path.display()));
                if failures.len() >= 10 {
                    break;
                }
            }
            runs += 1;
        }
        eprintln!("fuzz: {name}: {runs} inputs");
    }
    assert!(
        failures.is_empty(),
        "fuzzing found {} failing input(s) with seed {seed}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A stable per-target offset of the run's seed.
fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
