//! Long-running tools (the Tasks extension, SEP-2663) over the real transports: a task
//! that asks a question, is polled, answered and finishes; cancellation reaching the
//! handler; expiry; tasks of another principal; clients without the extension (inline,
//! `-32021`, legacy sessions); `notifications/tasks` on a listen stream; and 1,000
//! concurrent tasks against a store of bounded size.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_framework::client::{Client, ClientError};
use mcp_framework::protocol::{ClientCapabilities, ElicitResult, JsonObject, ProtocolVersion};
use mcp_framework::tasks::{MemoryTaskStore, TaskStore};
use mcp_framework::{
    Context, Elicitation, Server, TaskConfig, TaskStart, TaskSupport, ToolDefinition, ToolError,
    ToolSet, tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tests::wire::{json_of, legacy_post, legacy_session, post, request, start_authenticated};

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, JsonSchema, mcp_framework::Form)]
struct Approval {
    /// Whether to go ahead.
    approve: bool,
}

/// Reports progress, asks for approval, then answers.
#[tool(task)]
async fn deploy(ctx: Context, target: String) -> Result<String, ToolError> {
    ctx.progress(1.0, Some(3.0), Some("building")).await;
    let answer = ctx
        .elicit::<Approval>(format!("Deploy to {target}?"))
        .await?;
    Ok(match answer {
        Elicitation::Accept(Approval { approve: true }) => format!("deployed to {target}"),
        _ => format!("not deployed to {target}"),
    })
}

/// Counts how many handlers saw their cancellation.
static CANCELLED: AtomicUsize = AtomicUsize::new(0);

/// Waits until cancelled (counting that), or an hour.
#[tool(task)]
async fn wait_forever(ctx: Context) -> String {
    tokio::select! {
        () = ctx.cancelled() => {
            CANCELLED.fetch_add(1, Ordering::SeqCst);
            "cancelled".into()
        }
        () = tokio::time::sleep(Duration::from_secs(3600)) => "an hour later".into(),
    }
}

/// Answers at once, only ever as a task.
#[tool(task = "required")]
fn must_be_a_task(n: u32) -> u32 {
    n * 2
}

/// Sleeps `ms`, then answers `n`.
#[tool(task)]
async fn nap(n: u32, ms: u64) -> u32 {
    tokio::time::sleep(Duration::from_millis(ms.min(5_000))).await;
    n
}

/// Answers `bytes` bytes of text.
#[tool(task)]
fn big(bytes: usize) -> String {
    "x".repeat(bytes.min(10 << 20))
}

fn server_with(config: TaskConfig) -> Server {
    Server::builder()
        .name("tasks-test")
        .tools(tools![deploy, wait_forever, must_be_a_task, nap, big])
        .tasks(config)
        .build()
        .unwrap()
}

fn server() -> Server {
    server_with(TaskConfig::default().poll_interval(Duration::from_millis(10)))
}

fn tasks_caps() -> ClientCapabilities {
    let mut extensions = JsonObject::new();
    extensions.insert(TASKS.into(), json!({}));
    ClientCapabilities {
        extensions: Some(extensions),
        ..ClientCapabilities::default()
    }
}

async fn tasks_client(server: &Server) -> Client {
    Client::builder()
        .capabilities(tasks_caps())
        .on_elicit(|_| async {
            ElicitResult::accept(json!({"approve": true}).as_object().cloned())
        })
        .connect(server)
        .await
        .unwrap()
}

async fn get(client: &Client, id: &str) -> Value {
    client
        .request("tasks/get", json!({"taskId": id}))
        .await
        .unwrap()
}

/// Polls until the task's status is `status` (or final), at most 5 s.
async fn until(client: &Client, id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let task = get(client, id).await;
        let now = task["status"].as_str().unwrap().to_owned();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never reached {status}");
}

fn rpc_code(e: ClientError) -> i32 {
    e.rpc().map(|e| e.code).unwrap_or_else(|| panic!("{e}"))
}

