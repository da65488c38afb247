//! Scale-out through a real Redis (Debian's `redis-server`, started by the test): two
//! replicas of a server, each with a `RedisEventBus` on the same Redis and served over
//! HTTP. A change made through one reaches the `subscriptions/listen` streams of the other
//! (list changes and resource updates), each exactly once; when Redis goes away requests
//! are still answered and changes still reach the replica's own listeners, and when it
//! comes back the listeners get a resync (every list changed, and the event types) and remote changes flow
//! again. Event occurrences (the Events extension, kept in Redis streams) emitted on one
//! replica are polled and streamed on another, with cursors good on every replica and on a
//! replica started later.

use std::time::Duration;

use mcp_framework::events::{Emitter, EventType, Events};
use mcp_framework::scale::{RedisEventBus, RedisTaskStore};
use mcp_framework::{Server, resource, tool, tools};
use serde_json::{Value, json};
use tests::everything;
use tests::redis::Redis;
use tests::wire::{Listener, Running, first_input_key, json_of, post, request, start};

/// Says hello.
#[tool(register = false)]
fn hello() -> String {
    "hello".into()
}

/// A second tool, for removing.
#[tool(register = false)]
fn spare() -> String {
    "spare".into()
}

/// The resource the listeners watch (served from the binary's `#[resource]`s).
#[resource(uri = "test://watched", mime = "text/plain")]
fn watched() -> String {
    "watched".into()
}

/// A replica: the same server, its bus on `redis`; with the Events extension, whose
/// `eventsListChanged` a listener may ask for too.
async fn replica(redis: &Redis) -> Running {
    let server = Server::builder()
        .name("replicated")
        .tools(tools![hello, spare])
        .event_bus(RedisEventBus::connect(redis.url()).unwrap())
        .extension(Events::new().event(EventType::new::<Built>("build.finished")))
        .build()
        .unwrap();
    start(server).await
}

/// A listen filter for every list, the event types and `test://watched`.
fn every_change() -> Value {
    json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "eventsListChanged": true,
        "resourceSubscriptions": ["test://watched"]
    })
}

/// Makes `change` on one replica until `listener` (on another) sees `method`: the buses
/// subscribe in the background, so the first changes may precede the subscription.
async fn until_seen(listener: &mut Listener, method: &str, change: impl Fn()) {
    for _ in 0..50 {
        change();
        if let Some(seen) = listener.next_method(Duration::from_millis(200)).await {
            assert_eq!(seen, method);
            return;
        }
    }
    panic!("{method} never arrived");
}

