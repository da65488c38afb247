//! End-to-end over real stdio: spawns `examples/everything` and talks newline-delimited
//! JSON-RPC to it, over pipes (as Python and Rust clients start servers), over socket pairs
//! (as Node's `child_process` does), and with a file on stdin (served by a thread).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::Command;

use tests::stdio::{Proc, Wiring, meta};

fn binary() -> PathBuf {
    tests::example_binary("everything")
}

#[tokio::test]
async fn garbage_gets_parse_errors_and_the_server_keeps_serving() {
    garbage_gets_parse_errors_and_the_server_keeps_serving_over(Wiring::Pipes).await;
    garbage_gets_parse_errors_and_the_server_keeps_serving_over(Wiring::Sockets).await;
}

async fn garbage_gets_parse_errors_and_the_server_keeps_serving_over(wiring: Wiring) {
    let mut p = Proc::spawn_with(wiring);
    p.send_raw(b"this is not json").await;
    let e = p.next().await;
    assert_eq!(e["error"]["code"], -32700);
    assert_eq!(e["id"], Value::Null);
    p.send_raw(&[0xff, 0xfe, 0x00, 0x9f, b'{']).await;
    assert_eq!(p.next().await["error"]["code"], -32700);
    p.send_raw(br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#)
        .await;
    assert_eq!(p.next().await["error"]["code"], -32600);
    p.send_raw(br#"{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}"#)
        .await;
    assert_eq!(p.next().await["error"]["code"], -32600);
    p.request(
        2,
        "tools/call",
        json!({"name":"add","arguments":{"a":2,"b":3}}),
    )
    .await;
    let (r, _) = p.until(2).await;
    assert_eq!(r["result"]["structuredContent"]["sum"], 5.0);
}

#[tokio::test]
async fn a_result_that_breaks_its_output_schema_is_not_a_success() {
    let mut p = Proc::spawn();
    p.request(
        1,
        "tools/call",
        json!({"name":"test_invalid_structured_output","arguments":{}}),
    )
    .await;
    let (r, _) = p.until(1).await;
    // A debug build: an internal error naming the mismatch.
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("does not match its outputSchema") && message.contains("/celsius"),
        "{message}"
    );
}

#[tokio::test]
async fn requests_run_concurrently_and_answers_interleave() {
    requests_run_concurrently_and_answers_interleave_over(Wiring::Pipes).await;
    requests_run_concurrently_and_answers_interleave_over(Wiring::Sockets).await;
}

async fn requests_run_concurrently_and_answers_interleave_over(wiring: Wiring) {
    let mut p = Proc::spawn_with(wiring);
    p.request(
        1,
        "tools/call",
        json!({"name":"count_slowly","arguments":{"n":5,"delay_ms":100}}),
    )
    .await;
    p.request(
        2,
        "tools/call",
        json!({"name":"echo","arguments":{"text":"fast"}}),
    )
    .await;
    let first = p.next().await;
    assert_eq!(first["id"], 2, "the fast request overtakes the slow one");
    let (slow, _) = p.until(1).await;
    assert_eq!(slow["result"]["content"][0]["text"], "counted 5");
}

#[tokio::test]
async fn cancellation_stops_the_request_and_silences_it() {
    cancellation_stops_the_request_and_silences_it_over(Wiring::Pipes).await;
    cancellation_stops_the_request_and_silences_it_over(Wiring::Sockets).await;
}

async fn cancellation_stops_the_request_and_silences_it_over(wiring: Wiring) {
    let mut p = Proc::spawn_with(wiring);
    let mut m = meta();
    m["progressToken"] = json!("tok");
    p.request(
        7,
        "tools/call",
        json!({"name":"count_slowly","arguments":{"n":100,"delay_ms":30},"_meta":m}),
    )
    .await;
    let progress = p.next().await;
    assert_eq!(progress["params"]["progressToken"], "tok");
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}})).await;
    p.request(
        8,
        "tools/call",
        json!({"name":"echo","arguments":{"text":"still here"}}),
    )
    .await;
    let (echo, before) = p.until(8).await;
    assert_eq!(echo["result"]["content"][0]["text"], "still here");
    assert!(
        before.len() <= 1,
        "at most one in-flight notification after cancelling: {before:?}"
    );
    // Nothing more for request 7, ever.
    let quiet = tokio::time::timeout(Duration::from_millis(300), p.out.next_line()).await;
    assert!(
        quiet.is_err(),
        "unexpected output after cancellation: {quiet:?}"
    );
}

