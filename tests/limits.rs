//! What a client can make the server hold is bounded, over the real transports: resource
//! URIs, legacy sessions (how many, what each keeps, its resumable streams' replay bytes,
//! its running requests), stdio's running requests, and `subscriptions/listen` streams
//! (per client, in all, their lifetime, or none at all). Each limit answers clearly and the
//! server keeps serving everyone else.

use std::time::Duration;

use futures_util::StreamExt as _;
use mcp_framework::{HttpConfig, ListenConfig};
use serde_json::{Value, json};
use tests::fixture::{server, server_with};
use tests::wire::{
    Piped, Running, initialize_with, json_of, legacy_initialize, legacy_post, legacy_session, post,
    request, sse_events, start,
};

fn read(uri: &str) -> Value {
    request(3, "resources/read", json!({ "uri": uri }))
}

#[tokio::test]
async fn a_resource_uri_longer_than_the_limit_is_invalid_params() {
    let r = start(server_with(|b| b.max_uri_bytes(1024))).await;
    let long = format!("test://items/{}", "9".repeat(2000));
    let (status, body) = json_of(post(&r, &read(&long)).send().await.unwrap()).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    assert_eq!(body["error"]["data"]["maxUriBytes"], 1024, "{body}");
    // A completion reference is checked the same way.
    let complete = request(
        4,
        "completion/complete",
        json!({"ref":{"type":"ref/resource","uri": long},"argument":{"name":"id","value":"1"}}),
    );
    let (status, body) = json_of(post(&r, &complete).send().await.unwrap()).await;
    assert_eq!(
        (status.as_u16(), &body["error"]["code"]),
        (400, &json!(-32602))
    );
    // Within the limit, the same template answers.
    let (status, body) = json_of(post(&r, &read("test://items/7")).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["contents"][0]["text"], r#"{"id":7}"#);
}

#[tokio::test]
async fn a_megabyte_uri_is_matched_when_the_limit_allows_it() {
    // Template matching is linear in the URI: with the limit raised, a 1 MiB URI (too
    // long for an HTTP header, so over stdio) gets the template's ordinary answer.
    let server = server_with(|b| b.max_uri_bytes(2 << 20).max_message_bytes(4 << 20));
    let mut pipe = Piped::serve(&server);
    let long = format!("test://items/{}", "1".repeat(1 << 20));
    pipe.send(&read(&long)).await;
    let answer = pipe.next().await;
    assert_eq!(answer["id"], 3);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        !message.contains("accepts at most"),
        "matched, not refused: {message}"
    );
    pipe.send(&read("test://items/5")).await;
    assert_eq!(
        pipe.next().await["result"]["contents"][0]["text"],
        r#"{"id":5}"#
    );
}

/// The SSE stream id of a legacy response (its priming event is `id: {stream}-0`).
async fn priming_stream_id(resp: reqwest::Response) -> String {
    let mut stream = resp.bytes_stream();
    let mut text = String::new();
    while !text.contains("\n\n") {
        text.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
    }
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("the priming event has an id");
    id.strip_suffix("-0").expect("sequence 0").to_owned()
    // Dropping `stream` here closes the connection; the request runs on.
}

fn resume(r: &Running, session: &str, last_event_id: &str) -> reqwest::RequestBuilder {
    r.http
        .get(&r.url)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("accept", "text/event-stream")
        .header("last-event-id", last_event_id)
}

