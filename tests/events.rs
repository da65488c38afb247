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
    assert!(
        alert["inputSchema"]["properties"].get("level").is_some(),
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
    // Other extensions are still declared.
    assert!(
        extensions.get("io.modelcontextprotocol/tasks").is_some(),
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

/// A deploy finished.
#[derive(Serialize, JsonSchema)]
struct Deployed {
    n: u32,
}

/// Secret rotations.
#[derive(Serialize, JsonSchema)]
struct Rotated {
    key: String,
}

/// Audit entries.
#[derive(Serialize, JsonSchema)]
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
        );
    let err = Server::builder()
        .tools(ToolSet::new())
        .prompts(PromptSet::new())
        .resources(ResourceSet::new())
        .extension(events)
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("`twice` is defined twice"), "{err}");
    assert!(err.contains("webhook delivery is not served yet"), "{err}");
    let unbuilt = Events::new().event(EventType::new::<Deployed>("x"));
    assert!(matches!(
        unbuilt.emitter().emit(Deployed { n: 1 }),
        Err(mcp_framework::events::EmitError::NotServing)
    ));
}