#[tokio::test]
async fn a_task_asks_is_polled_answered_and_finishes() {
    let server = server();
    let client = tasks_client(&server).await;
    let created = client
        .request(
            "tools/call",
            json!({"name": "deploy", "arguments": {"target": "prod"}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32, "128 random bits, hex: {id}");
    for absent in [
        "result",
        "error",
        "inputRequests",
        "requestState",
        "content",
    ] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    assert_eq!(created["ttlMs"], 3_600_000);

    let waiting = until(&client, &id, "input_required").await;
    assert_eq!(waiting["resultType"], "complete");
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let question = &waiting["inputRequests"]["elicitation-1"];
    assert_eq!(question["method"], "elicitation/create", "{waiting}");
    assert_eq!(question["params"]["message"], "Deploy to prod?");
    // Progress inside a task is its status message (nothing streams for a task).
    assert_eq!(waiting["statusMessage"], "1/3: building");
    // A poll does not change it: the same question, under the same key.
    assert_eq!(
        get(&client, &id).await["inputRequests"],
        waiting["inputRequests"]
    );

    // Answers to keys not asked are ignored; the right one resumes the task.
    let ack = client
        .request(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {
                "nobody-asked": {"action": "accept", "content": {}},
                "elicitation-1": {"action": "accept", "content": {"approve": true}}
            }}),
        )
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    assert!(
        ack.get("taskId").is_none() && ack.get("status").is_none(),
        "{ack}"
    );
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "deployed to prod");
    assert!(done.get("inputRequests").is_none());
    // A final task stays as it is: a late answer or cancel changes nothing.
    client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(get(&client, &id).await["status"], "completed");

    // The test client follows tasks on its own, answering with its callbacks.
    let result = client
        .call_tool("deploy", json!({"target": "staging"}))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text(), Some("deployed to staging"));
}

#[tokio::test]
async fn cancelling_a_task_reaches_its_handler() {
    let server = server();
    let client = tasks_client(&server).await;
    let before = CANCELLED.load(Ordering::SeqCst);
    let created = client
        .request(
            "tools/call",
            json!({"name": "wait_forever", "arguments": {}}),
        )
        .await
        .unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    assert_eq!(get(&client, &id).await["status"], "working");
    let ack = client
        .request("tasks/cancel", json!({"taskId": id}))
        .await
        .unwrap();
    assert_eq!(ack["resultType"], "complete");
    let done = until(&client, &id, "cancelled").await;
    assert_eq!(done["status"], "cancelled", "{done}");
    assert!(done.get("result").is_none());
    // The handler saw the cancellation through its Context (it ran until then).
    for _ in 0..100 {
        if CANCELLED.load(Ordering::SeqCst) > before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the handler never saw its cancellation");
}

#[tokio::test]
async fn tasks_expire_after_their_ttl() {
    let server = server_with(
        TaskConfig::default()
            .ttl(Duration::from_millis(300))
            .poll_interval(Duration::from_millis(10)),
    );
    let client = tasks_client(&server).await;
    let done = client
        .request(
            "tools/call",
            json!({"name": "nap", "arguments": {"n": 7, "ms": 0}}),
        )
        .await
        .unwrap();
    let id = done["taskId"].as_str().unwrap().to_owned();
    assert_eq!(done["ttlMs"], 300);
    assert_eq!(
        until(&client, &id, "completed").await["result"]["structuredContent"]["result"],
        7
    );
    // Still there before its TTL ends...
    assert_eq!(get(&client, &id).await["taskId"], id.as_str());
    // ... gone after it, and so is a running one (its handler cancelled).
    let running = client
        .request(
            "tools/call",
            json!({"name": "wait_forever", "arguments": {}}),
        )
        .await
        .unwrap();
    let running = running["taskId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(1_400)).await;
    for gone in [&id, &running] {
        let e = client
            .request("tasks/get", json!({"taskId": gone}))
            .await
            .unwrap_err();
        let e = e.rpc().unwrap();
        assert_eq!(e.code, -32602);
        assert!(
            e.message.contains("expired") || e.message.contains("not found"),
            "{}",
            e.message
        );
    }
}

fn with_tasks(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}
    });
    request(id, method, params)
}