#[tokio::test]
async fn stdout_is_protocol_only_and_eof_exits() {
    stdout_is_protocol_only_and_eof_exits_over(Wiring::Pipes).await;
    stdout_is_protocol_only_and_eof_exits_over(Wiring::Sockets).await;
}

async fn stdout_is_protocol_only_and_eof_exits_over(wiring: Wiring) {
    let mut p = Proc::spawn_with(wiring);
    p.request(1, "server/discover", json!({})).await;
    let (d, _) = p.until(1).await;
    assert_eq!(d["result"]["resultType"], "complete");
    drop(p.stdin.take());
    let status = tokio::time::timeout(Duration::from_secs(5), p.child.wait())
        .await
        .expect("exits on EOF")
        .unwrap();
    assert!(status.success());
    assert!(
        p.out.next_line().await.unwrap().is_none(),
        "nothing after the answers"
    );
    let mut err = String::new();
    tokio::io::AsyncReadExt::read_to_string(p.child.stderr.as_mut().unwrap(), &mut err)
        .await
        .unwrap();
    assert!(!err.is_empty(), "logs go to stderr");
}

#[tokio::test]
async fn a_legacy_session_and_modern_requests_share_the_process() {
    let mut p = Proc::spawn();
    p.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}))
        .await;
    let (init, _) = p.until(1).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    p.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))
        .await;
    p.send(json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    assert_eq!(p.until(2).await.0["result"], json!({}));
    // A modern request on the same process is served statelessly, with modern shapes.
    p.request(3, "tools/list", json!({})).await;
    let (list, _) = p.until(3).await;
    assert_eq!(list["result"]["resultType"], "complete");
    // An `initialize` carrying modern `_meta` is a modern request for a method 2026-07-28
    // does not have (see tests/http.rs): -32601, and the session is left alone.
    p.request(30, "initialize", json!({})).await;
    let (unknown, _) = p.until(30).await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // And the legacy session still gets legacy shapes.
    p.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}))
        .await;
    let (list, _) = p.until(4).await;
    assert!(list["result"].get("resultType").is_none());
    // Legacy list_changed on the session stream after a change.
    p.send(json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"toggle_extra_tool","arguments":{}}})).await;
    let (mut saw_notification, mut saw_result) = (false, false);
    while !(saw_notification && saw_result) {
        let v = p.next().await;
        saw_notification |= v["method"] == "notifications/tools/list_changed";
        saw_result |= v["id"] == 5;
    }
}

#[tokio::test]
async fn listen_on_stdio_is_tagged_and_cancellable() {
    let mut p = Proc::spawn();
    p.request(
        10,
        "subscriptions/listen",
        json!({"notifications":{"toolsListChanged":true}}),
    )
    .await;
    let ack = p.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        10
    );
    p.request(
        11,
        "tools/call",
        json!({"name":"toggle_extra_tool","arguments":{}}),
    )
    .await;
    let (_, before) = p.until(11).await;
    let mut all = before;
    if !all
        .iter()
        .any(|v| v["method"] == "notifications/tools/list_changed")
    {
        all.push(p.next().await);
    }
    let n = all
        .iter()
        .find(|v| v["method"] == "notifications/tools/list_changed")
        .expect("a list change");
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        10
    );
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}))
        .await;
    p.request(
        12,
        "tools/call",
        json!({"name":"toggle_extra_tool","arguments":{}}),
    )
    .await;
    let (_, before) = p.until(12).await;
    assert!(
        before.is_empty(),
        "a cancelled subscription gets nothing: {before:?}"
    );
}

