use mcp_framework::resource;

/// Returns a number.
#[resource(uri = "test://number")]
fn number() -> u32 {
    1
}

fn main() {}
