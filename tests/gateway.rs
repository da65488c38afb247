//! `examples/gateway` in front of servers as a user runs it: `everything` over stdio and
//! over HTTP, the TypeScript reference server (`@modelcontextprotocol/server-everything`,
//! legacy era only) and the official time server (`mcp-server-time`, Python SDK, modern
//! only), all behind one Streamable HTTP endpoint, reached by this crate's client in both
//! eras. Then what happens when an upstream dies: its items answer "unavailable", it is
//! started again and serves again; an HTTP upstream restarted where it was (a legacy one
//! forgetting the gateway's session, a modern one breaking its listen stream) is
//! followed again. The Node and Python servers are installed by
//! `scripts/interop-setup` (scripts/test-all runs it).

use std::process::Stdio;
use std::time::Duration;

use mcp_framework::client::{Client, ClientError};
use mcp_framework::protocol::{ElicitResult, ProtocolVersion};
use serde_json::json;
use tests::{example_binary, free_port, interop_installed, listening};
use tokio::process::{Child, Command};

/// `gateway http` on a free port with these upstreams; returns once it answers.
async fn gateway(upstreams: &[String]) -> (Child, String) {
    let port = free_port();
    let mut command = Command::new(example_binary("gateway"));
    command
        .args(["http", "--bind", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    for upstream in upstreams {
        command.args(["--upstream", upstream]);
    }
    let child = command.spawn().expect("spawn gateway");
    listening(([127, 0, 0, 1], port).into()).await;
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// A gateway in this process, `builder` (a name, a state key…) with `upstream` proxied as
/// `prefix`, served over HTTP.
async fn in_process(
    builder: mcp_framework::ServerBuilder,
    prefix: &str,
    upstream: mcp_framework::proxy::Upstream,
) -> tests::wire::Running {
    let gateway = builder
        .proxy(prefix, upstream)
        .await
        .unwrap()
        .build()
        .unwrap();
    tests::wire::start(gateway).await
}

/// `ev=stdio:<everything> stdio`.
fn everything_upstream(name: &str) -> String {
    format!(
        "{name}=stdio:{} stdio",
        example_binary("everything").display()
    )
}

#[tokio::test]
async fn one_endpoint_serves_servers_of_both_eras_to_clients_of_both_eras() {
    let (_gateway, url) = gateway(&[
        everything_upstream("ev"),
        format!(
            "ref=stdio:{} {} stdio",
            interop_installed("INTEROP_NODE"),
            interop_installed("INTEROP_SERVER_EVERYTHING")
        ),
        format!("time=stdio:{}", interop_installed("INTEROP_TIME_SERVER")),
    ])
    .await;
    for era in [None, Some(ProtocolVersion::V2025_11_25)] {
        let builder = Client::builder()
            .timeout(Duration::from_secs(20))
            .on_elicit(|_| async move {
                ElicitResult::accept(Some(json!({"name": "Ada"}).as_object().cloned().unwrap()))
            })
            .on_sample(|_| async move { tests::fixture::sampled("a sampled reply") });
        let builder = match era {
            Some(v) => builder.legacy(v),
            None => builder,
        };
        let client = builder.connect_http(&url).await.unwrap();
        assert_eq!(client.server_info().unwrap().name, "gateway");
        let tools = client.list_tools().await.unwrap();
        for name in ["ev_add", "ref_echo", "ref_get-sum", "time_get_current_time"] {
            assert!(tools.iter().any(|t| t.name == name), "{name} ({era:?})");
        }
        // everything (modern upstream).
        let sum = client
            .call_tool("ev_add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(sum.structured_content, Some(json!({"sum": 5.0})));
        // The answer is the gateway's: its identity, never the upstream's.
        let identity = sum
            .meta
            .as_ref()
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
            .map(|info| info["name"].clone());
        match era {
            None => assert_eq!(identity, Some(json!("gateway")), "{sum:?}"),
            Some(_) => assert_eq!(identity, None, "{sum:?}"),
        }
        // The reference server (legacy upstream), whatever era this client speaks.
        let echoed = client
            .call_tool("ref_echo", json!({"message": "through"}))
            .await
            .unwrap();
        assert!(format!("{echoed:?}").contains("through"), "{echoed:?}");
        // A legacy upstream's question (a request of its own) is asked of this client, as
        // an input request (modern) or a request (legacy).
        let asked = client
            .call_tool("ref_trigger-elicitation-request", json!({}))
            .await
            .unwrap();
        assert!(format!("{asked:?}").contains("Ada"), "{asked:?} ({era:?})");
        let sampled = client
            .call_tool(
                "ref_trigger-sampling-request",
                json!({"prompt": "hi", "maxTokens": 10}),
            )
            .await
            .unwrap();
        assert!(
            format!("{sampled:?}").contains("a sampled reply"),
            "{sampled:?} ({era:?})"
        );
        // A tool the reference server runs only as a (2025-11-25) task: called as a task of
        // the upstream's and answered with its result; its question on the way (an
        // ambiguous topic) reaches this client.
        let researched = client
            .call_tool(
                "ref_simulate-research-query",
                json!({"topic": "gateways", "ambiguous": true}),
            )
            .await
            .unwrap();
        let report = format!("{researched:?}");
        assert!(
            report.contains("Research Report: gateways (User accepted without selection)"),
            "{report} ({era:?})"
        );
        // A modern upstream's input requests likewise.
        let greeted = client.call_tool("ev_ask_name", json!({})).await.unwrap();
        assert!(
            format!("{greeted:?}").contains("Ada"),
            "{greeted:?} ({era:?})"
        );
        // The time server (Python SDK, modern only).
        let now = client
            .call_tool("time_get_current_time", json!({"timezone": "UTC"}))
            .await
            .unwrap();
        assert!(format!("{now:?}").contains("UTC"), "{now:?}");
        // The upstream's own errors pass through as they are.
        let refused = client
            .call_tool("time_get_current_time", json!({"timezone": "Not/AZone"}))
            .await
            .map(|r| r.is_error)
            .unwrap_or(Some(true));
        assert_eq!(refused, Some(true));
        // Prompts and resources: prompts prefixed, URIs unchanged.
        let prompt = client
            .get_prompt("ev_test_simple_prompt", json!({}))
            .await
            .unwrap();
        assert!(!prompt.messages.is_empty());
        let read = client.read_resource("test://static-text").await.unwrap();
        assert!(format!("{read:?}").contains("static text resource"));
        // Invalid arguments are refused by the gateway (a tool error the model can read)
        // before they reach the upstream.
        let refused = client
            .call_tool("ev_add", json!({"a": "two"}))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true));
        assert!(
            refused.content[0]
                .as_text()
                .unwrap_or_default()
                .starts_with("Invalid arguments for tool `ev_add`"),
            "{refused:?}"
        );
    }
}

/// The reference server asks for the client's roots of its own accord once it has
/// started, while the first call (its 4 s research task) is in flight: `call` declares no
/// roots, so the question is refused to the upstream, and the call goes on.
#[tokio::test]
async fn a_question_the_caller_cannot_answer_is_refused_to_the_upstream_not_the_call() {
    let output = Command::new(example_binary("gateway"))
        .args([
            "--upstream",
            &format!(
                "ref=stdio:{} {} stdio",
                interop_installed("INTEROP_NODE"),
                interop_installed("INTEROP_SERVER_EVERYTHING")
            ),
            "call",
            "ref_simulate-research-query",
            "topic=gateways",
        ])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run gateway call");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("# Research Report: gateways"),
        "{stdout}\n{stderr}"
    );
}

#[tokio::test]
async fn an_http_upstream_is_served_like_a_local_one() {
    let (_everything, running) = tests::everything(&[]).await;
    let (_gateway, url) = gateway(&[format!("remote={}", running.url)]).await;
    let client = Client::builder().connect_http(&url).await.unwrap();
    let sum = client
        .call_tool("remote_add", json!({"a": 20, "b": 22}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 42.0})));
    // A tool that mirrors an argument into a header, forwarded to an HTTP upstream.
    let echoed = client
        .call_tool(
            "remote_regional_echo",
            json!({"region": "eu", "text": "hi"}),
        )
        .await
        .unwrap();
    assert_eq!(echoed.content[0].as_text(), Some("eu:hi"));
}

