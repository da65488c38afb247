//! The client against a real server process: `everything` started as a child over stdio,
//! and `everything http` on 127.0.0.1 over Streamable HTTP, in both eras (found by the
//! `server/discover` probe, or set), with the server's questions (elicitation, sampling)
//! answered through the callbacks, the Mcp-Param headers a tool asks for, listen streams,
//! legacy sessions and their GET stream, cancellation, and the errors a user meets.

use std::process::Stdio;
use std::time::Duration;

use mcp_framework::client::{Client, ClientError, RequestOptions};
use mcp_framework::protocol::ProtocolVersion;
use serde_json::{Value, json};
use tests::example_binary;
use tests::fixture::answering_client;

/// `everything stdio`, its stderr discarded.
fn everything_stdio() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(example_binary("everything"));
    command
        .arg("stdio")
        .env("RUST_LOG", "warn")
        .stderr(Stdio::null());
    command
}

/// What every connection must do, whatever its transport and era: describe the server,
/// list (every page), call, answer a question the tool asks, get a prompt, read a resource.
async fn exercise(client: &Client) {
    assert_eq!(
        client.server_info().map(|i| i.name.as_str()),
        Some("everything")
    );
    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "add"), "{tools:?}");
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 5.0})));
    let greeting = client.call_tool("ask_name", json!({})).await.unwrap();
    let text = greeting.content[0].as_text().unwrap_or_default();
    assert!(text.contains("Ada"), "{greeting:?}");
    let prompt = client
        .get_prompt("test_simple_prompt", json!({}))
        .await
        .unwrap();
    assert!(!prompt.messages.is_empty());
    let read = client.read_resource("test://static-text").await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "This is the content of the static text resource."
    );
    let failed = client
        .call_tool("no_such_tool", json!({}))
        .await
        .unwrap_err();
    assert!(failed.rpc().is_some(), "{failed}");
}

#[tokio::test]
async fn stdio_probes_a_modern_server_and_speaks_2026_07_28() {
    let client = answering_client()
        .connect_stdio(everything_stdio())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert!(
        client
            .server_capabilities()
            .is_some_and(|c| c.tools.is_some())
    );
    exercise(&client).await;
    client.close().await;
}

#[tokio::test]
async fn stdio_legacy_initializes_and_answers_server_requests() {
    let client = answering_client()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_stdio(everything_stdio())
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise(&client).await;
    // Sampling asked as a server-to-client request, answered by the callback.
    let sampled = client
        .call_tool("test_sampling", json!({"prompt": "hi"}))
        .await
        .unwrap();
    assert!(
        format!("{sampled:?}").contains("a sampled reply"),
        "{sampled:?}"
    );
    client.close().await;
}

#[tokio::test]
async fn a_closed_stdio_client_fails_its_requests_and_stops_the_child() {
    let client = answering_client()
        .connect_stdio(everything_stdio())
        .await
        .unwrap();
    let other = client.clone();
    client.close().await;
    assert!(matches!(
        other.call_tool("add", json!({"a": 1, "b": 1})).await,
        Err(ClientError::Closed)
    ));
}

#[tokio::test]
async fn a_program_that_cannot_start_is_named() {
    let command = tokio::process::Command::new("/nonexistent/mcp-server");
    let e = Client::builder().connect_stdio(command).await.unwrap_err();
    assert!(matches!(e, ClientError::Spawn { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("cannot start `/nonexistent/mcp-server`: "),
        "{e}"
    );
}

#[tokio::test]
async fn a_legacy_only_answer_to_the_probe_falls_back_to_initialize() {
    // A "server" that answers every request it does not know with -32601 and speaks
    // 2025-06-18 only: a shell script standing in for the servers of the last era.
    let script = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}}\n' "$id" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"id":'*)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
"#;
    let mut command = tokio::process::Command::new("sh");
    command.args(["-c", script]);
    let client = Client::builder().connect_stdio(command).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    assert_eq!(client.server_info().unwrap().name, "old");
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0].name, "t");
    client.close().await;
}

#[tokio::test]
async fn a_server_that_ignores_the_probe_is_taken_for_legacy_after_the_probe_timeout() {
    // Answers `initialize` only; the probe goes unanswered.
    let script = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"quiet","version":"1"}}}\n' "$id" ;;
  esac
