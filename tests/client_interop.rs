//! The client against servers nobody here wrote, both transports: the TypeScript reference
//! server (`@modelcontextprotocol/server-everything`, a legacy-era server: the client's
//! `server/discover` probe is refused and it falls back to `initialize`) and a server on
//! the official Python SDK (`tests/interop/python_server.py`, mcp 2.3.0, which speaks
//! 2026-07-28). Both are installed by `scripts/interop-setup` (scripts/test-all runs it).

use std::process::Stdio;

use mcp_framework::client::Client;
use mcp_framework::protocol::ProtocolVersion;
use serde_json::json;
use tests::fixture::answering_client;
use tests::{free_port, interop_installed, listening};
use tokio::process::Command;

/// The TypeScript reference server in `mode` (`stdio` or `streamableHttp`), on `port`.
fn reference_server(mode: &str, port: u16) -> Command {
    let mut command = Command::new(interop_installed("INTEROP_NODE"));
    command
        .arg(interop_installed("INTEROP_SERVER_EVERYTHING"))
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(if mode == "stdio" {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::null())
        .kill_on_drop(true);
    command
}

/// The Python SDK server over stdio, or over HTTP on `port`.
fn python_server(http_port: Option<u16>) -> Command {
    let mut command = Command::new(interop_installed("INTEROP_PYTHON"));
    command.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/interop/python_server.py"
    ));
    match http_port {
        Some(port) => command.args(["http", &port.to_string()]),
        None => command.arg("stdio"),
    };
    command
        .stderr(Stdio::null())
        .stdout(if http_port.is_some() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .kill_on_drop(true);
    command
}

/// What the client does with the reference server, whichever transport.
async fn exercise_reference(client: &Client) {
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert!(client.server_info().is_some());
    let tools = client.list_tools().await.unwrap();
    for name in ["echo", "get-sum", "trigger-elicitation-request"] {
        assert!(tools.iter().any(|t| t.name == name), "{name} in {tools:?}");
    }
    let echoed = client
        .call_tool("echo", json!({"message": "hi"}))
        .await
        .unwrap();
    assert!(
        echoed.content[0]
            .as_text()
            .unwrap_or_default()
            .contains("hi"),
        "{echoed:?}"
    );
    let sum = client
        .call_tool("get-sum", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert!(
        sum.content[0].as_text().unwrap_or_default().contains('5'),
        "{sum:?}"
    );
    // The server asks the user through a legacy server-to-client request.
    let asked = client
        .call_tool("trigger-elicitation-request", json!({}))
        .await
        .unwrap();
    assert!(format!("{asked:?}").contains("Ada"), "{asked:?}");
    let resources = client.list_resources().await.unwrap();
    assert!(!resources.is_empty());
    let read = client.read_resource(&resources[0].uri).await.unwrap();
    assert!(!read.contents.is_empty());
    let prompts = client.list_prompts().await.unwrap();
    assert!(!prompts.is_empty());
}

#[tokio::test]
async fn the_typescript_reference_server_over_stdio() {
    let client = answering_client()
        .connect_stdio(reference_server("stdio", 0))
        .await
        .unwrap();
    exercise_reference(&client).await;
    client.close().await;
}

#[tokio::test]
async fn the_typescript_reference_server_over_streamable_http() {
    let port = free_port();
    let _server = reference_server("streamableHttp", port).spawn().unwrap();
    listening(([127, 0, 0, 1], port).into()).await;
    let client = answering_client()
        .connect_http(&format!("http://127.0.0.1:{port}/mcp"))
        .await
        .unwrap();
    exercise_reference(&client).await;
    client.close().await;
}

/// What the client does with the Python SDK server, whichever transport.
async fn exercise_python(client: &Client) {
    assert_eq!(
        client.server_info().map(|i| i.name.as_str()),
        Some("python-notes")
    );
    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "add"), "{tools:?}");
    let sum = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert_eq!(sum.content[0].as_text(), Some("5"), "{sum:?}");
    let prompt = client
        .get_prompt("greet", json!({"name": "Ada"}))
        .await
        .unwrap();
    assert!(format!("{prompt:?}").contains("Say hello to Ada."));
    let read = client.read_resource("note://first").await.unwrap();
    assert!(format!("{read:?}").contains("the first note"));
    // The user is asked: a server-to-client request (legacy), an input request (modern).
    let greeting = client.call_tool("ask_name", json!({})).await.unwrap();
    assert_eq!(
        greeting.content[0].as_text(),
        Some("Hello, Ada!"),
        "{greeting:?}"
    );
}

#[tokio::test]
async fn a_python_sdk_server_over_stdio_speaks_2026_07_28() {
    let client = answering_client()
        .connect_stdio(python_server(None))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    exercise_python(&client).await;
    client.close().await;
}

#[tokio::test]
async fn a_python_sdk_server_over_streamable_http_speaks_2026_07_28() {
    let port = free_port();
    let _server = python_server(Some(port)).spawn().unwrap();
    listening(([127, 0, 0, 1], port).into()).await;
    let client = answering_client()
        .connect_http(&format!("http://127.0.0.1:{port}/mcp"))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    exercise_python(&client).await;
    client.close().await;
}

#[tokio::test]
async fn a_python_sdk_server_over_stdio_in_the_legacy_era() {
    let client = answering_client()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_stdio(python_server(None))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise_python(&client).await;
    client.close().await;
}

#[tokio::test]
async fn a_python_sdk_server_over_streamable_http_in_the_legacy_era() {
    let port = free_port();
    let _server = python_server(Some(port)).spawn().unwrap();
    listening(([127, 0, 0, 1], port).into()).await;
    let client = answering_client()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&format!("http://127.0.0.1:{port}/mcp"))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    exercise_python(&client).await;
    client.close().await;
}
