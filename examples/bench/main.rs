//! `bench`: the server the load benchmarks measure (see `BENCHMARKS.md`).
//!
//! ```text
//! bench stdio
//! bench http --bind 127.0.0.1:PORT      # endpoint /mcp
//! ```
//!
//! Tools: `echo(text)`, `add(a, b) -> {sum}` and 100 filler tools `tool_000`…`tool_099`
//! taking `s: String, n: i64, f: bool` and returning `"ok"`.
//!
//! For `scripts/bench realistic`, the same workloads the peers serve: `records() ->
//! {records}` (470 records, a 64 KiB structured result checked against its output
//! schema), the resource `bench://blob` (1 MiB of text), and `BENCH_EXTRA_TOOLS=N` more
//! tools `extra_0000`… sharing one handler and one schema (897 make a list of 1,000).

use std::sync::LazyLock;

use mcp_framework::protocol::JsonObject;
use mcp_framework::{CallToolResult, Content, Server, ToolDefinition, ToolSet, resource, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// Echoes the text back.
#[tool]
fn echo(
    /// Any text.
    text: String,
) -> String {
    text
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

/// Adds two numbers.
#[tool]
fn add(
    /// Left operand.
    a: f64,
    /// Right operand.
    b: f64,
) -> Sum {
    Sum { sum: a + b }
}

macro_rules! filler {
    ($($name:ident),*) => {$(
        /// A filler tool: it exists to make the tool list realistically long.
        #[tool]
        fn $name(
            /// A string.
            s: String,
            /// An integer.
            n: i64,
            /// A flag.
            f: bool,
        ) -> &'static str {
            let _ = (s, n, f);
            "ok"
        }
    )*};
}

filler!(
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

/// The records `records` answers with: 470 of them, about 64 KiB of JSON. (The peers
/// build the same ones.)
static RECORDS: LazyLock<Vec<Record>> = LazyLock::new(|| {
    (0..470)
        .map(|i| Record {
            id: i,
            name: format!("Customer {i:04}"),
            email: format!("customer{i:04}@example.com"),
            tags: vec![
                "retail".into(),
                format!("region-{}", i % 7),
                "newsletter".into(),
            ],
            score: f64::from(i) * 1.5,
            active: i % 3 != 0,
        })
        .collect()
});

/// Lists the customer records.
#[tool]
fn records() -> Records {
    Records {
        records: RECORDS.clone(),
    }
}

/// 1 MiB of text.
static BLOB: LazyLock<String> = LazyLock::new(|| "0123456789abcdef".repeat(65_536));

/// A 1 MiB text document.
#[resource(uri = "bench://blob", mime = "text/plain", name = "blob")]
fn blob() -> String {
    BLOB.clone()
}

/// `BENCH_EXTRA_TOOLS` more tools, one handler and one schema shared among them.
fn extra_tools() -> ToolSet {
    let count: usize = std::env::var("BENCH_EXTRA_TOOLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let schema: JsonObject = serde_json::from_value(serde_json::json!({
        "type": "object",
        "properties": {"s": {"type": "string"}, "n": {"type": "integer"}, "f": {"type": "boolean"}},
        "required": ["s", "n", "f"]
    }))
    .expect("an object");
    (0..count).fold(ToolSet::new(), |set, i| {
        set.with_fn(
            ToolDefinition::new(format!("extra_{i:04}"), schema.clone())
                .description("A filler tool: it exists to make the tool list realistically long."),
            |_, _| async { Ok(CallToolResult::success(vec![Content::text("ok")])) },
        )
    })
}

#[tokio::main]
async fn main() -> Result<(), mcp_framework::Error> {
    Server::builder()
        .name("bench")
        .version(env!("CARGO_PKG_VERSION"))
        .add_tools(extra_tools())
        .run()
        .await
}
