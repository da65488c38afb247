//! `schema = …` names a profile and `allow(…)` names rules: anything else is an error.
use mcp_framework::tool;

/// Adds.
#[tool(schema = "strict", allow(tuples, tool_name))]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