done
"#;
    let mut command = tokio::process::Command::new("sh");
    command.args(["-c", script]);
    let client = Client::builder()
        .probe_timeout(Duration::from_millis(300))
        .connect_stdio(command)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    client.close().await;
}

#[tokio::test]
async fn http_probes_a_modern_server_and_sends_the_headers_a_tool_asks_for() {
    let (_child, running) = tests::everything(&[]).await;
    let client = answering_client().connect_http(&running.url).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    // Before any tools/list: the server refuses the call for its missing Mcp-Param-Region
    // (-32020); the client lists the tools, learns the header, and retries.
    let echoed = client
        .call_tool(
            "regional_echo",
            json!({"region": "eu-west 1", "text": "hi"}),
        )
        .await
        .unwrap();
    assert_eq!(echoed.content[0].as_text(), Some("eu-west 1:hi"));
    // Non-ASCII values go base64-encoded, and still match the body.
    let echoed = client
        .call_tool("regional_echo", json!({"region": "région", "text": "hi"}))
        .await
        .unwrap();
    assert_eq!(echoed.content[0].as_text(), Some("région:hi"));
    exercise(&client).await;
}

#[tokio::test]
async fn http_legacy_keeps_a_session_and_hears_changes_on_its_get_stream() {
    let (_child, running) = tests::everything(&[]).await;
    let client = answering_client()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&running.url)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise(&client).await;
    let mut notifications = client.notifications();
    client
        .call_tool("toggle_extra_tool", json!({}))
        .await
        .unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let n = notifications.recv().await.unwrap();
            if n["method"] == "notifications/tools/list_changed" {
                return n;
            }
        }
    })
    .await
    .expect("list_changed on the session's GET stream");
    assert_eq!(changed["jsonrpc"], "2.0");
    client.close().await;
}

#[tokio::test]
async fn http_follows_a_task_with_its_id_as_mcp_name() {
    // The task methods name their task in `Mcp-Name` (the server checks it against the
    // body, -32020 otherwise): the client follows a task over HTTP to its result,
    // answering its question with its callback.
    let (_child, running) = tests::everything(&[]).await;
    let mut extensions = mcp_framework::protocol::JsonObject::new();
    extensions.insert("io.modelcontextprotocol/tasks".into(), json!({}));
    let client = Client::builder()
        .capabilities(mcp_framework::protocol::ClientCapabilities {
            extensions: Some(extensions),
            ..Default::default()
        })
        .on_elicit(|_| async move {
            mcp_framework::protocol::ElicitResult::accept(
                json!({"confirm": true}).as_object().cloned(),
            )
        })
        .connect_http(&running.url)
        .await
        .unwrap();
    let created = client
        .request(
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"filename": "b.txt"}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap();
    let got = client
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(got["taskId"], id);
    client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    let result = client
        .call_tool("confirm_delete", json!({"filename": "c.txt"}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("Deleted c.txt"));
}

#[tokio::test]
async fn a_legacy_session_the_server_forgot_closes_the_client() {
    // The server restarts on the same port: the session is gone (404 to its requests and
    // its GET stream). The client must say so and close, for its owner to connect again,
    // not keep sending a dead session.
    let port = tests::free_port();
    let (mut server, running) = tests::everything_on(port, &[]).await;
    let client = answering_client()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&running.url)
        .await
        .unwrap();
    let sum = client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 3.0})));
    server.kill().await.unwrap();
    let (_server, _) = tests::everything_on(port, &[]).await;
    let mut ended = false;
    for _ in 0..5 {
        match client.call_tool("add", json!({"a": 1, "b": 2})).await {
            Err(ClientError::SessionEnded | ClientError::Closed) => {
                ended = true;
                break;
            }
            // A pooled connection to the old process, found closed on the way.
            Err(ClientError::Transport(_)) => {}
            other => panic!("expected the session to have ended, got {other:?}"),
        }
    }
    assert!(ended, "the client did not say its session ended");
    tokio::time::timeout(Duration::from_secs(15), client.closed())
        .await
        .expect("the client closes once its session is gone");
    // A new connection gets a new session.
    let again = answering_client()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&running.url)
        .await
        .unwrap();
    let sum = again
        .call_tool("add", json!({"a": 2, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 4.0})));
}

