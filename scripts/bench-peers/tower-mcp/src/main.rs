//! `bench-tower-mcp`: the `examples/bench` server (same tools) built with tower-mcp, for
//! `scripts/bench peers`.
//!
//! ```text
//! bench-tower-mcp                              # stdio
//! bench-tower-mcp stdio
//! bench-tower-mcp http --bind 127.0.0.1:PORT   # Streamable HTTP, endpoint /mcp
//! ```
//!
//! Tools: `echo(text)`, `add(a, b) -> {sum}` (structured output, with an output schema) and 100
//! filler tools `tool_000`…`tool_099` taking `s: String, n: i64, f: bool` and returning `"ok"`.
//! For `scripts/bench realistic`, as `examples/bench`: `records() -> {records}` (470
//! records, 64 KiB), the resource `bench://blob` (1 MiB of text), and `BENCH_EXTRA_TOOLS=N`
//! more tools `extra_0000`….
//!
//! Configuration, chosen as the best tower-mcp 0.25 does for this workload:
//! - Features `http` and `protocol-2026-07-28` only (no `schema-validation`: this framework's
//!   `bench` is compared with argument validation through its typed parameters, and tower-mcp
//!   deserializes typed inputs the same way; no tracing subscriber is installed).
//! - The `McpRouter` (102 tools, their schemas) is built once at start; `HttpTransport` keeps it
//!   for the life of the server.
//! - HTTP: `HttpTransport` with its defaults for this case: a 2026-07-28 request
//!   (`MCP-Protocol-Version: 2026-07-28`, no `Mcp-Session-Id`) is dispatched statelessly (no
//!   `initialize`, no session), answers are bare `application/json` (`sse_responses(false)`,
//!   the default). `stamp_server_info(false)`: no server identity in every result's `_meta`
//!   (the spec's SHOULD, which this framework's `bench` does write, as rmcp does not: the peer
//!   is given its cheaper setting, so it does slightly less per answer). Mounted at `/mcp` with
//!   `into_router_at` and served by `axum::serve` over HTTP/1.1, like this framework's runs.
//! - stdio: `StdioTransport`; it accepts a 2026-07-28 request (per-request `_meta`) as the first
//!   message, so no `initialize` is needed.
//! - Tokio multi-threaded runtime (the default of `#[tokio::main]`), as in `examples/bench`.
//! - Release profile identical to the workspace's (fat LTO, one codegen unit).

use std::sync::LazyLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tower_mcp::{
    BoxError, CallToolResult, McpRouter, ResourceBuilder, StdioTransport, ToolBuilder,
};
use tower_mcp::transport::http::HttpTransport;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// Any text.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// Left operand.
    a: f64,
    /// Right operand.
    b: f64,
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct FillerArgs {
    /// A string.
    s: String,
    /// An integer.
    n: i64,
    /// A flag.
    f: bool,
}

/// A customer record.
#[derive(Clone, Serialize, JsonSchema)]
struct Record {
    id: u32,
    name: String,
    email: String,
    tags: Vec<String>,
    score: f64,
    active: bool,
}

/// Customer records.
#[derive(Serialize, JsonSchema)]
struct Records {
    records: Vec<Record>,
}

/// The 470 records of `records` (about 64 KiB of JSON), the same as `examples/bench`'s.
static RECORDS: LazyLock<Vec<Record>> = LazyLock::new(|| {
    (0..470)
        .map(|i| Record {
            id: i,
            name: format!("Customer {i:04}"),
            email: format!("customer{i:04}@example.com"),
            tags: vec!["retail".into(), format!("region-{}", i % 7), "newsletter".into()],
            score: f64::from(i) * 1.5,
            active: i % 3 != 0,
        })
        .collect()
});

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

fn router() -> McpRouter {
    let echo = ToolBuilder::new("echo")
        .description("Echoes the text back.")
        .handler(|args: EchoArgs| async move { Ok(CallToolResult::text(args.text)) })
        .build();
    let add = ToolBuilder::new("add")
        .description("Adds two numbers.")
        .output_schema_for::<Sum>()
        .handler(|args: AddArgs| async move {
            CallToolResult::from_serialize(&Sum { sum: args.a + args.b })
        })
        .build();
    let mut router = McpRouter::new()
        .server_info("bench", env!("CARGO_PKG_VERSION"))
        .tool(echo)
        .tool(add);
    // The 100 fillers, then `BENCH_EXTRA_TOOLS` more, all the same tool.
    let extra: usize = std::env::var("BENCH_EXTRA_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let names = (0..100)
        .map(|i| format!("tool_{i:03}"))
        .chain((0..extra).map(|i| format!("extra_{i:04}")));
    for name in names {
        let filler = ToolBuilder::new(name)
            .description("A filler tool: it exists to make the tool list realistically long.")
            .handler(|args: FillerArgs| async move {
                let _ = args;
                Ok(CallToolResult::text("ok"))
            })
            .build();
        router = router.tool(filler);
    }
    let records = ToolBuilder::new("records")
        .description("Lists the customer records.")
        .output_schema_for::<Records>()
        .handler(|_: NoArgs| async move {
            CallToolResult::from_serialize(&Records { records: RECORDS.clone() })
        })
        .build();
    let blob = ResourceBuilder::new("bench://blob")
        .name("blob")
        .mime_type("text/plain")
        .text("0123456789abcdef".repeat(65_536));
    router.tool(records).resource(blob)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] | ["stdio"] => {
            StdioTransport::new(router()).run().await?;
        }
        ["http", "--bind", addr] => {
            let app = HttpTransport::new(router())
                .stamp_server_info(false)
                .into_router_at("/mcp");
            let listener = tokio::net::TcpListener::bind(addr).await?;
            axum::serve(listener, app).await?;
        }
        _ => {
            eprintln!("usage: bench-tower-mcp [stdio] | bench-tower-mcp http --bind 127.0.0.1:PORT");
            std::process::exit(2);
        }
    }
    Ok(())
}
