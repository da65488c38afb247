use mcp_framework::tool;

/// Echoes anything.
#[tool]
fn echo<T: serde::de::DeserializeOwned>(value: T) -> String {
    let _ = value;
    String::new()
}

fn main() {}
