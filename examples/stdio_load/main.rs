//! `stdio_load`: loads a stdio MCP server with newline-delimited JSON-RPC requests; the
//! load driver of `scripts/bench` (stdio), run through `scripts/bench-harness/matrix.py`.
//!
//! ```text
//! stdio_load [--window W=64] [--requests N=10M] [--seconds S=10] [--warmup K=1000]
//!            [--method tools/call|tools/list] [--init [VERSION]] -- SERVER_CMD [ARGS...]
//! ```
//!
//! Spawns SERVER_CMD, keeps up to W requests in flight (ids 1, 2, …), matches responses by
//! id and prints one line:
//!
//! ```text
//! msgs_per_s=.. p50_us=.. p99_us=.. max_us=.. n=.. errors=.. window=.. secs=..
//! server_cpu_pct=.. peak_rss_kb=.. rss_kb=..
//! ```
//!
//! W=1 runs a single-threaded lock-step loop (write, flush, read the answer): pure round-trip
//! latency. W>1 uses a writer thread (batches every free slot into one flush) and a reader
//! thread. The run stops after N timed requests or S seconds, whichever comes first; the
//! server is then sent EOF on stdin and killed if it has not exited 3 s later. RSS is the
//! server process tree's (VmHWM / VmRSS summed over the child and its descendants), read
//! just before EOF; server_cpu_pct is that tree's CPU time over the timed phase (100 = one
//! core busy). A watchdog kills the server if the whole run exceeds 2·S + 15 s (a server
//! that stops reading or answering), so every run ends by itself.

use serde::Deserialize;
use serde::de::IgnoredAny;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}"#;

struct Opts {
    window: usize,
    requests: u64,
    seconds: f64,
    warmup: u64,
    method: String,
    init: Option<String>,
    cmd: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: stdio_load [--window W=64] [--requests N=10000000] [--seconds S=10] [--warmup K=1000]\n\
         \x20                   [--method tools/call|tools/list] [--init [VERSION=2025-06-18]] -- CMD [ARGS..]"
    );
    std::process::exit(2)
}

fn parse_opts() -> Opts {
    let mut o = Opts {
        window: 64,
        requests: 10_000_000,
        seconds: 10.0,
        warmup: 1000,
        method: "tools/call".into(),
        init: None,
        cmd: vec![],
    };
    let mut args = std::env::args().skip(1).peekable();
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--window" | "-w" => o.window = val().parse().unwrap_or_else(|_| usage()),
            "--requests" | "-n" => o.requests = val().parse().unwrap_or_else(|_| usage()),
            "--seconds" | "-s" => o.seconds = val().parse().unwrap_or_else(|_| usage()),
            "--warmup" => o.warmup = val().parse().unwrap_or_else(|_| usage()),
            "--method" => o.method = val(),
            "--init" => {
                let v = match args.peek() {
                    Some(v) if !v.starts_with('-') => args.next().unwrap(),
                    _ => "2025-06-18".into(),
                };
                o.init = Some(v);
            }
            "--" => {
                o.cmd = args.collect();
                break;
            }
            _ => usage(),
        }
    }
    if o.cmd.is_empty() || o.window == 0 || o.requests == 0 {
        usage()
    }
    check_method(&o.method);
    o
}

fn check_method(method: &str) {
    if method != "tools/call" && method != "tools/list" {
        eprintln!("stdio_load: --method must be tools/call or tools/list");
        std::process::exit(2)
    }
}

/// One request line; the same bytes as bench/body-*.json except for the id.
fn write_request(w: &mut impl Write, method: &str, id: u64) -> std::io::Result<()> {
    if method == "tools/call" {
        writeln!(
            w,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":2}},{META}}}}}"#
        )
    } else {
        writeln!(
            w,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{{META}}}}}"#
        )
    }
}

/// Only what we need from each server message; everything else is skipped without allocating.
#[derive(Deserialize)]
struct Msg {
    id: Option<serde_json::Value>,
    method: Option<IgnoredAny>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

enum Seen {
    Response { id: Option<u64>, ok: bool },
    Other, // server->client request or notification, or unparseable: ignored
}

fn classify(line: &[u8]) -> Seen {
    match serde_json::from_slice::<Msg>(line) {
        Ok(m) if m.method.is_none() && (m.result.is_some() || m.error.is_some()) => {
            Seen::Response {
                id: m.id.as_ref().and_then(|v| v.as_u64()),
                ok: m.result.is_some(),
            }
        }
        _ => Seen::Other,
    }
}

/// The server's process tree: pid and all its descendants (e.g. behind `uv run` or a shell).
fn tree(pid: u32) -> Vec<u32> {
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", out[i]))
            .into_iter()
            .flatten()
            .flatten();
        for t in tasks {
            if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
                out.extend(c.split_whitespace().filter_map(|x| x.parse::<u32>().ok()));
            }
        }
        i += 1;
    }
    out
}