#[tokio::test]
async fn a_tool_that_prints_to_stdout_cannot_corrupt_the_stream() {
    a_tool_that_prints_to_stdout_cannot_corrupt_the_stream_over(Wiring::Pipes).await;
    a_tool_that_prints_to_stdout_cannot_corrupt_the_stream_over(Wiring::Sockets).await;
}

async fn a_tool_that_prints_to_stdout_cannot_corrupt_the_stream_over(wiring: Wiring) {
    let mut p = Proc::spawn_with(wiring);
    p.request(
        1,
        "tools/call",
        json!({"name":"print_to_stdout","arguments":{"text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} and more"}}),
    )
    .await;
    // `next` fails on any line that is not one JSON-RPC message.
    let (reply, before) = p.until(1).await;
    assert!(before.is_empty(), "{before:?}");
    // It read stdin too, and got nothing: the protocol's input is not the process's stdin
    // while it serves.
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "printed; stdin gave 0 bytes"
    );
    p.request(2, "tools/list", json!({})).await;
    assert!(p.until(2).await.0["result"]["tools"].is_array());
}

#[tokio::test]
async fn oversized_lines_are_refused() {
    let mut p = Proc::spawn();
    let pad = "x".repeat(5 * 1024 * 1024);
    // The id is read from the line's first bytes, so the client learns which request
    // failed: before the method, or after it (past a nested `id` in params).
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{pad}"}}}}}}"#,
    );
    p.send_raw(big.as_bytes()).await;
    let e = p.next().await;
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert_eq!(e["id"], 1, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("larger than 4194304 bytes")),
        "{e}"
    );
    let after = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"id":99,"name":"echo","arguments":{{"id":98}}}},"id":"seven","pad":"{pad}"}}"#,
    );
    p.send_raw(after.as_bytes()).await;
    assert_eq!(p.next().await["id"], "seven");
    // An id that is not among the first bytes (here, after the huge params): `id: null`.
    let late = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"id":99,"text":"{pad}"}},"id":3}}"#,
    );
    p.send_raw(late.as_bytes()).await;
    let e = p.next().await;
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert_eq!(e["id"], Value::Null, "{e}");
    // Just under the limit is fine.
    let text = "y".repeat(3 * 1024 * 1024);
    p.request(
        2,
        "tools/call",
        json!({"name":"echo","arguments":{"text": text}}),
    )
    .await;
    let (r, _) = p.until(2).await;
    assert_eq!(
        r["result"]["content"][0]["text"].as_str().map(str::len),
        Some(3 * 1024 * 1024)
    );
}

#[tokio::test]
async fn a_file_on_stdin_is_served_to_its_end() {
    // A regular file cannot be polled: a thread reads it. Every request in it is answered,
    // and the server exits at its end.
    let dir = tests::temp_dir("stdio-file");
    let input = dir.join("requests.jsonl");
    let mut lines = String::new();
    for id in 1..=50 {
        let request = json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{
            "name":"add","arguments":{"a":id,"b":1},"_meta":meta()}});
        lines.push_str(&format!("{request}\n"));
    }
    std::fs::write(&input, lines).unwrap();
    let output = Command::new(binary())
        .arg("stdio")
        .stdin(std::fs::File::open(&input).unwrap())
        .stderr(Stdio::null())
        .output();
    let output = tokio::time::timeout(Duration::from_secs(10), output)
        .await
        .expect("exits at the end of its input")
        .unwrap();
    assert!(output.status.success());
    let mut sums: Vec<f64> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            v["result"]["structuredContent"]["sum"]
                .as_f64()
                .expect("a sum")
        })
        .collect();
    sums.sort_by(f64::total_cmp);
    assert_eq!(sums, (2..=51).map(f64::from).collect::<Vec<_>>());
    std::fs::remove_dir_all(dir).unwrap();
}
