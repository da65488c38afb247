use mcp_framework::tool;

/// Returns something displayable.
#[tool]
fn show() -> impl std::fmt::Display {
    42
}

fn main() {}
