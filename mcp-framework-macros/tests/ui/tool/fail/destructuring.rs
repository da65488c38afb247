use mcp_framework::tool;

/// Destructures.
#[tool]
fn point((x, y): (i32, i32), _: u8) -> i32 {
    x + y
}

fn main() {}
