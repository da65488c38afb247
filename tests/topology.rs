//! The scale-out topology, all real and on 127.0.0.1: Debian's `redis-server`, three
//! `everything` processes configured by their command line only (`--redis-url`,
//! `--state-key-file`), and Debian's HAProxy in front of them — round-robin for modern
//! requests, sticky on `Mcp-Session-Id` for legacy sessions, retrying a request whose
//! replica is gone on another. Each process is started by this test and stopped by its id.
//!
//! What crosses replicas is checked where it crosses: change events (a listener on one
//! replica hears a change made through another), the `requestState` key (a question asked
//! by one replica is answered through the balancer), tasks (created on one, polled on the
//! others, cancelled from another), a replica killed under load (every request still gets
//! its answer, the dead replica's task fails instead of hanging), and Redis restarted under
//! the listeners (they resync; requests never wait for it).

use std::time::Duration;

use serde_json::{Value, json};
use tests::everything;
use tests::redis::Redis;
use tests::wire::{Listener, Running, first_input_key, json_of, post, request};
use tokio::process::{Child, Command};

fn port_of(r: &Running) -> u16 {
    r.url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap()
}

/// HAProxy in front of `replicas`, on a free port: round-robin per request, sticky on the
/// legacy session header, retries on another replica when one refuses connections.
async fn haproxy(dir: &std::path::Path, replicas: &[&Running]) -> (Child, Running) {
    let port = tests::free_port();
    let servers: String = replicas
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(
                "    server r{i} 127.0.0.1:{} check inter 200ms fall 1 rise 2\n",
                port_of(r)
            )
        })
        .collect();
    let config = format!(
        "global\n    maxconn 4096\n\
         defaults\n    mode http\n    timeout connect 1s\n    timeout client 60s\n\
         \x20   timeout server 60s\n    option redispatch\n    retries 3\n\
         \x20   retry-on conn-failure empty-response\n\
         frontend mcp\n    bind 127.0.0.1:{port}\n    default_backend replicas\n\
         backend replicas\n    balance roundrobin\n\
         \x20   stick-table type string len 64 size 100k expire 30m\n\
         \x20   stick on req.hdr(mcp-session-id)\n\
         \x20   stick store-response res.hdr(mcp-session-id)\n\
         {servers}"
    );
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config).unwrap();
    let check = std::process::Command::new(tests::installed_binary("haproxy", "haproxy"))
        .args(["-c", "-q", "-f"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "haproxy -c: {}",
        String::from_utf8_lossy(&check.stderr)
    );
    let child = Command::new(tests::installed_binary("haproxy", "haproxy"))
        .arg("-f")
        .arg(&path)
        .arg("-db") // foreground
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn haproxy");
    let lb = Running::remote(format!("http://127.0.0.1:{port}/mcp"));
    for _ in 0..100 {
        if lb.http.get(&lb.url).send().await.is_ok() {
            return (child, lb);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("haproxy did not come up on port {port}");
}

fn caps() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}},
            "elicitation": {"form": {}}
        }
    })
}

fn call(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = caps();
    request(id, method, params)
}

/// The same without the Tasks extension: a task-capable tool runs inline (its questions
/// are multi round-trip rounds).
fn call_inline(id: u64, method: &str, params: Value) -> Value {
    let mut body = call(id, method, params);
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        .as_object_mut()
        .unwrap()
        .remove("extensions");
    body
}

