use mcp_framework::tool;

struct Opaque;

/// Takes something that cannot be decoded.
#[tool]
fn take(value: Opaque) -> String {
    let _ = value;
    String::new()
}

fn main() {}
