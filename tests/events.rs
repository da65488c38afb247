//! The Events extension (SEP-3415) on the wire: `events/list`, `events/poll` and
//! `events/stream` over stdio (`everything` as a child process) and Streamable HTTP, both
//! eras (legacy clients are not offered it), filters from arguments, cursors, retention
//! and what it says when occurrences were dropped, scopes, the stream limit, heartbeats,
//! cancellation and shutdown.

use std::time::Duration;

use mcp_framework::events::{Emitter, EventType, Events};
use mcp_framework::{PromptSet, ResourceSet, ScopePolicy, Server, ToolSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tests::stdio::Proc;
use tests::wire::{Listener, json_of, post, request};

const SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

/// Reads messages until one satisfies `want`, returning it (within 10 s).
async fn until(p: &mut Proc, want: impl Fn(&Value) -> bool) -> Value {
    loop {
        let v = p.next().await;
        if want(&v) {
            return v;
        }
    }
}

/// Reads messages until one satisfying each of `a` and `b` was seen, in any order.
async fn both(p: &mut Proc, a: impl Fn(&Value) -> bool, b: impl Fn(&Value) -> bool) -> [Value; 2] {
    let (mut first, mut second) = (None, None);
    loop {
        let v = p.next().await;
        if first.is_none() && a(&v) {
            first = Some(v);
        } else if second.is_none() && b(&v) {
            second = Some(v);
        }
        if let (Some(x), Some(y)) = (&first, &second) {
            return [x.clone(), y.clone()];
        }
    }
}

fn notification<'a>(method: &'a str, subscription: i64) -> impl Fn(&Value) -> bool + 'a {
    move |v: &Value| v["method"] == method && v["params"]["_meta"][SUBSCRIPTION] == subscription
}

async fn raise(p: &mut Proc, id: i64, level: &str, message: &str) {
    p.request(
        id,
        "tools/call",
        json!({"name": "raise_alert", "arguments": {"level": level, "message": message}}),
    )
    .await;
}

#[tokio::test]
async fn over_stdio_events_are_listed_polled_filtered_and_streamed() {
    let mut p = Proc::spawn_args(
        tests::stdio::Wiring::Pipes,
        &["--event-heartbeat-ms", "200"],
    );

    // Offered to modern clients, with its one type.
    p.request(1, "server/discover", json!({})).await;
    let (discover, _) = p.until(1).await;
    assert!(
        discover["result"]["capabilities"]["extensions"]
            .get("io.modelcontextprotocol/events")
            .is_some(),
        "{discover}"
    );
    p.request(2, "events/list", json!({})).await;
    let (list, _) = p.until(2).await;
    let types = list["result"]["events"].as_array().unwrap();
    assert_eq!(types.len(), 1, "{list}");
    let alert = &types[0];
    assert_eq!(alert["name"], "alert.raised");
    assert_eq!(alert["delivery"], json!(["poll", "push"]));
    assert!(alert["description"].as_str().unwrap().contains("alert"));
    // Its arguments are listed as the server's schema profile (`portable`, the default)
    // lists a tool's: the optional `level` is a plain string, not `["string", "null"]`.
    assert_eq!(
        alert["inputSchema"]["properties"]["level"]["type"], "string",
        "{alert}"
    );
    assert!(
        alert["payloadSchema"]["properties"]
            .get("message")
            .is_some(),
        "{alert}"
    );
    assert_eq!(list["result"]["resultType"], "complete");

    // A first poll learns where "now" is, and gets nothing.
    p.request(3, "events/poll", json!({"name": "alert.raised"}))
        .await;
    let (first, _) = p.until(3).await;
    let start = first["result"]["cursor"].as_str().unwrap().to_owned();
    assert_eq!(first["result"]["events"], json!([]));
    assert_eq!(first["result"]["truncated"], false);
    assert_eq!(first["result"]["hasMore"], false);
    assert!(first["result"]["nextPollMs"].as_u64().unwrap() > 0);

    // A stream of the critical alerts only.
    p.request(
        10,
        "events/stream",
        json!({"name": "alert.raised", "arguments": {"level": "critical"}}),
    )
    .await;
    let active = until(&mut p, notification("notifications/events/active", 10)).await;
    assert_eq!(active["params"]["truncated"], false, "{active}");
    assert_eq!(active["params"]["cursor"], start.as_str());

    raise(&mut p, 4, "info", "fyi").await;
    raise(&mut p, 5, "critical", "disk full").await;
    let event = until(&mut p, notification("notifications/events/event", 10)).await;
    assert_eq!(event["params"]["name"], "alert.raised");
    assert_eq!(
        event["params"]["data"],
        json!({"level": "critical", "message": "disk full"})
    );
    assert!(
        event["params"]["eventId"]
            .as_str()
            .unwrap()
            .starts_with("evt_")
    );
    assert!(
        event["params"]["timestamp"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert!(event["params"]["cursor"].is_string(), "{event}");
    // Nothing more is delivered on it but heartbeats (the info alert did not pass the
    // filter), each with the stream's position.
    let beat = until(&mut p, |v| {
        assert_ne!(
            v["method"], "notifications/events/event",
            "only the critical alert passes the filter: {v}"
        );
        notification("notifications/events/heartbeat", 10)(v)
    })
    .await;
    assert!(beat["params"]["cursor"].is_string(), "{beat}");

    // Polls from the start get both, oldest first; a page at a time with maxEvents.
    p.request(
        6,
        "events/poll",
        json!({"name": "alert.raised", "cursor": start}),
    )
    .await;
    let (all, _) = p.until(6).await;
    let messages: Vec<&Value> = all["result"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["data"]["message"])
        .collect();
    assert_eq!(messages, [&json!("fyi"), &json!("disk full")], "{all}");
    assert!(
        all["result"]["events"][0].get("cursor").is_none(),
        "poll events carry no cursor"
    );
    p.request(
        7,
        "events/poll",
        json!({"name": "alert.raised", "cursor": start, "maxEvents": 1}),
    )
    .await;
    let (page, _) = p.until(7).await;
    assert_eq!(page["result"]["events"].as_array().unwrap().len(), 1);
    assert_eq!(page["result"]["hasMore"], true, "{page}");
    let next = page["result"]["cursor"].clone();
    p.request(
        8,
        "events/poll",
        json!({"name": "alert.raised", "cursor": next, "arguments": {"level": "critical"}}),
    )
    .await;
    let (rest, _) = p.until(8).await;
    assert_eq!(rest["result"]["events"][0]["data"]["message"], "disk full");
    assert_eq!(rest["result"]["hasMore"], false);
    // Polling again from there: nothing new, the cursor stays.
    let last = rest["result"]["cursor"].clone();
    p.request(
        9,
        "events/poll",
        json!({"name": "alert.raised", "cursor": last}),
    )
    .await;
    let (empty, _) = p.until(9).await;
    assert_eq!(empty["result"]["events"], json!([]));
    assert_eq!(empty["result"]["cursor"], last);

    // Refusals, and the server keeps serving.
    for (id, params, code) in [
        (20, json!({"name": "nope"}), -32023),
        (
            21,
            json!({"name": "alert.raised", "arguments": {"level": 3}}),
            -32602,
        ),
        (
            22,
            json!({"name": "alert.raised", "arguments": {"colour": "red"}}),
            -32602,
        ),
        (
            23,
            json!({"name": "alert.raised", "cursor": "not-a-cursor"}),
            -32602,
        ),
        (
            24,
            json!({"name": "alert.raised", "cursor": last, "maxEvents": 0}),
            -32602,
        ),
    ] {
        p.request(id, "events/poll", params.clone()).await;
        let (refused, _) = p.until(id).await;
        assert_eq!(refused["error"]["code"], code, "{params}: {refused}");
    }

    // Cancelled: the stream stops; nothing more is sent for it.
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}))
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    raise(&mut p, 30, "critical", "after").await;
    let (_, before) = p.until(30).await;
    let deadline = tokio::time::Instant::now() + Duration::from_millis(600);
    let mut after = before;
    while let Ok(Ok(Some(line))) = tokio::time::timeout_at(deadline, p.out.next_line()).await {
        after.push(serde_json::from_str(&line).unwrap());
    }
    assert!(
        after
            .iter()
            .all(|v| v["params"]["_meta"][SUBSCRIPTION] != 10 && v["id"] != 10),
        "{after:?}"
    );

    // A stream open when the server shuts down (stdin closed) ends with its result.
    p.request(40, "events/stream", json!({"name": "alert.raised"}))
        .await;
    until(&mut p, notification("notifications/events/active", 40)).await;
    drop(p.stdin.take());
    let end = until(&mut p, |v| v["id"] == 40).await;
    assert_eq!(end["result"]["resultType"], "complete", "{end}");
    assert_eq!(end["result"]["_meta"][SUBSCRIPTION], 40);
}