async fn answer(r: &Running, body: &Value) -> Value {
    let (status, body) = json_of(post(r, body).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// Polls `tasks/get` on `r` until the task is `status`, at most `wait`.
async fn until_status(r: &Running, id: &str, status: &str, wait: Duration) -> Value {
    let get = call(2, "tasks/get", json!({"taskId": id}));
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let body = answer(r, &get).await;
        if body["result"]["status"] == status {
            return body["result"].clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task never became {status}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn create_task(r: &Running, seconds: u64) -> String {
    let body = answer(
        r,
        &call(
            1,
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": seconds}}),
        ),
    )
    .await;
    assert_eq!(body["result"]["resultType"], "task", "{body}");
    body["result"]["taskId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn three_replicas_behind_haproxy_share_events_state_and_tasks() {
    let dir = tests::temp_dir("topology");
    let keys = dir.join("state.keys");
    tests::write_private(
        &keys,
        "topology 0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000\n",
    );
    let mut redis = Redis::start().await;
    let url = redis.url();
    let options = [
        "--redis-url",
        &url,
        "--state-key-file",
        keys.to_str().unwrap(),
    ];
    let (_p1, r1) = everything(&options).await;
    let (_p2, r2) = everything(&options).await;
    let (mut p3, r3) = everything(&options).await;
    let (_lb_process, lb) = haproxy(&dir, &[&r1, &r2, &r3]).await;

    // --- change events: a listener on replica 1 hears changes made through replica 2.
    let mut on_1 = Listener::open(
        &r1,
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]}),
    )
    .await;
    let touch = call(
        3,
        "tools/call",
        json!({"name": "touch_watched_resource", "arguments": {}}),
    );
    let mut heard = false;
    for _ in 0..50 {
        answer(&r2, &touch).await;
        if let Some(m) = on_1.next(Duration::from_millis(200)).await {
            assert_eq!(m["method"], "notifications/resources/updated", "{m}");
            heard = true;
            break;
        }
    }
    assert!(
        heard,
        "an update made on replica 2 reached replica 1's listener"
    );
    on_1.drain(Duration::from_millis(300)).await;
    let toggle = call(
        4,
        "tools/call",
        json!({"name": "toggle_extra_tool", "arguments": {}}),
    );
    answer(&r2, &toggle).await;
    assert_eq!(
        on_1.next_method(Duration::from_secs(5)).await.as_deref(),
        Some("notifications/tools/list_changed")
    );

    // --- the shared requestState key: a question asked and answered through the balancer
    // (round-robin: the retry goes to the next replica), and explicitly from 1 to 3.
    for (asker, answerer) in [(&lb, &lb), (&r1, &r3)] {
        let ask = call_inline(
            5,
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"filename": "x.txt"}}),
        );
        let first = answer(asker, &ask).await;
        assert_eq!(first["result"]["resultType"], "input_required", "{first}");
        let key = first_input_key(&first["result"]);
        let mut retry = ask.clone();
        retry["params"]["requestState"] = first["result"]["requestState"].clone();
        retry["params"]["inputResponses"] =
            json!({key: {"action": "accept", "content": {"confirm": true}}});
        let done = answer(answerer, &retry).await;
        assert_eq!(
            done["result"]["content"][0]["text"], "Deleted x.txt",
            "{done}"
        );
    }

    // --- legacy sessions stick to the replica that opened them.
    let session = tests::wire::legacy_session(&lb, "2025-11-25").await;
    for id in 2..8 {
        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        let resp = tests::wire::legacy_post(&lb, &session, &ping)
            .send()
            .await
            .unwrap();
        assert_eq!(
            resp.status(),
            200,
            "request {id} of the session found its replica"
        );
    }

    // --- tasks: created on replica 1, polled on 2 and 3, finished; another cancelled
    // from replica 3.
    let id = create_task(&r1, 1).await;
    until_status(&r2, &id, "working", Duration::from_secs(5)).await;
    let done = until_status(&r3, &id, "completed", Duration::from_secs(10)).await;
    assert!(
        done["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("done after 1 s"),
        "{done}"
    );
    let id = create_task(&r1, 60).await;
    until_status(&r2, &id, "working", Duration::from_secs(5)).await;
    answer(&r3, &call(6, "tasks/cancel", json!({"taskId": id}))).await;
    until_status(&lb, &id, "cancelled", Duration::from_secs(5)).await;

    // --- replica 3 is killed under load: every request, retried by its client as clients
    // do, gets its answer from the others, and the task replica 3 ran fails (after its
    // lease) instead of staying `working`.
    let orphan = create_task(&r3, 600).await;
    let load = tokio::spawn({
        let lb = Running::remote(lb.url.clone());
        async move {
            let mut answered = 0;
            for i in 0..300u64 {
                let body = call(
                    100 + i,
                    "tools/call",
                    json!({"name": "test_simple_text", "arguments": {}}),
                );
                let mut ok = false;
                for _attempt in 0..5 {
                    if let Ok(resp) = post(&lb, &body).send().await
                        && resp.status() == 200
                    {
                        let (_, body) = json_of(resp).await;
                        ok = body["result"].is_object();
                        if ok {
                            break;
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                assert!(ok, "request {i} got no answer in 5 attempts");
                answered += 1;
            }
            answered
        }
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    p3.start_kill().unwrap();
    p3.wait().await.unwrap();
    let answered = tokio::time::timeout(Duration::from_secs(60), load)
        .await
        .expect("the load finished")
        .unwrap();
    assert_eq!(answered, 300);
    let failed = until_status(&lb, &orphan, "failed", Duration::from_secs(20)).await;
    assert!(
        failed["statusMessage"]
            .as_str()
            .unwrap()
            .contains("stopped before it finished"),
        "{failed}"
    );

    // --- Redis restarts under the listeners: requests are answered meanwhile, the
    // listener resyncs when it is back, and remote changes flow again.
    on_1.drain(Duration::from_millis(300)).await;
    redis.stop().await;
    let list = call(7, "tools/list", json!({}));
    let served = tokio::time::timeout(Duration::from_secs(3), answer(&lb, &list)).await;
    assert!(served.is_ok(), "tools/list waited for Redis");
    redis.restart().await;
    assert_eq!(
        on_1.next_method(Duration::from_secs(20)).await.as_deref(),
        Some("notifications/tools/list_changed"),
        "a resync after Redis came back"
    );
    on_1.drain(Duration::from_millis(300)).await;
    let mut heard = false;
    for _ in 0..50 {
        answer(&r2, &touch).await;
        if on_1.next(Duration::from_millis(200)).await.is_some() {
            heard = true;
            break;
        }
    }
    assert!(heard, "changes flow again after the restart");
    let _ = std::fs::remove_dir_all(&dir);
}
