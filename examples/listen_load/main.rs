//! `listen_load`: holds many `subscriptions/listen` streams open against a Streamable HTTP
//! server, reports the server's memory, then measures how long a change takes to reach
//! the listeners. Used by `scripts/bench-listen` (see `BENCHMARKS.md`).
//!
//! ```text
//! listen_load --url http://127.0.0.1:PORT/mcp --streams 10000 --probe 1000 --rounds 20 --server-pid PID
//! # replicas: the streams spread over the --listen-url servers, the change made on --url
//! listen_load --url http://127.0.0.1:P1/mcp --listen-url http://127.0.0.1:P1/mcp \
//!     --listen-url http://127.0.0.1:P2/mcp --listen-url http://127.0.0.1:P3/mcp --streams 1000
//! ```
//!
//! The server must serve the `everything` surface (`toggle_extra_tool` changes the tool
//! list). With `--events`, the streams are `events/stream` subscriptions to `alert.raised`
//! (the Events extension) and each round raises one alert (`raise_alert`) instead. Every
//! connection goes to 127.0.0.1; the run is bounded by `--rounds` and a per-round timeout.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{Mutex, Semaphore, watch};

struct Args {
    /// Event streams (`events/stream`) instead of listen streams.
    events: bool,
    /// Multiplex the streams over HTTP/2 (prior knowledge, cleartext) connections.
    http2: bool,
    addr: SocketAddr,
    path: String,
    /// Where the streams listen (round-robin); empty: `addr`.
    listen: Vec<SocketAddr>,
    streams: usize,
    probe: usize,
    rounds: usize,
    server_pid: Option<u32>,
}

fn parse_args() -> Args {
    let mut a = Args {
        events: false,
        http2: false,
        addr: "127.0.0.1:8080".parse().expect("addr"),
        path: "/mcp".into(),
        listen: Vec::new(),
        streams: 10_000,
        probe: 1000,
        rounds: 20,
        server_pid: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--url" => {
                let rest = v
                    .strip_prefix("http://")
                    .expect("--url http://HOST:PORT/PATH");
                let (hostport, path) = rest.split_once('/').unwrap_or((rest, "mcp"));
                a.addr = hostport.parse().expect("--url needs an IP:PORT host");
                assert!(
                    a.addr.ip().is_loopback(),
                    "listen_load only talks to loopback addresses"
                );
                a.path = format!("/{path}");
            }
            "--listen-url" => {
                let rest = v
                    .strip_prefix("http://")
                    .expect("--listen-url http://HOST:PORT/PATH");
                let hostport = rest.split_once('/').map_or(rest, |(h, _)| h);
                let addr: SocketAddr = hostport.parse().expect("--listen-url needs IP:PORT");
                assert!(
                    addr.ip().is_loopback(),
                    "listen_load only talks to loopback addresses"
                );
                a.listen.push(addr);
            }
            "--streams" => a.streams = v.parse().expect("--streams N"),
            "--probe" => a.probe = v.parse().expect("--probe N"),
            "--rounds" => a.rounds = v.parse().expect("--rounds N"),
            "--server-pid" => a.server_pid = Some(v.parse().expect("--server-pid PID")),
            "--http2" => {
                a.http2 = true;
                i += 1;
                continue;
            }
            "--events" => {
                a.events = true;
                i += 1;
                continue;
            }
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    if a.listen.is_empty() {
        a.listen.push(a.addr);
    }
    assert!(
        !(a.http2 && a.listen.len() > 1),
        "--http2 listens on --url only"
    );
    a
}