/// Resident memory (VmHWM = peak, VmRSS = now, kB) and CPU time (utime+stime, clock ticks)
/// summed over the server's process tree.
#[derive(Default, Clone, Copy)]
struct Probe {
    peak_kb: u64,
    cur_kb: u64,
    cpu_ticks: u64,
}

impl Probe {
    fn of(pid: u32) -> Self {
        let mut p = Self::default();
        for q in tree(pid) {
            let status = std::fs::read_to_string(format!("/proc/{q}/status")).unwrap_or_default();
            let kb = |field: &str| {
                status
                    .lines()
                    .find(|l| l.starts_with(field))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            p.peak_kb += kb("VmHWM:");
            p.cur_kb += kb("VmRSS:");
            let stat = std::fs::read_to_string(format!("/proc/{q}/stat")).unwrap_or_default();
            // fields after "(comm)": state is [0], utime [11], stime [12]
            let f: Vec<&str> = stat
                .rsplit_once(')')
                .map_or("", |x| x.1)
                .split_whitespace()
                .collect();
            p.cpu_ticks += f.get(11).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            p.cpu_ticks += f.get(12).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        }
        p
    }
}

fn read_line(r: &mut BufReader<ChildStdout>, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    matches!(r.read_until(b'\n', buf), Ok(n) if n > 0)
}

/// Legacy (pre-2026) handshake: initialize, wait for its answer, notifications/initialized.
fn handshake(version: &str, w: &mut BufWriter<ChildStdin>, r: &mut BufReader<ChildStdout>) {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"bench","version":"1"}}}}}}"#
    );
    writeln!(w, "{init}")
        .and_then(|_| w.flush())
        .expect("write initialize");
    let mut buf = Vec::new();
    loop {
        if !read_line(r, &mut buf) {
            panic!("server closed stdout during initialize");
        }
        if let Seen::Response { id: Some(0), .. } = classify(&buf) {
            break;
        }
    }
    w.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .and_then(|_| w.flush())
        .expect("write initialized");
}

struct Outcome {
    lat_ns: Vec<u64>,
    errors: u64,
    elapsed: Duration,
    cpu_ticks_at_start: u64, // server CPU when the timed phase began
}

fn lockstep(
    o: &Opts,
    w: &mut BufWriter<ChildStdin>,
    r: &mut BufReader<ChildStdout>,
    pid: u32,
) -> Outcome {
    let mut lat_ns = Vec::with_capacity(o.requests.min(1 << 24) as usize);
    let (mut errors, mut buf, mut cpu0) = (0, Vec::new(), 0);
    let mut t0 = Instant::now();
    // warmup is bounded by `seconds` too; the timed phase gets its own `seconds`
    let mut deadline = t0 + Duration::from_secs_f64(o.seconds);
    for id in 1..=o.warmup + o.requests {
        if id == o.warmup + 1 {
            cpu0 = Probe::of(pid).cpu_ticks;
            t0 = Instant::now();
            deadline = t0 + Duration::from_secs_f64(o.seconds);
        } else if Instant::now() > deadline {
            break;
        }
        let sent = Instant::now();
        if write_request(w, &o.method, id)
            .and_then(|_| w.flush())
            .is_err()
        {
            eprintln!("stdio_load: server closed stdin");
            return Outcome {
                lat_ns,
                errors: errors + 1,
                elapsed: t0.elapsed(),
                cpu_ticks_at_start: cpu0,
            };
        }
        loop {
            if !read_line(r, &mut buf) {
                eprintln!("stdio_load: server closed stdout");
                return Outcome {
                    lat_ns,
                    errors: errors + 1,
                    elapsed: t0.elapsed(),
                    cpu_ticks_at_start: cpu0,
                };
            }
            match classify(&buf) {
                Seen::Response { id: got, ok } => {
                    errors += u64::from(got != Some(id) || !ok);
                    break;
                }
                Seen::Other => continue,
            }
        }
        if id > o.warmup {
            lat_ns.push(sent.elapsed().as_nanos() as u64);
        }
    }
    Outcome {
        lat_ns,
        errors,
        elapsed: t0.elapsed(),
        cpu_ticks_at_start: cpu0,
    }
}

