//! Graceful shutdown of a server run by `ServerBuilder::run`, over the built `everything`
//! binary: SIGINT/SIGTERM stop taking requests and let running ones finish for the grace
//! period (`--shutdown-grace`), then cut them (the client gets an error, the process exits
//! 0); a second SIGINT exits at once (130); the end of stdin is a shutdown too.

use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tests::wire;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// `everything stdio --shutdown-grace <grace>`, its stdin and its stdout's lines.
fn stdio(grace: &str) -> (Child, ChildStdin, Lines<BufReader<ChildStdout>>) {
    let mut child = Command::new(tests::example_binary("everything"))
        .args(["stdio", "--shutdown-grace", grace])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn everything");
    let stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, stdin, out)
}

/// `count_slowly` to `n`, a step every 100 ms, reporting progress.
fn count(n: u32) -> Value {
    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
        "name":"count_slowly","arguments":{"n":n,"delay_ms":100},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
                 "io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}})
}

async fn send(stdin: &mut ChildStdin, message: &Value) {
    stdin
        .write_all(format!("{message}\n").as_bytes())
        .await
        .unwrap();
    stdin.flush().await.unwrap();
}

/// The next message that is not a notification.
async fn answer(out: &mut Lines<BufReader<ChildStdout>>) -> Value {
    loop {
        let line = tokio::time::timeout(Duration::from_secs(10), out.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("an answer before the end");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message.get("id").is_some() {
            return message;
        }
    }
}

/// Waits for the first progress notification: the call is running.
async fn running(out: &mut Lines<BufReader<ChildStdout>>) {
    let line = out.next_line().await.unwrap().unwrap();
    assert!(line.contains("notifications/progress"), "{line}");
}

fn signal(child: &Child, name: &str) {
    let pid = child.id().expect("running").to_string();
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid])
        .status()
        .unwrap();
    assert!(status.success());
}

async fn exit(child: &mut Child) -> ExitStatus {
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the server exits")
        .unwrap()
}

/// The cut request's error: the server shut down before it finished.
fn assert_cut(answer: &Value) {
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("shut down"),
        "{answer}"
    );
}

#[tokio::test]
async fn sigint_lets_a_call_finish_within_the_grace() {
    let (mut child, mut stdin, mut out) = stdio("10s");
    send(&mut stdin, &count(4)).await;
    running(&mut out).await;
    signal(&child, "INT");
    let a = answer(&mut out).await;
    assert_eq!(a["result"]["content"][0]["text"], "counted 4", "{a}");
    assert_eq!(exit(&mut child).await.code(), Some(0));
}

#[tokio::test]
async fn sigint_cuts_what_runs_past_the_grace_and_exits_0() {
    let (mut child, mut stdin, mut out) = stdio("1s");
    send(&mut stdin, &count(600)).await;
    running(&mut out).await;
    let started = Instant::now();
    signal(&child, "INT");
    assert_cut(&answer(&mut out).await);
    assert_eq!(exit(&mut child).await.code(), Some(0));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(4),
        "{took:?}"
    );
}

#[tokio::test]
async fn a_second_sigint_exits_at_once_with_130() {
    let (mut child, mut stdin, mut out) = stdio("30s");
    send(&mut stdin, &count(600)).await;
    running(&mut out).await;
    let started = Instant::now();
    signal(&child, "INT");
    // The first one is being handled when the server says so on its stream: it stops
    // reading, so wait for a moment of progress instead (bounded).
    running(&mut out).await;
    signal(&child, "INT");
    assert_eq!(exit(&mut child).await.code(), Some(130));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_end_of_stdin_is_a_shutdown() {
    let (mut child, mut stdin, mut out) = stdio("1s");
    send(&mut stdin, &count(600)).await;
    running(&mut out).await;
    drop(stdin);
    assert_cut(&answer(&mut out).await);
    assert_eq!(exit(&mut child).await.code(), Some(0));
}

/// Over HTTP: SIGTERM stops taking connections, and the running call is answered with
/// the shutdown's error once the grace is over (on its SSE stream: it reported progress).
#[tokio::test]
async fn sigterm_over_http_cuts_the_running_call() {
    let (mut child, server) = tests::everything(&["--shutdown-grace", "1s"]).await;
    let response = wire::post(&server, &count(600)).send().await.unwrap();
    // The stream starts with the first progress notification: the call is running.
    assert_eq!(response.status(), 200);
    let started = Instant::now();
    signal(&child, "TERM");
    let body = tokio::time::timeout(Duration::from_secs(10), response.text())
        .await
        .expect("answered in time")
        .unwrap();
    let last = body
        .lines()
        .rev()
        .filter_map(|l| l.strip_prefix("data:"))
        .find_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .expect("events");
    assert_cut(&last);
    assert_eq!(exit(&mut child).await.code(), Some(0));
    assert!(started.elapsed() < Duration::from_secs(4));
}

/// Ctrl-C pressed in a real terminal (a tmux pane): the server says it is shutting down and
/// exits 0 (nothing was running).
#[test]
fn ctrl_c_in_a_terminal() {
    let tmux = tests::installed_binary("tmux", "tmux");
    let session = format!("mcp-shutdown-{}", std::process::id());
    let port = tests::free_port();
    let server = format!(
        "NO_COLOR=1 {} http --bind 127.0.0.1:{port}; echo EXIT=$?; sleep 60",
        tests::example_binary("everything").display()
    );
    let tmux_do = |args: &[&str]| {
        std::process::Command::new(&tmux)
            .args(args)
            .output()
            .expect("tmux runs")
    };
    let pane = || text_of(&tmux_do(&["capture-pane", "-p", "-t", &session]).stdout);
    let wait_for = |says: &str| {
        for _ in 0..200 {
            if pane().contains(says) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the pane never said {says:?}:\n{}", pane());
    };
    let started = tmux_do(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "250",
        "-y",
        "50",
        &server,
    ]);
    assert!(started.status.success(), "{started:?}");
    // The session is ended however the test ends.
    struct Ends(std::path::PathBuf, String);
    impl Drop for Ends {
        fn drop(&mut self) {
            let _ = std::process::Command::new(&self.0)
                .args(["kill-session", "-t", &self.1])
                .output();
        }
    }
    let _ends = Ends(tmux.clone(), session.clone());
    wait_for("serving Streamable HTTP");
    tmux_do(&["send-keys", "-t", &session, "C-c"]);
    wait_for("EXIT=");
    let seen = pane();
    assert!(seen.contains("SIGINT: shutting down"), "{seen}");
    assert!(seen.contains("EXIT=0"), "{seen}");
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
