use mcp_framework::resource;

/// Broken template.
#[resource(template = "test://docs/{id")]
fn broken(id: String) -> String {
    id
}

fn main() {}