#[tokio::test]
async fn resumable_streams_keep_a_bounded_replay_and_say_what_was_dropped() {
    let r = start(server_with(|b| {
        b.http(HttpConfig::new().replay_budget(8 * 1024, 1 << 20))
    }))
    .await;
    let session = legacy_session(&r, "2025-11-25").await;
    // 100 progress notifications (~200 bytes each with their overhead) and the result,
    // while nobody is connected: far over the session's 8 KiB.
    let call = json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{
        "name":"count","arguments":{"n":100,"delay_ms":1},"_meta":{"progressToken":"p"}}});
    let resp = legacy_post(&r, &session, &call).send().await.unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let stream = priming_stream_id(resp).await;
    tokio::time::sleep(Duration::from_millis(800)).await;

    // From the start: the first events are gone, and the answer says so.
    let resp = resume(&r, &session, &format!("{stream}-0"))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 410, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("replay budget"),
        "{body}"
    );
    let oldest = body["error"]["data"]["oldestAvailable"]
        .as_str()
        .expect("what is still kept")
        .to_owned();
    let seq: u64 = oldest.rsplit('-').next().unwrap().parse().unwrap();
    assert!(seq > 1, "the oldest events were dropped first: {oldest}");

    // From just before the oldest kept event: the rest is replayed, result included.
    let resp = resume(&r, &session, &format!("{stream}-{}", seq - 1))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let events = sse_events(resp, 200).await;
    assert!(events.len() < 60, "bounded by the budget: {}", events.len());
    let last = events.last().expect("events");
    assert_eq!(last["id"], 9);
    assert_eq!(last["result"]["content"][0]["text"], "counted 100");

    // The session still serves.
    let list = json!({"jsonrpc":"2.0","id":10,"method":"tools/list"});
    let events = sse_events(legacy_post(&r, &session, &list).send().await.unwrap(), 1).await;
    assert!(events[0]["result"]["tools"].is_array());
}

#[tokio::test]
async fn a_full_session_store_refuses_newcomers_and_evicts_only_idle_sessions() {
    let r = start(server_with(|b| {
        b.http(
            HttpConfig::new()
                .max_sessions(2)
                .session_idle_timeout(Duration::from_secs(2)),
        )
    }))
    .await;
    let first = legacy_session(&r, "2025-11-25").await;
    let second = legacy_session(&r, "2025-11-25").await;
    let resp = legacy_initialize(&r, "2025-11-25").await;
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    let (_, body) = json_of(resp).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maximum of 2 sessions")
    );

    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"});
    for session in [&first, &second] {
        let resp = legacy_post(&r, session, &ping).send().await.unwrap();
        assert_eq!(resp.status(), 200, "sessions in use are kept");
        let _ = resp.text().await;
    }
    // Once idle for a while (half the idle timeout here), the least recently used session
    // makes room.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let third = legacy_session(&r, "2025-11-25").await;
    let resp = legacy_post(&r, &first, &ping).send().await.unwrap();
    assert_eq!(
        resp.status(),
        404,
        "the least recently used session made room"
    );
    for session in [&second, &third] {
        let resp = legacy_post(&r, session, &ping).send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let _ = resp.text().await;
    }
}