#[tokio::test]
async fn another_principal_cannot_read_answer_or_cancel_a_task() {
    let r = start_authenticated(server()).await;
    let call = with_tasks(
        1,
        "tools/call",
        json!({"name": "wait_forever", "arguments": {}}),
    );
    let (status, created) = json_of(
        post(&r, &call)
            .header("x-user", "alice")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let methods = [
        ("tasks/get", json!({"taskId": id})),
        ("tasks/update", json!({"taskId": id, "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": id})),
    ];
    for (who, expect_found) in [(Some("bob"), false), (None, false), (Some("alice"), true)] {
        for (i, (method, params)) in methods.iter().enumerate() {
            if *method == "tasks/cancel" && expect_found {
                continue; // alice keeps her task running for the last check
            }
            let body = with_tasks(10 + i as u64, method, params.clone());
            let mut req = post(&r, &body);
            if let Some(who) = who {
                req = req.header("x-user", who);
            }
            let (_, answer) = json_of(req.send().await.unwrap()).await;
            if expect_found {
                assert_eq!(
                    answer["result"]["resultType"], "complete",
                    "{who:?} {method}: {answer}"
                );
            } else {
                // Exactly what an unknown id gets: nothing tells the task exists.
                assert_eq!(
                    answer["error"]["code"], -32602,
                    "{who:?} {method}: {answer}"
                );
                assert_eq!(
                    answer["error"]["message"],
                    "Failed to retrieve task: Task not found"
                );
            }
        }
    }
    let (_, still) = json_of(
        post(&r, &with_tasks(20, "tasks/get", json!({"taskId": id})))
            .header("x-user", "alice")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        still["result"]["status"], "working",
        "bob's cancel did nothing: {still}"
    );
    // The routing header must name the task.
    let (status, mismatch) = json_of(
        post(&r, &with_tasks(21, "tasks/get", json!({"taskId": id})))
            .header("x-user", "alice")
            .header("Mcp-Name", "another-task")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status.as_u16(), mismatch["error"]["code"].as_i64()),
        (400, Some(-32020))
    );
}

#[tokio::test]
async fn clients_without_the_extension_get_inline_results_or_32021() {
    let server = server();
    let plain = Client::connect(&server).await.unwrap();
    // A tool that allows tasks runs inline.
    let inline = plain
        .request(
            "tools/call",
            json!({"name": "nap", "arguments": {"n": 3, "ms": 0}}),
        )
        .await
        .unwrap();
    assert_eq!(inline["resultType"], "complete");
    assert_eq!(inline["structuredContent"]["result"], 3);
    // One that requires them is refused, naming the extension.
    let e = plain
        .request(
            "tools/call",
            json!({"name": "must_be_a_task", "arguments": {"n": 1}}),
        )
        .await
        .unwrap_err();
    let e = e.rpc().unwrap();
    assert_eq!(e.code, -32021);
    assert_eq!(
        e.data.as_ref().unwrap()["requiredCapabilities"]["extensions"][TASKS],
        json!({})
    );
    // The tasks methods too, and listening for task notifications.
    for method in ["tasks/get", "tasks/cancel"] {
        let e = plain
            .request(method, json!({"taskId": "x"}))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32021, "{method}");
    }
    let mut sub = plain.listen(json!({"taskIds": ["x"]})).await.unwrap();
    let refused = sub.next().await.unwrap();
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    // Removed methods stay removed.
    let tasks = tasks_client(&server).await;
    for method in ["tasks/result", "tasks/list"] {
        let e = tasks
            .request(method, json!({"taskId": "x"}))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32601, "{method}");
    }
    // The server declares the extension.
    let discover = tasks.request("server/discover", json!({})).await.unwrap();
    assert_eq!(discover["capabilities"]["extensions"][TASKS], json!({}));

    // Legacy sessions know no tasks: inline results, -32021 for required ones, no methods.
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2025_06_18] {
        let legacy = Client::builder()
            .legacy(version)
            .capabilities(tasks_caps())
            .connect(&server)
            .await
            .unwrap();
        let inline = legacy
            .request(
                "tools/call",
                json!({"name": "nap", "arguments": {"n": 4, "ms": 0}}),
            )
            .await
            .unwrap();
        assert_eq!(
            inline["structuredContent"]["result"], 4,
            "{version:?}: {inline}"
        );
        let e = legacy
            .request(
                "tools/call",
                json!({"name": "must_be_a_task", "arguments": {"n": 1}}),
            )
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32021, "{version:?}");
        let e = legacy
            .request("tasks/get", json!({"taskId": "x"}))
            .await
            .unwrap_err();
        assert_eq!(rpc_code(e), -32601, "{version:?}");
    }
}

