use mcp_framework::tool;

/// An unknown option, a duplicate.
#[tool]
fn list(
    #[arg(maximum = 3)] page: u32,
    #[arg(default = 1, default = 2)] size: u32,
) -> String {
    format!("{page} {size}")
}

fn main() {}
