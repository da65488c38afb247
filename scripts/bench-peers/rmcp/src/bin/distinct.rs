//! `bench-rmcp-distinct`: `bench-rmcp` with its 100 filler tools written as a user writes 100
//! tools: one `#[tool]` method each, each with its own parameter struct (the same three
//! fields as `examples/bench`'s fillers, which are 100 `#[tool]` functions). `bench-rmcp`
//! routes its fillers to one shared handler with one shared schema, which rmcp allows and a
//! `#[tool]`-function framework does not; this binary measures both SDKs on the same work.
//!
//! ```text
//! bench-rmcp-distinct                              # stdio
//! bench-rmcp-distinct stdio
//! bench-rmcp-distinct http --bind 127.0.0.1:PORT   # Streamable HTTP, endpoint /mcp
//! ```
//!
//! Configuration: as `bench-rmcp` (router built once and shared through an `Arc`; stateless
//! JSON-response HTTP; rmcp's stdio transport; the same release profile).

use std::sync::{Arc, LazyLock};

use bench_peer_rmcp::{AddArgs, EchoArgs, Sum, serve, server_config};
use rmcp::{
    Json, ServerHandler,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::ServerConfig,
    tool, tool_handler, tool_router,
};

#[derive(Clone)]
struct Bench {
    tool_router: Arc<ToolRouter<Bench>>,
}

/// The bench's tools: `echo`, `add` and one filler method per name, each filler with its own
/// parameter struct in a module of its name.
macro_rules! bench_tools {
    ($($name:ident),*) => {
        $(
            #[allow(non_snake_case, dead_code)]
            mod $name {
                #[derive(serde::Deserialize, schemars::JsonSchema)]
                pub(crate) struct Args {
                    /// A string.
                    pub(crate) s: String,
                    /// An integer.
                    pub(crate) n: i64,
                    /// A flag.
                    pub(crate) f: bool,
                }
            }
        )*

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
                Json(Sum { sum: args.a + args.b })
            }

            $(
                /// A filler tool: it exists to make the tool list realistically long.
                #[tool]
                fn $name(&self, Parameters(args): Parameters<$name::Args>) -> String {
                    let _ = args;
                    "ok".to_owned()
                }
            )*
        }
    };
}

bench_tools!(
    tool_000, tool_001, tool_002, tool_003, tool_004, tool_005, tool_006, tool_007, tool_008,
    tool_009, tool_010, tool_011, tool_012, tool_013, tool_014, tool_015, tool_016, tool_017,
    tool_018, tool_019, tool_020, tool_021, tool_022, tool_023, tool_024, tool_025, tool_026,
    tool_027, tool_028, tool_029, tool_030, tool_031, tool_032, tool_033, tool_034, tool_035,
    tool_036, tool_037, tool_038, tool_039, tool_040, tool_041, tool_042, tool_043, tool_044,
    tool_045, tool_046, tool_047, tool_048, tool_049, tool_050, tool_051, tool_052, tool_053,
    tool_054, tool_055, tool_056, tool_057, tool_058, tool_059, tool_060, tool_061, tool_062,
    tool_063, tool_064, tool_065, tool_066, tool_067, tool_068, tool_069, tool_070, tool_071,
    tool_072, tool_073, tool_074, tool_075, tool_076, tool_077, tool_078, tool_079, tool_080,
    tool_081, tool_082, tool_083, tool_084, tool_085, tool_086, tool_087, tool_088, tool_089,
    tool_090, tool_091, tool_092, tool_093, tool_094, tool_095, tool_096, tool_097, tool_098,
    tool_099
);

/// Built once; every `Bench` (one per stateless HTTP request) shares it.
static ROUTER: LazyLock<Arc<ToolRouter<Bench>>> = LazyLock::new(|| Arc::new(Bench::tool_router()));

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        server_config()
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
    serve("bench-rmcp-distinct", bench).await
}
