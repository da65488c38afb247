//! What the two rmcp bench servers share: the parameters and result of `echo` and `add`, the
//! server's description, and serving it over stdio or Streamable HTTP from the command line
//! (`bench-rmcp`, `bench-rmcp-distinct`: see their `main.rs` for what differs, the fillers).

use std::error::Error;

use rmcp::{
    ServerHandler, ServiceExt,
    model::{Implementation, ServerCapabilities, ServerConfig},
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// `echo`'s parameters (no doc comment: it would become the schema's description).
#[derive(Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// Any text.
    pub text: String,
}

// `add`'s parameters.
#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    /// Left operand.
    pub a: f64,
    /// Right operand.
    pub b: f64,
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
pub struct Sum {
    // `a + b` (no doc comment, as in `examples/bench`).
    pub sum: f64,
}

/// A customer record (`records` of `bench-rmcp`, for `scripts/bench realistic`).
#[derive(Clone, Serialize, JsonSchema)]
pub struct Record {
    pub id: u32,
    pub name: String,
    pub email: String,
    pub tags: Vec<String>,
    pub score: f64,
    pub active: bool,
}

/// Customer records.
#[derive(Serialize, JsonSchema)]
pub struct Records {
    pub records: Vec<Record>,
}

/// The 470 records of `records` (about 64 KiB of JSON), the same as `examples/bench`'s.
pub fn records() -> Vec<Record> {
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
}

/// What both servers say of themselves: tools, and the name `bench`.
pub fn server_config() -> ServerConfig {
    ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        .with_server_info(Implementation::new("bench", env!("CARGO_PKG_VERSION")))
}

/// Serves `bench()` as the command line says: `[stdio]` or `http --bind ADDR`. Over HTTP
/// the service calls `bench` for every stateless request (so it must only clone what it
/// shares); `program` names the binary in the usage message.
pub async fn serve<S>(program: &str, bench: fn() -> S) -> Result<(), Box<dyn Error + Send + Sync>>
where
    S: ServerHandler + Clone + Send + Sync + 'static,
{
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["stdio"] => {
            let running = bench().serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        ["http", "--bind", addr] => {
            // `BENCH_LEGACY_SESSIONS=1` (`scripts/bench realistic`'s session churn): the
            // sessions of 2025-11-25 clients (`initialize`, `Mcp-Session-Id`, `DELETE`).
            let legacy = std::env::var_os("BENCH_LEGACY_SESSIONS").is_some();
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(legacy)
                .with_json_response(true)
                .with_sse_keep_alive(None);
            let service: StreamableHttpService<S, LocalSessionManager> =
                StreamableHttpService::new(move || Ok(bench()), Default::default(), config);
            let app = axum::Router::new().route_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(addr).await?;
            axum::serve(listener, app).await?;
        }
        _ => {
            eprintln!("usage: {program} [stdio] | {program} http --bind 127.0.0.1:PORT");
            std::process::exit(2);
        }
    }
    Ok(())
}