async fn tools_list(r: &Running) -> Value {
    let (status, body) = json_of(
        post(r, &request(1, "tools/list", json!({})))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    body
}

#[tokio::test]
async fn a_change_on_one_replica_reaches_the_listeners_of_the_others_once() {
    let redis = Redis::start().await;
    let (a, b) = (replica(&redis).await, replica(&redis).await);
    let mut on_a = Listener::open(&a, every_change()).await;
    let mut on_b = Listener::open(&b, every_change()).await;

    until_seen(&mut on_a, "notifications/resources/updated", || {
        b.server.handle().resource_updated("test://watched");
    })
    .await;
    // B's own listener saw those updates locally, once each, not again through Redis.
    let mut own = 0;
    while let Some(m) = on_b.next_method(Duration::from_millis(300)).await {
        assert_eq!(m, "notifications/resources/updated");
        own += 1;
    }
    assert!(own >= 1, "B's listener saw its own update");
    while on_a.next(Duration::from_millis(300)).await.is_some() {}

    // One change now that both buses are subscribed: exactly one notification on each side.
    b.server.handle().remove_tool("spare");
    assert_eq!(
        on_a.next_method(Duration::from_secs(5)).await.as_deref(),
        Some("notifications/tools/list_changed")
    );
    assert_eq!(
        on_b.next_method(Duration::from_secs(5)).await.as_deref(),
        Some("notifications/tools/list_changed")
    );
    assert_eq!(
        on_a.next(Duration::from_millis(500)).await,
        None,
        "no echo on A"
    );
    assert_eq!(
        on_b.next(Duration::from_millis(500)).await,
        None,
        "no echo on B"
    );

    // Only B's catalog changed: the event says "list again", it does not copy catalogs.
    assert_eq!(
        tools_list(&b).await["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        tools_list(&a).await["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // And the other way round.
    a.server.handle().resource_updated("test://watched");
    assert_eq!(
        on_b.next_method(Duration::from_secs(5)).await.as_deref(),
        Some("notifications/resources/updated")
    );
}

#[tokio::test]
async fn without_redis_requests_are_served_and_listeners_resync_when_it_returns() {
    let mut redis = Redis::start().await;
    let (a, b) = (replica(&redis).await, replica(&redis).await);
    let mut on_a = Listener::open(&a, every_change()).await;
    until_seen(&mut on_a, "notifications/resources/updated", || {
        b.server.handle().resource_updated("test://watched");
    })
    .await;
    while on_a.next(Duration::from_millis(300)).await.is_some() {}

    redis.stop().await;
    // Requests do not wait for Redis, and changes still reach the replica's own listeners.
    let answered = tokio::time::timeout(Duration::from_secs(2), tools_list(&a)).await;
    assert!(answered.is_ok(), "tools/list waited for Redis");
    a.server.handle().remove_tool("spare");
    assert_eq!(
        on_a.next_method(Duration::from_secs(2)).await.as_deref(),
        Some("notifications/tools/list_changed")
    );
    // A change on B meanwhile is lost to A (pub/sub keeps nothing) ...
    b.server.handle().remove_tool("spare");

    redis.restart().await;
    // ... so A's listeners are told that every list (and what the Events extension
    // announces) may have changed once its subscription is back (or once B could publish
    // again: either is a resync).
    let mut resynced = Vec::new();
    while resynced.len() < 4 {
        let m = on_a
            .next_method(Duration::from_secs(20))
            .await
            .expect("a resync after Redis came back");
        if !resynced.contains(&m) {
            resynced.push(m);
        }
    }
    resynced.sort();
    assert_eq!(
        resynced,
        [
            "notifications/events/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/tools/list_changed"
        ]
    );
    // Remote changes flow again.
    while on_a.next(Duration::from_millis(300)).await.is_some() {}
    until_seen(&mut on_a, "notifications/resources/updated", || {
        b.server.handle().resource_updated("test://watched");
    })
    .await;
}

#[tokio::test]
async fn a_bad_url_is_an_error_and_an_unreachable_redis_is_not() {
    let e = RedisEventBus::connect("http://not-redis").unwrap_err();
    assert!(e.to_string().contains("the Redis URL"), "{e}");
    // Nothing listens on this port: the bus starts anyway and keeps trying.
    let port = tests::free_port();
    let bus = RedisEventBus::connect(format!("redis://127.0.0.1:{port}/")).unwrap();
    let server = Server::builder()
        .tools(tools![hello])
        .event_bus(bus)
        .build()
        .unwrap();
    let r = start(server).await;
    let body = tools_list(&r).await;
    assert_eq!(body["result"]["tools"][0]["name"], "hello");
}

/// What a `tracing` subscriber wrote, for reading back.
#[derive(Clone, Default)]
struct Logs(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Logs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

#[tokio::test]
async fn the_redis_password_is_in_no_error_log_or_debug_output() {
    const SECRET: &str = "s3cret-Pa55word";
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let bad = format!("redis://ada:{SECRET}@127.0.0.1:notaport/");
    let builder = RedisEventBus::builder(bad.clone());
    let debug = format!("{builder:?}");
    assert!(!debug.contains(SECRET) && debug.contains("***@"), "{debug}");
    let e = builder.start().unwrap_err().to_string();
    assert!(!e.contains(SECRET) && e.contains("***@127.0.0.1"), "{e}");
    let e = RedisTaskStore::new(&bad, 10).unwrap_err().to_string();
    assert!(!e.contains(SECRET) && e.contains("***@127.0.0.1"), "{e}");

    // A Redis that refuses the password: the bus keeps trying, and says why in its logs.
    let redis = Redis::start().await;
    let url = redis
        .url()
        .replace("redis://", &format!("redis://:{SECRET}@"));
    let bus = RedisEventBus::connect(url.clone()).unwrap();
    assert!(!format!("{bus:?}").contains(SECRET));
    let store = RedisTaskStore::new(&url, 10).unwrap();
    assert!(!format!("{store:?}").contains(SECRET));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !logs.text().contains("cannot subscribe") {
        assert!(
            std::time::Instant::now() < deadline,
            "no log of the refusal: {}",
            logs.text()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let text = logs.text();
    assert!(
        text.contains("uthentication"),
        "the refusal is logged: {text}"
    );
    assert!(!text.contains(SECRET), "{text}");
    drop(bus);
}

/// `everything http --redis-url …` on a free port, stopped when dropped.
async fn everything_replica(redis: &Redis) -> (tokio::process::Child, Running) {
    everything(&["--redis-url", &redis.url()]).await
}

#[tokio::test]
async fn the_command_line_of_run_shares_events_with_redis_url() {
    let redis = Redis::start().await;
    let (_a_process, a) = everything_replica(&redis).await;
    let (_b_process, b) = everything_replica(&redis).await;
    let mut on_a = Listener::open(
        &a,
        json!({"resourceSubscriptions": ["test://watched-resource"]}),
    )
    .await;
    let touch = request(
        8,
        "tools/call",
        json!({"name": "touch_watched_resource", "arguments": {}}),
    );
    for attempt in 0.. {
        assert!(
            attempt < 50,
            "the update made on B never reached A's listener"
        );
        let (_, answer) = json_of(post(&b, &touch).send().await.unwrap()).await;
        assert!(answer["result"].is_object(), "{answer}");
        if let Some(m) = on_a.next(Duration::from_millis(200)).await {
            assert_eq!(m["method"], "notifications/resources/updated", "{m}");
            assert_eq!(m["params"]["uri"], "test://watched-resource");
            break;
        }
    }
}

#[tokio::test]
async fn a_question_asked_by_one_replica_is_answered_on_another_with_a_shared_key_file() {
    let dir = tests::temp_dir("state-keys");
    let shared = dir.join("shared.keys");
    // Rotation: the new key seals, the old one still opens.
    tests::write_private(
        &shared,
        "# newest first\n\
         2026-12 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n\
         2026-11 ZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmY=\n",
    );
    let other = dir.join("other.keys");
    tests::write_private(
        &other,
        "2026-12 ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\n",
    );
    // A replica not yet rotated: its current key is the others' previous one.
    let older = dir.join("older.keys");
    tests::write_private(
        &older,
        "2026-11 ZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmZmY=\n",
    );
    let path = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let (_a_process, a) = everything(&["--state-key-file", &path(&shared)]).await;
    let (_b_process, b) = everything(&["--state-key-file", &path(&shared)]).await;
    let (_c_process, c) = everything(&["--state-key-file", &path(&other)]).await;
    let (_d_process, d) = everything(&["--state-key-file", &path(&older)]).await;

    let call = |extra: Value| {
        let mut params = json!({
            "name": "confirm_delete",
            "arguments": {"filename": "a.txt"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
            }
        });
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        request(9, "tools/call", params)
    };
    let (_, first) = json_of(post(&a, &call(json!({}))).send().await.unwrap()).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let key = first_input_key(result);
    let state = result["requestState"].as_str().unwrap().to_owned();
    let retry = call(json!({
        "requestState": state,
        "inputResponses": {key.clone(): {"action": "accept", "content": {"confirm": true}}}
    }));
    let (_, done) = json_of(post(&b, &retry).send().await.unwrap()).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Deleted a.txt",
        "{done}"
    );
    let (_, refused) = json_of(post(&c, &retry).send().await.unwrap()).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // Sealed with the previous key (by the replica not yet rotated), opened by a rotated one.
    let (_, first) = json_of(post(&d, &call(json!({}))).send().await.unwrap()).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let retry = call(json!({
        "requestState": state,
        "inputResponses": {key: {"action": "accept", "content": {"confirm": false}}}
    }));
    let (_, done) = json_of(post(&b, &retry).send().await.unwrap()).await;
    assert_eq!(done["result"]["content"][0]["text"], "Kept a.txt", "{done}");

    // A key file that is not one stops the server at once, saying why.
    let bad = dir.join("bad.keys");
    std::fs::write(&bad, "2026-12 tooshort\n").unwrap();
    let out = tokio::process::Command::new(tests::example_binary("everything"))
        .args([
            "http",
            "--bind",
            "127.0.0.1:0",
            "--state-key-file",
            &path(&bad),
        ])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 1: the secret is 32 bytes"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_redis_task_store_keeps_the_contract() {
    let redis = Redis::start().await;
    let store = RedisTaskStore::new(&redis.url(), mcp_framework::tasks::contract::MIN_CAPACITY)
        .unwrap()
        .prefix("contract");
    mcp_framework::tasks::contract::check(&store).await;

    // The bound holds across replicas: they share the count.
    use mcp_framework::tasks::{TaskRecord, TaskStore, TaskStoreError};
    let (one, two) = (
        RedisTaskStore::new(&redis.url(), 2)
            .unwrap()
            .prefix("bound"),
        RedisTaskStore::new(&redis.url(), 2)
            .unwrap()
            .prefix("bound"),
    );
    let record = |id: &str| TaskRecord::new(id.to_owned(), None, 0, Some(60_000), None);
    one.create(record("t1"), 10).await.unwrap();
    two.create(record("t2"), 10).await.unwrap();
    assert_eq!(
        one.create(record("t3"), 10).await,
        Err(TaskStoreError::Full { max: 2 })
    );
    assert_eq!(
        two.create(record("t1"), 10).await,
        Err(TaskStoreError::Exists("t1".into()))
    );

    // So does a holder's quota: a removed record frees its place at once, and one that
    // Redis dropped on its own (no replica swept it: ten minutes past its TTL) too.
    let (one, two) = (
        RedisTaskStore::new(&redis.url(), 100)
            .unwrap()
            .prefix("quota"),
        RedisTaskStore::new(&redis.url(), 100)
            .unwrap()
            .prefix("quota"),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let held = |id: &str, created: u64| {
        TaskRecord::new(id.to_owned(), None, created, Some(60_000), None)
            .held_by(Some("alice".into()))
    };
    one.create(held("q1", now), 2).await.unwrap();
    two.create(held("q2", now), 2).await.unwrap();
    assert_eq!(
        one.create(held("q3", now), 2).await,
        Err(TaskStoreError::HolderFull { max: 2 })
    );
    assert!(two.remove("q1").await.unwrap());
    one.create(held("q3", now), 2).await.unwrap();
    let expired = RedisTaskStore::new(&redis.url(), 100)
        .unwrap()
        .prefix("quota-expiry");
    expired.create(held("e1", now - 60_000), 1).await.unwrap();
    assert_eq!(
        expired.create(held("e2", now), 1).await,
        Err(TaskStoreError::HolderFull { max: 1 }),
        "an expired record counts until it is removed"
    );
    expired.create(held("e3", now - 700_000), 2).await.unwrap();
    expired
        .create(held("e4", now), 2)
        .await
        .expect("a record Redis dropped on its own no longer counts");
    // Without Redis an operation fails at once, and works again when it is back.
    let mut redis = redis;
    redis.stop().await;
    let failed = tokio::time::timeout(Duration::from_secs(5), one.get("t1")).await;
    assert!(
        matches!(failed, Ok(Err(TaskStoreError::Backend(_)))),
        "{failed:?}"
    );
    redis.restart().await;
    assert_eq!(
        one.get("t1").await,
        Ok(None),
        "a restarted Redis without persistence is empty"
    );
    one.create(record("t4"), 10).await.unwrap();
}

/// Replicas of a server with a quota of 3 tasks per caller, sharing a Redis store.
async fn quota_replica(redis: &Redis) -> Running {
    let server = Server::builder()
        .name("replicated")
        .tools(tools![slow_sum])
        .tasks(mcp_framework::TaskConfig::default().max_tasks_per_owner(3))
        .task_store(RedisTaskStore::new(&redis.url(), 100).unwrap())
        .event_bus(RedisEventBus::connect(redis.url()).unwrap())
        .build()
        .unwrap();
    start(server).await
}

#[tokio::test]
async fn a_callers_task_quota_holds_across_replicas_sharing_a_store() {
    let redis = Redis::start().await;
    let (a, b) = (quota_replica(&redis).await, quota_replica(&redis).await);
    let call = with_tasks(
        1,
        "tools/call",
        json!({"name": "slow_sum", "arguments": {"a": 1, "b": 2, "millis": 0}}),
    );
    // One client (one address), spreading its calls over both replicas.
    for replica in [&a, &b, &a] {
        let (status, created) = json_of(post(replica, &call).send().await.unwrap()).await;
        assert_eq!(status, 200, "{created}");
        assert_eq!(created["result"]["resultType"], "task", "{created}");
    }
    for replica in [&a, &b] {
        let (status, answer) = json_of(post(replica, &call).send().await.unwrap()).await;
        assert_eq!(status, 200, "an optional task runs inline: {answer}");
        assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
        assert_eq!(answer["result"]["structuredContent"]["result"], 3);
    }
}

/// Works for `millis` milliseconds, then answers.
#[tool(task, register = false)]
async fn slow_sum(a: i64, b: i64, millis: u64) -> i64 {
    tokio::time::sleep(Duration::from_millis(millis.min(5_000))).await;
    a + b
}

/// Set when `wait_for_cancel`'s handler saw its cancellation.
static CANCELLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Waits until cancelled (at most 30 s).
#[tool(task, register = false)]
async fn wait_for_cancel(ctx: mcp_framework::Context) -> String {
    tokio::select! {
        () = ctx.cancelled() => {
            CANCELLED.store(true, std::sync::atomic::Ordering::SeqCst);
            "cancelled".into()
        }
        () = tokio::time::sleep(Duration::from_secs(30)) => "not cancelled".into(),
    }
}

/// A yes or no.
#[derive(serde::Deserialize, schemars::JsonSchema, mcp_framework::Form)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks whether to go on, then says what it was told.
#[tool(task, register = false)]
async fn ask_first(ctx: mcp_framework::Context) -> Result<String, mcp_framework::ToolError> {
    let answer = ctx.elicit::<Confirm>("Go on?").await?;
    Ok(match answer {
        mcp_framework::Elicitation::Accept(Confirm { confirm: true }) => "went on".into(),
        _ => "stopped".into(),
    })
}

async fn task_replica(redis: &Redis) -> Running {
    let server = Server::builder()
        .name("replicated")
        .tools(tools![slow_sum, wait_for_cancel, ask_first])
        .tasks(mcp_framework::TaskConfig::default().lease(Duration::from_millis(600)))
        .task_store(RedisTaskStore::new(&redis.url(), 100).unwrap())
        .event_bus(RedisEventBus::connect(redis.url()).unwrap())
        .build()
        .unwrap();
    start(server).await
}

fn with_tasks(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "elicitation": {"form": {}}
        }
    });
    request(id, method, params)
}

/// Polls `tasks/get` on `r` until the task's status is `status`, at most 5 s.
async fn until_status(r: &Running, id: &str, status: &str) -> Value {
    let get = with_tasks(2, "tasks/get", json!({"taskId": id}));
    let mut last = Value::Null;
    for _ in 0..100 {
        let (_, answer) = json_of(post(r, &get).send().await.unwrap()).await;
        if answer["result"]["status"] == status {
            return answer["result"].clone();
        }
        last = answer;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the task never became {status}: {last}");
}

async fn create_task(r: &Running, tool: &str) -> String {
    let call = with_tasks(1, "tools/call", json!({"name": tool, "arguments": {}}));
    let (_, created) = json_of(post(r, &call).send().await.unwrap()).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn another_replica_answers_and_cancels_a_task_and_a_dead_runner_fails_it() {
    let redis = Redis::start().await;
    let (a, b, c) = (
        task_replica(&redis).await,
        task_replica(&redis).await,
        task_replica(&redis).await,
    );

    // A question asked by A's task, seen and answered on B; a listener on C hears of it.
    let id = create_task(&a, "ask_first").await;
    let mut on_c = Listener::open_request(
        &c,
        &with_tasks(
            9,
            "subscriptions/listen",
            json!({"notifications": {"taskIds": [id]}}),
        ),
    )
    .await;
    let waiting = until_status(&b, &id, "input_required").await;
    let key = first_input_key(&waiting);
    let update = with_tasks(
        3,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {key: {"action": "accept", "content": {"confirm": true}}}}),
    );
    let (_, ack) = json_of(post(&b, &update).send().await.unwrap()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = until_status(&c, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "went on", "{done}");
    let mut statuses = Vec::new();
    while let Some(m) = on_c.next(Duration::from_millis(500)).await {
        assert_eq!(m["method"], "notifications/tasks", "{m}");
        statuses.push(m["params"]["status"].as_str().unwrap().to_owned());
    }
    assert!(
        statuses.contains(&"input_required".to_owned()) && statuses.last().unwrap() == "completed",
        "C's listener heard the task A ran: {statuses:?}"
    );

    // A's task, cancelled from C: A's handler stops, and every replica says cancelled.
    let id = create_task(&a, "wait_for_cancel").await;
    until_status(&b, &id, "working").await;
    let cancel = with_tasks(4, "tasks/cancel", json!({"taskId": id}));
    let (_, ack) = json_of(post(&c, &cancel).send().await.unwrap()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    until_status(&b, &id, "cancelled").await;
    for _ in 0..100 {
        if CANCELLED.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        CANCELLED.load(std::sync::atomic::Ordering::SeqCst),
        "the handler on A saw the cancellation made on C"
    );

    // A task whose runner died (its lease ran out, nobody finished it) fails; it does not
    // stay `working` until its TTL.
    use mcp_framework::tasks::{TaskRecord, TaskStore};
    let store = RedisTaskStore::new(&redis.url(), 100).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let mut orphan = TaskRecord::new("f".repeat(32), None, now, Some(60_000), Some(500));
    orphan.lease_until_ms = Some(now - 1);
    store.create(orphan, 1).await.unwrap();
    let failed = until_status(&b, &"f".repeat(32), "failed").await;
    assert!(
        failed["statusMessage"]
            .as_str()
            .unwrap()
            .contains("stopped before it finished"),
        "{failed}"
    );
    // A live task's lease is renewed: after several leases it is still working.
    let id = create_task(&a, "wait_for_cancel").await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    until_status(&c, &id, "working").await;
}

#[tokio::test]
async fn a_task_created_on_one_replica_is_polled_on_the_others_and_outlives_it() {
    let redis = Redis::start().await;
    let (a, b, c) = (
        task_replica(&redis).await,
        task_replica(&redis).await,
        task_replica(&redis).await,
    );
    let call = with_tasks(
        1,
        "tools/call",
        json!({"name": "slow_sum", "arguments": {"a": 2, "b": 3, "millis": 300}}),
    );
    let (_, created) = json_of(post(&a, &call).send().await.unwrap()).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let get = with_tasks(2, "tasks/get", json!({"taskId": id}));
    let (_, on_b) = json_of(post(&b, &get).send().await.unwrap()).await;
    assert_eq!(on_b["result"]["status"], "working", "{on_b}");

    let mut done = Value::Null;
    for _ in 0..100 {
        let (_, on_c) = json_of(post(&c, &get).send().await.unwrap()).await;
        if on_c["result"]["status"] == "completed" {
            done = on_c;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["structuredContent"]["result"], 5,
        "{done}"
    );

    // The replica that ran it goes away; the others still answer for the task.
    a.server.handle().shutdown();
    drop(a);
    let (_, after) = json_of(post(&b, &get).send().await.unwrap()).await;
    assert_eq!(after["result"]["status"], "completed", "{after}");

    // A task of another principal's, or one that never existed, is not found anywhere.
    let unknown = with_tasks(3, "tasks/get", json!({"taskId": "0".repeat(32)}));
    let (_, missing) = json_of(post(&c, &unknown).send().await.unwrap()).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
}

/// A build finished (the shared event type).
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Built {
    n: u32,
    ok: bool,
}

/// Which builds a subscription hears about.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Outcome {
    ok: Option<bool>,
}

/// A replica whose `build.finished` occurrences are kept in `redis`, with its emitter.
async fn events_replica(redis: &Redis) -> (Running, Emitter) {
    let events = Events::new()
        .redis(redis.url())
        .heartbeat(Duration::from_millis(100))
        .event(
            EventType::new::<Built>("build.finished")
                .arguments(|b: &Built, wanted: &Outcome| wanted.ok.is_none_or(|ok| ok == b.ok))
                .retain(4, 1 << 20),
        );
    let emitter = events.emitter();
    let server = Server::builder()
        .name("replicated")
        .tools(tools![hello])
        .extension(events)
        .build()
        .unwrap();
    (start(server).await, emitter)
}

/// `events/poll` of `build.finished` from `cursor` with `arguments`: its result.
async fn poll(r: &Running, cursor: Option<&Value>, arguments: Value) -> Value {
    let mut params = json!({"name": "build.finished", "arguments": arguments});
    if let Some(cursor) = cursor {
        params["cursor"] = cursor.clone();
    }
    let (status, body) = json_of(
        post(r, &request(3, "events/poll", params))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["result"].clone()
}

/// Polls until the poll from `cursor` returns `count` occurrences (they reach a replica
/// through Redis).
async fn poll_until(r: &Running, cursor: &Value, arguments: Value, count: usize) -> Value {
    for _ in 0..100 {
        let polled = poll(r, Some(cursor), arguments.clone()).await;
        if polled["events"].as_array().unwrap().len() >= count {
            return polled;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{count} occurrences never arrived");
}

fn field(polled: &Value, name: &str) -> Vec<Value> {
    polled["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e[name].clone())
        .collect()
}

#[tokio::test]
async fn occurrences_emitted_on_one_replica_are_polled_and_streamed_on_another() {
    let redis = Redis::start().await;
    let (a, on_a) = events_replica(&redis).await;
    let (b, _) = events_replica(&redis).await;

    // "Now" is the same position on both: cursors are the replicas' common currency.
    let start_b = poll(&b, None, json!({})).await["cursor"].clone();
    let start_a = poll(&a, None, json!({})).await["cursor"].clone();
    assert_eq!(start_a, start_b);

    let ids: Vec<String> = [(1, true), (2, false), (3, true)]
        .into_iter()
        .map(|(n, ok)| on_a.emit(Built { n, ok }).unwrap())
        .collect();
    // B polls them (its filter passes the two that succeeded), with A's ids, in order.
    let polled = poll_until(&b, &start_b, json!({"ok": true}), 2).await;
    assert_eq!(
        field(&polled, "data"),
        [json!({"n": 1, "ok": true}), json!({"n": 3, "ok": true})]
    );
    assert_eq!(field(&polled, "eventId"), [json!(ids[0]), json!(ids[2])]);
    assert_eq!(polled["truncated"], false, "{polled}");
    let after_three = polled["cursor"].clone();
    // B's cursor means the same on A: nothing new there, nothing missed.
    poll_until(&a, &start_a, json!({}), 3).await;
    let on_a_too = poll(&a, Some(&after_three), json!({})).await;
    assert_eq!(on_a_too["events"], json!([]), "{on_a_too}");
    assert_eq!(on_a_too["truncated"], false);
    assert_eq!(on_a_too["cursor"], after_three);

    // A stream on B hears of what is emitted on A.
    let resp = post(
        &b,
        &request(
            9,
            "events/stream",
            json!({"name": "build.finished", "cursor": after_three, "arguments": {"ok": true}}),
        ),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    let mut stream = Listener::follow(resp);
    let active = stream.next(Duration::from_secs(5)).await.expect("active");
    assert_eq!(active["method"], "notifications/events/active", "{active}");
    assert_eq!(active["params"]["truncated"], false, "{active}");
    let fourth = on_a.emit(Built { n: 4, ok: true }).unwrap();
    let event = loop {
        let m = stream
            .next(Duration::from_secs(5))
            .await
            .expect("the event");
        if m["method"] == "notifications/events/event" {
            break m;
        }
        assert_eq!(m["method"], "notifications/events/heartbeat", "{m}");
    };
    assert_eq!(event["params"]["eventId"], fourth);
    assert_eq!(event["params"]["data"]["n"], 4);
    let after_four = event["params"]["cursor"].clone();

    // A replica started now (as after a restart) loads what Redis keeps: the cursor given
    // before it existed is good there, and the ones before what is kept say so.
    let (c, _) = events_replica(&redis).await;
    let fifth = on_a.emit(Built { n: 5, ok: true }).unwrap();
    let resumed = poll_until(&c, &after_four, json!({}), 1).await;
    assert_eq!(field(&resumed, "eventId"), [json!(fifth)]);
    assert_eq!(resumed["truncated"], false, "{resumed}");
    // Five were emitted and four are kept: from the start, the first is missed.
    let from_start = poll_until(&c, &start_a, json!({}), 4).await;
    assert_eq!(field(&from_start, "data")[0]["n"], 2, "{from_start}");
    assert_eq!(from_start["truncated"], true, "{from_start}");
    let from_start_on_b = poll_until(&b, &start_b, json!({}), 4).await;
    assert_eq!(from_start_on_b["truncated"], true, "{from_start_on_b}");
}

#[tokio::test]
async fn the_command_line_of_run_shares_occurrences_with_redis_url() {
    let redis = Redis::start().await;
    let (_a_process, a) = everything_replica(&redis).await;
    let (_b_process, b) = everything_replica(&redis).await;
    let alerts = |cursor: Option<&Value>| {
        let mut params = json!({"name": "alert.raised"});
        if let Some(cursor) = cursor {
            params["cursor"] = cursor.clone();
        }
        request(4, "events/poll", params)
    };
    let (_, first) = json_of(post(&b, &alerts(None)).send().await.unwrap()).await;
    let cursor = first["result"]["cursor"].clone();
    let raise = request(
        5,
        "tools/call",
        json!({"name": "raise_alert", "arguments": {"level": "info", "message": "from A"}}),
    );
    let (_, raised) = json_of(post(&a, &raise).send().await.unwrap()).await;
    assert_eq!(raised["result"]["isError"], Value::Null, "{raised}");
    for attempt in 0.. {
        assert!(attempt < 100, "the alert raised on A never reached B");
        let (_, polled) = json_of(post(&b, &alerts(Some(&cursor))).send().await.unwrap()).await;
        if let Some(event) = polled["result"]["events"].get(0) {
            assert_eq!(event["data"]["message"], "from A", "{polled}");
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A replica whose event types are all added while it serves: its handles.
async fn plugin_replica(redis: &Redis) -> (Running, Emitter, mcp_framework::events::EventTypes) {
    let events = Events::new().redis(redis.url());
    let (emitter, types) = (events.emitter(), events.event_types());
    let server = Server::builder()
        .name("plugins")
        .tools(tools![hello])
        .extension(events)
        .build()
        .unwrap();
    (start(server).await, emitter, types)
}

/// `events/poll` of `name` from `cursor`, until it returns `count` occurrences.
async fn poll_named(r: &Running, name: &str, cursor: Option<&Value>, count: usize) -> Value {
    let mut params = json!({"name": name});
    if let Some(cursor) = cursor {
        params["cursor"] = cursor.clone();
    }
    for _ in 0..100 {
        let (status, body) = json_of(
            post(r, &request(3, "events/poll", params.clone()))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        if body["result"]["events"].as_array().unwrap().len() >= count {
            return body["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{count} occurrences of {name} never arrived");
}

#[tokio::test]
async fn types_added_while_serving_share_their_occurrences_too() {
    let redis = Redis::start().await;
    let (a, on_a, types_a) = plugin_replica(&redis).await;
    let (b, _, types_b) = plugin_replica(&redis).await;
    let plugin = || EventType::new::<Built>("plugin.built").retain(4, 1 << 20);
    // The plugin is loaded on both replicas, while they serve.
    types_a.add(plugin()).unwrap();
    types_b.add(plugin()).unwrap();
    let start = poll_named(&b, "plugin.built", None, 0).await["cursor"].clone();
    assert_eq!(
        start,
        poll_named(&a, "plugin.built", None, 0).await["cursor"],
        "one log, one cursor"
    );
    let ids: Vec<String> = (1..=2)
        .map(|n| on_a.emit(Built { n, ok: true }).unwrap())
        .collect();
    let polled = poll_named(&b, "plugin.built", Some(&start), 2).await;
    assert_eq!(field(&polled, "eventId"), [json!(ids[0]), json!(ids[1])]);
    assert_eq!(polled["truncated"], false, "{polled}");
    // Unloaded and loaded again on B: it takes its log up again (what Redis keeps), so
    // the old cursor is still good there.
    assert!(types_b.remove("plugin.built"));
    types_b.add(plugin()).unwrap();
    let again = poll_named(&b, "plugin.built", Some(&start), 2).await;
    assert_eq!(field(&again, "eventId"), [json!(ids[0]), json!(ids[1])]);
    assert_eq!(again["truncated"], false, "{again}");
    // A replica that starts later and adds the type loads what Redis kept of it.
    let (c, _, types_c) = plugin_replica(&redis).await;
    types_c.add(plugin()).unwrap();
    let loaded = poll_named(&c, "plugin.built", Some(&start), 2).await;
    assert_eq!(field(&loaded, "eventId"), [json!(ids[0]), json!(ids[1])]);
}