#[tokio::test]
async fn one_client_address_holds_a_bounded_share_of_sessions() {
    let r = start(server_with(|b| {
        b.http(HttpConfig::new().max_sessions_per_peer(2))
    }))
    .await;
    let one = legacy_session(&r, "2025-11-25").await;
    let _two = legacy_session(&r, "2025-11-25").await;
    let resp = legacy_initialize(&r, "2025-11-25").await;
    assert_eq!(resp.status(), 429);
    assert_eq!(resp.headers()["retry-after"], "1");
    // Ending one makes room.
    let resp = r
        .http
        .delete(&r.url)
        .header("mcp-session-id", &one)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    legacy_session(&r, "2025-11-25").await;
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_share_is_per_forwarded_client() {
    let r = start(server_with(|b| {
        b.http(
            HttpConfig::new()
                .max_sessions_per_peer(1)
                .trust_proxy("127.0.0.1")
                .allow_host("*"),
        )
    }))
    .await;
    let init = |client: &'static str| {
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":
            {"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
        r.http
            .post(&r.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("x-forwarded-for", client)
            .body(init.to_string())
            .send()
    };
    // Two clients behind the same proxy (this test's address) each get their share.
    assert_eq!(init("198.51.100.1").await.unwrap().status(), 200);
    assert_eq!(init("198.51.100.2").await.unwrap().status(), 200);
    assert_eq!(init("198.51.100.1").await.unwrap().status(), 429);
}

#[tokio::test]
async fn the_addresses_of_one_ipv6_network_are_one_client() {
    // The server listens on 127.0.0.1 only: the clients' addresses come through a trusted
    // proxy (this test), as `X-Forwarded-For`.
    let serve = |prefix: Option<u8>| {
        start(server_with(move |b| {
            let mut http = HttpConfig::new()
                .max_sessions_per_peer(1)
                .trust_proxy("127.0.0.1")
                .allow_host("*");
            if let Some(bits) = prefix {
                http = http.client_ipv6_prefix(bits);
            }
            b.http(http)
        }))
    };
    let init = |r: &Running, client: &'static str| {
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":
            {"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
        r.http
            .post(&r.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("x-forwarded-for", client)
            .body(init.to_string())
            .send()
    };
    let r = serve(None).await;
    for (client, status) in [
        ("2001:db8:1:2::a", 200),
        // Another address of the same /64: the same client, its share taken.
        ("2001:db8:1:2:ffff:ffff:ffff:b", 429),
        // Another /64: another client.
        ("2001:db8:1:3::a", 200),
        // IPv4 by address; an IPv4-mapped address is that IPv4 client.
        ("192.0.2.7", 200),
        ("::ffff:192.0.2.7", 429),
        ("192.0.2.8", 200),
    ] {
        let resp = init(&r, client).await.unwrap();
        assert_eq!(resp.status(), status, "{client}");
    }
    // Keyed by /128: each address its own client.
    let r = serve(Some(128)).await;
    for client in ["2001:db8:1:2::a", "2001:db8:1:2::b"] {
        assert_eq!(init(&r, client).await.unwrap().status(), 200, "{client}");
    }
}

#[tokio::test]
async fn a_session_keeps_bounded_client_data() {
    let r = start(server()).await;
    let resp = initialize_with(
        &r,
        json!({"protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":"x".repeat(100_000),"version":"1"}}),
    )
    .await;
    assert!(resp.headers().get("mcp-session-id").is_none());
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], -32602);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most"),
        "{body}"
    );
}

fn slow_call(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
        "name":"count","arguments":{"n":1,"delay_ms":5000}}})
}

#[tokio::test]
async fn a_legacy_session_runs_a_bounded_number_of_requests() {
    let r = start(server_with(|b| b.max_concurrent_requests(2))).await;
    let session = legacy_session(&r, "2025-11-25").await;
    let a = legacy_post(&r, &session, &slow_call(1))
        .send()
        .await
        .unwrap();
    let b = legacy_post(&r, &session, &slow_call(2))
        .send()
        .await
        .unwrap();
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    let resp = legacy_post(&r, &session, &slow_call(3))
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["id"], 3);
    assert_eq!(body["error"]["data"]["maxConcurrentRequests"], 2);
    // Cancelling one frees its place.
    let cancel =
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}});
    let resp = legacy_post(&r, &session, &cancel).send().await.unwrap();
    assert_eq!(resp.status(), 202);
    let ping = json!({"jsonrpc":"2.0","id":4,"method":"tools/list"});
    let mut status = 0;
    for _ in 0..50 {
        let resp = legacy_post(&r, &session, &ping).send().await.unwrap();
        status = resp.status().as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_stdio_connection_runs_a_bounded_number_of_requests() {
    let server = server_with(|b| b.max_concurrent_requests(2));
    let mut pipe = Piped::serve(&server);
    for id in 1..=2 {
        pipe.send(&request(
            id,
            "tools/call",
            json!({"name":"count","arguments":{"n":1,"delay_ms":5000}}),
        ))
        .await;
    }
    pipe.send(&request(
        3,
        "tools/call",
        json!({"name":"count","arguments":{"n":1,"delay_ms":5000}}),
    ))
    .await;
    let refused = pipe.next().await;
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(
        refused["error"]["data"]["maxConcurrentRequests"], 2,
        "{refused}"
    );
    // The connection still reads: a cancellation frees a place for the next request.
    pipe.send(
        &json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,
        "_meta": tests::wire::meta()}}),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    pipe.send(&request(4, "tools/list", json!({}))).await;
    let answer = pipe.next().await;
    assert_eq!(answer["id"], 4, "{answer}");
    assert!(answer["result"]["tools"].is_array(), "{answer}");
}