#[tokio::test]
async fn legacy_clients_are_not_offered_events() {
    let mut p = Proc::spawn();
    p.send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
    )
    .await;
    let (init, _) = p.until(1).await;
    let extensions = &init["result"]["capabilities"]["extensions"];
    assert!(
        extensions.get("io.modelcontextprotocol/events").is_none(),
        "{init}"
    );
    // Those offered in both eras are still declared (MCP Apps); Tasks, like Events, exists
    // only for 2026-07-28 clients (per-request capabilities, `server/discover`).
    assert!(
        extensions.get("io.modelcontextprotocol/ui").is_some(),
        "{init}"
    );
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_none(),
        "{init}"
    );
    p.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    p.send(json!({"jsonrpc":"2.0","id":2,"method":"events/list","params":{}}))
        .await;
    let (refused, _) = p.until(2).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
}

#[tokio::test]
async fn types_added_and_removed_while_serving_are_announced_and_end_their_streams() {
    let mut p = Proc::spawn_args(
        tests::stdio::Wiring::Pipes,
        &["--event-heartbeat-ms", "200"],
    );
    // The extension declares that its list changes, and a listener may ask to hear of it
    // (the field the extension adds to the listen filter is echoed as granted).
    p.request(1, "server/discover", json!({})).await;
    let (discover, _) = p.until(1).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/events"],
        json!({"listChanged": true}),
        "{discover}"
    );
    p.request(
        2,
        "subscriptions/listen",
        json!({"notifications": {"eventsListChanged": true, "toolsListChanged": true, "somethingElse": true}}),
    )
    .await;
    let ack = until(
        &mut p,
        notification("notifications/subscriptions/acknowledged", 2),
    )
    .await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"eventsListChanged": true, "toolsListChanged": true}),
        "{ack}"
    );
    p.request(3, "events/poll", json!({"name": "maintenance.window"}))
        .await;
    let (unknown, _) = p.until(3).await;
    assert_eq!(unknown["error"]["code"], -32023, "{unknown}");

    // A plugin is loaded: the listener is told, and the type is listed and streamed.
    p.request(
        4,
        "tools/call",
        json!({"name": "toggle_maintenance_events", "arguments": {}}),
    )
    .await;
    let [changed, added] = both(
        &mut p,
        notification("notifications/events/list_changed", 2),
        |v| v["id"] == 4,
    )
    .await;
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION], 2, "{changed}");
    assert_eq!(
        added["result"]["content"][0]["text"], "maintenance.window added",
        "{added}"
    );
    p.request(5, "events/list", json!({})).await;
    let (list, _) = p.until(5).await;
    let names: Vec<&str> = list["result"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alert.raised", "maintenance.window"], "{list}");
    p.request(6, "events/stream", json!({"name": "maintenance.window"}))
        .await;
    until(&mut p, notification("notifications/events/active", 6)).await;

    // Unloaded: its stream is terminated as the draft says (not found, kind "event"),
    // then ends with its result; the listener is told again; a poll is refused.
    p.request(
        7,
        "tools/call",
        json!({"name": "toggle_maintenance_events", "arguments": {}}),
    )
    .await;
    // The listener's notification may come before, between or after the stream's two
    // messages, which come in their order.
    let (mut ended, mut result, mut told) = (None, None, false);
    while ended.is_none() || result.is_none() || !told {
        let v = p.next().await;
        if notification("notifications/events/terminated", 6)(&v) {
            ended = Some(v);
        } else if v["id"] == 6 {
            assert!(ended.is_some(), "the result before the termination: {v}");
            result = Some(v);
        } else if notification("notifications/events/list_changed", 2)(&v) {
            told = true;
        }
    }
    let (ended, result) = (ended.unwrap(), result.unwrap());
    assert_eq!(ended["params"]["error"]["code"], -32023, "{ended}");
    assert_eq!(ended["params"]["error"]["data"]["kind"], "event", "{ended}");
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    p.request(8, "events/poll", json!({"name": "maintenance.window"}))
        .await;
    let (gone, _) = p.until(8).await;
    assert_eq!(gone["error"]["code"], -32023, "{gone}");
    // The other type is untouched.
    p.request(9, "events/poll", json!({"name": "alert.raised"}))
        .await;
    let (alive, _) = p.until(9).await;
    assert!(alive["result"]["cursor"].is_string(), "{alive}");
}

