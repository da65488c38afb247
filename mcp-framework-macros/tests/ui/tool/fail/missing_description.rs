#![deny(deprecated)]

use mcp_framework::tool;

#[tool]
fn undocumented(a: f64) -> f64 {
    a
}

/// Documented: no warning.
#[tool]
fn documented(a: f64) -> f64 {
    a
}

#[tool(description = "Described: no warning.")]
fn described(a: f64) -> f64 {
    a
}

fn main() {}
