use mcp_framework::resource;

/// Reads a section of a document.
#[resource(template = "test://docs/{id}/{section}")]
fn section(id: String, page: u32) -> String {
    format!("{id} {page}")
}

fn main() {}