#[tokio::test]
async fn legacy_http_sessions_run_task_tools_inline() {
    let r = tests::wire::start(server()).await;
    let session = legacy_session(&r, "2025-11-25").await;
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "nap", "arguments": {"n": 5, "ms": 0}}});
    let resp = legacy_post(&r, &session, &body).send().await.unwrap();
    let events = tests::wire::sse_events(resp, 1).await;
    let answer = events.iter().find(|e| e["id"] == 2).expect("an answer");
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 5,
        "{answer}"
    );
    assert!(answer["result"].get("resultType").is_none());
}

#[tokio::test]
async fn task_status_notifications_reach_the_owners_listen_stream() {
    let server = server();
    let client = tasks_client(&server).await;
    let created = client
        .request(
            "tools/call",
            json!({"name": "nap", "arguments": {"n": 9, "ms": 200}}),
        )
        .await
        .unwrap();
    let id = created["taskId"].as_str().unwrap().to_owned();
    let mut sub = client
        .listen(json!({"taskIds": [id, "not-a-task"]}))
        .await
        .unwrap();
    let ack = sub.next().await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let agreed = ack["params"]["notifications"]["taskIds"]
        .as_array()
        .unwrap();
    assert!(agreed.contains(&json!(id)), "{ack}");
    let note = tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .expect("a notification")
        .unwrap();
    assert_eq!(note["method"], "notifications/tasks", "{note}");
    assert_eq!(note["params"]["taskId"], id.as_str());
    assert_eq!(note["params"]["status"], "completed");
    assert_eq!(note["params"]["result"]["structuredContent"]["result"], 9);
    assert!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_number());
}

#[tokio::test]
async fn a_result_too_big_to_keep_fails_its_task() {
    let server = server_with(
        TaskConfig::default()
            .max_result_bytes(1_000)
            .poll_interval(Duration::from_millis(10)),
    );
    let client = tasks_client(&server).await;
    for (bytes, status) in [(100, "completed"), (5_000, "failed")] {
        let created = client
            .request(
                "tools/call",
                json!({"name": "big", "arguments": {"bytes": bytes}}),
            )
            .await
            .unwrap();
        let id = created["taskId"].as_str().unwrap().to_owned();
        let done = until(&client, &id, status).await;
        assert_eq!(done["status"], status, "{done}");
        if status == "failed" {
            assert_eq!(done["error"]["code"], -32603);
            assert!(done["error"]["message"].as_str().unwrap().contains("1000"));
            assert!(done.get("result").is_none());
        }
    }
}

/// A handler that starts its own task: inline until it calls `run_as_task`.
fn self_starting() -> ToolSet {
    let schema = json!({"type": "object"});
    let def = ToolDefinition::new("self_starting", schema.as_object().unwrap().clone())
        .task(TaskSupport::Optional)
        .task_start(TaskStart::Handler);
    ToolSet::new().with_fn(def, |_args, cx: Context| async move {
        let before = cx.task_id().is_some();
        let promoted = cx.run_as_task().await;
        let after = cx.task_id().map(str::to_owned);
        Ok(mcp_framework::CallToolResult {
            content: vec![mcp_framework::Content::text(format!(
                "before={before} promoted={promoted} task={}",
                after.is_some()
            ))],
            ..Default::default()
        })
    })
}

