//! `baseline`: the floor for `scripts/bench`. No MCP in it: each request is parsed into a
//! `serde_json::Value` and answered with a fixed-shape `tools/call` result echoing its id,
//! which is the least any MCP server must do per request. What is left above it in the
//! framework's figures is the framework's own cost.
//!
//! ```text
//! baseline http --bind 127.0.0.1:PORT   # POST /mcp (parse + serialize), POST /static (no JSON work)
//! baseline stdio                        # one response line per request line
//! ```
//!
//! stdio flushes only when no more input is already buffered: batched writes under
//! pipelining, an immediate answer in lock-step.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// The answer to one JSON-RPC message: `None` for a notification (no `id`); a parse error
/// with a null id for input that is not JSON.
fn respond(message: &[u8]) -> Option<Vec<u8>> {
    let reply = match serde_json::from_slice::<Value>(message) {
        Ok(mut request) => {
            let id = request.get_mut("id")?.take();
            json!({
                "jsonrpc": "2.0",
                "id": id,
                "result": {
                    "resultType": "complete",
                    "content": [{"type": "text", "text": "3"}],
                    "structuredContent": {"sum": 3}
                }
            })
        }
        Err(_) => json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": "Parse error"}
        }),
    };
    Some(serde_json::to_vec(&reply).expect("a Value always serializes"))
}

async fn mcp(body: Bytes) -> Response {
    match respond(&body) {
        Some(out) => ([(header::CONTENT_TYPE, "application/json")], out).into_response(),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

async fn fixed(static_body: Bytes) -> Response {
    drop(static_body);
    let body = respond(br#"{"id":1}"#).expect("a request with an id has an answer");
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn http(addr: SocketAddr) -> io::Result<()> {
    let app = Router::new()
        .route("/mcp", post(mcp))
        .route("/static", post(fixed));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("baseline: POST http://{addr}/mcp (parse + serialize), /static (no JSON work)");
    axum::serve(listener, app).await
}

fn stdio() -> io::Result<()> {
    let mut input = BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut line = Vec::with_capacity(1024);
    loop {
        if input.buffer().is_empty() {
            out.flush()?; // about to block on a read: push out what is written
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let message = line.trim_ascii();
        if message.is_empty() {
            continue;
        }
        if let Some(reply) = respond(message) {
            out.write_all(&reply)?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["stdio"] => stdio(),
        ["http", "--bind", addr] => {
            let addr: SocketAddr = addr
                .parse()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{addr}: {e}")))?;
            tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?
                .block_on(http(addr))
        }
        _ => {
            eprintln!("usage: baseline stdio | baseline http --bind 127.0.0.1:PORT");
            std::process::exit(2)
        }
    }
}