#[tokio::test]
async fn a_modern_http_upstream_that_restarts_is_followed_again() {
    // Its listen stream breaks with it: the gateway opens it again once the upstream is
    // back (and lists it again), so a change made after the restart still reaches the
    // gateway's callers.
    let port = tests::free_port();
    let (mut upstream, _) = tests::everything_on(port, &[]).await;
    let (_gateway, url) = gateway(&[format!("remote=http://127.0.0.1:{port}/mcp")]).await;
    let client = Client::builder().connect_http(&url).await.unwrap();
    let sum = client
        .call_tool("remote_add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 2.0})));
    upstream.kill().await.unwrap();
    let (_upstream, _) = tests::everything_on(port, &[]).await;
    client
        .call_tool("remote_toggle_extra_tool", json!({}))
        .await
        .unwrap();
    let mut listed = false;
    for _ in 0..100 {
        let tools = client.list_tools().await.unwrap();
        if tools.iter().any(|t| t.name == "remote_extra_tool") {
            listed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        listed,
        "the upstream's change after its restart was not heard"
    );
}

#[tokio::test]
async fn upstream_list_changes_become_the_gateways() {
    let (_gateway, url) = gateway(&[everything_upstream("ev")]).await;
    let client = Client::builder().connect_http(&url).await.unwrap();
    let mut listen = client
        .listen(json!({"toolsListChanged": true, "promptsListChanged": true}))
        .await
        .unwrap();
    listen.next().await.unwrap(); // acknowledged
    assert!(
        !client
            .list_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "ev_extra_tool")
    );
    client
        .call_tool("ev_toggle_extra_tool", json!({}))
        .await
        .unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(10), listen.next())
        .await
        .expect("the gateway's listeners hear the upstream's change")
        .unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    let tools = client.list_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "ev_extra_tool"), "{tools:?}");
    let extra = client.call_tool("ev_extra_tool", json!({})).await.unwrap();
    assert_eq!(extra.content[0].as_text(), Some("extra"));
    // Only the list that changed is announced: the prompts did not.
    let quiet = tokio::time::timeout(Duration::from_millis(500), listen.next()).await;
    assert!(
        quiet.is_err(),
        "an announcement of a list that did not change: {quiet:?}"
    );
    client
        .call_tool("ev_test_trigger_prompt_change", json!({}))
        .await
        .unwrap();
    let changed = tokio::time::timeout(Duration::from_secs(10), listen.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed["method"], "notifications/prompts/list_changed");
    let prompts = client.list_prompts().await.unwrap();
    assert!(
        prompts.iter().any(|p| p.name == "ev_extra_prompt"),
        "{prompts:?}"
    );
}

