//! `schema = …` and `allow(…)` reach the definitions: `build()` shapes each tool with its
//! own profile and accepts what it allows. Nothing warns here.
#![deny(warnings)]

use mcp_framework::{SchemaProfile, Server, tool, tools};

/// Dotted, and with a tuple: fine under the standard profile.
#[tool(name = "geo.midpoint", schema = "standard")]
fn midpoint(a: (f64, f64), b: (f64, f64)) -> String {
    format!("{} {}", (a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)
}

/// Strict, with an optional argument.
#[tool(schema = "openai_strict")]
fn greet(name: String, title: Option<String>) -> String {
    format!("Hello, {}{name}!", title.map(|t| t + " ").unwrap_or_default())
}

/// A tuple accepted knowingly.
#[tool(allow(tuple))]
fn pair(p: (u8, u8)) -> u16 {
    u16::from(p.0) + u16::from(p.1)
}

fn main() {
    let server = Server::builder()
        .schema_profile(SchemaProfile::Portable)
        .tools(tools![midpoint, greet, pair])
        .prompts(Default::default())
        .resources(Default::default())
        .build()
        .unwrap();
    assert!(server.handle().has_tool("geo.midpoint"));
}