#[tokio::test]
async fn http_listen_streams_changes_and_a_closed_stream_cancels_a_call() {
    let (_child, running) = tests::everything(&[]).await;
    let client = answering_client().connect_http(&running.url).await.unwrap();
    let mut listen = client
        .listen(json!({"toolsListChanged": true}))
        .await
        .unwrap();
    let ack = listen.next().await.unwrap();
    assert!(
        ack.to_string().contains("subscriptions/acknowledged"),
        "{ack}"
    );
    client
        .call_tool("toggle_extra_tool", json!({}))
        .await
        .unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(10), listen.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    listen.cancel().await.unwrap();

    // A slow call, cancelled once it has reported progress: its stream is closed, the
    // call fails with `Cancelled`, the server goes on serving.
    let mut progress = client.notifications();
    let (id, outcome) = client
        .start_request(
            "tools/call",
            json!({"name": "count_slowly", "arguments": {"n": 100, "delay_ms": 50}}),
            &RequestOptions::default().progress("p1"),
        )
        .await
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), progress.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first["method"], "notifications/progress");
    client.cancel(&id).await.unwrap();
    assert!(matches!(outcome.await, Err(ClientError::Cancelled)));
    let sum = client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 3.0})));
}

#[tokio::test]
async fn http_errors_say_what_happened() {
    let port = tests::free_port();
    let e = Client::builder()
        .connect_http(&format!("http://127.0.0.1:{port}/mcp"))
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Transport(_)), "{e:?}");
    assert!(
        e.to_string().starts_with("cannot reach the server: "),
        "{e}"
    );

    let e = Client::builder()
        .connect_http("not a url")
        .await
        .unwrap_err();
    assert!(e.to_string().contains("`not a url` is not a URL"), "{e}");

    // A path the server does not serve: 404 without a JSON-RPC error is not a modern
    // server, so the client falls back to initialize, which fails with the status.
    let (_child, running) = tests::everything(&[]).await;
    let wrong = running.url.replace("/mcp", "/nothing-here");
    let e = Client::builder().connect_http(&wrong).await.unwrap_err();
    assert!(matches!(e, ClientError::Http { status: 404, .. }), "{e:?}");
}

/// What a request sent with a bearer token carries: the header, on every request.
#[tokio::test]
async fn http_sends_the_bearer_token_on_every_request() {
    use axum::extract::Request;
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::<Option<String>>::new()));
    let server = tests::fixture::server();
    let record = seen.clone();
    let router = server
        .router()
        .layer(axum::middleware::map_request(move |req: Request| {
            let record = record.clone();
            async move {
                let auth = req
                    .headers()
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                record.lock().unwrap().push(auth);
                req
            }
        }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = Client::builder()
        .bearer_token("t0ken")
        .connect_http(&url)
        .await
        .unwrap();
    client.list_tools().await.unwrap();
    let seen: Vec<Value> = seen.lock().unwrap().iter().map(|a| json!(a)).collect();
    assert!(seen.len() >= 2, "{seen:?}");
    assert!(seen.iter().all(|a| a == "Bearer t0ken"), "{seen:?}");
}

#[tokio::test]
async fn a_request_given_up_on_is_cancelled_at_the_server() {
    // A "server" that never answers `slow` and writes every line it reads to a file.
    let seen = tests::temp_dir("client-cancel").join("seen.jsonl");
    let script = format!(
        r#"
while IFS= read -r line; do
  printf '%s\n' "$line" >> '{}'
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"server/discover"'*)
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"supportedVersions":["2026-07-28"],"capabilities":{{}}}}}}\n' "$id" ;;
  esac