#[tokio::test]
async fn over_http_a_stream_is_sse_and_polls_are_json() {
    let (_child, r) = tests::everything(&["--event-heartbeat-ms", "200"]).await;
    let resp = post(
        &r,
        &request(5, "events/stream", json!({"name": "alert.raised"})),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut stream = Listener::follow(resp);
    let active = stream.next(Duration::from_secs(5)).await.expect("active");
    assert_eq!(active["method"], "notifications/events/active", "{active}");
    assert_eq!(active["params"]["_meta"][SUBSCRIPTION], 5);
    let start = active["params"]["cursor"].clone();
    let (status, raised) = json_of(
        post(
            &r,
            &request(
                6,
                "tools/call",
                json!({"name": "raise_alert", "arguments": {"level": "warning", "message": "hot"}}),
            ),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{raised}");
    let mut seen = Vec::new();
    let event = loop {
        let m = stream
            .next(Duration::from_secs(5))
            .await
            .expect("the event");
        if m["method"] == "notifications/events/event" {
            break m;
        }
        seen.push(m);
    };
    assert_eq!(event["params"]["data"]["message"], "hot");
    assert_eq!(event["params"]["_meta"][SUBSCRIPTION], 5);
    // Heartbeats as data frames.
    let beat = loop {
        let m = stream
            .next(Duration::from_secs(5))
            .await
            .expect("a heartbeat");
        if m["method"] == "notifications/events/heartbeat" {
            break m;
        }
    };
    assert_eq!(beat["params"]["_meta"][SUBSCRIPTION], 5);
    assert_eq!(beat["params"]["cursor"], event["params"]["cursor"]);
    // A poll from the stream's start is one JSON answer.
    let (status, polled) = json_of(
        post(
            &r,
            &request(
                7,
                "events/poll",
                json!({"name": "alert.raised", "cursor": start}),
            ),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        polled["result"]["events"][0]["data"]["message"], "hot",
        "{polled}"
    );
}

/// Something else.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Alert {
    level: String,
}

/// A deploy finished.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Deployed {
    n: u32,
}

/// Secret rotations.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Rotated {
    key: String,
}

/// Audit entries.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Audited {
    who: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// A server with a small retention, a scoped type, a hidden one, and one stream at most.
fn scoped_server() -> (Server, Emitter) {
    let events = Events::new()
        .max_streams(1)
        .heartbeat(Duration::from_millis(50))
        .event(EventType::new::<Deployed>("deploy.finished").retain(2, 1 << 20))
        .event(EventType::new::<Rotated>("secret.rotated").scopes(["secrets:read"]))
        .event(
            EventType::new::<Audited>("audit.entry")
                .scopes(["audit:read"])
                .scope_policy(ScopePolicy::Hide)
                .arguments(|_: &Audited, _: &NoArgs| true),
        );
    let emitter = events.emitter();
    let server = Server::builder()
        .tools(ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .extension(events)
        .build()
        .unwrap();
    (server, emitter)
}

async fn call(r: &tests::wire::Running, scopes: &str, method: &str, params: Value) -> Value {
    let resp = post(r, &request(1, method, params))
        .header("x-user", "ada")
        .header("x-scopes", scopes)
        .send()
        .await
        .unwrap();
    json_of(resp).await.1
}

#[tokio::test]
async fn retention_scopes_and_the_stream_limit() {
    let (server, emitter) = scoped_server();
    let r = tests::wire::start_authenticated(server).await;

    // Before anything is emitted, a cursor; then five occurrences, of which two are kept.
    let first = call(&r, "", "events/poll", json!({"name": "deploy.finished"})).await;
    let start = first["result"]["cursor"].clone();
    for n in 1..=5 {
        emitter.emit(Deployed { n }).unwrap();
    }
    let late = call(
        &r,
        "",
        "events/poll",
        json!({"name": "deploy.finished", "cursor": start}),
    )
    .await;
    assert_eq!(late["result"]["truncated"], true, "{late}");
    let kept: Vec<&Value> = late["result"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["data"]["n"])
        .collect();
    assert_eq!(kept, [&json!(4), &json!(5)], "{late}");
    // A cursor of another log (an earlier process, another type): told, and given what is
    // kept.
    let foreign = call(
        &r,
        "",
        "events/poll",
        json!({"name": "deploy.finished", "cursor": "0123456789ab.3"}),
    )
    .await;
    assert_eq!(foreign["result"]["truncated"], true, "{foreign}");
    assert_eq!(foreign["result"]["events"].as_array().unwrap().len(), 2);

    // Scopes: a listed type is refused without them, a hidden one does not exist.
    let listed = call(&r, "", "events/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["deploy.finished", "secret.rotated"], "{listed}");
    let refused = call(&r, "", "events/poll", json!({"name": "secret.rotated"})).await;
    assert_eq!(refused["error"]["code"], -32024, "{refused}");
    let unknown = call(&r, "", "events/poll", json!({"name": "audit.entry"})).await;
    assert_eq!(unknown["error"]["code"], -32023, "{unknown}");
    let granted = call(&r, "audit:read secrets:read", "events/list", json!({})).await;
    assert_eq!(
        granted["result"]["events"].as_array().unwrap().len(),
        3,
        "{granted}"
    );
    let polled = call(
        &r,
        "secrets:read",
        "events/poll",
        json!({"name": "secret.rotated"}),
    )
    .await;
    assert!(polled["result"]["cursor"].is_string(), "{polled}");

    // One stream at most: the second is refused while the first is open.
    let open = post(
        &r,
        &request(2, "events/stream", json!({"name": "deploy.finished"})),
    )
    .header("x-user", "ada")
    .send()
    .await
    .unwrap();
    let mut first_stream = Listener::follow(open);
    let active = first_stream
        .next(Duration::from_secs(5))
        .await
        .expect("active");
    assert_eq!(active["method"], "notifications/events/active");
    let second = call(&r, "", "events/stream", json!({"name": "deploy.finished"})).await;
    assert_eq!(second["error"]["code"], -32025, "{second}");
    assert_eq!(second["error"]["data"]["limit"], "subscriptions");
    // Closed: its place is free again.
    drop(first_stream);
    // Closed: its place is free again (the server notices at the stream's next heartbeat
    // at the latest).
    let mut reopened = None;
    for _ in 0..100 {
        let resp = post(
            &r,
            &request(
                3,
                "events/stream",
                json!({"name": "deploy.finished", "cursor": start}),
            ),
        )
        .header("x-user", "ada")
        .send()
        .await
        .unwrap();
        if resp.headers()["content-type"] == "text/event-stream" {
            reopened = Some(Listener::follow(resp));
            break;
        }
        let (_, refused) = json_of(resp).await;
        assert_eq!(refused["error"]["code"], -32025, "{refused}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut reopened = reopened.expect("the place is given back when a stream closes");
    // From an old cursor: what is kept is replayed, saying some were dropped.
    let active = reopened.next(Duration::from_secs(5)).await.expect("active");
    assert_eq!(active["params"]["truncated"], true, "{active}");
    for n in [4, 5] {
        let event = reopened
            .next(Duration::from_secs(5))
            .await
            .expect("replayed");
        assert_eq!(event["params"]["data"]["n"], n, "{event}");
    }
}

#[test]
fn a_misconfigured_events_extension_fails_the_build() {
    let events = Events::new()
        .event(EventType::new::<Deployed>("twice"))
        .event(EventType::new::<Rotated>("twice"))
        .event(
            EventType::new::<Audited>("hooks").delivery([mcp_framework::events::Delivery::Webhook]),
        )
        .event(EventType::new::<Alert>("mixed").arguments(|_: &Deployed, _: &NoArgs| true));
    let err = Server::builder()
        .tools(ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .extension(events)
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("`twice` is defined twice"), "{err}");
    assert!(err.contains("configure Events::webhooks"), "{err}");
    assert!(err.contains("not its payload type"), "{err}");
    let unbuilt = Events::new().event(EventType::new::<Deployed>("x"));
    assert!(matches!(
        unbuilt.emitter().emit(Deployed { n: 1 }),
        Err(mcp_framework::events::EmitError::NotServing)
    ));
}

/// A webhook receiver on 127.0.0.1: verifies every delivery's Standard Webhooks signature
/// with its secret, answers a verification challenge, records what it got, and answers
/// with the statuses queued in `fail` first.
#[derive(Clone, Default)]
struct Receiver {
    got: std::sync::Arc<std::sync::Mutex<Vec<(axum::http::HeaderMap, Value)>>>,
    fail: std::sync::Arc<std::sync::Mutex<Vec<u16>>>,
    /// What `/raw` got, unverified: headers and body bytes.
    raw: std::sync::Arc<std::sync::Mutex<Vec<(axum::http::HeaderMap, axum::body::Bytes)>>>,
}

const SECRET_BYTES: &[u8; 32] = b"0123456789abcdef0123456789abcdef";

fn whsec() -> String {
    use base64::Engine as _;
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(SECRET_BYTES)
    )
}

fn verify(headers: &axum::http::HeaderMap, body: &[u8]) -> bool {
    signed_with(SECRET_BYTES, headers, body)
}

/// Whether one of the signatures of `webhook-signature` is `key`'s.
fn signed_with(key: &[u8], headers: &axum::http::HeaderMap, body: &[u8]) -> bool {
    let expected = sign(key, headers, body);
    headers["webhook-signature"]
        .to_str()
        .unwrap()
        .split(' ')
        .any(|s| s == expected)
}

impl Receiver {
    /// Serves `/hook` (a receiver) and `/mute` (answers 200 but echoes nothing).
    async fn start(&self) -> String {
        let me = self.clone();
        let hook = axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let me = me.clone();
                async move {
                    assert!(verify(&headers, &body), "a forged or broken signature");
                    let value: Value = serde_json::from_slice(&body).unwrap();
                    me.got.lock().unwrap().push((headers, value.clone()));
                    if value["type"] == "verification" {
                        let answer = json!({"challenge": value["challenge"]}).to_string();
                        return (axum::http::StatusCode::OK, answer);
                    }
                    let status = {
                        let mut fail = me.fail.lock().unwrap();
                        if fail.is_empty() { 204 } else { fail.remove(0) }
                    };
                    (
                        axum::http::StatusCode::from_u16(status).unwrap(),
                        String::new(),
                    )
                }
            },
        );
        let me = self.clone();
        let raw = axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let me = me.clone();
                async move {
                    let value: Value = serde_json::from_slice(&body).unwrap();
                    me.raw.lock().unwrap().push((headers, body));
                    json!({"challenge": value["challenge"]}).to_string()
                }
            },
        );
        // `/open/…`: covered by the origin's well-known document, so never challenged (it
        // answers 204 to anything, a challenge included, and records what it got).
        let me = self.clone();
        let open = axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                let me = me.clone();
                async move {
                    me.raw.lock().unwrap().push((headers, body));
                    axum::http::StatusCode::NO_CONTENT
                }
            },
        );
        let document = axum::routing::get(|| async {
            (
                [
                    ("cache-control", "max-age=60"),
                    ("content-type", "application/json"),
                ],
                json!({"receivers": ["/open/"]}).to_string(),
            )
        });
        let app = axum::Router::new()
            .route("/hook", hook)
            .route("/raw", raw)
            .route("/open/{name}", open)
            .route("/.well-known/mcp-webhook-receiver.json", document)
            .route("/mute", axum::routing::post(|| async { "ok" }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://127.0.0.1:{port}")
    }

    fn deliveries(&self) -> Vec<(axum::http::HeaderMap, Value)> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, v)| v["type"] != "verification")
            .cloned()
            .collect()
    }

    async fn wait_for(&self, n: usize) -> Vec<(axum::http::HeaderMap, Value)> {
        for _ in 0..200 {
            let got = self.deliveries();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{} deliveries, not {n}", self.deliveries().len());
    }
}

