//! `hostile_load`: the hostile half of `scripts/bench hostile`. Holds slowloris connections
//! (request headers trickled a byte at a time, never finished) and stalled bodies (complete
//! headers announcing a large body of which all but the last byte arrives) against an HTTP
//! server, and reports how many of them the server closed, and after how long.
//!
//! ```text
//! hostile_load --addr 127.0.0.1:PORT [--slowloris 1000] [--stalled 200] [--idle 0]
//!              [--seconds 30] [--body-bytes 4194303] [--reconnect-ms MS]
//! ```
//!
//! `--idle` connections send nothing at all.
//!
//! With `--reconnect-ms`, each connection the server closes is opened again that long after
//! (so the hostile load stays in place for the whole run); without it, it stays closed.
//! Prints one line at the end:
//!
//! ```text
//! slowloris=1000 slowloris_open=1000 slowloris_closed=1000 slowloris_closed_p50_s=..
//! slowloris_connections=.. stalled=.. stalled_open=.. stalled_closed=..
//! stalled_closed_p50_s=.. stalled_connections=.. idle=.. idle_open=.. (likewise)
//! refused=.. secs=..
//! ```
//!
//! `*_open` counts the connections open at the end of the run, `*_closed` how many times the
//! server closed one (or answered it: `408`, `413`, `503`), `*_closed_p50_s` the median time
//! a connection was held before that, `*_connections` the connections made in all, `refused`
//! connection attempts that failed outright. Every socket goes to the address given
//! (loopback in the benchmark) and the run stops after `--seconds`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

#[derive(Debug)]
struct Opts {
    addr: SocketAddr,
    slowloris: usize,
    stalled: usize,
    idle: usize,
    seconds: u64,
    body_bytes: usize,
    reconnect: Option<Duration>,
}

fn parse() -> Opts {
    let mut o = Opts {
        addr: "127.0.0.1:8080".parse().expect("an address"),
        slowloris: 1000,
        stalled: 200,
        idle: 0,
        seconds: 30,
        body_bytes: 4 * 1024 * 1024 - 1,
        reconnect: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--addr" => o.addr = value().parse().unwrap_or_else(|_| usage()),
            "--slowloris" => o.slowloris = value().parse().unwrap_or_else(|_| usage()),
            "--stalled" => o.stalled = value().parse().unwrap_or_else(|_| usage()),
            "--idle" => o.idle = value().parse().unwrap_or_else(|_| usage()),
            "--seconds" => o.seconds = value().parse().unwrap_or_else(|_| usage()),
            "--body-bytes" => o.body_bytes = value().parse().unwrap_or_else(|_| usage()),
            "--reconnect-ms" => {
                o.reconnect = Some(Duration::from_millis(
                    value().parse().unwrap_or_else(|_| usage()),
                ));
            }
            _ => usage(),
        }
    }
    o
}

fn usage() -> ! {
    eprintln!(
        "usage: hostile_load --addr 127.0.0.1:PORT [--slowloris N] [--stalled N] [--idle N] [--seconds S] [--body-bytes N] [--reconnect-ms MS]"
    );
    std::process::exit(2)
}

/// The connections of one kind: how many are open, how many were made, and how long each
/// one the server closed had been held (seconds).
#[derive(Debug, Default)]
struct Tally {
    open: AtomicUsize,
    made: AtomicUsize,
    closed: Mutex<Vec<f64>>,
}

impl Tally {
    async fn summary(&self, name: &str, total: usize) -> String {
        let mut closed = self.closed.lock().await.clone();
        closed.sort_by(f64::total_cmp);
        let p50 = closed.get(closed.len() / 2).copied().unwrap_or(f64::NAN);
        format!(
            "{name}={total} {name}_open={} {name}_closed={} {name}_closed_p50_s={p50:.1} {name}_connections={}",
            self.open.load(Ordering::Relaxed),
            closed.len(),
            self.made.load(Ordering::Relaxed),
        )
    }
}

/// What a connection does after its first bytes.
#[derive(Debug, Clone, Copy)]
enum Then {
    /// One more header byte every second.
    Trickle,
    /// `n` body bytes at once, then nothing.
    Body(usize),
    /// Nothing at all.
    Silent,
}

