//! The HTTP server's timeouts and limits, over raw TCP to a real server on 127.0.0.1: a
//! trickled request head is cut off, a stalled body gets `408`, an idle connection is closed,
//! connections beyond the limit wait for a free one, and the body budget refuses with `503`
//! and recovers. Timeouts are short (hundreds of milliseconds) and the bounds generous: these
//! check behaviour, not timing.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mcp_framework::{HttpConfig, Server};
use serde_json::{Value, json};
use tests::fixture::{builder, server_with};
use tests::wire::request;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// How long anything that should happen may take, on a loaded machine.
const PATIENCE: Duration = Duration::from_secs(5);

async fn start(config: HttpConfig) -> (SocketAddr, Server) {
    let server = server_with(|b| b.http(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });
    (addr, server)
}

/// A `tools/list` request, its body padded with `pad` spaces.
fn tools_list(pad: usize) -> String {
    let body = request(1, "tools/list", json!({}));
    format!("{body}{}", " ".repeat(pad))
}

/// The head of a POST of `tools/list` announcing `length` body bytes (`None`: chunked).
fn head(length: Option<usize>) -> String {
    let framing = match length {
        Some(n) => format!("Content-Length: {n}"),
        None => "Transfer-Encoding: chunked".to_owned(),
    };
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list\r\n{framing}\r\n\r\n"
    )
}

/// A whole `tools/list` request, its body padded with `pad` spaces.
fn whole(pad: usize) -> String {
    let body = tools_list(pad);
    format!("{}{body}", head(Some(body.len())))
}

/// A response: its status, headers (names lowercased) and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads one response with a `Content-Length` body.
async fn answer(stream: &mut TcpStream) -> Answer {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut byte))
            .await
            .expect("an answer in time")
            .unwrap();
        assert_eq!(n, 1, "the connection closed before an answer: {buf:?}");
        buf.push(byte[0]);
    }
    let text = String::from_utf8(buf).unwrap();
    let mut lines = text.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0u8; length];
    tokio::time::timeout(PATIENCE, stream.read_exact(&mut body))
        .await
        .expect("the body in time")
        .unwrap();
    Answer {
        status: status.parse().unwrap(),
        headers,
        body: serde_json::from_slice(&body).unwrap(),
    }
}

/// Waits until the server closes `stream` (EOF or reset), sending `trickle` one byte every
/// 100 ms meanwhile; how long that took.
async fn closed(stream: &mut TcpStream, trickle: bool) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 1024];
    let waiting = async {
        loop {
            tokio::select! {
                n = stream.read(&mut buf) => match n {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                },
                () = tokio::time::sleep(Duration::from_millis(100)), if trickle => {
                    if stream.write_all(b"a").await.is_err() {
                        return;
                    }
                }
            }
        }
    };
    tokio::time::timeout(PATIENCE, waiting)
        .await
        .expect("the server closes the connection");
    start.elapsed()
}

/// Whether `stream` stays open (no answer, no EOF) for `d`.
async fn stays_open(stream: &mut TcpStream, d: Duration) -> bool {
    let mut buf = [0u8; 1];
    tokio::time::timeout(d, stream.read(&mut buf))
        .await
        .is_err()
}

#[tokio::test]
async fn a_trickled_request_head_is_cut_off() {
    let config = HttpConfig::new().header_read_timeout(Duration::from_millis(500));
    let (addr, _server) = start(config).await;

    // A new connection: one header byte every 100 ms does not keep it open.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let took = closed(&mut slow, true).await;
    assert!(took >= Duration::from_millis(300), "closed early: {took:?}");

    // Nor after a first request on the same connection: the timeout counts from the first
    // byte of the next head, not from the last byte received.
    let mut kept = TcpStream::connect(addr).await.unwrap();
    kept.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut kept).await.status, 200);
    tokio::time::sleep(Duration::from_millis(700)).await; // idle: longer than the header timeout
    kept.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let took = closed(&mut kept, true).await;
    assert!(took >= Duration::from_millis(300), "closed early: {took:?}");

    // A connection that never sends anything is closed too.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    closed(&mut silent, false).await;

    // And the server goes on serving.
    let mut fine = TcpStream::connect(addr).await.unwrap();
    fine.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut fine).await.status, 200);
}

