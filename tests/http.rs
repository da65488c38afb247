//! Streamable HTTP over a real socket on 127.0.0.1: header validation, status codes,
//! JSON vs SSE answers, listen streams, cancellation by disconnect, security defaults,
//! limits, and legacy sessions on the same endpoint.

use std::time::Duration;

use futures_util::StreamExt as _;
use mcp_framework::HttpConfig;
use serde_json::{Value, json};
use tests::assert_modern;
use tests::fixture::{server, server_with};
use tests::wire::{
    Running, json_of, legacy_initialize, legacy_session, meta, post, request, sse_events, start,
};

#[tokio::test]
async fn a_tool_call_is_answered_with_json() {
    let r = start(server()).await;
    let resp = post(
        &r,
        &request(
            1,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        ),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(resp.headers()["content-type"], "application/json");
    assert!(resp.headers().get("mcp-session-id").is_none());
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], 1);
    assert_modern("CallToolResult", &body["result"]);
    assert_eq!(body["result"]["structuredContent"]["sum"], 3.0);
}

#[tokio::test]
async fn request_metadata_headers_must_mirror_the_body() {
    let r = start(server()).await;
    let body = request(
        2,
        "tools/call",
        json!({"name":"add","arguments":{"a":1,"b":2}}),
    );
    let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
        (
            "missing version",
            r.http
                .post(&r.url)
                .header("content-type", "application/json")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "add")
                .body(body.to_string()),
        ),
        (
            "version mismatch",
            post(&r, &body).header("MCP-Protocol-Version", "2025-11-25"),
        ),
        (
            "missing method",
            r.http
                .post(&r.url)
                .header("content-type", "application/json")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Name", "add")
                .body(body.to_string()),
        ),
        (
            "method mismatch",
            post(&r, &body).header("Mcp-Method", "tools/list"),
        ),
        (
            "missing name",
            r.http
                .post(&r.url)
                .header("content-type", "application/json")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .body(body.to_string()),
        ),
        ("name mismatch", post(&r, &body).header("Mcp-Name", "echo")),
        (
            "bad sentinel",
            r.http
                .post(&r.url)
                .header("content-type", "application/json")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "=?base64?%%%?=")
                .body(body.to_string()),
        ),
        (
            "control characters",
            r.http
                .post(&r.url)
                .header("content-type", "application/json")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header(
                    "Mcp-Name",
                    reqwest::header::HeaderValue::from_bytes(b"add\xff").unwrap(),
                )
                .body(body.to_string()),
        ),
    ];
    for (what, req) in cases {
        // reqwest appends repeated headers: two different values are ambiguous, rejected.
        let (status, reply) = json_of(req.send().await.unwrap()).await;
        assert_eq!(status, 400, "{what}");
        assert_eq!(reply["error"]["code"], -32020, "{what}: {reply}");
        assert_eq!(reply["id"], 2, "{what}");
    }
    // Header names are case-insensitive, and Mcp-Name may be base64-encoded.
    let ok = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("MCP-METHOD", "tools/call")
        .header("mcp-name", "=?base64?YWRk?=")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
}

