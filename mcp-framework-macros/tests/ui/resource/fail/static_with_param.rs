use mcp_framework::resource;

/// A static resource cannot take arguments.
#[resource(uri = "test://static-text")]
fn text(id: String) -> String {
    id
}

fn main() {}