#[tokio::test]
async fn a_handler_decides_when_its_task_starts() {
    let server = Server::builder()
        .tools(self_starting())
        .tasks(TaskConfig::default().poll_interval(Duration::from_millis(10)))
        .build()
        .unwrap();
    let client = tasks_client(&server).await;
    let created = client
        .request(
            "tools/call",
            json!({"name": "self_starting", "arguments": {}}),
        )
        .await
        .unwrap();
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    let done = until(&client, &id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "before=false promoted=true task=true"
    );
    // Without the extension the same handler runs inline: run_as_task says no.
    let plain = Client::connect(&server).await.unwrap();
    let inline = plain
        .request(
            "tools/call",
            json!({"name": "self_starting", "arguments": {}}),
        )
        .await
        .unwrap();
    assert_eq!(
        inline["content"][0]["text"],
        "before=false promoted=false task=false"
    );
}

#[tokio::test]
async fn a_thousand_concurrent_tasks_finish_within_a_bounded_store() {
    const N: usize = 1_000;
    let store = Arc::new(MemoryTaskStore::new(N));
    let server = Server::builder()
        .tools(tools![nap, must_be_a_task])
        .tasks(
            TaskConfig::default()
                .poll_interval(Duration::from_millis(20))
                .max_tasks_per_owner(N + 1),
        )
        .task_store(store.clone())
        .build()
        .unwrap();
    let client = tasks_client(&server).await;
    let mut ids = Vec::with_capacity(N);
    let calls = (0..N).map(|n| {
        let client = client.clone();
        async move {
            client
                .request(
                    "tools/call",
                    json!({"name": "nap", "arguments": {"n": n, "ms": 50}}),
                )
                .await
                .unwrap()
        }
    });
    for created in futures_util::future::join_all(calls).await {
        assert_eq!(created["resultType"], "task");
        ids.push(created["taskId"].as_str().unwrap().to_owned());
    }
    assert_eq!(store.len(), N, "every task is kept");
    // The store is full: a tool that allows tasks runs inline, one that requires one is
    // refused until room is made.
    let inline = client
        .request(
            "tools/call",
            json!({"name": "nap", "arguments": {"n": 1, "ms": 0}}),
        )
        .await
        .unwrap();
    assert_eq!(inline["resultType"], "complete", "{inline}");
    let e = client
        .request(
            "tools/call",
            json!({"name": "must_be_a_task", "arguments": {"n": 1}}),
        )
        .await
        .unwrap_err();
    assert_eq!(rpc_code(e), -32603);
    assert_eq!(store.len(), N);
    for (n, id) in ids.iter().enumerate() {
        let done = until(&client, id, "completed").await;
        assert_eq!(done["result"]["structuredContent"]["result"], n, "{done}");
    }
    let record = store.get(&ids[0]).await.unwrap().unwrap();
    assert!(record.owner.is_none(), "no authorization: owned by nobody");
}

#[tokio::test]
async fn the_memory_store_passes_the_contract() {
    mcp_framework::tasks::contract::check(&MemoryTaskStore::new(
        mcp_framework::tasks::contract::MIN_CAPACITY,
    ))
    .await;
}

/// The tasks one caller may hold by default (`TaskConfig::max_tasks_per_owner`).
const DEFAULT_PER_OWNER: usize = 100;

/// `tools/call` of `tool` with the extension declared, as `user` (none: no principal).
async fn call_as(
    r: &tests::wire::Running,
    user: Option<&str>,
    id: u64,
    tool: &str,
) -> (u16, Value) {
    let body = with_tasks(
        id,
        "tools/call",
        json!({"name": tool, "arguments": if tool == "nap" {
            json!({"n": 1, "ms": 0})
        } else {
            json!({"n": 1})
        }}),
    );
    let mut req = post(r, &body);
    if let Some(user) = user {
        req = req.header("x-user", user);
    }
    let (status, answer) = json_of(req.send().await.unwrap()).await;
    (status.as_u16(), answer)
}