#[tokio::test]
async fn status_codes_follow_the_error_kind() {
    let r = start(server()).await;
    // Unsupported version, consistently in header and body.
    let mut body = request(3, "server/discover", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let (status, reply) = json_of(post(&r, &body).send().await.unwrap()).await;
    assert_eq!(
        (status.as_u16(), reply["error"]["code"].as_i64()),
        (400, Some(-32022))
    );
    // Unknown method.
    let (status, reply) = json_of(
        post(&r, &request(4, "tools/destroy", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), reply["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
    // Missing capability.
    let (status, reply) = json_of(
        post(
            &r,
            &request(5, "tools/call", json!({"name":"ask_two","arguments":{}})),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), reply["error"]["code"].as_i64()),
        (400, Some(-32021))
    );
    // Malformed JSON: -32700 with id null.
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .body("{\"jsonrpc\": ")
        .send()
        .await
        .unwrap();
    let (status, reply) = json_of(resp).await;
    assert_eq!(status, 400);
    assert_eq!(reply["error"]["code"], -32700);
    assert_eq!(reply["id"], Value::Null);
    // Unknown tool: a JSON-RPC error in a 200.
    let (status, reply) = json_of(
        post(&r, &request(6, "tools/call", json!({"name":"nope"})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), reply["error"]["code"].as_i64()),
        (200, Some(-32602))
    );
    // A notification is accepted with 202 and no body.
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .body(
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})
                .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 202);
    assert!(resp.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn only_post_without_a_legacy_session() {
    let r = start(server()).await;
    for method in [
        reqwest::Method::GET,
        reqwest::Method::DELETE,
        reqwest::Method::PUT,
    ] {
        let resp = r
            .http
            .request(method.clone(), &r.url)
            .header("MCP-Protocol-Version", "2026-07-28")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 405, "{method}");
        assert_eq!(resp.headers()["allow"], "POST");
    }
}

#[tokio::test]
async fn origin_and_host_are_checked_on_loopback() {
    let r = start(server()).await;
    let body = request(7, "server/discover", json!({}));
    let resp = post(&r, &body)
        .header("Origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = post(&r, &body)
        .header("Host", "evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let port = r
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let resp = post(&r, &body)
        .header("Origin", format!("http://localhost:{port}"))
        .header("Host", format!("localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // Configured origins replace the localhost default.
    let r = start(server_with(|b| {
        b.http(
            HttpConfig::new()
                .allow_origin("https://app.example.com")
                .allow_host("*"),
        )
    }))
    .await;
    let ok = post(&r, &body)
        .header("Origin", "https://app.example.com")
        .header("Host", "mcp.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    let no = post(&r, &body)
        .header("Origin", "http://localhost:1")
        .send()
        .await
        .unwrap();
    assert_eq!(no.status(), 403);
}

#[tokio::test]
async fn oversized_and_deep_bodies_get_clear_answers() {
    let r = start(server()).await;
    let big = "x".repeat(5 * 1024 * 1024);
    let body = request(
        8,
        "tools/call",
        json!({"name":"regional_echo","arguments":{"region":"eu","text": big}}),
    );
    let resp = post(&r, &body)
        .header("Mcp-Param-Region", "eu")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 413);
    // 64 levels of nesting: an answer (here, a schema violation), and the server lives on.
    let mut deep = json!("leaf");
    for _ in 0..64 {
        deep = json!([deep]);
    }
    let body = request(
        9,
        "tools/call",
        json!({"name":"add","arguments":{"a": deep, "b": 1}}),
    );
    let (status, reply) = json_of(post(&r, &body).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(reply["result"]["isError"], true);
    // 200 levels exceed the parser's recursion limit: a parse error, not a crash.
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let raw = format!(
        r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"add","arguments":{{"a":{nested},"b":1}},"_meta":{}}}}}"#,
        meta()
    );
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "add")
        .body(raw)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let (status, _) = json_of(
        post(
            &r,
            &request(
                11,
                "tools/call",
                json!({"name":"add","arguments":{"a":1,"b":1}}),
            ),
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn x_mcp_header_parameters_are_checked() {
    let r = start(server()).await;
    let body = request(
        12,
        "tools/call",
        json!({"name":"regional_echo","arguments":{"region":"us-west1","text":"hi"}}),
    );
    let (status, reply) = json_of(post(&r, &body).send().await.unwrap()).await;
    assert_eq!(
        (status.as_u16(), reply["error"]["code"].as_i64()),
        (400, Some(-32020)),
        "missing Mcp-Param-Region"
    );
    let (status, reply) = json_of(
        post(&r, &body)
            .header("Mcp-Param-Region", "eu")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), reply["error"]["code"].as_i64()),
        (400, Some(-32020)),
        "mismatch"
    );
    let (status, reply) = json_of(
        post(&r, &body)
            .header("mcp-param-region", "us-west1")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(reply["result"]["content"][0]["text"], "us-west1:hi");
    // Base64-encoded non-ASCII values, integers compared numerically, absent needs no header.
    let body = request(
        13,
        "tools/call",
        json!({"name":"regional_echo","arguments":{"region":"世界","shard":42,"text":"x"}}),
    );
    let resp = post(&r, &body)
        .header("Mcp-Param-Region", "=?base64?5LiW55WM?=")
        .header("Mcp-Param-Shard", "42.0")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body = request(
        14,
        "tools/call",
        json!({"name":"regional_echo","arguments":{"region":"a","shard":null,"text":"x"}}),
    );
    let resp = post(&r, &body)
        .header("Mcp-Param-Region", "a")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn notifications_turn_the_answer_into_sse() {
    let r = start(server()).await;
    let mut body = request(
        15,
        "tools/call",
        json!({"name":"count","arguments":{"n":3,"delay_ms":5}}),
    );
    body["params"]["_meta"]["progressToken"] = json!("p-1");
    let resp = post(&r, &body).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    assert_eq!(resp.headers()["x-accel-buffering"], "no");
    let events = sse_events(resp, 100).await;
    assert_eq!(events.len(), 4, "{events:?}");
    for (i, e) in events[..3].iter().enumerate() {
        assert_eq!(e["method"], "notifications/progress");
        assert_eq!(e["params"]["progressToken"], "p-1");
        assert_eq!(e["params"]["progress"], (i + 1) as f64);
    }
    assert_eq!(events[3]["id"], 15);
    assert_eq!(events[3]["result"]["content"][0]["text"], "counted 3");
    // A client that only accepts JSON still gets its answer.
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "count")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "application/json");
    let (_, reply) = json_of(resp).await;
    assert_eq!(reply["result"]["content"][0]["text"], "counted 3");
}

#[tokio::test]
async fn closing_the_stream_cancels_the_request() {
    let r = start(server()).await;
    let mut body = request(
        16,
        "tools/call",
        json!({"name":"count","arguments":{"n":1000,"delay_ms":10}}),
    );
    body["params"]["_meta"]["progressToken"] = json!(1);
    let resp = post(&r, &body).send().await.unwrap();
    let mut stream = resp.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(
        std::str::from_utf8(&first)
            .unwrap()
            .contains("notifications/progress")
    );
    drop(stream);
    // The server keeps serving.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, _) = json_of(
        post(&r, &request(17, "server/discover", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn listen_is_a_long_lived_sse_stream() {
    let r = start(server_with(|b| {
        b.http(HttpConfig::new().keep_alive(Duration::from_millis(50)))
    }))
    .await;
    let body = request(
        18,
        "subscriptions/listen",
        json!({"notifications":{"toolsListChanged":true}}),
    );
    let resp = post(&r, &body).send().await.unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut stream = resp.bytes_stream();
    let mut text = String::new();
    while !text.contains("acknowledged") {
        text.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
    }
    assert!(
        text.contains(r#""io.modelcontextprotocol/subscriptionId":18"#),
        "{text}"
    );
    // A change made elsewhere reaches the stream; keep-alive comments flow meanwhile.
    tokio::time::sleep(Duration::from_millis(120)).await;
    r.server.handle().remove_tool("boom");
    let mut more = String::new();
    while !more.contains("list_changed") {
        more.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
    }
    assert!(more.contains(":\n\n"), "keep-alive comments: {more:?}");
    assert!(more.contains(r#""io.modelcontextprotocol/subscriptionId":18"#));
    // Shutdown ends it with the completion result.
    r.server.shutdown();
    let mut rest = String::new();
    while let Some(Ok(chunk)) = stream.next().await {
        rest.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    assert!(rest.contains(r#""resultType":"complete""#), "{rest}");
}

#[tokio::test]
async fn many_concurrent_calls() {
    let r = start(server()).await;
    let calls = (0..200u64).map(|i| {
        let req = post(
            &r,
            &request(
                1000 + i,
                "tools/call",
                json!({"name":"add","arguments":{"a": i, "b": 1}}),
            ),
        )
        .send();
        async move { json_of(req.await.unwrap()).await }
    });
    let results = futures_util::future::join_all(calls).await;
    for (i, (status, body)) in results.into_iter().enumerate() {
        assert_eq!(status, 200);
        assert_eq!(body["id"], 1000 + i as u64);
        assert_eq!(body["result"]["structuredContent"]["sum"], (i + 1) as f64);
    }
}

#[tokio::test]
async fn legacy_sessions_share_the_endpoint() {
    let r = start(server()).await;
    let resp = legacy_initialize(&r, "2025-11-25").await;
    let session = resp.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let (_, reply) = json_of(resp).await;
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    tests::assert_legacy("InitializeResult", &reply["result"]);
    let list = json!({"jsonrpc":"2.0","id":2,"method":"tools/list"});
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(list.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let events = sse_events(resp, 10).await;
    let reply = events.last().unwrap();
    assert!(reply["result"].get("resultType").is_none());
    assert!(reply["result"]["tools"].as_array().unwrap().len() > 3);
    // JSON-only clients get JSON.
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("accept", "application/json")
        .body(list.to_string())
        .send()
        .await
        .unwrap();
    let (status, reply) = json_of(resp).await;
    assert_eq!(status, 200);
    assert!(reply["result"]["tools"].is_array());
    // A modern request on the same endpoint at the same time, with a stray session id.
    let (status, reply) = json_of(
        post(&r, &request(3, "tools/list", json!({})))
            .header("mcp-session-id", "bogus")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(reply["result"]["resultType"], "complete");
    // Unknown session: 404. DELETE ends the session.
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", "nope")
        .body(list.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    let resp = r
        .http
        .delete(&r.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body(list.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn legacy_streams_prime_close_and_resume() {
    let r = start(server()).await;
    let session = legacy_session(&r, "2025-03-26").await;
    let call = json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"reconnect"}});
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-03-26")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    // The server closes the connection mid-call: priming event, the log message, retry.
    let text = resp.text().await.unwrap();
    let blocks: Vec<&str> = text.split("\n\n").filter(|b| !b.is_empty()).collect();
    assert!(
        blocks[0].starts_with("id: ")
            && blocks[0].contains("retry: ")
            && blocks[0].ends_with("data: "),
        "{text:?}"
    );
    assert!(
        blocks.iter().any(|b| b.contains("closing the stream")),
        "{text:?}"
    );
    assert!(
        !text.contains("after reconnect"),
        "the result comes after the reconnection"
    );
    assert!(blocks.last().unwrap().starts_with("retry: "), "{text:?}");
    let last_id = blocks
        .iter()
        .rev()
        .find_map(|b| b.lines().find_map(|l| l.strip_prefix("id: ")))
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(150)).await;
    let resp = r
        .http
        .get(&r.url)
        .header("mcp-session-id", &session)
        .header("last-event-id", &last_id)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let events = sse_events(resp, 10).await;
    let result = events
        .iter()
        .find(|e| e["id"] == 5)
        .expect("the result is replayed");
    assert_eq!(result["result"]["content"][0]["text"], "after reconnect");
    assert!(
        !events
            .iter()
            .any(|e| e["method"] == "notifications/message"),
        "nothing from before Last-Event-ID"
    );
}

#[tokio::test]
async fn a_cancelled_legacy_request_gets_no_response() {
    // The 2025-11-25 cancellation rules: the receiver of `notifications/cancelled` SHOULD
    // not send a response for the cancelled request, even when its handler (which watches
    // its cancellation) still returns a value. Legacy stdio behaves the same.
    let r = start(server()).await;
    let session = legacy_session(&r, "2025-11-25").await;
    let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{
        "name":"count","arguments":{"n":40,"delay_ms":25},"_meta":{"progressToken":"p"}}});
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .header("accept", "application/json, text/event-stream")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut stream = resp.bytes_stream();
    let mut text = String::new();
    while !text.contains("notifications/progress") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("progress within 5 s")
            .expect("the stream stays open")
            .unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}});
    let resp = r
        .http
        .post(&r.url)
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body(cancel.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 202);
    // The stream ends without the request's result.
    let rest = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(chunk)) = stream.next().await {
            text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    })
    .await;
    assert!(rest.is_ok(), "the stream ends after cancellation: {text:?}");
    assert!(
        !text.contains("cancelled at"),
        "a result was sent: {text:?}"
    );
    assert!(!text.contains("\"result\""), "a result was sent: {text:?}");
    assert!(
        !text.contains("counted 40"),
        "the handler was not stopped: {text:?}"
    );
}

#[tokio::test]
async fn initialize_with_modern_metadata_is_an_unknown_method() {
    // `initialize` opens a legacy session only as a legacy handshake. One that carries
    // 2026-07-28 request `_meta` is a modern request (basic/versioning.mdx: "a request
    // carrying modern per-request `_meta` is served statelessly according to this
    // revision"), and 2026-07-28 has no `initialize`: -32601 with HTTP 404, as for the
    // other methods the revision removed, and no session is created.
    let r = start(server()).await;
    let resp = post(&r, &request(3, "initialize", json!({})))
        .send()
        .await
        .unwrap();
    assert!(resp.headers().get("mcp-session-id").is_none());
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["id"], 3);
    assert_eq!(body["error"]["code"], -32601);
    // With legacy params besides: still modern, still unknown.
    let mut params = json!({"protocolVersion":"2025-11-25","capabilities":{},
        "clientInfo":{"name":"x","version":"1"}});
    params["_meta"] = meta();
    let (status, body) = json_of(
        post(&r, &request(4, "initialize", params))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), body["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
    // The legacy handshake itself still opens a session.
    let session = legacy_session(&r, "2025-06-18").await;
    assert!(!session.is_empty());
}

async fn start_router(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://127.0.0.1:{port}/mcp")
}

#[tokio::test]
async fn mrtr_over_http_binds_state_to_the_principal() {
    // An authentication layer of the user's: the `x-user` header names the principal.
    async fn auth(mut req: axum::extract::Request) -> axum::extract::Request {
        if let Some(user) = req.headers().get("x-user").and_then(|v| v.to_str().ok()) {
            let user = user.to_owned();
            req.extensions_mut()
                .insert(mcp_framework::Principal::new(user));
        }
        req
    }
    let server = server();
    let url = start_router(server.router().layer(axum::middleware::map_request(auth))).await;
    let r = Running {
        url,
        server,
        http: reqwest::Client::new(),
    };
    let mut call = request(30, "tools/call", json!({"name":"ask_two","arguments":{}}));
    call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation":{"form":{}}});
    let (status, first) = json_of(
        post(&r, &call)
            .header("x-user", "alice")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_modern("InputRequiredResult", &first["result"]);
    let state = first["result"]["requestState"].clone();
    let key = tests::wire::first_input_key(&first["result"]);
    let mut retry = call.clone();
    retry["id"] = json!(31);
    retry["params"]["requestState"] = state;
    retry["params"]["inputResponses"] =
        json!({ key: {"action":"accept","content":{"name":"Ada"}} });
    // Replayed by somebody else: rejected.
    let (_, stolen) = json_of(
        post(&r, &retry)
            .header("x-user", "mallory")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert!(
        stolen["error"]["message"]
            .as_str()
            .unwrap()
            .contains("principal")
    );
    // By alice: the next question.
    let (_, second) = json_of(
        post(&r, &retry)
            .header("x-user", "alice")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "input_required");
    assert_eq!(
        second["result"]["inputRequests"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["params"]["message"],
        "Favourite colour?"
    );
}

#[tokio::test]
async fn http2_cleartext_with_prior_knowledge() {
    let server = server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    let r = Running {
        url: format!("http://127.0.0.1:{port}/mcp"),
        server,
        http: reqwest::Client::builder()
            .http2_prior_knowledge()
            .build()
            .unwrap(),
    };
    let resp = post(
        &r,
        &request(
            40,
            "tools/call",
            json!({"name":"add","arguments":{"a":1,"b":2}}),
        ),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(resp.version(), reqwest::Version::HTTP_2);
    let (status, body) = json_of(resp).await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["structuredContent"]["sum"], 3.0);
    // Many listen streams share one connection.
    let mut streams = Vec::new();
    for id in 0..20 {
        let resp = post(
            &r,
            &request(
                100 + id,
                "subscriptions/listen",
                json!({"notifications":{"toolsListChanged":true}}),
            ),
        )
        .send()
        .await
        .unwrap();
        assert_eq!(resp.version(), reqwest::Version::HTTP_2);
        streams.push(resp.bytes_stream());
    }
    r.server.handle().remove_tool("boom");
    for mut s in streams {
        let mut text = String::new();
        while !text.contains("list_changed") {
            text.push_str(std::str::from_utf8(&s.next().await.unwrap().unwrap()).unwrap());
        }
    }
    // The loopback Host check uses :authority on HTTP/2.
    let resp = post(&r, &request(41, "server/discover", json!({})))
        .header("Origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
}
