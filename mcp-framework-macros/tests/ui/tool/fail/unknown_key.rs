use mcp_framework::tool;

/// Adds.
#[tool(nmae = "add")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    // No follow-on error here: the function is still emitted.
    let _ = add(1.0, 2.0);
}
