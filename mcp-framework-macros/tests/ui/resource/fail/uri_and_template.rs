use mcp_framework::resource;

/// Both.
#[resource(uri = "test://a", template = "test://{id}")]
fn both(id: String) -> String {
    id
}

/// Neither.
#[resource(name = "neither")]
fn neither() -> String {
    String::new()
}

fn main() {}