/// Sends `first`, then what `then` says, until the server closes the connection (a write or
/// a read fails or sees EOF: `true`) or the run ends (`false`).
async fn hold(
    mut stream: TcpStream,
    first: &[u8],
    then: Then,
    end: Instant,
    tally: &Tally,
) -> bool {
    static FILLER: [u8; 65536] = [b' '; 65536];
    let opened = Instant::now();
    tally.open.fetch_add(1, Ordering::Relaxed);
    tally.made.fetch_add(1, Ordering::Relaxed);
    let closed = async {
        if stream.write_all(first).await.is_err() {
            return true;
        }
        if let Then::Body(mut n) = then {
            while n > 0 {
                let chunk = n.min(FILLER.len());
                if stream.write_all(&FILLER[..chunk]).await.is_err() {
                    return true;
                }
                n -= chunk;
            }
        }
        let mut buf = [0u8; 4096];
        loop {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(1)), if matches!(then, Then::Trickle) => {
                    if stream.write_all(b"a").await.is_err() {
                        return true;
                    }
                }
                n = stream.read(&mut buf) => match n {
                    // An answer (408, 413, 503…) or EOF: either way the server is done with it.
                    Ok(0) | Err(_) => return true,
                    Ok(_) => {}
                },
            }
        }
    };
    let closed = tokio::time::timeout_at(end.into(), closed).await == Ok(true);
    if closed {
        tally.open.fetch_sub(1, Ordering::Relaxed);
        tally
            .closed
            .lock()
            .await
            .push(opened.elapsed().as_secs_f64());
    }
    closed
}

/// What one hostile client does.
#[derive(Debug)]
struct Client {
    addr: SocketAddr,
    first: Vec<u8>,
    then: Then,
    end: Instant,
    reconnect: Option<Duration>,
    tally: Arc<Tally>,
    refused: Arc<AtomicUsize>,
}

/// One hostile client: holds `stream`, and with `reconnect` connects again after each close,
/// until the run ends.
async fn client(mut stream: TcpStream, c: Client) {
    let Client {
        addr,
        first,
        then,
        end,
        reconnect,
        tally,
        refused,
    } = c;
    loop {
        let closed = hold(stream, &first, then, end, &tally).await;
        let Some(pause) = reconnect.filter(|_| closed) else {
            return;
        };
        if Instant::now() + pause >= end {
            return;
        }
        tokio::time::sleep(pause).await;
        stream = match tokio::time::timeout_at(end.into(), TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(_)) => {
                refused.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Err(_) => return,
        };
    }
}

#[tokio::main]
async fn main() {
    let o = parse();
    let start = Instant::now();
    let end = start + Duration::from_secs(o.seconds);
    let (slow, stalled) = (Arc::new(Tally::default()), Arc::new(Tally::default()));
    let idle = Arc::new(Tally::default());
    let refused = Arc::new(AtomicUsize::new(0));
    let host = o.addr.to_string();
    let mut tasks = Vec::new();
    for i in 0..o.slowloris + o.stalled + o.idle {
        let (first, then, tally) = if i >= o.slowloris + o.stalled {
            (Vec::new(), Then::Silent, idle.clone())
        } else if i < o.slowloris {
            let first = format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nX-Slow: ").into_bytes();
            (first, Then::Trickle, slow.clone())
        } else {
            let first = format!(
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{{",
                o.body_bytes
            )
            .into_bytes();
            (
                first,
                Then::Body(o.body_bytes.saturating_sub(2)),
                stalled.clone(),
            )
        };
        // One at a time: every connection is open before the next is made.
        let Ok(stream) = TcpStream::connect(o.addr).await else {
            refused.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        let c = Client {
            addr: o.addr,
            first,
            then,
            end,
            reconnect: o.reconnect,
            tally,
            refused: refused.clone(),
        };
        tasks.push(tokio::spawn(client(stream, c)));
    }
    for t in tasks {
        let _ = t.await;
    }
    println!(
        "{} {} {} refused={} secs={:.1}",
        slow.summary("slowloris", o.slowloris).await,
        stalled.summary("stalled", o.stalled).await,
        idle.summary("idle", o.idle).await,
        refused.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
}