#[tokio::test]
async fn a_stalled_body_gets_408() {
    let config = HttpConfig::new().body_read_timeout(Duration::from_millis(500));
    let (addr, _server) = start(config).await;

    let body = tools_list(0);
    let mut stalled = TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(format!("{}{}", head(Some(body.len())), &body[..10]).as_bytes())
        .await
        .unwrap();
    let start = Instant::now();
    let a = answer(&mut stalled).await;
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert_eq!(a.status, 408);
    assert_eq!(a.header("connection"), Some("close"));
    assert_eq!(a.body["error"]["code"], -32600);
    assert!(a.body["id"].is_null());
    closed(&mut stalled, false).await;

    // A chunked body that never ends.
    let mut endless = TcpStream::connect(addr).await.unwrap();
    endless
        .write_all(format!("{}5\r\n{{\"a\":\r\n", head(None)).as_bytes())
        .await
        .unwrap();
    assert_eq!(answer(&mut endless).await.status, 408);
    closed(&mut endless, false).await;

    // A body that does arrive in time is served.
    let mut fine = TcpStream::connect(addr).await.unwrap();
    fine.write_all(head(Some(body.len())).as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    fine.write_all(body.as_bytes()).await.unwrap();
    assert_eq!(answer(&mut fine).await.status, 200);
}

#[tokio::test]
async fn an_idle_connection_is_closed() {
    let config = HttpConfig::new().connection_idle_timeout(Duration::from_millis(500));
    let (addr, _server) = start(config).await;
    let mut c = TcpStream::connect(addr).await.unwrap();
    for _ in 0..3 {
        // Requests keep it open: each one restarts the idle time.
        c.write_all(whole(0).as_bytes()).await.unwrap();
        assert_eq!(answer(&mut c).await.status, 200);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let took = closed(&mut c, false).await;
    assert!(took >= Duration::from_millis(100), "closed early: {took:?}");
}

#[tokio::test]
async fn connections_beyond_the_limit_wait_for_a_free_one() {
    let (addr, _server) = start(HttpConfig::new().max_connections(2)).await;
    // Two connections with a request head in progress take both places.
    let mut a = TcpStream::connect(addr).await.unwrap();
    let mut b = TcpStream::connect(addr).await.unwrap();
    a.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    b.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    // The third is accepted by the kernel (the backlog), not served.
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(whole(0).as_bytes()).await.unwrap();
    assert!(stays_open(&mut c, Duration::from_millis(500)).await);

    // Once one closes, it is served.
    drop(a);
    assert_eq!(answer(&mut c).await.status, 200);
    drop(b);
}

#[tokio::test]
async fn a_full_server_closes_idle_and_silent_connections_to_make_room() {
    let (addr, _server) = start(HttpConfig::new().max_connections(1)).await;
    let mut idle = TcpStream::connect(addr).await.unwrap();
    idle.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut idle).await.status, 200);

    // The default idle timeout is 75 s: the new connection is served long before.
    let start = Instant::now();
    let mut next = TcpStream::connect(addr).await.unwrap();
    next.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut next).await.status, 200);
    assert!(start.elapsed() < PATIENCE);
    closed(&mut idle, false).await;
    drop(next);

    // Nor does a connection that has sent nothing (the header timeout is 10 s) keep the
    // place; one that has begun its request does.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut next = TcpStream::connect(addr).await.unwrap();
    next.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    closed(&mut silent, false).await;
    let mut third = TcpStream::connect(addr).await.unwrap();
    third.write_all(whole(0).as_bytes()).await.unwrap();
    assert!(stays_open(&mut third, Duration::from_millis(500)).await);
    drop(next);
    assert_eq!(answer(&mut third).await.status, 200);
}

/// `run_with_args` applies its command line to the builder, and the server it builds serves
/// one configuration: the limits set in code (the body size) and what the command line
/// adds (the hosts, the connection limit) hold together.
#[tokio::test]
async fn the_command_line_and_the_code_configure_one_server() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let args: Vec<String> = [
        "http",
        "--bind",
        &format!("127.0.0.1:{port}"),
        "--allow-host",
        "mcp.example.com",
        "--max-connections",
        "1",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let builder = builder().http(HttpConfig::new().max_body_bytes(1024));
    let serving = tokio::spawn(async move { builder.run_with_args(&args).await });
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let connect = || async move {
        for _ in 0..250 {
            if let Ok(s) = TcpStream::connect(addr).await {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("nothing listens on {addr}");
    };
    let named = |pad| whole(pad).replace("Host: 127.0.0.1", "Host: mcp.example.com");

    // The command line's host replaces the loopback names…
    let mut c = connect().await;
    c.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut c).await.status, 403);
    drop(c);
    let mut c = connect().await;
    c.write_all(named(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut c).await.status, 200);
    drop(c);
    // …the body limit set in code holds…
    let mut c = connect().await;
    c.write_all(named(2048).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut c).await.status, 413);
    drop(c);
    // …and so does the command line's connection limit: a request head in progress holds
    // the only place, the next connection waits in the backlog until it closes.
    let mut a = connect().await;
    a.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut next = connect().await;
    next.write_all(named(0).as_bytes()).await.unwrap();
    assert!(stays_open(&mut next, Duration::from_millis(500)).await);
    drop(a);
    assert_eq!(answer(&mut next).await.status, 200);
    serving.abort();
}