fn listen(id: u64) -> Value {
    request(
        id,
        "subscriptions/listen",
        json!({"notifications":{"toolsListChanged":true}}),
    )
}

#[tokio::test]
async fn listen_streams_are_bounded_per_client_and_in_all() {
    let r = start(server_with(|b| {
        b.listen(ListenConfig::new().max_streams_per_peer(1).max_streams(100))
    }))
    .await;
    let open = post(&r, &listen(1)).send().await.unwrap();
    assert_eq!(open.status(), 200);
    let refused = post(&r, &listen(2)).send().await.unwrap();
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "1");
    let (_, body) = json_of(refused).await;
    assert_eq!(body["id"], 2);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("maximum of 1 listen")
    );
    // Closing the stream gives its place back.
    drop(open);
    let mut status = 0;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let resp = post(&r, &listen(3)).send().await.unwrap();
        status = resp.status().as_u16();
        if status == 200 {
            break;
        }
    }
    assert_eq!(status, 200);

    let r = start(server_with(|b| {
        b.listen(ListenConfig::new().max_streams(1))
    }))
    .await;
    let _open = post(&r, &listen(1)).send().await.unwrap();
    let refused = post(&r, &listen(2)).send().await.unwrap();
    assert_eq!(refused.status(), 503);
}

#[tokio::test]
async fn a_listen_stream_ends_gracefully_after_its_lifetime() {
    let r = start(server_with(|b| {
        b.listen(ListenConfig::new().max_lifetime(Duration::from_millis(300)))
    }))
    .await;
    let resp = post(&r, &listen(7)).send().await.unwrap();
    let events = tokio::time::timeout(Duration::from_secs(5), sse_events(resp, 10))
        .await
        .expect("the stream ends by itself");
    assert_eq!(
        events[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    let last = events.last().unwrap();
    assert_eq!(last["id"], 7, "{events:?}");
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        7
    );

    // Over stdio the same: the acknowledgement, then the closing result.
    let server =
        server_with(|b| b.listen(ListenConfig::new().max_lifetime(Duration::from_millis(300))));
    let mut pipe = Piped::serve(&server);
    pipe.send(&listen(8)).await;
    let ack = pipe.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let end = pipe.next().await;
    assert_eq!(
        (&end["id"], &end["result"]["resultType"]),
        (&json!(8), &json!("complete"))
    );
}

#[tokio::test]
async fn listen_can_be_turned_off() {
    let r = start(server_with(|b| b.listen(ListenConfig::off()))).await;
    let (status, body) = json_of(post(&r, &listen(1)).send().await.unwrap()).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], -32601);
    let discover = request(2, "server/discover", json!({}));
    let (_, body) = json_of(post(&r, &discover).send().await.unwrap()).await;
    let caps = &body["result"]["capabilities"];
    assert!(caps["tools"]["listChanged"].is_null(), "{caps}");
    assert!(caps["prompts"]["listChanged"].is_null(), "{caps}");
    assert!(caps["resources"]["subscribe"].is_null(), "{caps}");
    assert!(caps["resources"]["listChanged"].is_null(), "{caps}");
    // Legacy sessions are told the same, and cannot subscribe.
    let session = legacy_session(&r, "2025-11-25").await;
    let subscribe = json!({"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://static"}});
    let events = sse_events(
        legacy_post(&r, &session, &subscribe).send().await.unwrap(),
        1,
    )
    .await;
    assert_eq!(events[0]["error"]["code"], -32601, "{events:?}");
    // Everything else still serves.
    let (status, _) = json_of(post(&r, &read("test://static")).send().await.unwrap()).await;
    assert_eq!(status, 200);
}

