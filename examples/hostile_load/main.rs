//! `hostile_load`: the hostile half of `scripts/bench hostile`. Holds slowloris connections
//! (request headers trickled a byte at a time, never finished) and stalled bodies (complete
//! headers announcing a large body of which only a few bytes ever arrive) against an HTTP
//! server, and reports how many of them the server closed, and when.
//!
//! ```text
//! hostile_load --addr 127.0.0.1:PORT [--slowloris 1000] [--stalled 200] [--seconds 30]
//!              [--body-bytes 4194303]
//! ```
//!
//! Prints one line at the end:
//!
//! ```text
//! slowloris=1000 slowloris_open=1000 slowloris_closed=1000 slowloris_closed_p50_s=.. stalled=..
//! stalled_open=.. stalled_closed=.. stalled_closed_p50_s=.. refused=.. secs=..
//! ```
//!
//! `*_open` counts the connections that were accepted, `*_closed` those the server closed
//! before the run ended, `refused` connection attempts that failed outright. Every socket goes
//! to the address given (loopback in the benchmark) and the run stops after `--seconds`.

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
    seconds: u64,
    body_bytes: usize,
}

fn parse() -> Opts {
    let mut o = Opts {
        addr: "127.0.0.1:8080".parse().expect("an address"),
        slowloris: 1000,
        stalled: 200,
        seconds: 30,
        body_bytes: 4 * 1024 * 1024 - 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--addr" => o.addr = value().parse().unwrap_or_else(|_| usage()),
            "--slowloris" => o.slowloris = value().parse().unwrap_or_else(|_| usage()),
            "--stalled" => o.stalled = value().parse().unwrap_or_else(|_| usage()),
            "--seconds" => o.seconds = value().parse().unwrap_or_else(|_| usage()),
            "--body-bytes" => o.body_bytes = value().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    o
}

fn usage() -> ! {
    eprintln!(
        "usage: hostile_load --addr 127.0.0.1:PORT [--slowloris N] [--stalled N] [--seconds S] [--body-bytes N]"
    );
    std::process::exit(2)
}

/// When each connection of one kind was closed by the server (seconds since the start).
#[derive(Debug, Default)]
struct Tally {
    open: AtomicUsize,
    closed: Mutex<Vec<f64>>,
}

impl Tally {
    async fn summary(&self, name: &str, total: usize) -> String {
        let mut closed = self.closed.lock().await.clone();
        closed.sort_by(f64::total_cmp);
        let p50 = closed.get(closed.len() / 2).copied().unwrap_or(f64::NAN);
        format!(
            "{name}={total} {name}_open={} {name}_closed={} {name}_closed_p50_s={p50:.1}",
            self.open.load(Ordering::Relaxed),
            closed.len()
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
}

/// Sends `first`, then what `then` says, until the server closes the connection (a write or
/// a read fails or sees EOF) or the run ends.
async fn hold(
    mut stream: TcpStream,
    first: Vec<u8>,
    then: Then,
    start: Instant,
    end: Instant,
    tally: Arc<Tally>,
) {
    static FILLER: [u8; 65536] = [b' '; 65536];
    tally.open.fetch_add(1, Ordering::Relaxed);
    let closed = async {
        if stream.write_all(&first).await.is_err() {
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
    if let Ok(true) = tokio::time::timeout_at(end.into(), closed).await {
        tally
            .closed
            .lock()
            .await
            .push(start.elapsed().as_secs_f64());
    }
}

#[tokio::main]
async fn main() {
    let o = parse();
    let start = Instant::now();
    let end = start + Duration::from_secs(o.seconds);
    let (slow, stalled) = (Arc::new(Tally::default()), Arc::new(Tally::default()));
    let refused = Arc::new(AtomicUsize::new(0));
    let host = o.addr.to_string();
    let mut tasks = Vec::new();
    for i in 0..o.slowloris + o.stalled {
        let Ok(stream) = TcpStream::connect(o.addr).await else {
            refused.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        let task = if i < o.slowloris {
            let first = format!("POST /mcp HTTP/1.1\r\nHost: {host}\r\nX-Slow: ").into_bytes();
            tokio::spawn(hold(stream, first, Then::Trickle, start, end, slow.clone()))
        } else {
            let first = format!(
                "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{{",
                o.body_bytes
            )
            .into_bytes();
            let body = Then::Body(o.body_bytes.saturating_sub(2));
            tokio::spawn(hold(stream, first, body, start, end, stalled.clone()))
        };
        tasks.push(task);
    }
    for t in tasks {
        let _ = t.await;
    }
    println!(
        "{} {} refused={} secs={:.1}",
        slow.summary("slowloris", o.slowloris).await,
        stalled.summary("stalled", o.stalled).await,
        refused.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
}
