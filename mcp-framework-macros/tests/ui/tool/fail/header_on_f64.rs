use mcp_framework::tool;

/// Converts a price.
#[tool]
fn convert(#[header("Price")] price: f64, #[header("Tags")] tags: Vec<String>) -> String {
    format!("{price} {tags:?}")
}

fn main() {}