/// A server with one tool, `wait`: it runs for `ms` milliseconds ("waited {tag}"), unless it
/// is cancelled first, which it reports with its `tag` on the returned channel.
fn waiting_server(
    f: impl FnOnce(mcp_framework::ServerBuilder) -> mcp_framework::ServerBuilder,
) -> (
    mcp_framework::Server,
    tokio::sync::mpsc::UnboundedReceiver<u64>,
) {
    use mcp_framework::{CallToolResult, Content, Context, Server, ToolDefinition, ToolSet};
    let (seen, cancelled) = tokio::sync::mpsc::unbounded_channel();
    let schema = json!({"type":"object","properties":{"tag":{"type":"integer"},"ms":{"type":"integer"}},"required":["tag","ms"]});
    let tools = ToolSet::new().with_fn(
        ToolDefinition::new("wait", tests::fixture::obj(schema)),
        move |args, cx: Context| {
            let seen = seen.clone();
            async move {
                let tag = args["tag"].as_u64().unwrap_or_default();
                let ms = args["ms"].as_u64().unwrap_or_default();
                let text = tokio::select! {
                    () = cx.cancelled() => {
                        let _ = seen.send(tag);
                        "cancelled".to_owned()
                    }
                    () = tokio::time::sleep(Duration::from_millis(ms)) => format!("waited {tag}"),
                };
                Ok(CallToolResult {
                    content: vec![Content::text(text)],
                    ..CallToolResult::default()
                })
            }
        },
    );
    let server = f(Server::builder().name("waiting").tools(tools))
        .build()
        .expect("the server builds");
    (server, cancelled)
}

fn wait_call(id: u64, ms: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
        "name":"wait","arguments":{"tag":id,"ms":ms}}})
}

