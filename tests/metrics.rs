//! Metrics over the wire, scraped by a real Prometheus (the Debian package `prometheus`,
//! installed by `scripts/test-all` when missing): `examples/everything` serves
//! `/metrics` on `--metrics-bind`, a Prometheus started here on 127.0.0.1 scrapes it, and
//! its HTTP query API finds the operation counts with their semantic-convention labels.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::{Child, Command};

async fn call(http: &reqwest::Client, url: &str, id: u64, tool: &str) -> Value {
    let body = json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":tool,"arguments":{},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{}}}});
    http.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// Stops the child (started by this test) when the test ends, pass or fail.
struct Stop(Child);

impl Drop for Stop {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

#[tokio::test]
async fn prometheus_scrapes_the_operation_metrics() {
    let (mcp_port, metrics_port, prom_port) =
        (tests::free_port(), tests::free_port(), tests::free_port());
    let _server = Stop(
        Command::new(tests::example_binary("everything"))
            .args([
                "http",
                "--bind",
                &format!("127.0.0.1:{mcp_port}"),
                "--metrics-bind",
                &format!("127.0.0.1:{metrics_port}"),
            ])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn everything"),
    );
    let http = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{mcp_port}/mcp");
    let mut up = false;
    for _ in 0..100 {
        if http.get(&url).send().await.is_ok() {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "the server came up");
    for id in 1..=3 {
        let answer = call(&http, &url, id, "test_simple_text").await;
        assert!(answer["result"].is_object(), "{answer}");
    }
    let unknown = call(&http, &url, 4, "no_such_tool").await;
    assert!(unknown["error"].is_object(), "{unknown}");
    let failed = call(&http, &url, 5, "test_error_handling").await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");

    // The endpoint itself, in the Prometheus text format.
    let text = http
        .get(format!("http://127.0.0.1:{metrics_port}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let line = text
        .lines()
        .find(|l| {
            l.starts_with("mcp_server_operation_duration_seconds_count{")
                && l.contains(r#"gen_ai_tool_name="test_simple_text""#)
        })
        .unwrap_or_else(|| panic!("no operation count for the tool:\n{text}"));
    assert!(line.ends_with(" 3"), "{line}");
    assert!(line.contains(r#"mcp_method_name="tools/call""#), "{line}");
    assert!(line.contains(r#"network_transport="tcp""#), "{line}");
    // A tool result with isError counts as an error of type tool_error.
    let failed = text
        .lines()
        .find(|l| {
            l.starts_with("mcp_server_operation_duration_seconds_count{")
                && l.contains(r#"gen_ai_tool_name="test_error_handling""#)
        })
        .unwrap_or_else(|| panic!("no operation count for the failing tool:\n{text}"));
    assert!(failed.contains(r#"error_type="tool_error""#), "{failed}");
    // An unknown tool's name is not a label value (clients cannot grow the series).
    assert!(!text.contains("no_such_tool"), "{text}");
    assert!(text.contains("mcp_server_requests_in_flight"), "{text}");

    // A real Prometheus scrapes it.
    let dir = std::env::temp_dir().join(format!("mcp-prometheus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: mcp\n    \
             static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n"
        ),
    )
    .unwrap();
    let _prometheus = Stop(
        Command::new(tests::installed_binary("prometheus", "prometheus"))
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn prometheus"),
    );
    let query = format!(
        "http://127.0.0.1:{prom_port}/api/v1/query?query=mcp_server_operation_duration_seconds_count%7Bgen_ai_tool_name%3D%22test_simple_text%22%7D"
    );
    let mut last = Value::Null;
    for _ in 0..120 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let Ok(resp) = http.get(&query).send().await else {
            continue;
        };
        let Ok(body) = resp.json::<Value>().await else {
            continue;
        };
        if let Some(sample) = body["data"]["result"].as_array().and_then(|r| r.first()) {
            assert_eq!(sample["metric"]["mcp_method_name"], "tools/call", "{body}");
            assert_eq!(sample["metric"]["job"], "mcp", "{body}");
            assert_eq!(sample["value"][1], "3", "{body}");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        last = body;
    }
    let _ = std::fs::remove_dir_all(&dir);
    panic!("Prometheus never reported the tool's count: {last}");
}
