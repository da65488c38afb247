use mcp_framework::resource;

/// A template variable cannot have a default.
#[resource(template = "notes://{id}")]
fn note(#[arg(default = 1)] id: u32) -> String {
    id.to_string()
}

fn main() {}