#[tokio::test]
async fn the_body_budget_refuses_with_503_and_recovers() {
    // 64 KiB: bodies over 1 KiB are large, and large ones may fill 48 KiB.
    let config = HttpConfig::new().max_buffered_body_bytes(64 * 1024);
    let (addr, _server) = start(config).await;

    // A stalled 40 KiB upload holds its reservation.
    let mut hog = TcpStream::connect(addr).await.unwrap();
    hog.write_all(format!("{}{{", head(Some(40 * 1024))).as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    // A 20 KiB body does not fit beside it: 503, with Retry-After, before it is sent.
    let big = whole(20 * 1024);
    let mut refused = TcpStream::connect(addr).await.unwrap();
    let head_only = &big[..big.find("\r\n\r\n").unwrap() + 4];
    refused.write_all(head_only.as_bytes()).await.unwrap();
    let a = answer(&mut refused).await;
    assert_eq!(a.status, 503);
    assert_eq!(a.header("retry-after"), Some("1"));
    assert_eq!(a.body["error"]["code"], -32600);

    // Nor does a chunked one, refused as it grows.
    let mut chunked = TcpStream::connect(addr).await.unwrap();
    chunked.write_all(head(None).as_bytes()).await.unwrap();
    let chunk = format!("1000\r\n{}\r\n", " ".repeat(4096));
    for _ in 0..3 {
        chunked.write_all(chunk.as_bytes()).await.unwrap();
    }
    assert_eq!(answer(&mut chunked).await.status, 503);

    // Small messages still pass.
    let mut small = TcpStream::connect(addr).await.unwrap();
    small.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut small).await.status, 200);

    // Once the upload is gone, the large body is served.
    drop(hog);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut retry = TcpStream::connect(addr).await.unwrap();
    retry.write_all(big.as_bytes()).await.unwrap();
    assert_eq!(answer(&mut retry).await.status, 200);
}

#[tokio::test]
async fn shutdown_stops_accepting_and_lets_requests_finish() {
    let server = server_with(|b| b);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = server.clone();
    let serving = tokio::spawn(async move { s.serve_http_listener(listener, "/mcp").await });

    let call = json!({"name":"count","arguments":{"n":3,"delay_ms":200}});
    let body = request(2, "tools/call", call).to_string();
    let mut busy = TcpStream::connect(addr).await.unwrap();
    busy.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: count\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut idle = TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.shutdown();

    // The request in progress finishes; the connection then closes, and so does the idle one.
    let a = answer(&mut busy).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body["result"]["content"][0]["text"], "counted 3");
    closed(&mut busy, false).await;
    closed(&mut idle, false).await;
    let served = tokio::time::timeout(PATIENCE, serving).await;
    assert!(matches!(served, Ok(Ok(Ok(())))), "{served:?}");
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "no longer listening"
    );
}