fn pipelined(
    o: &Opts,
    w: BufWriter<ChildStdin>,
    r: BufReader<ChildStdout>,
    child: &Mutex<Child>,
) -> (Outcome, Probe) {
    let pid = child.lock().unwrap().id();
    let total = o.warmup + o.requests;
    let window = o.window as u64;
    let start = Instant::now();
    // per id: send time in ns since `start` (0 = not sent yet)
    let sent_at: Arc<Vec<AtomicU64>> = Arc::new((0..=total).map(|_| AtomicU64::new(0)).collect());
    let sent = Arc::new(AtomicU64::new(0)); // requests written (= highest id written)
    let answered = Arc::new(AtomicU64::new(0)); // responses received (any id)
    let writer_parked = Arc::new(AtomicBool::new(false));
    let timed_start = Arc::new(AtomicU64::new(0));
    let cpu0 = Arc::new(AtomicU64::new(0));

    let writer = {
        let (sent_at, sent, answered, parked) = (
            sent_at.clone(),
            sent.clone(),
            answered.clone(),
            writer_parked.clone(),
        );
        let (timed_start, cpu0) = (timed_start.clone(), cpu0.clone());
        let (method, warmup, seconds) = (o.method.clone(), o.warmup, o.seconds);
        std::thread::spawn(move || {
            let mut w = w;
            // warmup is bounded by `seconds` too; the timed phase gets its own `seconds`
            let mut deadline = start + Duration::from_secs_f64(seconds);
            let mut next = 1u64;
            'outer: while next <= total {
                // fill every free slot of the window, then flush once
                let free = window.saturating_sub((next - 1).saturating_sub(answered.load(SeqCst)));
                if free == 0 {
                    parked.store(true, SeqCst);
                    if (next - 1).saturating_sub(answered.load(SeqCst)) >= window {
                        let wait = deadline.saturating_duration_since(Instant::now());
                        if wait.is_zero() {
                            break;
                        }
                        std::thread::park_timeout(wait);
                    }
                    parked.store(false, SeqCst);
                    continue;
                }
                for _ in 0..free {
                    if next > total {
                        break;
                    }
                    if next == warmup + 1 {
                        cpu0.store(Probe::of(pid).cpu_ticks, Release);
                        timed_start.store(start.elapsed().as_nanos() as u64, Release);
                        deadline = Instant::now() + Duration::from_secs_f64(seconds);
                    } else if Instant::now() > deadline {
                        break 'outer;
                    }
                    sent_at[next as usize]
                        .store((start.elapsed().as_nanos() as u64).max(1), Release);
                    sent.store(next, Release);
                    if write_request(&mut w, &method, next).is_err() {
                        break 'outer;
                    }
                    next += 1;
                }
                if w.flush().is_err() {
                    break;
                }
            }
            let _ = w.flush();
            w
        })
    };

    let reader = {
        let (sent_at, answered, parked, warmup) =
            (sent_at, answered.clone(), writer_parked, o.warmup);
        let writer_thread = writer.thread().clone();
        std::thread::spawn(move || {
            let mut r = r;
            let (mut buf, mut lat_ns, mut errors, mut last) = (Vec::new(), Vec::new(), 0u64, 0u64);
            lat_ns.reserve(total.min(1 << 24) as usize);
            while read_line(&mut r, &mut buf) {
                let Seen::Response { id, ok } = classify(&buf) else {
                    continue;
                };
                let now = start.elapsed().as_nanos() as u64;
                let slot = id.filter(|&i| (1..=total).contains(&i));
                match slot.map(|i| (i, sent_at[i as usize].swap(0, AcqRel))) {
                    Some((i, t)) if t > 0 => {
                        if i > warmup {
                            lat_ns.push(now - t);
                            last = now;
                        }
                        errors += u64::from(!ok);
                    }
                    _ => errors += 1, // unknown or duplicate id
                }
                answered.fetch_add(1, SeqCst);
                if parked.load(SeqCst) {
                    writer_thread.unpark();
                }
            }
            (lat_ns, errors, last)
        })
    };

    let w = writer.join().unwrap();
    // bounded wait for the answers still outstanding
    let grace = Instant::now() + Duration::from_secs(3);
    while answered.load(Acquire) < sent.load(Acquire)
        && Instant::now() < grace
        && !reader.is_finished()
    {
        std::thread::sleep(Duration::from_micros(200));
    }
    let probe = Probe::of(pid);
    drop(w); // EOF: the server should exit, closing its stdout
    finish(child);
    let t = Instant::now();
    while !reader.is_finished() {
        if t.elapsed() > Duration::from_secs(2) {
            eprintln!("stdio_load: server's stdout still open after kill; giving up");
            std::process::exit(1);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let (lat_ns, errors, last) = reader.join().unwrap();
    let t0 = timed_start.load(Acquire);
    let lost = sent.load(Acquire).saturating_sub(answered.load(Acquire));
    let elapsed = Duration::from_nanos(last.saturating_sub(t0));
    let cpu_ticks_at_start = cpu0.load(Acquire);
    (
        Outcome {
            lat_ns,
            errors: errors + lost,
            elapsed,
            cpu_ticks_at_start,
        },
        probe,
    )
}

/// Wait up to 3 s for the server to exit after EOF, then kill it.
fn finish(child: &Mutex<Child>) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(3) {
        if let Ok(Some(_)) = child.lock().unwrap().try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    eprintln!("stdio_load: server did not exit on EOF; killing it");
    let mut c = child.lock().unwrap();
    let _ = c.kill();
    let _ = c.wait();
}

/// Kill the server if the whole run overstays its bound (a server that stops answering or
/// stops reading would otherwise block a read or a write forever). Killing it closes its
/// pipes, which unblocks both, and the run reports what it had.
fn watchdog(child: Arc<Mutex<Child>>, limit: Duration, done: Arc<AtomicBool>) {
    let t0 = Instant::now();
    std::thread::spawn(move || {
        while !done.load(Acquire) {
            if t0.elapsed() > limit {
                eprintln!("stdio_load: run exceeded {limit:?}; killing the server");
                let _ = child.lock().unwrap().kill();
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
}

fn pct(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0
}

fn main() {
    let o = parse_opts();
    let mut child = Command::new(&o.cmd[0])
        .args(&o.cmd[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {:?}: {e}", o.cmd));
    let mut w = BufWriter::with_capacity(1 << 16, child.stdin.take().unwrap());
    let mut r = BufReader::with_capacity(1 << 16, child.stdout.take().unwrap());
    let pid = child.id();
    let child = Arc::new(Mutex::new(child));
    let done = Arc::new(AtomicBool::new(false));
    // warmup and timed phase are each bounded by --seconds; allow for start-up and shutdown
    watchdog(
        child.clone(),
        Duration::from_secs_f64(2.0 * o.seconds + 15.0),
        done.clone(),
    );
    if let Some(v) = &o.init {
        handshake(v, &mut w, &mut r);
    }
    let (out, end) = if o.window == 1 {
        let out = lockstep(&o, &mut w, &mut r, pid);
        let end = Probe::of(pid);
        drop(w);
        finish(&child);
        (out, end)
    } else {
        pipelined(&o, w, r, &child)
    };
    done.store(true, Release);
    let mut lat = out.lat_ns;
    lat.sort_unstable();
    let n = lat.len();
    let secs = out.elapsed.as_secs_f64();
    // Linux reports CPU in USER_HZ ticks, 100 per second on every mainstream architecture
    let cpu_s = end.cpu_ticks.saturating_sub(out.cpu_ticks_at_start) as f64 / 100.0;
    println!(
        "msgs_per_s={:.0} p50_us={:.1} p99_us={:.1} max_us={:.1} n={} errors={} window={} secs={:.2} \
         server_cpu_pct={:.0} peak_rss_kb={} rss_kb={}",
        if secs > 0.0 { n as f64 / secs } else { 0.0 },
        pct(&lat, 50.0),
        pct(&lat, 99.0),
        pct(&lat, 100.0),
        n,
        out.errors,
        o.window,
        secs,
        if secs > 0.0 {
            100.0 * cpu_s / secs
        } else {
            0.0
        },
        end.peak_kb,
        end.cur_kb
    );
    if n == 0 {
        std::process::exit(1);
    }
}
