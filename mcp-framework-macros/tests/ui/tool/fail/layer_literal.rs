use mcp_framework::tool;

/// Adds.
#[tool(layer = "timeout")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _ = add(1.0, 2.0);
}