/// Posts `body` in `session` until it is accepted (a place was freed); the last status.
async fn accepted_soon(r: &Running, session: &str, body: &Value) -> u16 {
    let mut status = 0;
    for _ in 0..100 {
        let resp = legacy_post(r, session, body).send().await.unwrap();
        status = resp.status().as_u16();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    status
}

#[tokio::test]
async fn a_legacy_request_nobody_resumes_is_cancelled() {
    let (server, mut cancelled) = waiting_server(|b| {
        b.max_concurrent_requests(1)
            .http(HttpConfig::new().resume_timeout(Duration::from_millis(500)))
    });
    let r = start(server).await;
    let session = legacy_session(&r, "2025-11-25").await;
    let resp = legacy_post(&r, &session, &wait_call(1, 60_000))
        .send()
        .await
        .unwrap();
    // The connection goes, and no GET with Last-Event-ID follows.
    let stream = priming_stream_id(resp).await;
    // Until the resume timeout, the request runs on and holds its place.
    let (status, body) = json_of(
        legacy_post(&r, &session, &wait_call(2, 0))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 429, "{body}");
    // Then its handler is cancelled, and the place is free.
    let seen = tokio::time::timeout(Duration::from_secs(5), cancelled.recv()).await;
    assert_eq!(seen.expect("cancelled within 5 s"), Some(1));
    let list = json!({"jsonrpc":"2.0","id":3,"method":"tools/list"});
    assert_eq!(accepted_soon(&r, &session, &list).await, 200);
    // A client that comes back too late learns why there is no result.
    let resp = resume(&r, &session, &format!("{stream}-0"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let events = sse_events(resp, 5).await;
    let answer = events.iter().find(|e| e["id"] == 1).expect("an answer");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no connection followed")),
        "{answer}"
    );
}

#[tokio::test]
async fn a_legacy_request_resumed_in_time_completes() {
    let (server, mut cancelled) =
        waiting_server(|b| b.http(HttpConfig::new().resume_timeout(Duration::from_millis(500))));
    let r = start(server).await;
    let session = legacy_session(&r, "2025-11-25").await;
    // It runs three times the resume timeout, its connection lost at once.
    let resp = legacy_post(&r, &session, &wait_call(1, 1500))
        .send()
        .await
        .unwrap();
    let stream = priming_stream_id(resp).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let resp = resume(&r, &session, &format!("{stream}-0"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let events = tokio::time::timeout(Duration::from_secs(10), sse_events(resp, 5))
        .await
        .expect("the stream ends with the result");
    let answer = events.iter().find(|e| e["id"] == 1).expect("the result");
    assert_eq!(
        answer["result"]["content"][0]["text"], "waited 1",
        "{answer}"
    );
    assert!(
        cancelled.try_recv().is_err(),
        "the handler was not cancelled"
    );
}

#[tokio::test]
async fn legacy_requests_running_detached_are_bounded_in_all() {
    let (server, _cancelled) =
        waiting_server(|b| b.http(HttpConfig::new().max_detached_requests(2)));
    let r = start(server).await;
    let one = legacy_session(&r, "2025-11-25").await;
    let two = legacy_session(&r, "2025-11-25").await;
    let a = legacy_post(&r, &one, &wait_call(1, 60_000))
        .send()
        .await
        .unwrap();
    let b = legacy_post(&r, &two, &wait_call(2, 60_000))
        .send()
        .await
        .unwrap();
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    // A third, in either session (each far below its own limit): the server is full.
    let resp = legacy_post(&r, &one, &wait_call(3, 0))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["retry-after"], "1");
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["id"], 3);
    assert_eq!(body["error"]["code"], -32603);
    assert_eq!(body["error"]["data"]["maxDetachedRequests"], 2, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("2 legacy requests")),
        "{body}"
    );
    // One ends: its place is free.
    let cancel =
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}});
    assert_eq!(
        legacy_post(&r, &two, &cancel)
            .send()
            .await
            .unwrap()
            .status(),
        202
    );
    assert_eq!(accepted_soon(&r, &one, &wait_call(4, 0)).await, 200);
    drop((a, b));
}

#[tokio::test]
async fn one_client_address_holds_at_most_1000_sessions_by_default() {
    let r = start(server()).await;
    for i in 0..1000 {
        let resp = legacy_initialize(&r, "2025-11-25").await;
        assert_eq!(resp.status(), 200, "session {i}");
    }
    let resp = legacy_initialize(&r, "2025-11-25").await;
    assert_eq!(resp.status(), 429);
    let (_, body) = json_of(resp).await;
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("maximum of 1000 sessions")),
        "{body}"
    );
}

#[tokio::test]
async fn a_client_at_its_share_reuses_its_own_idle_sessions() {
    let r = start(server_with(|b| {
        b.http(
            HttpConfig::new()
                .max_sessions_per_peer(2)
                .session_idle_timeout(Duration::from_secs(2)),
        )
    }))
    .await;
    let first = legacy_session(&r, "2025-11-25").await;
    let second = legacy_session(&r, "2025-11-25").await;
    assert_eq!(legacy_initialize(&r, "2025-11-25").await.status(), 429);
    // Abandoned without DELETE: once idle for a while (half the idle timeout here), the
    // client's least recently used session makes room for its new one.
    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"});
    tokio::time::sleep(Duration::from_millis(600)).await;
    let _ = legacy_post(&r, &second, &ping)
        .send()
        .await
        .unwrap()
        .text()
        .await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let _third = legacy_session(&r, "2025-11-25").await;
    let gone = legacy_post(&r, &first, &ping).send().await.unwrap();
    assert_eq!(
        gone.status(),
        404,
        "the least recently used session made room"
    );
    let kept = legacy_post(&r, &second, &ping).send().await.unwrap();
    assert_eq!(kept.status(), 200);
}