/// The process ids of `pid`'s children (started from any of its threads).
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
    {
        let path = task.unwrap().path().join("children");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        found.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    found
}

#[tokio::test]
async fn a_dead_upstream_answers_unavailable_then_is_started_again() {
    let (gateway, url) = gateway(&[everything_upstream("ev")]).await;
    let client = Client::builder().connect_http(&url).await.unwrap();
    let sum = client
        .call_tool("ev_add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(sum.structured_content, Some(json!({"sum": 2.0})));

    // A call in flight when the upstream dies gets an error, not a hang.
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool("ev_count_slowly", json!({"n": 100, "delay_ms": 100}))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let upstream = children(gateway.id().unwrap());
    assert_eq!(upstream.len(), 1, "one upstream process: {upstream:?}");
    std::process::Command::new("kill")
        .args(["-9", &upstream[0].to_string()])
        .status()
        .unwrap();
    let cut = tokio::time::timeout(Duration::from_secs(10), slow)
        .await
        .expect("the call in flight ends")
        .unwrap();
    match cut {
        Err(ClientError::Rpc(e)) => assert!(e.message.contains("upstream `ev`"), "{e:?}"),
        other => panic!("expected an error naming the upstream, got {other:?}"),
    }

    // Meanwhile its items answer at once, and within a few seconds it serves again.
    let mut served_again = false;
    for _ in 0..100 {
        match client.call_tool("ev_add", json!({"a": 2, "b": 2})).await {
            Ok(sum) => {
                assert_eq!(sum.structured_content, Some(json!({"sum": 4.0})));
                served_again = true;
                break;
            }
            Err(ClientError::Rpc(e)) => {
                assert!(e.message.contains("upstream `ev`"), "{e:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("{other:?}"),
        }
    }
    assert!(served_again, "the upstream was not started again");
    let restarted = children(gateway.id().unwrap());
    assert_eq!(restarted.len(), 1);
    assert_ne!(restarted, upstream, "a new process");
}

/// The TypeScript reference server over Streamable HTTP (legacy era only, sessions) on
/// `port`; returns once it answers.
async fn reference_http(port: u16) -> Child {
    let child = Command::new(interop_installed("INTEROP_NODE"))
        .args([
            &interop_installed("INTEROP_SERVER_EVERYTHING"),
            "streamableHttp",
        ])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the reference server");
    listening(([127, 0, 0, 1], port).into()).await;
    child
}

#[tokio::test]
async fn an_http_upstream_that_restarts_is_served_again_in_a_new_session() {
    // A legacy HTTP server forgets its sessions when it restarts: the gateway must notice
    // (its session stream refused) and start a new session, not answer with the dead one
    // forever.
    let port = free_port();
    let mut reference = reference_http(port).await;
    let (_gateway, url) = gateway(&[format!("ref=http://127.0.0.1:{port}/mcp")]).await;
    let client = Client::builder().connect_http(&url).await.unwrap();
    let echo = |text: &'static str| {
        let client = client.clone();
        async move { client.call_tool("ref_echo", json!({"message": text})).await }
    };
    let first = echo("before").await.unwrap();
    assert_eq!(first.content[0].as_text(), Some("Echo: before"));

    reference.kill().await.unwrap();
    let _reference = reference_http(port).await;
    let mut served_again = false;
    for _ in 0..150 {
        match echo("after").await {
            Ok(reply) => {
                assert_eq!(reply.content[0].as_text(), Some("Echo: after"));
                served_again = true;
                break;
            }
            // Meanwhile an error, at once: the gateway's while it connects again, or the
            // upstream's own refusal of the old session (the TypeScript server answers
            // its requests 400 with their id, which the gateway relays as it is).
            Err(ClientError::Rpc(e)) => {
                assert!(
                    e.message.contains("upstream `ref`") || e.message.contains("session"),
                    "{e:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("{other:?}"),
        }
    }
    assert!(served_again, "the restarted upstream was not served again");
}

/// A 2026-07-28 client of `url` that declares the Tasks extension and elicitation (a
/// task's questions come back as its inputRequests, not to the callback).
async fn tasks_client(url: &str) -> Client {
    let mut extensions = mcp_framework::protocol::JsonObject::new();
    extensions.insert("io.modelcontextprotocol/tasks".into(), json!({}));
    let capabilities = mcp_framework::protocol::ClientCapabilities {
        extensions: Some(extensions),
        ..Default::default()
    };
    Client::builder()
        .capabilities(capabilities)
        .on_elicit(|_| async move { ElicitResult::decline() })
        .connect_http(url)
        .await
        .unwrap()
}

/// `tasks/get` of `id` through `client` until its status is `status` (or final), at most
/// 10 s.
async fn task_until(client: &Client, id: &str, status: &str) -> serde_json::Value {
    for _ in 0..200 {
        let task = client
            .request("tasks/get", json!({"taskId": id}))
            .await
            .unwrap();
        let now = task["status"].as_str().unwrap();
        if now == status || ["completed", "failed", "cancelled"].contains(&now) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} never reached {status}");
}

#[tokio::test]
async fn an_upstreams_task_is_served_as_the_gateways() {
    // everything (2026-07-28, the Tasks extension) decides that a call becomes a task; the
    // gateway serves it as its own: its id, its tasks/get, the upstream's question asked
    // under the same key and the answer passed on, the upstream's progress as the status
    // message, the result, and a cancel.
    let (_gateway, url) = gateway(&[everything_upstream("ev")]).await;
    let client = tasks_client(&url).await;
    let discovered = client.server_capabilities().unwrap();
    assert!(
        discovered
            .extensions
            .as_ref()
            .unwrap()
            .contains_key("io.modelcontextprotocol/tasks"),
        "the gateway declares the extension its upstream serves"
    );

    let created = client
        .request(
            "tools/call",
            json!({"name": "ev_confirm_delete", "arguments": {"filename": "a.txt"}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let waiting = task_until(&client, &id, "input_required").await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let question = &waiting["inputRequests"]["elicitation-1"];
    assert_eq!(question["params"]["message"], "Delete a.txt?", "{waiting}");
    client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {
                "elicitation-1": {"action": "accept", "content": {"confirm": true}}
            }}),
        )
        .await
        .unwrap();
    let done = task_until(&client, &id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "Deleted a.txt",
        "{done}"
    );

    let created = client
        .request(
            "tools/call",
            json!({"name": "ev_slow_compute", "arguments": {"seconds": 30, "label": "far"}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let mut message = None;
    for _ in 0..100 {
        let task = task_until(&client, &id, "working").await;
        if let Some(m) = task["statusMessage"].as_str() {
            message = Some(m.to_owned());
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let message = message.expect("the upstream's progress as the task's status message");
    assert!(message.ends_with("/30: far"), "{message}");
    client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    let cancelled = task_until(&client, &id, "cancelled").await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");

    // A client that does not declare the extension gets the result inline.
    let plain = Client::builder().connect_http(&url).await.unwrap();
    let inline = plain
        .call_tool("ev_slow_compute", json!({"seconds": 0, "label": "now"}))
        .await
        .unwrap();
    assert_eq!(inline.content[0].as_text(), Some("now: done after 0 s"));
}

#[tokio::test]
async fn a_legacy_upstreams_task_tool_becomes_a_task_of_the_gateways() {
    // The TypeScript reference server's `simulate-research-query` runs only as a
    // 2025-11-25 task; a 2026-07-28 caller that declares the Tasks extension gets a task
    // of the gateway's, whose question (the upstream task's elicitation) waits among its
    // inputRequests and whose answer reaches the upstream.
    let (_gateway, url) = gateway(&[format!(
        "ref=stdio:{} {} stdio",
        interop_installed("INTEROP_NODE"),
        interop_installed("INTEROP_SERVER_EVERYTHING")
    )])
    .await;
    let client = tasks_client(&url).await;
    let created = client
        .request(
            "tools/call",
            json!({"name": "ref_simulate-research-query",
                   "arguments": {"topic": "gateways", "ambiguous": true}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let waiting = task_until(&client, &id, "input_required").await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, question) = requests.iter().next().unwrap();
    assert_eq!(question["method"], "elicitation/create", "{waiting}");
    client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {
                key: {"action": "accept", "content": {"interpretation": "proxies"}}
            }}),
        )
        .await
        .unwrap();
    let done = task_until(&client, &id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    let report = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(report.contains("gateways (proxies)"), "{report}");
}

/// An upstream whose `sleepy` tool sleeps `ms` milliseconds, counting the calls that
/// were cancelled before they ended (their handler saw the cancellation).
fn sleepy_upstream(
    cancelled: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> mcp_framework::Server {
    use mcp_framework::protocol::{CallToolResult, Content};
    let tools = mcp_framework::ToolSet::new().with_fn(
        mcp_framework::ToolDefinition::new(
            "sleepy",
            tests::fixture::obj(
                json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
            ),
        ),
        move |args, cx| {
            let cancelled = cancelled.clone();
            async move {
                let ms = args["ms"].as_u64().unwrap_or(0);
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                    () = cx.cancelled() => {
                        cancelled.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                }
                Ok(CallToolResult {
                    content: vec![Content::text(format!("slept {ms} ms"))],
                    ..CallToolResult::default()
                })
            }
        },
    );
    mcp_framework::Server::builder()
        .name("sleepy")
        .tools(tools)
        .build()
        .unwrap()
}

/// Waits (at most 5 s) until `count` reaches `n`.
async fn reaches(count: &std::sync::atomic::AtomicUsize, n: usize) -> bool {
    for _ in 0..100 {
        if count.load(std::sync::atomic::Ordering::SeqCst) >= n {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn a_slow_upstream_times_out_and_cancellations_reach_it() {
    let cancelled = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let running = in_process(
        mcp_framework::Server::builder().name("gateway"),
        "up",
        mcp_framework::proxy::Upstream::server(sleepy_upstream(cancelled.clone()))
            .timeout(Duration::from_millis(300)),
    )
    .await;
    let client = Client::builder().connect_http(&running.url).await.unwrap();
    let quick = client
        .call_tool("up_sleepy", json!({"ms": 10}))
        .await
        .unwrap();
    assert_eq!(quick.content[0].as_text(), Some("slept 10 ms"));

    // Past the upstream's timeout: the caller gets an error naming the upstream at once,
    // and the upstream's handler is cancelled.
    let started = std::time::Instant::now();
    let e = client
        .call_tool("up_sleepy", json!({"ms": 30_000}))
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let e = e.rpc().unwrap_or_else(|| panic!("{e}"));
    assert!(e.message.contains("upstream `up`"), "{e:?}");
    assert!(
        reaches(&cancelled, 1).await,
        "the timed-out call was not cancelled upstream"
    );

    // The caller cancels (closes its request's stream): the upstream's handler is too.
    let (id, outcome) = client
        .start_request(
            "tools/call",
            json!({"name": "up_sleepy", "arguments": {"ms": 250}}),
            &mcp_framework::client::RequestOptions::default(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    client.cancel(&id).await.unwrap();
    assert!(matches!(outcome.await, Err(ClientError::Cancelled)));
    assert!(
        reaches(&cancelled, 2).await,
        "the caller's cancel did not reach the upstream"
    );
}

#[tokio::test]
async fn an_upstreams_skills_are_served_through_the_gateway() {
    // everything serves skills (2026-07-28): the gateway declares the extension with its
    // settings and answers skills/list, skills/get and resources/directory/read as the
    // upstream does; the skill files are its resources, read through the gateway.
    let (_everything, direct) = tests::everything(&[]).await;
    let (_gateway, url) = gateway(&[everything_upstream("ev")]).await;
    let upstream = Client::builder().connect_http(&direct.url).await.unwrap();
    let client = Client::builder().connect_http(&url).await.unwrap();
    let declared = |c: &Client| {
        c.server_capabilities()
            .unwrap()
            .extensions
            .as_ref()
            .unwrap()["io.modelcontextprotocol/skills"]
            .clone()
    };
    assert_eq!(declared(&client), declared(&upstream));
    let list = client.request("skills/list", json!({})).await.unwrap();
    let expected = upstream.request("skills/list", json!({})).await.unwrap();
    assert_eq!(list["skills"], expected["skills"], "{list}");
    let first = &list["skills"][0];
    let uri = first["uri"].as_str().unwrap();
    let got = client
        .request("skills/get", json!({"uri": uri}))
        .await
        .unwrap();
    assert_eq!(got["skill"]["uri"], uri, "{got}");
    // Its SKILL.md (the entry's URI) is a resource the gateway serves.
    let read = client
        .request("resources/read", json!({"uri": uri}))
        .await
        .unwrap();
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("---"),
        "{read}"
    );
    // A legacy client has no such method (the extension is 2026-07-28's).
    let legacy = Client::builder()
        .legacy(ProtocolVersion::V2025_11_25)
        .connect_http(&url)
        .await
        .unwrap();
    let e = legacy.request("skills/list", json!({})).await.unwrap_err();
    assert_eq!(e.rpc().map(|e| e.code), Some(-32601), "{e}");
}

#[tokio::test]
async fn an_upstream_whose_items_require_scopes_has_its_skills_not_forwarded() {
    // The skills methods name skill URIs, which have no item here whose scopes could be
    // checked: an upstream whose items require scopes keeps its skills behind them. The
    // gateway does not declare the extension, answers its methods as unknown, and the
    // skill files stay resources that require the upstream's scopes.
    let (_everything, direct) = tests::everything(&[]).await;
    let upstream = Client::builder().connect_http(&direct.url).await.unwrap();
    let listed = upstream.request("skills/list", json!({})).await.unwrap();
    let skill_md = listed["skills"][0]["uri"].as_str().unwrap().to_owned();
    let running = in_process(
        mcp_framework::Server::builder().name("gateway"),
        "ev",
        mcp_framework::proxy::Upstream::http(&direct.url).scopes(["skills:read"]),
    )
    .await;
    let client = Client::builder().connect_http(&running.url).await.unwrap();
    let extensions = client.server_capabilities().unwrap().extensions.clone();
    assert!(
        extensions
            .as_ref()
            .is_none_or(|e| !e.contains_key("io.modelcontextprotocol/skills")),
        "{extensions:?}"
    );
    for (method, params) in [
        ("skills/list", json!({})),
        ("skills/get", json!({"uri": skill_md})),
        ("resources/directory/read", json!({"uri": skill_md})),
    ] {
        let e = client.request(method, params).await.unwrap_err();
        assert_eq!(e.rpc().map(|e| e.code), Some(-32601), "{method}: {e}");
    }
    // The file itself is a proxied resource, behind the upstream's scopes (this caller,
    // without a principal, has none).
    let e = client
        .request("resources/read", json!({"uri": skill_md}))
        .await
        .unwrap_err();
    assert!(!e.to_string().is_empty());
    let read = upstream
        .request("resources/read", json!({"uri": skill_md}))
        .await
        .unwrap();
    assert!(read["contents"][0]["text"].is_string(), "{read}");
}

#[tokio::test]
async fn an_upstream_that_cannot_start_stops_the_gateway_with_its_name() {
    let output = Command::new(example_binary("gateway"))
        .args([
            "--upstream",
            "broken=stdio:/nonexistent/mcp-server",
            "inspect",
        ])
        .env("RUST_LOG", "off")
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("upstream `broken`: cannot start `/nonexistent/mcp-server`"),
        "{stderr}"
    );
    let output = Command::new(example_binary("gateway"))
        .args(["--upstream", "nonsense", "inspect"])
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--upstream `nonsense`"), "{stderr}");
    // The command is split as a shell would: a quoted argument stays one (unquoted,
    // `everything` would refuse the stray word and the gateway would not start).
    let quoted = format!(
        "ev=stdio:{} stdio --instructions 'two words'",
        example_binary("everything").display()
    );
    let output = Command::new(example_binary("gateway"))
        .args(["--upstream", &quoted, "inspect"])
        .env("RUST_LOG", "off")
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("ev_add"));
    let output = Command::new(example_binary("gateway"))
        .args(["--upstream", "ev=stdio:everything 'unbalanced", "inspect"])
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("unbalanced quotes"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn progress_of_an_upstream_call_reaches_the_gateways_client() {
    let (_gateway, url) = gateway(&[everything_upstream("ev")]).await;
    let client = Client::builder().connect_http(&url).await.unwrap();
    let mut notifications = client.notifications();
    let options = mcp_framework::client::RequestOptions::default().progress("p-7");
    let counted = client
        .call_tool_with("ev_count_slowly", json!({"n": 3, "delay_ms": 10}), &options)
        .await
        .unwrap();
    assert_eq!(counted.content[0].as_text(), Some("counted 3"));
    let mut seen = Vec::new();
    while let Ok(n) = notifications.try_recv() {
        if n["method"] == "notifications/progress" {
            assert_eq!(n["params"]["progressToken"], "p-7");
            seen.push(n["params"]["progress"].as_f64().unwrap());
        }
    }
    assert_eq!(seen, [1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn a_server_of_this_process_is_mounted_under_a_prefix() {
    let inner = tests::fixture::server();
    let outer = mcp_framework::Server::builder()
        .name("outer")
        .tools(mcp_framework::ToolSet::new())
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
        .mount("inner", inner)
        .await
        .unwrap()
        .build()
        .unwrap();
    for legacy in [false, true] {
        let builder = Client::builder()
            .on_elicit(|p| async move {
                let answer = if p.message().contains("name") {
                    json!({"name": "Grace"})
                } else {
                    json!({"color": "blue"})
                };
                ElicitResult::accept(Some(answer.as_object().cloned().unwrap()))
            })
            .on_sample(|_| async move { tests::fixture::sampled("a summary") });
        let builder = if legacy {
            builder.legacy(ProtocolVersion::V2025_11_25)
        } else {
            builder
        };
        let client = builder.connect(&outer).await.unwrap();
        let sum = client
            .call_tool("inner_add", json!({"a": 1, "b": 2}))
            .await
            .unwrap();
        assert_eq!(sum.structured_content, Some(json!({"sum": 3.0})));
        // Two questions of the mounted server, asked of this client.
        let asked = client.call_tool("inner_ask_two", json!({})).await.unwrap();
        assert_eq!(
            asked.content[0].as_text(),
            Some("Hello Grace, you like blue"),
            "legacy: {legacy}"
        );
        let summary = client
            .call_tool("inner_summarize", json!({}))
            .await
            .unwrap();
        assert_eq!(summary.content[0].as_text(), Some("LLM said: a summary"));
        // A mounted prompt's arguments complete where the prompt is.
        let completed = client
            .complete(
                json!({"type": "ref/prompt", "name": "inner_code_review"}),
                "language",
                "py",
                None,
            )
            .await
            .unwrap();
        assert_eq!(
            completed.completion.values,
            ["python", "pytorch"],
            "legacy: {legacy}"
        );
        // A template without a completer upstream completes nothing, without an error.
        let nothing = client
            .complete(
                json!({"type": "ref/resource", "uri": "test://items/{id}"}),
                "id",
                "1",
                None,
            )
            .await
            .unwrap();
        assert!(nothing.completion.values.is_empty());
    }
}

#[tokio::test]
async fn an_upstreams_stderr_is_logged_under_its_name() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    let mut gateway = Command::new(example_binary("gateway"))
        .args(["--upstream", &everything_upstream("ev")])
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn gateway");
    let mut lines = BufReader::new(gateway.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    let found = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            seen.push(line.clone());
            // everything's own start-up line, as an event of the gateway's log.
            if line.contains("mcp_framework::client::stderr")
                && line.contains("serving stdio name=everything")
                && line.contains("server=ev")
            {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(found.ok(), Some(true), "{seen:#?}");
    // Its timestamp is not repeated inside the gateway's line.
    let line = seen.last().unwrap();
    assert_eq!(line.matches("Z ").count(), 1, "{line}");
    gateway.stdin.take().unwrap().shutdown().await.unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(10), gateway.wait()).await;
}

#[tokio::test]
async fn upstream_resource_updates_reach_the_gateways_subscribers() {
    let (_gateway, url) = gateway(&[
        everything_upstream("ev"),
        format!(
            "ref=stdio:{} {} stdio",
            interop_installed("INTEROP_NODE"),
            interop_installed("INTEROP_SERVER_EVERYTHING")
        ),
    ])
    .await;
    let client = Client::builder()
        .timeout(Duration::from_secs(20))
        .connect_http(&url)
        .await
        .unwrap();
    // A resource of the reference server (legacy: the gateway subscribed to it with
    // resources/subscribe) and one of everything (modern: its listen filter).
    let resources = client.list_resources().await.unwrap();
    let theirs = resources
        .iter()
        .map(|r| r.uri.clone())
        .find(|u| u.starts_with("demo://"))
        .expect("a resource of the reference server");
    let watched = "test://watched-resource";
    let mut listen = client
        .listen(json!({"resourceSubscriptions": [watched, theirs]}))
        .await
        .unwrap();
    let ack = listen.next().await.unwrap();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    let updated = |m: &serde_json::Value, uri: &str| {
        m["method"] == "notifications/resources/updated" && m["params"]["uri"] == uri
    };
    client
        .call_tool("ev_touch_watched_resource", json!({}))
        .await
        .unwrap();
    let mut seen = Vec::new();
    let got = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(m) = listen.next().await {
            if updated(&m, watched) {
                return true;
            }
            seen.push(m);
        }
        false
    })
    .await;
    assert_eq!(got.ok(), Some(true), "{seen:?}");
    client
        .call_tool("ref_toggle-subscriber-updates", json!({}))
        .await
        .unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(m) = listen.next().await {
            if updated(&m, &theirs) {
                return true;
            }
            seen.push(m);
        }
        false
    })
    .await;
    assert_eq!(got.ok(), Some(true), "{theirs}: {seen:?}");
}

/// A legacy upstream's tool that asks two questions, counting its runs.
fn survey_upstream(runs: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> mcp_framework::Server {
    use mcp_framework::protocol::{CallToolResult, Content};
    let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}});
    let ask = move |cx: &mcp_framework::Context, message: &'static str| {
        let form = schema.as_object().cloned().unwrap();
        let cx = cx.clone();
        async move {
            match cx.elicit_with_schema(message, form).await {
                Ok(mcp_framework::Elicitation::Accept(form)) => form["answer"].to_string(),
                other => format!("{other:?}"),
            }
        }
    };
    let tools = mcp_framework::ToolSet::new().with_fn(
        mcp_framework::ToolDefinition::new(
            "survey",
            tests::fixture::obj(
                json!({"type": "object", "properties": {"topic": {"type": "string"}}}),
            ),
        ),
        move |args, cx| {
            let (runs, ask) = (runs.clone(), ask.clone());
            async move {
                let run = runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                let first = ask(&cx, "first question").await;
                let second = ask(&cx, "second question").await;
                let text = format!("run {run} on {}: {first}, {second}", args["topic"]);
                Ok(CallToolResult {
                    content: vec![Content::text(text)],
                    ..CallToolResult::default()
                })
            }
        },
    );
    mcp_framework::Server::builder()
        .name("survey")
        .tools(tools)
        .build()
        .unwrap()
}

/// A gateway in front of `upstream`, spoken to in 2025-11-25 (its questions are requests
/// of its own), served over HTTP; `key` seals its requestState.
async fn survey_gateway(
    upstream: mcp_framework::Server,
    key: &mcp_framework::StateKey,
) -> tests::wire::Running {
    in_process(
        mcp_framework::Server::builder()
            .name("gateway")
            .state_key(key.clone()),
        "up",
        mcp_framework::proxy::Upstream::server(upstream).legacy(ProtocolVersion::V2025_11_25),
    )
    .await
}

/// A round of a 2026-07-28 caller (with the elicitation capability) calling `up_survey`
/// through `gateway`: the first (`retry` none), or the retry of a round's `requestState`
/// answering its question `elicitation-N` with `text`.
async fn survey_round(
    gateway: &tests::wire::Running,
    retry: Option<(&serde_json::Value, u32, &str)>,
) -> serde_json::Value {
    let mut params = json!({
        "name": "up_survey",
        "arguments": {"topic": "gateways"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        }
    });
    if let Some((previous, n, text)) = retry {
        params["requestState"] = previous["requestState"].clone();
        params["inputResponses"] = json!({
            format!("elicitation-{n}"): {"action": "accept", "content": {"answer": text}}
        });
    }
    let body = tests::wire::request(7, "tools/call", params);
    let (status, reply) =
        tests::wire::json_of(tests::wire::post(gateway, &body).send().await.unwrap()).await;
    assert_eq!(status, 200, "{reply}");
    reply["result"].clone()
}

/// Asserts that a round asks the survey's question `n` (1 or 2), keyed by its place
/// among the call's questions.
fn assert_asks(round: &serde_json::Value, n: u32) {
    assert_eq!(round["resultType"], "input_required", "{round}");
    let key = tests::wire::first_input_key(round);
    assert_eq!(key, format!("elicitation-{n}"), "{round}");
    let message = ["first question", "second question"][n as usize - 1];
    assert_eq!(round["inputRequests"][&key]["params"]["message"], message);
}

/// How many times the survey tool ran.
fn ran(runs: &std::sync::atomic::AtomicUsize) -> usize {
    runs.load(std::sync::atomic::Ordering::SeqCst)
}

#[tokio::test]
async fn a_legacy_upstreams_call_waits_between_a_modern_callers_rounds_and_runs_once() {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let key = mcp_framework::StateKey::new("k1", [7; 32]);
    let gateway = survey_gateway(survey_upstream(runs.clone()), &key).await;

    // The upstream asks, as a request to the gateway; the caller gets it as this call's
    // input request, keyed by its place among the call's questions.
    let first = survey_round(&gateway, None).await;
    assert_asks(&first, 1);
    // The retry answers it, and the same upstream run goes on to its second question.
    let second = survey_round(&gateway, Some((&first, 1, "one"))).await;
    assert_asks(&second, 2);
    let done = survey_round(&gateway, Some((&second, 2, "two"))).await;
    assert_eq!(
        done["content"][0]["text"], r#"run 1 on "gateways": "one", "two""#,
        "{done}"
    );
    assert_eq!(ran(&runs), 1, "the upstream ran once");

    // A retry that lands where nothing waits (another replica, sharing the state key) calls
    // the upstream again, and the answers its state carries answer the questions asked again.
    runs.store(0, std::sync::atomic::Ordering::SeqCst);
    let other = survey_gateway(survey_upstream(runs.clone()), &key).await;
    let first = survey_round(&gateway, None).await;
    let second = survey_round(&other, Some((&first, 1, "uno"))).await;
    assert_asks(&second, 2);
    let done = survey_round(&other, Some((&second, 2, "dos"))).await;
    assert_eq!(
        done["content"][0]["text"], r#"run 2 on "gateways": "uno", "dos""#,
        "{done}"
    );
    // One run started by the first round (still waiting at `gateway`), one at `other`.
    assert_eq!(ran(&runs), 2);

    // A call that starts while another waits gives the waiting one up: with two in flight,
    // the upstream's questions could not be asked of anyone.
    let mine = survey_round(&gateway, None).await;
    assert_asks(&mine, 1);
    assert_eq!(ran(&runs), 3);
    let mine = survey_round(&gateway, Some((&mine, 1, "mine"))).await;
    assert_asks(&mine, 2);
    // Another caller making the same call (anonymous too, so the same principal), answering
    // its first question otherwise, does not go on with the run that waits with "mine".
    let theirs = survey_round(&other, None).await;
    let theirs = survey_round(&other, Some((&theirs, 1, "theirs"))).await;
    let theirs = survey_round(&gateway, Some((&theirs, 2, "too"))).await;
    assert_eq!(
        theirs["content"][0]["text"], r#"run 5 on "gateways": "theirs", "too""#,
        "{theirs}"
    );
}