/// Fills `user`'s quota with finished tasks, then checks that the next task-only call is
/// refused as this caller's quota (`429`, not the server's `503`), and that an optional
/// task runs inline instead.
async fn fill_quota(r: &tests::wire::Running, user: Option<&str>) {
    for i in 0..DEFAULT_PER_OWNER {
        let (status, created) = call_as(r, user, i as u64, "must_be_a_task").await;
        assert_eq!(status, 200, "{user:?} task {i}: {created}");
        assert_eq!(created["result"]["resultType"], "task", "{created}");
    }
    // Finished tasks count too: they are kept (and held) until their TTL ends.
    let (status, refused) = call_as(r, user, 1_000, "must_be_a_task").await;
    assert_eq!(status, 429, "{user:?}: {refused}");
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("This caller") && message.contains(&DEFAULT_PER_OWNER.to_string()),
        "{message}"
    );
    assert_eq!(
        refused["error"]["data"]["maxTasksPerOwner"], DEFAULT_PER_OWNER,
        "{refused}"
    );
    let (status, inline) = call_as(r, user, 1_001, "nap").await;
    assert_eq!(status, 200, "{inline}");
    assert_eq!(inline["result"]["resultType"], "complete", "{inline}");
}

#[tokio::test]
async fn a_principal_at_its_task_quota_is_refused_while_another_still_creates_tasks() {
    let r = start_authenticated(server()).await;
    fill_quota(&r, Some("alice")).await;
    let (status, created) = call_as(&r, Some("bob"), 1, "must_be_a_task").await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let (status, _) = call_as(&r, Some("alice"), 2, "must_be_a_task").await;
    assert_eq!(status, 429, "alice is still at her quota");
}

#[tokio::test]
async fn without_authorization_each_client_address_has_its_own_task_quota() {
    let r = tests::wire::start(server()).await;
    // Another loopback address: another client, as far as the server can tell.
    let other = tests::wire::Running {
        url: r.url.clone(),
        server: r.server.clone(),
        http: reqwest::Client::builder()
            .local_address(std::net::IpAddr::from([127, 0, 0, 2]))
            .build()
            .unwrap(),
    };
    fill_quota(&other, None).await;
    let (status, created) = call_as(&r, None, 1, "must_be_a_task").await;
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
}

/// `tasks/get` over HTTP until the task is final (at most 5 s).
async fn finished_over_http(r: &tests::wire::Running, id: &str) -> Value {
    for _ in 0..500 {
        let (status, got) = json_of(
            post(r, &with_tasks(7, "tasks/get", json!({"taskId": id})))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{got}");
        let task = got["result"].clone();
        if ["completed", "failed", "cancelled"].contains(&task["status"].as_str().unwrap()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {id} never finished");
}

#[tokio::test]
async fn a_result_past_the_stores_byte_budget_fails_its_task_and_the_kept_ones_stay() {
    // Room for one 6 kB result, not two.
    let r = tests::wire::start(server_with(
        TaskConfig::default()
            .max_total_bytes(10_000)
            .poll_interval(Duration::from_millis(10)),
    ))
    .await;
    let mut ids = Vec::new();
    for i in 0..2 {
        let (status, created) = json_of(
            post(
                &r,
                &with_tasks(
                    i,
                    "tools/call",
                    json!({"name": "big", "arguments": {"bytes": 6_000}}),
                ),
            )
            .send()
            .await
            .unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{created}");
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        // One after the other: the first result is kept before the second comes.
        let done = finished_over_http(&r, &id).await;
        ids.push((id, done));
    }
    let (_, first) = &ids[0];
    assert_eq!(first["status"], "completed", "{first}");
    assert_eq!(
        first["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .len(),
        6_000
    );
    let (_, second) = &ids[1];
    assert_eq!(second["status"], "failed", "{second}");
    assert!(second.get("result").is_none(), "{second}");
    assert_eq!(second["error"]["code"], -32603);
    let message = second["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("budget of 10000 bytes") && message.contains("result"),
        "{message}"
    );
    // The kept result is still there, whole.
    let again = finished_over_http(&r, &ids[0].0).await;
    assert_eq!(&again, first);
}
