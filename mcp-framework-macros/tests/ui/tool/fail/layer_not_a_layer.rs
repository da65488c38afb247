use mcp_framework::{Server, tool, tools};

fn not_a_layer() -> u32 {
    7
}

/// Adds.
#[tool(layer = not_a_layer())]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _ = Server::builder().tools(tools![add]).build();
}