fn webhook_server(webhooks: mcp_framework::events::Webhooks) -> (Server, Emitter) {
    use mcp_framework::events::Delivery;
    let events = Events::new().webhooks(webhooks).event(
        EventType::new::<Deployed>("deploy.finished")
            .delivery([Delivery::Poll, Delivery::Webhook])
            .arguments(|d: &Deployed, only: &OnlyEven| !only.even || d.n.is_multiple_of(2)),
    );
    let emitter = events.emitter();
    let server = Server::builder()
        .tools(ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .extension(events)
        .build()
        .unwrap();
    (server, emitter)
}

#[derive(Deserialize, JsonSchema)]
struct OnlyEven {
    #[serde(default)]
    even: bool,
}

#[tokio::test]
async fn webhooks_are_verified_signed_filtered_retried_and_ended() {
    use mcp_framework::events::Webhooks;
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let (server, emitter) = webhook_server(
        Webhooks::new()
            .allow_plain_http()
            .allow_private_networks()
            .retries(3, Duration::from_millis(10)),
    );
    let r = tests::wire::start_authenticated(server).await;
    let hook = format!("{base}/hook");
    let subscribe = |url: &str, secret: &str| {
        json!({"name": "deploy.finished", "arguments": {"even": true},
               "delivery": {"mode": "webhook", "url": url, "secret": secret}})
    };
    let send = |body: Value, user: Option<&'static str>| {
        let mut b = post(
            &r,
            &request(1, body["method"].as_str().unwrap(), body["params"].clone()),
        );
        if let Some(u) = user {
            b = b.header("x-user", u);
        }
        b.send()
    };
    let call = |method: &str, params: Value| json!({"method": method, "params": params});

    // Only an authenticated caller subscribes; the secret must be a Standard Webhooks one.
    let (_, anonymous) = json_of(
        send(call("events/subscribe", subscribe(&hook, &whsec())), None)
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(anonymous["error"]["code"], -32024, "{anonymous}");
    let (_, weak) = json_of(
        send(
            call("events/subscribe", subscribe(&hook, "whsec_c2hvcnQ=")),
            Some("ada"),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(weak["error"]["code"], -32602, "{weak}");
    // An endpoint that does not echo the challenge gets nothing.
    let (_, mute) = json_of(
        send(
            call(
                "events/subscribe",
                subscribe(&format!("{base}/mute"), &whsec()),
            ),
            Some("ada"),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(mute["error"]["code"], -32027, "{mute}");
    assert_eq!(mute["error"]["data"]["reason"], "challenge_failed");

    // Subscribed: the endpoint was challenged first (signed), then gets what passes the
    // filter, signed, with its subscription id and a watermark cursor.
    let (_, sub) = json_of(
        send(
            call("events/subscribe", subscribe(&hook, &whsec())),
            Some("ada"),
        )
        .await
        .unwrap(),
    )
    .await;
    let id = sub["result"]["id"].as_str().expect("an id").to_owned();
    assert!(id.starts_with("sub_"), "{sub}");
    assert!(sub["result"]["refreshBefore"].is_string(), "{sub}");
    assert!(sub["result"]["cursor"].is_string(), "{sub}");
    let challenged = receiver.got.lock().unwrap()[0].clone();
    assert_eq!(challenged.1["type"], "verification");
    assert!(
        challenged.0["webhook-id"]
            .to_str()
            .unwrap()
            .starts_with("msg_verification_")
    );
    for n in 1..=4 {
        emitter.emit(Deployed { n }).unwrap();
    }
    let got = receiver.wait_for(2).await;
    let ns: Vec<&Value> = got.iter().map(|(_, v)| &v["data"]["n"]).collect();
    assert_eq!(ns, [&json!(2), &json!(4)], "only even ones: {got:?}");
    for (headers, body) in &got {
        assert_eq!(
            headers["webhook-id"].to_str().unwrap(),
            body["eventId"].as_str().unwrap()
        );
        assert_eq!(headers["x-mcp-subscription-id"].to_str().unwrap(), id);
        assert_eq!(headers["content-type"], "application/json");
        assert!(
            body["cursor"].is_string() && body["timestamp"].is_string(),
            "{body}"
        );
    }

    // A failing endpoint: retried with backoff until it answers.
    receiver.fail.lock().unwrap().extend([500, 503]);
    emitter.emit(Deployed { n: 6 }).unwrap();
    let got = receiver.wait_for(5).await;
    let sixes = got.iter().filter(|(_, v)| v["data"]["n"] == 6).count();
    assert_eq!(sixes, 3, "two failures, then delivered: {got:?}");
    // 410: not retried.
    receiver.fail.lock().unwrap().push(410);
    emitter.emit(Deployed { n: 8 }).unwrap();
    emitter.emit(Deployed { n: 10 }).unwrap();
    let got = receiver.wait_for(7).await;
    assert_eq!(
        got.iter().filter(|(_, v)| v["data"]["n"] == 8).count(),
        1,
        "{got:?}"
    );

    // A refresh: the same subscription, its TTL granted again, how delivery goes.
    let (_, again) = json_of(
        send(
            call("events/subscribe", subscribe(&hook, &whsec())),
            Some("ada"),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(again["result"]["id"], id.as_str(), "{again}");
    assert_eq!(again["result"]["deliveryStatus"]["active"], true, "{again}");
    // Another principal with the same URL and arguments has a subscription of its own.
    let (_, theirs) = json_of(
        send(
            call("events/subscribe", subscribe(&hook, &whsec())),
            Some("bob"),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_ne!(theirs["result"]["id"], id.as_str(), "{theirs}");
    let unsubscribe = json!({"name": "deploy.finished", "arguments": {"even": true},
                             "delivery": {"url": hook}});
    let (_, bye) = json_of(
        send(call("events/unsubscribe", unsubscribe.clone()), Some("bob"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(bye["result"]["resultType"], "complete", "{bye}");

    // Unsubscribed: nothing more; a second unsubscribe finds nothing.
    let (_, bye) = json_of(
        send(call("events/unsubscribe", unsubscribe.clone()), Some("ada"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(bye["result"]["resultType"], "complete", "{bye}");
    let before = receiver.deliveries().len();
    emitter.emit(Deployed { n: 12 }).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.deliveries().len(), before);
    let (_, gone) = json_of(
        send(call("events/unsubscribe", unsubscribe), Some("ada"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(gone["error"]["code"], -32023, "{gone}");
    assert_eq!(gone["error"]["data"]["kind"], "subscription");
}

/// Another Standard Webhooks secret (the first is [`whsec`]'s).
const NEW_SECRET: &[u8; 32] = b"fedcba9876543210fedcba9876543210";

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_new_one_for_its_grace_window() {
    use base64::Engine as _;
    use mcp_framework::events::Webhooks;
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let (server, emitter) = webhook_server(
        Webhooks::new()
            .allow_plain_http()
            .allow_private_networks()
            .rotation_grace(Duration::from_millis(500)),
    );
    let r = tests::wire::start_authenticated(server).await;
    let subscribe = |secret: String| {
        let params = json!({"name": "deploy.finished",
            "delivery": {"mode": "webhook", "url": format!("{base}/raw"), "secret": secret}});
        post(&r, &request(1, "events/subscribe", params))
            .header("x-user", "ada")
            .send()
    };
    let new = format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(NEW_SECRET)
    );
    let delivered = |n: u64| {
        let raw = receiver.raw.clone();
        async move {
            for _ in 0..300 {
                let found = raw.lock().unwrap().iter().find_map(|(h, b)| {
                    let v: Value = serde_json::from_slice(b).ok()?;
                    (v["data"]["n"] == n).then(|| (h.clone(), b.clone()))
                });
                if let Some(found) = found {
                    return found;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            panic!("occurrence {n} was not delivered");
        }
    };
    let signatures =
        |h: &axum::http::HeaderMap| h["webhook-signature"].to_str().unwrap().split(' ').count();

    let (_, first) = json_of(subscribe(whsec()).await.unwrap()).await;
    let id = first["result"]["id"]
        .as_str()
        .expect("subscribed")
        .to_owned();
    emitter.emit(Deployed { n: 1 }).unwrap();
    let (h, body) = delivered(1).await;
    assert!(signed_with(SECRET_BYTES, &h, &body));
    assert_eq!(signatures(&h), 1, "one secret, one signature");

    // The refresh rotates the secret: both sign for the grace window, the new one first.
    let (_, again) = json_of(subscribe(new.clone()).await.unwrap()).await;
    assert_eq!(again["result"]["id"], id.as_str(), "{again}");
    emitter.emit(Deployed { n: 2 }).unwrap();
    let (h, body) = delivered(2).await;
    assert!(signed_with(NEW_SECRET, &h, &body), "the new secret signs");
    assert!(
        signed_with(SECRET_BYTES, &h, &body),
        "the old one still does"
    );
    assert_eq!(signatures(&h), 2);
    assert!(
        h["webhook-signature"]
            .to_str()
            .unwrap()
            .starts_with(&format!("{} ", sign(NEW_SECRET, &h, &body)))
    );

    // After the window, the new secret alone.
    tokio::time::sleep(Duration::from_millis(600)).await;
    emitter.emit(Deployed { n: 3 }).unwrap();
    let (h, body) = delivered(3).await;
    assert!(signed_with(NEW_SECRET, &h, &body));
    assert!(
        !signed_with(SECRET_BYTES, &h, &body),
        "the old secret signs no more"
    );
    assert_eq!(signatures(&h), 1);
}

#[tokio::test]
async fn an_origin_that_publishes_its_receivers_is_not_challenged() {
    use mcp_framework::events::Webhooks;
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let (server, emitter) =
        webhook_server(Webhooks::new().allow_plain_http().allow_private_networks());
    let r = tests::wire::start_authenticated(server).await;
    let subscribe = |url: String| {
        let params = json!({"name": "deploy.finished",
            "delivery": {"mode": "webhook", "url": url, "secret": whsec()}});
        post(&r, &request(1, "events/subscribe", params))
            .header("x-user", "ada")
            .send()
    };
    // Covered by `{"receivers": ["/open/"]}`: subscribed with no challenge POST at all.
    let (_, sub) = json_of(subscribe(format!("{base}/open/a")).await.unwrap()).await;
    assert!(sub["result"]["id"].is_string(), "{sub}");
    let (_, other) = json_of(subscribe(format!("{base}/open/b")).await.unwrap()).await;
    assert!(other["result"]["id"].is_string(), "{other}");
    assert!(
        receiver.raw.lock().unwrap().is_empty(),
        "nothing was POSTed to the covered endpoints"
    );
    // A path it does not list is challenged as ever (and `/mute` does not echo).
    let (_, refused) = json_of(subscribe(format!("{base}/mute")).await.unwrap()).await;
    assert_eq!(
        refused["error"]["data"]["reason"], "challenge_failed",
        "{refused}"
    );
    // Deliveries to a covered endpoint are signed like any.
    emitter.emit(Deployed { n: 1 }).unwrap();
    for _ in 0..300 {
        if receiver.raw.lock().unwrap().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let got = receiver.raw.lock().unwrap().clone();
    assert_eq!(got.len(), 2, "one delivery per subscription");
    for (headers, body) in &got {
        assert!(verify(headers, body));
        let body: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(body["data"]["n"], 1, "{body}");
    }
}

/// The `v1,` signature of a delivery under `key`.
fn sign(key: &[u8], headers: &axum::http::HeaderMap, body: &[u8]) -> String {
    use base64::Engine as _;
    use hmac::{KeyInit as _, Mac as _};
    let h = |n: &str| headers[n].to_str().unwrap().to_owned();
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).unwrap();
    mac.update(format!("{}.{}.", h("webhook-id"), h("webhook-timestamp")).as_bytes());
    mac.update(body);
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    )
}

#[tokio::test]
async fn webhooks_go_to_public_https_endpoints_only_by_default() {
    use mcp_framework::events::Webhooks;
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let (server, _emitter) = webhook_server(Webhooks::new());
    let r = tests::wire::start_authenticated(server).await;
    for url in [
        format!("{base}/hook"),                      // http
        "https://127.0.0.1:9/hook".to_owned(),       // loopback
        "https://10.0.0.7/hook".to_owned(),          // private
        "https://[::1]/hook".to_owned(),             // loopback, IPv6
        "https://169.254.169.254/latest".to_owned(), // link-local (cloud metadata)
        "https://localhost/hook".to_owned(),         // a name for loopback
    ] {
        let params = json!({"name": "deploy.finished",
            "delivery": {"url": url, "secret": whsec()}});
        let resp = post(&r, &request(1, "events/subscribe", params))
            .header("x-user", "ada")
            .send()
            .await
            .unwrap();
        let (_, refused) = json_of(resp).await;
        assert_eq!(refused["error"]["code"], -32602, "{url}: {refused}");
    }
    assert!(receiver.got.lock().unwrap().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn a_host_cannot_be_flooded_with_verification_challenges() {
    use mcp_framework::events::Webhooks;
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let (server, _emitter) =
        webhook_server(Webhooks::new().allow_plain_http().allow_private_networks());
    let r = tests::wire::start_authenticated(server).await;
    let mut codes = Vec::new();
    for n in 0..12 {
        // An endpoint that never echoes the challenge, under a new URL each time.
        let params = json!({"name": "deploy.finished",
            "delivery": {"url": format!("{base}/mute?n={n}"), "secret": whsec()}});
        let resp = post(&r, &request(1, "events/subscribe", params))
            .header("x-user", "mallory")
            .send()
            .await
            .unwrap();
        codes.push(json_of(resp).await.1["error"]["code"].clone());
    }
    let challenged = codes.iter().filter(|c| **c == -32027).count();
    let limited = codes.iter().filter(|c| **c == -32025).count();
    assert_eq!((challenged, limited), (10, 2), "{codes:?}");
}

#[tokio::test]
async fn a_removed_type_ends_its_http_streams_and_webhook_subscriptions() {
    use mcp_framework::events::{Delivery, EventTypeError, Webhooks};
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let events = Events::new()
        .webhooks(Webhooks::new().allow_plain_http().allow_private_networks())
        .event(EventType::new::<Deployed>("deploy.finished").delivery([
            Delivery::Poll,
            Delivery::Push,
            Delivery::Webhook,
        ]));
    let types = events.event_types();
    // Before the server is built there is nothing to change.
    assert!(matches!(
        types.add(EventType::new::<Alert>("alert")),
        Err(EventTypeError::NotServing)
    ));
    let server = Server::builder()
        .tools(ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .extension(events)
        .build()
        .unwrap();
    // A type is checked as `build()` checks one: a payload type taken, a webhook type…
    let taken = types.add(EventType::new::<Deployed>("deploy.again"));
    assert!(
        matches!(&taken, Err(EventTypeError::Invalid(why)) if why.contains("payload of two")),
        "{taken:?}"
    );
    types
        .add(EventType::new::<Alert>("alert.raised"))
        .expect("a new type");
    // A type added while serving carries its scopes as a configured one does.
    types
        .add(
            EventType::new::<Audited>("audit.entry")
                .scopes(["audit:read"])
                .scope_policy(ScopePolicy::Hide),
        )
        .expect("a scoped type");
    assert_eq!(
        types.names(),
        ["deploy.finished", "alert.raised", "audit.entry"]
    );
    let r = tests::wire::start_authenticated(server).await;
    let names = |listed: &Value| -> Vec<String> {
        listed["result"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let unscoped = call(&r, "", "events/list", json!({})).await;
    assert_eq!(names(&unscoped), ["deploy.finished", "alert.raised"]);
    let hidden = call(&r, "", "events/poll", json!({"name": "audit.entry"})).await;
    assert_eq!(hidden["error"]["code"], -32023, "{hidden}");
    let scoped = call(&r, "audit:read", "events/list", json!({})).await;
    assert_eq!(
        names(&scoped),
        ["deploy.finished", "alert.raised", "audit.entry"]
    );
    let polled = call(
        &r,
        "audit:read",
        "events/poll",
        json!({"name": "audit.entry"}),
    )
    .await;
    assert!(polled["result"]["cursor"].is_string(), "{polled}");

    // A webhook subscription (verified by the receiver) and an SSE stream on the type.
    let subscribed = call(
        &r,
        "",
        "events/subscribe",
        json!({"name": "deploy.finished",
               "delivery": {"mode": "webhook", "url": format!("{base}/hook"), "secret": whsec()}}),
    )
    .await;
    assert!(subscribed["result"]["id"].is_string(), "{subscribed}");
    let resp = post(
        &r,
        &request(5, "events/stream", json!({"name": "deploy.finished"})),
    )
    .header("x-user", "ada")
    .send()
    .await
    .unwrap();
    let mut stream = Listener::follow(resp);
    let active = stream.next(Duration::from_secs(5)).await.expect("active");
    assert_eq!(active["method"], "notifications/events/active", "{active}");

    assert!(types.remove("deploy.finished"));
    assert!(!types.remove("deploy.finished"), "removed once");
    let ended = stream
        .next(Duration::from_secs(5))
        .await
        .expect("terminated");
    assert_eq!(
        ended["method"], "notifications/events/terminated",
        "{ended}"
    );
    assert_eq!(ended["params"]["error"]["code"], -32023, "{ended}");
    assert_eq!(ended["params"]["_meta"][SUBSCRIPTION], 5, "{ended}");
    let result = stream.next(Duration::from_secs(5)).await.expect("result");
    assert_eq!(result["id"], 5, "{result}");
    assert_eq!(result["result"]["resultType"], "complete", "{result}");
    // The webhook is told, signed like every delivery (the receiver checks it).
    let got = receiver.wait_for(1).await;
    let (headers, body) = &got[0];
    assert_eq!(body["type"], "terminated", "{body}");
    assert_eq!(body["error"]["code"], -32023, "{body}");
    assert_eq!(body["error"]["data"]["kind"], "event", "{body}");
    assert!(
        headers["webhook-id"]
            .to_str()
            .unwrap()
            .starts_with("msg_terminated_")
    );
    // Gone for every mode; the other type stays.
    let again = call(
        &r,
        "",
        "events/subscribe",
        json!({"name": "deploy.finished",
               "delivery": {"mode": "webhook", "url": format!("{base}/hook"), "secret": whsec()}}),
    )
    .await;
    assert_eq!(again["error"]["code"], -32023, "{again}");
    let listed = call(&r, "", "events/list", json!({})).await;
    assert_eq!(names(&listed), ["alert.raised"], "{listed}");
}

#[tokio::test]
async fn deliveries_carry_the_servers_own_signature_whose_key_the_card_publishes() {
    use base64::Engine as _;
    use ed25519_dalek::Verifier as _;
    use mcp_framework::events::{Delivery, Webhooks};
    let b64 = base64::engine::general_purpose::STANDARD;
    let receiver = Receiver::default();
    let base = receiver.start().await;
    let seed = [7u8; 32];
    let events = Events::new()
        .webhooks(
            Webhooks::new()
                .allow_plain_http()
                .allow_private_networks()
                .signing_key("server-key-1", &format!("whsk_{}", b64.encode(seed)))
                // The next key, published before it signs (a rotation).
                .published_key(
                    "server-key-2",
                    &format!(
                        "whpk_{}",
                        b64.encode(
                            ed25519_dalek::SigningKey::from_bytes(&[9u8; 32])
                                .verifying_key()
                                .as_bytes()
                        )
                    ),
                ),
        )
        .event(
            EventType::new::<Deployed>("deploy.finished")
                .delivery([Delivery::Poll, Delivery::Webhook]),
        );
    let emitter = events.emitter();
    let server = Server::builder()
        .description("Deploys, announced by webhook")
        .server_card(mcp_framework::ServerCard::new("com.example/deploys"))
        .tools(ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .extension(events)
        .build()
        .unwrap();
    let r = tests::wire::start_authenticated(server).await;

    // The public key, from an origin the receiver already trusts: the server's card (still
    // a valid card), a JWK set as the draft provisionally places it.
    let card = tests::wire::server_card(&r).await;
    let jwk = &card["webhooks"]["signingKeys"]["keys"][0];
    assert_eq!(
        (&jwk["kty"], &jwk["crv"], &jwk["alg"], &jwk["kid"]),
        (
            &json!("OKP"),
            &json!("Ed25519"),
            &json!("EdDSA"),
            &json!("server-key-1")
        ),
        "{card}"
    );
    let kids: Vec<&Value> = card["webhooks"]["signingKeys"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| &k["kid"])
        .collect();
    assert_eq!(kids, [&json!("server-key-1"), &json!("server-key-2")]);
    let x = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(jwk["x"].as_str().unwrap())
        .unwrap();
    let public = ed25519_dalek::VerifyingKey::from_bytes(&x.try_into().unwrap()).unwrap();
    assert_eq!(
        public,
        ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key()
    );
    // `v1a,` verifies with it over `id.timestamp.body`; `v1,` (the HMAC) is still there.
    let server_signed = |headers: &axum::http::HeaderMap, body: &[u8]| {
        let id = headers["webhook-id"].to_str().unwrap();
        let ts = headers["webhook-timestamp"].to_str().unwrap();
        let content = [id.as_bytes(), b".", ts.as_bytes(), b".", body].concat();
        let signatures = headers["webhook-signature"].to_str().unwrap();
        let v1a: Vec<&str> = signatures
            .split(' ')
            .filter_map(|s| s.strip_prefix("v1a,"))
            .collect();
        assert_eq!(v1a.len(), 1, "{signatures}");
        let signature = ed25519_dalek::Signature::from_slice(&b64.decode(v1a[0]).unwrap()).unwrap();
        public.verify(&content, &signature).is_ok() && signed_with(SECRET_BYTES, headers, body)
    };

    let subscribed = call(
        &r,
        "",
        "events/subscribe",
        json!({"name": "deploy.finished",
               "delivery": {"mode": "webhook", "url": format!("{base}/raw"), "secret": whsec()}}),
    )
    .await;
    assert!(subscribed["result"]["id"].is_string(), "{subscribed}");
    emitter.emit(Deployed { n: 1 }).unwrap();
    let got = {
        let mut got = Vec::new();
        for _ in 0..200 {
            got = receiver.raw.lock().unwrap().clone();
            if got.len() >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        got
    };
    assert_eq!(got.len(), 2, "the challenge and one delivery");
    for (headers, body) in &got {
        assert!(server_signed(headers, body), "{body:?}");
    }
    // A body changed on the way fails the server's signature.
    let (headers, body) = &got[1];
    let mut forged = body.to_vec();
    let last = forged.len() - 2;
    forged[last] ^= 1;
    let id = headers["webhook-id"].to_str().unwrap();
    let ts = headers["webhook-timestamp"].to_str().unwrap();
    let sig = headers["webhook-signature"].to_str().unwrap();
    let v1a = sig.split(' ').find_map(|s| s.strip_prefix("v1a,")).unwrap();
    let signature = ed25519_dalek::Signature::from_slice(&b64.decode(v1a).unwrap()).unwrap();
    let content = [id.as_bytes(), b".", ts.as_bytes(), b".", &forged].concat();
    assert!(public.verify(&content, &signature).is_err());

    // A key that does not read fails the build, naming it.
    let e = Server::builder()
        .tools(ToolSet::new())
        .extension(Events::new().webhooks(Webhooks::new().signing_key("k", "whsk_bm90IGEga2V5")))
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("the webhook signing key `k` is not"), "{e}");
    let e = Server::builder()
        .tools(ToolSet::new())
        .extension(Events::new().webhooks(Webhooks::new().published_key("old", "whpk_eA==")))
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("the published key `old` is not"), "{e}");
}