/// Writes `body` in pieces of 16 KiB with a pause between them, as a slow uploader does;
/// every write must succeed (the server reads what it refuses).
async fn write_slowly(stream: &mut TcpStream, body: &[u8]) {
    for (i, piece) in body.chunks(16 * 1024).enumerate() {
        if let Err(e) = stream.write_all(piece).await {
            panic!("writing the body failed after {} bytes: {e}", i * 16 * 1024);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test]
async fn a_client_still_sending_a_too_large_body_reads_the_413() {
    let (addr, _server) = start(HttpConfig::new().max_body_bytes(64 * 1024)).await;
    let body = tools_list(1024 * 1024);

    // Refused on its Content-Length, before a byte of it is read: the server reads and
    // discards the rest, so the client's writes go through and the answer arrives.
    let mut declared = TcpStream::connect(addr).await.unwrap();
    declared
        .write_all(head(Some(body.len())).as_bytes())
        .await
        .unwrap();
    write_slowly(&mut declared, body.as_bytes()).await;
    let a = answer(&mut declared).await;
    assert_eq!(a.status, 413);
    assert_eq!(a.header("connection"), Some("close"));
    assert_eq!(a.body["error"]["code"], -32600, "{:?}", a.body);
    assert!(a.body["id"].is_null());
    closed(&mut declared, false).await;

    // Chunked: refused once 64 KiB have arrived.
    let mut chunked = TcpStream::connect(addr).await.unwrap();
    chunked.write_all(head(None).as_bytes()).await.unwrap();
    let mut framed = Vec::new();
    for piece in body.as_bytes().chunks(8 * 1024) {
        framed.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        framed.extend_from_slice(piece);
        framed.extend_from_slice(b"\r\n");
    }
    framed.extend_from_slice(b"0\r\n\r\n");
    write_slowly(&mut chunked, &framed).await;
    let a = answer(&mut chunked).await;
    assert_eq!(a.status, 413);
    assert_eq!(a.body["error"]["code"], -32600, "{:?}", a.body);
    closed(&mut chunked, false).await;
}

#[tokio::test]
async fn the_python_sdks_async_client_reads_the_413() {
    let Some(python) = tests::interop_env("INTEROP_PYTHON") else {
        panic!("the Python SDK is not installed: run scripts/interop-setup");
    };
    let (addr, _server) = start(HttpConfig::new()).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/interop/large_body.py");
    // A little over the default 4 MiB limit, as in the report (httpx2's AsyncClient got
    // `ReadError` every time).
    let bytes = (4 * 1024 * 1024 + 100 * 1024).to_string();
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(python)
            .arg(script)
            .args(["--url", &format!("http://{addr}/mcp"), "--bytes", &bytes])
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the Python client finishes")
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    let read: Value = serde_json::from_str(stdout.trim()).expect("JSON on stdout");
    assert_eq!(read["status"], 413, "{read}");
    assert_eq!(read["body"]["jsonrpc"], "2.0", "{read}");
    assert_eq!(read["body"]["error"]["code"], -32600, "{read}");
    assert!(
        read["body"]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("4194304")),
        "{read}"
    );
}

#[tokio::test]
async fn a_refused_body_is_read_only_within_the_lingering_bounds() {
    let config = HttpConfig::new()
        .max_body_bytes(1024)
        .lingering_close(Duration::from_millis(300), 256 * 1024);
    let (addr, _server) = start(config).await;

    // Declaring more than the bytes it reads: answered, and closed at once.
    let mut huge = TcpStream::connect(addr).await.unwrap();
    huge.write_all(head(Some(64 * 1024 * 1024)).as_bytes())
        .await
        .unwrap();
    let a = answer(&mut huge).await;
    assert_eq!(a.status, 413);
    assert_eq!(a.header("connection"), Some("close"));
    closed(&mut huge, false).await;

    // A body that keeps coming (one byte every 100 ms) is read for the lingering time only.
    let mut trickle = TcpStream::connect(addr).await.unwrap();
    trickle
        .write_all(head(Some(128 * 1024)).as_bytes())
        .await
        .unwrap();
    assert_eq!(answer(&mut trickle).await.status, 413);
    closed(&mut trickle, true).await;

    // A chunked body that never ends is read for the lingering bytes only: the writer
    // meets the closed connection long before it has sent 64 MiB.
    let mut endless = TcpStream::connect(addr).await.unwrap();
    endless.write_all(head(None).as_bytes()).await.unwrap();
    let chunk = format!("4000\r\n{}\r\n", " ".repeat(0x4000));
    let mut sent = 0usize;
    let writing = async {
        while endless.write_all(chunk.as_bytes()).await.is_ok() {
            sent += chunk.len();
            assert!(sent < 64 * 1024 * 1024, "the server kept reading");
        }
    };
    tokio::time::timeout(PATIENCE, writing)
        .await
        .expect("the server closes the connection");

    // A client waiting for `100 Continue` is not invited to send the body it would refuse.
    let mut waiting = TcpStream::connect(addr).await.unwrap();
    let expect = head(Some(8 * 1024)).replace("\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n");
    waiting.write_all(expect.as_bytes()).await.unwrap();
    let a = answer(&mut waiting).await;
    assert_eq!(a.status, 413, "no 100 Continue first");
    closed(&mut waiting, false).await;

    // The server goes on serving.
    let mut fine = TcpStream::connect(addr).await.unwrap();
    fine.write_all(whole(0).as_bytes()).await.unwrap();
    assert_eq!(answer(&mut fine).await.status, 200);
}
