//! `churn_load`: legacy session churn against a Streamable HTTP endpoint, for
//! `scripts/bench realistic`. Each of `--conc` workers, back to back for `--seconds`: a
//! 2025-11-25 `initialize` (the session id read from `Mcp-Session-Id`),
//! `notifications/initialized`, one `tools/call add`, and the session's `DELETE`. A
//! session counts when all four were answered as the specification says (the initialize
//! and the call with a JSON-RPC `result`, the notification `202`, the `DELETE` `2xx`);
//! anything else is an error, counted and not retried.
//!
//! ```text
//! churn_load --url http://127.0.0.1:PORT/mcp --conc 32 --seconds 8
//! sessions=41234 secs=8.00 rate=5154 errors=0 p50_ms=5.91 p99_ms=11.20
//! ```
//!
//! `p50_ms`/`p99_ms` are of a whole session (four requests). Every connection goes to the
//! given URL (127.0.0.1 in the benchmarks); the run stops by itself after `--seconds`.

use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde_json::json;

struct Args {
    url: String,
    conc: usize,
    seconds: f64,
}

fn parse_args() -> Args {
    let mut a = Args {
        url: "http://127.0.0.1:8080/mcp".into(),
        conc: 32,
        seconds: 8.0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--url" => a.url = value,
            "--conc" => a.conc = value.parse().expect("--conc N"),
            "--seconds" => a.seconds = value.parse().expect("--seconds S"),
            other => {
                eprintln!("churn_load: unknown argument {other}");
                eprintln!("usage: churn_load --url URL [--conc N] [--seconds S]");
                std::process::exit(2);
            }
        }
        i += 2;
    }
    a
}

const VERSION: &str = "2025-11-25";

/// Sends one step of a session; `Err` names the step.
async fn send(step: &str, request: reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
    request.send().await.map_err(|e| format!("{step}: {e}"))
}

/// Reads a step's body, which must carry a JSON-RPC `result`.
async fn result(step: &str, response: reqwest::Response) -> Result<(), String> {
    let body = response.text().await.map_err(|e| format!("{step}: {e}"))?;
    if body.contains("\"result\"") {
        Ok(())
    } else {
        Err(format!("{step}: {body:.200}"))
    }
}

/// One session from `initialize` to `DELETE`; `Err` says which step went wrong.
async fn session(http: &reqwest::Client, url: &str) -> Result<(), String> {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": VERSION, "capabilities": {},
                   "clientInfo": {"name": "churn_load", "version": "1"}}
    });
    let response = send("initialize", http.post(url).json(&initialize)).await?;
    let id = response
        .headers()
        .get("mcp-session-id")
        .cloned()
        .ok_or("initialize: no Mcp-Session-Id")?;
    result("initialize", response).await?;
    let mut headers = HeaderMap::new();
    headers.insert("mcp-session-id", id);
    headers.insert("mcp-protocol-version", HeaderValue::from_static(VERSION));

    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let request = http.post(url).headers(headers.clone()).json(&initialized);
    let status = send("initialized", request).await?.status();
    if status.as_u16() != 202 {
        return Err(format!("initialized: HTTP {status}"));
    }
    let call = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}
    });
    let request = http.post(url).headers(headers.clone()).json(&call);
    result("tools/call", send("tools/call", request).await?).await?;
    let status = send("DELETE", http.delete(url).headers(headers))
        .await?
        .status();
    if !status.is_success() {
        return Err(format!("DELETE: HTTP {status}"));
    }
    Ok(())
}

#[tokio::main]
async fn main() {
    let args = parse_args();
    let mut defaults = HeaderMap::new();
    defaults.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    defaults.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // One keep-alive HTTP/1.1 connection per worker, as a client that churns sessions
    // (not connections) would have.
    let http = reqwest::Client::builder()
        .default_headers(defaults)
        .http1_only()
        .pool_max_idle_per_host(args.conc)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("an HTTP client");
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(args.seconds);
    let workers: Vec<_> = (0..args.conc)
        .map(|_| {
            let http = http.clone();
            let url = args.url.clone();
            tokio::spawn(async move {
                let (mut times, mut errors, mut first_error) = (Vec::new(), 0usize, None);
                while Instant::now() < deadline {
                    let t = Instant::now();
                    match session(&http, &url).await {
                        Ok(()) => times.push(t.elapsed()),
                        Err(e) => {
                            errors += 1;
                            first_error.get_or_insert(e);
                        }
                    }
                }
                (times, errors, first_error)
            })
        })
        .collect();
    let (mut times, mut errors, mut first_error) = (Vec::new(), 0, None);
    for worker in workers {
        let (t, e, first) = worker.await.expect("a worker");
        times.extend(t);
        errors += e;
        first_error = first_error.or(first);
    }
    let secs = started.elapsed().as_secs_f64();
    times.sort_unstable();
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    if let Some(e) = first_error {
        eprintln!("churn_load: first error: {e}");
    }
    println!(
        "sessions={} secs={secs:.2} rate={:.0} errors={errors} p50_ms={:.2} p99_ms={:.2}",
        times.len(),
        times.len() as f64 / secs,
        pct(0.5),
        pct(0.99)
    );
}