done
"#,
        seen.display()
    );
    let mut command = tokio::process::Command::new("sh");
    command.args(["-c", &script]);
    let client = Client::builder().connect_stdio(command).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    // The caller gives up (its future is dropped): the server hears the cancellation.
    let gave_up = tokio::time::timeout(
        Duration::from_millis(200),
        client.request("slow", json!({})),
    )
    .await;
    assert!(gave_up.is_err());
    let mut cancelled = None;
    for _ in 0..50 {
        let text = std::fs::read_to_string(&seen).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let slow = lines
            .iter()
            .find(|m| m["method"] == "slow")
            .map(|m| m["id"].clone());
        cancelled = lines
            .iter()
            .find(|m| m["method"] == "notifications/cancelled")
            .map(|m| m["params"]["requestId"].clone());
        if let (Some(slow), Some(c)) = (&slow, &cancelled) {
            assert_eq!(slow, c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        cancelled.is_some(),
        "no notifications/cancelled reached the server"
    );
    client.close().await;
    if let Some(dir) = seen.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Hands the server its instructions through its environment, as an extension that
/// supplies a credential would.
struct Instruct(&'static str);

impl mcp_framework::client::ClientExtension for Instruct {
    fn id(&self) -> &str {
        "com.example/instruct"
    }

    fn settings(&self) -> mcp_framework::protocol::JsonObject {
        json!({"version": 1}).as_object().cloned().unwrap()
    }

    fn launch(&self, launch: &mut mcp_framework::client::Launch) {
        launch.env("EVERYTHING_INSTRUCTIONS", self.0);
    }
}

/// Adds an argument to the server's command line.
struct Argue;

impl mcp_framework::client::ClientExtension for Argue {
    fn id(&self) -> &str {
        "com.example/argue"
    }

    fn launch(&self, launch: &mut mcp_framework::client::Launch) {
        launch.arg("--instructions").arg("from an argument");
    }
}

#[tokio::test]
async fn extensions_contribute_to_a_stdio_servers_launch_and_conflicts_are_refused() {
    // An environment variable, and the same one from a second extension with the same value.
    let client = Client::builder()
        .extension(Instruct("from the environment"))
        .extension(Instruct("from the environment"))
        .connect_stdio(everything_stdio())
        .await
        .unwrap();
    assert_eq!(client.instructions(), Some("from the environment"));
    client.close().await;
    // An argument.
    let client = Client::builder()
        .extension(Argue)
        .connect_stdio(everything_stdio())
        .await
        .unwrap();
    assert_eq!(client.instructions(), Some("from an argument"));
    client.close().await;
    // Two values for one variable: refused, naming both, nothing started.
    let err = Client::builder()
        .extension(Instruct("one"))
        .extension(Instruct("two"))
        .connect_stdio(everything_stdio())
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Launch(_)), "{err:?}");
    assert!(err.to_string().contains("EVERYTHING_INSTRUCTIONS"), "{err}");
    // The application's own command and an extension disagree: refused too.
    let mut own = everything_stdio();
    own.env("EVERYTHING_INSTRUCTIONS", "the application's");
    let err = Client::builder()
        .extension(Instruct("the extension's"))
        .connect_stdio(own)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("the application's command"),
        "{err}"
    );
}

#[tokio::test]
async fn a_client_extension_is_declared_in_the_clients_capabilities() {
    struct Caps;
    impl mcp_framework::extension::Extension for Caps {
        fn id(&self) -> &str {
            "com.example/caps"
        }
        fn setup(&self, setup: &mut mcp_framework::extension::Setup) {
            setup.request(
                "com.example/caps",
                |_: Value, cx: mcp_framework::Context| async move {
                    Ok::<_, mcp_framework::protocol::ErrorObject>(json!(
                        cx.client_capabilities().extensions
                    ))
                },
            );
        }
    }
    let server = tests::fixture::builder().extension(Caps).build().unwrap();
    for legacy in [false, true] {
        let builder = Client::builder().extension(Instruct("x"));
        let builder = if legacy {
            builder.legacy(ProtocolVersion::V2025_11_25)
        } else {
            builder
        };
        let client = builder.connect(&server).await.unwrap();
        let declared = client.request("com.example/caps", json!({})).await.unwrap();
        assert_eq!(
            declared["com.example/instruct"],
            json!({"version": 1}),
            "legacy: {legacy}: {declared}"
        );
    }
}

#[tokio::test]
async fn a_legacy_stream_the_server_closes_is_taken_up_again_with_last_event_id() {
    let (_server, r) = tests::everything(&[]).await;
    let client = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .timeout(Duration::from_secs(20))
        .connect_http(&r.url)
        .await
        .unwrap();
    // The tool closes its response stream mid-call (SEP-1699); its result comes on the
    // stream the client takes up again.
    let result = client
        .call_tool("test_reconnection", json!({}))
        .await
        .unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some("Reconnection test completed")
    );
    client.close().await;
}
