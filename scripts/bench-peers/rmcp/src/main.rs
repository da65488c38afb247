//! `bench-rmcp`: the `examples/bench` server (same tools) built with rmcp, the official Rust
//! MCP SDK, for `scripts/bench peers`.
//!
//! ```text
//! bench-rmcp                              # stdio
//! bench-rmcp stdio
//! bench-rmcp http --bind 127.0.0.1:PORT   # Streamable HTTP, endpoint /mcp
//! ```
//!
//! Tools: `echo(text)`, `add(a, b) -> {sum}` (structured output, with an output schema) and 100
//! filler tools `tool_000`…`tool_099` taking `s: String, n: i64, f: bool` and returning `"ok"`.
//! For `scripts/bench realistic`, as `examples/bench`: `records() -> {records}` (470
//! records, 64 KiB), the resource `bench://blob` (1 MiB of text), and `BENCH_EXTRA_TOOLS=N`
//! more tools `extra_0000`… (one handler, one schema).
//!
//! Configuration, chosen as the best rmcp 3.11 does for this workload:
//! - The `ToolRouter` (102 routes, their JSON schemas) is built once, at start, and shared
//!   through an `Arc`: the HTTP service factory, called for every stateless request, only
//!   clones that `Arc` (no per-request schema generation or map building).
//! - HTTP: `StreamableHttpService` with `legacy_session_mode = false` (stateless: no
//!   `initialize`, no `Mcp-Session-Id`; 2026-07-28 requests are always served this way) and
//!   `json_response = true` (a plain `application/json` answer, no SSE framing), SSE
//!   keep-alive off, `LocalSessionManager` (unused when stateless). Served by axum
//!   (`route_service("/mcp", …)`) over HTTP/1.1, like this framework's load runs.
//! - stdio: `rmcp::transport::stdio()`; rmcp accepts a 2026-07-28 request (per-request `_meta`)
//!   as the first message, so no `initialize` is needed.
//! - Tokio multi-threaded runtime (the default of `#[tokio::main]`), as in `examples/bench`.
//! - Release profile identical to the workspace's (fat LTO, one codegen unit).

use std::sync::{Arc, LazyLock};

use bench_peer_rmcp::{AddArgs, EchoArgs, Record, Records, Sum, serve};
use rmcp::{
    ErrorData, Json, RoleServer, ServerHandler,
    handler::server::{
        common::schema_for_type,
        router::tool::{ToolRoute, ToolRouter},
        wrapper::Parameters,
    },
    model::{
        Implementation, ListResourcesResult, PaginatedRequestParams,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
        ResourceContents, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;

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

#[derive(Clone)]
struct Bench {
    tool_router: Arc<ToolRouter<Bench>>,
}

/// Built once; every `Bench` (one per stateless HTTP request) shares it.
static ROUTER: LazyLock<Arc<ToolRouter<Bench>>> = LazyLock::new(|| {
    let mut router = Bench::tool_router();
    let schema = schema_for_type::<FillerArgs>();
    // The 100 fillers, then `BENCH_EXTRA_TOOLS` more, all the same tool.
    let extra: usize = std::env::var("BENCH_EXTRA_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let names = (0..100)
        .map(|i| format!("tool_{i:03}"))
        .chain((0..extra).map(|i| format!("extra_{i:04}")));
    for name in names {
        let attr = Tool::new(
            name,
            "A filler tool: it exists to make the tool list realistically long.",
            schema.clone(),
        );
        router.add_route(ToolRoute::new(attr, filler));
    }
    Arc::new(router)
});

static RECORDS: LazyLock<Vec<Record>> = LazyLock::new(bench_peer_rmcp::records);
static BLOB: LazyLock<String> = LazyLock::new(|| "0123456789abcdef".repeat(65_536));

fn filler(Parameters(args): Parameters<FillerArgs>) -> String {
    let _ = args;
    "ok".to_owned()
}

#[tool_router]
impl Bench {
    /// Echoes the text back.
    #[tool]
    fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }

    /// Adds two numbers.
    #[tool]
    fn add(&self, Parameters(args): Parameters<AddArgs>) -> Json<Sum> {
        Json(Sum {
            sum: args.a + args.b,
        })
    }

    /// Lists the customer records.
    #[tool]
    fn records(&self) -> Json<Records> {
        Json(Records {
            records: RECORDS.clone(),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("bench", env!("CARGO_PKG_VERSION")))
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let blob = Resource::new("bench://blob", "blob");
        Ok(ListResourcesResult::with_all_items(vec![blob]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "bench://blob" {
            return Err(ErrorData::resource_not_found("no such resource", None));
        }
        let contents = ResourceContents::text(BLOB.clone(), "bench://blob");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

fn bench() -> Bench {
    Bench {
        tool_router: ROUTER.clone(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    LazyLock::force(&ROUTER);
    serve("bench-rmcp", bench).await
}
