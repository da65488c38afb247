use mcp_framework::tool;

/// A default of the wrong type: reported at the value.
#[tool]
fn list(#[arg(default = "ten")] limit: u32) -> String {
    format!("{limit}")
}

fn main() {}
