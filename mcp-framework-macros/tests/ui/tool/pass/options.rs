//! Every `#[tool(…)]` option, `#[header]`, and `register = false`.
#![deny(warnings)]

use mcp_framework::{Server, tool, tools};

/// Described by the docs (overridden).
#[tool(
    name = "math.multiply",
    title = "Multiply",
    description = "Multiplies two integers.",
    read_only,
    destructive = false,
    idempotent = true,
    open_world = false,
    icon = "https://example.com/multiply.png",
    icon = "data:image/png;base64,iVBORw0KGgo=",
    meta = r#"{"com.example/category": "math"}"#,
    schema = "portable",
    allow(tool_name)
)]
fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

/// Parameters mirrored into HTTP headers.
#[tool]
fn route(
    #[header("Region")] region: String,
    #[header("X-Priority")] priority: Option<u8>,
    #[header("Dry-Run")] dry_run: bool,
    #[header("Tenant")] tenant: &str,
    body: String,
) -> String {
    format!("{region} {priority:?} {dry_run} {tenant} {body}")
}

/// Added at run time only.
#[tool(register = false)]
fn late() -> String {
    "late".into()
}

/// The description comes from a file.
#[tool(description = include_str!("options.rs"))]
fn described() {}

fn main() {
    let server = Server::builder()
        .tools(tools![multiply, route, described])
        .build()
        .unwrap();
    server.handle().add_tools(tools![late]).unwrap();
    assert!(server.handle().has_tool("late"));
    assert!(server.handle().has_tool("math.multiply"));
}