fn post(path: &str, addr: SocketAddr, method: &str, body: &str, name: Option<&str>) -> Vec<u8> {
    let name = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

impl Args {
    /// The request that opens stream `i`.
    fn subscribe(&self, i: usize) -> (&'static str, String) {
        if self.events {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"events/stream","params":{{"name":"alert.raised",{META}}}}}"#
            );
            return ("events/stream", body);
        }
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},{META}}}}}"#
        );
        ("subscriptions/listen", body)
    }

    /// What the first message of an open stream says.
    fn opened(&self) -> &'static str {
        if self.events {
            "events/active"
        } else {
            "acknowledged"
        }
    }

    /// What a stream hears when a round's change reaches it.
    fn arrived(&self) -> &'static [u8] {
        if self.events {
            b"events/event"
        } else {
            b"list_changed"
        }
    }

    /// The tool whose call is a round's change, and its arguments.
    fn change(&self) -> (&'static str, &'static str) {
        if self.events {
            ("raise_alert", r#"{"level":"info","message":"bench"}"#)
        } else {
            ("toggle_extra_tool", "{}")
        }
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

/// Listen streams per source address: below the server's limit per client
/// (`ListenConfig::max_streams_per_peer`, 32 by default).
const STREAMS_PER_PEER: usize = 30;

/// Connects to `to` from a source address of its own for every [`STREAMS_PER_PEER`]
/// streams (127.0.x.y: all of 127/8 is the loopback interface), as that many clients would.
async fn connect_as_peer(to: SocketAddr, stream: usize) -> TcpStream {
    let k = stream / STREAMS_PER_PEER;
    let from = std::net::Ipv4Addr::new(127, 0, (k / 250) as u8, (k % 250 + 1) as u8);
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("bind a loopback source address");
    socket.connect(to).await.expect("connect")
}

/// Streams per HTTP/2 connection: each connection is a client of its own (below the
/// server's limit of streams per client and hyper's of concurrent streams).
const STREAMS_PER_CONNECTION: usize = STREAMS_PER_PEER;

type H2Sender = h2::client::SendRequest<bytes::Bytes>;

async fn h2_connection(addr: SocketAddr, index: usize) -> H2Sender {
    let tcp = connect_as_peer(addr, index * STREAMS_PER_PEER).await;
    let (send, conn) = h2::client::Builder::new()
        .initial_window_size(1 << 20)
        .handshake(tcp)
        .await
        .expect("h2 handshake");
    tokio::spawn(async move {
        let _ = conn.await;
    });
    send
}

/// One listen stream over HTTP/2; returns its body after the acknowledgement.
async fn h2_listen(send: H2Sender, a: &Args, i: usize) -> h2::RecvStream {
    let (method, body) = a.subscribe(i);
    let req = http::Request::post(format!("http://{}{}", a.addr, a.path))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .body(())
        .expect("request");
    let mut send = send.ready().await.expect("h2 ready");
    let (resp, mut stream) = send.send_request(req, false).expect("send_request");
    stream
        .send_data(bytes::Bytes::from(body), true)
        .expect("send body");
    let mut body = resp.await.expect("response").into_body();
    let mut seen = String::new();
    while !seen.contains(a.opened()) {
        let chunk = body.data().await.expect("stream open").expect("data");
        let _ = body.flow_control().release_capacity(chunk.len());
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    body
}

#[tokio::main]
async fn main() {
    let a = Arc::new(parse_args());
    let opened = Arc::new(AtomicUsize::new(0));
    // Each round: (round number, start instant); listeners in the probe set report arrivals.
    let (round_tx, round_rx) = watch::channel::<(usize, Instant)>((0, Instant::now()));
    let arrivals = Arc::new(Mutex::new(Vec::<f64>::new()));
    let gate = Arc::new(Semaphore::new(256));
    let started = Instant::now();
    let mut tasks = Vec::with_capacity(a.streams);
    let mut senders = Vec::new();
    if a.http2 {
        for c in 0..a.streams.div_ceil(STREAMS_PER_CONNECTION) {
            senders.push(h2_connection(a.addr, c).await);
        }
    }
    for i in 0..a.streams {
        if a.http2 {
            let send = senders[i / STREAMS_PER_CONNECTION].clone();
            let (a, opened, gate, round_rx, arrivals) = (
                a.clone(),
                opened.clone(),
                gate.clone(),
                round_rx.clone(),
                arrivals.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let permit = gate.acquire_owned().await.expect("semaphore");
                let mut body = h2_listen(send, &a, i).await;
                opened.fetch_add(1, Ordering::Relaxed);
                drop(permit);
                let probe = i < a.probe;
                while let Some(Ok(chunk)) = body.data().await {
                    let _ = body.flow_control().release_capacity(chunk.len());
                    let arrived = a.arrived();
                    if probe && chunk.windows(arrived.len()).any(|w| w == arrived) {
                        let (_, t0) = *round_rx.borrow();
                        arrivals
                            .lock()
                            .await
                            .push(t0.elapsed().as_secs_f64() * 1000.0);
                    }
                }
            }));
            continue;
        }
        let (a, opened, gate, round_rx, arrivals) = (
            a.clone(),
            opened.clone(),
            gate.clone(),
            round_rx.clone(),
            arrivals.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let permit = gate.acquire_owned().await.expect("semaphore");
            let at = a.listen[i % a.listen.len()];
            let mut s = connect_as_peer(at, i).await;
            let (method, body) = a.subscribe(i);
            s.write_all(&post(&a.path, at, method, &body, None))
                .await
                .expect("write");
            let mut buf = vec![0u8; 4096];
            let mut seen = String::new();
            loop {
                let n = s.read(&mut buf).await.expect("read");
                assert!(n > 0, "stream closed before the acknowledgement");
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
                if seen.contains(a.opened()) {
                    break;
                }
            }
            opened.fetch_add(1, Ordering::Relaxed);
            drop(permit);
            let probe = i < a.probe;
            buf.truncate(1024);
            buf.shrink_to_fit();
            loop {
                let n = match s.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let arrived = a.arrived();
                if probe && buf[..n].windows(arrived.len()).any(|w| w == arrived) {
                    let (_, t0) = *round_rx.borrow();
                    arrivals
                        .lock()
                        .await
                        .push(t0.elapsed().as_secs_f64() * 1000.0);
                }
            }
        }));
    }
    while opened.load(Ordering::Relaxed) < a.streams {
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "could not open the streams in 5 minutes"
        );
    }
    println!(
        "streams={} opened_in_s={:.1}",
        a.streams,
        started.elapsed().as_secs_f64()
    );
    tokio::time::sleep(Duration::from_secs(1)).await;
    if let Some(pid) = a.server_pid {
        let kb = rss_kb(pid).unwrap_or(0);
        println!(
            "server_rss_kb={kb} per_stream_kb={:.1}",
            kb as f64 / a.streams as f64
        );
    }
    let mut all = Vec::new();
    // Per round: the probes reached, over the time the last one took.
    let mut rates = Vec::new();
    for round in 1..=a.rounds {
        arrivals.lock().await.clear();
        round_tx
            .send((round, Instant::now()))
            .expect("listeners alive");
        let mut s = TcpStream::connect(a.addr).await.expect("connect");
        let (tool, arguments) = a.change();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{META}}}}}"#
        );
        s.write_all(&post(&a.path, a.addr, "tools/call", &body, Some(tool)))
            .await
            .expect("write");
        let deadline = Instant::now() + Duration::from_secs(10);
        while arrivals.lock().await.len() < a.probe && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let got = arrivals.lock().await.clone();
        assert_eq!(
            got.len(),
            a.probe,
            "round {round}: only {} of {} probes heard the change",
            got.len(),
            a.probe
        );
        let last = got.iter().copied().fold(0.0_f64, f64::max);
        rates.push(got.len() as f64 / (last / 1000.0));
        all.extend(got);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    all.sort_by(f64::total_cmp);
    rates.sort_by(f64::total_cmp);
    println!(
        "fanout_rounds={} probes={} p50_ms={:.2} p99_ms={:.2} max_ms={:.2} deliveries_per_s_median={:.0}",
        a.rounds,
        a.probe,
        percentile(&all, 0.5),
        percentile(&all, 0.99),
        all.last().copied().unwrap_or(f64::NAN),
        percentile(&rates, 0.5)
    );
    if let Some(pid) = a.server_pid {
        println!("server_rss_kb_after={}", rss_kb(pid).unwrap_or(0));
    }
    for t in tasks {
        t.abort();
    }
}
