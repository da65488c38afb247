use mcp_framework::tool;

/// A `'static` reference cannot borrow from the arguments.
#[tool]
fn keep(name: &'static str) -> usize {
    name.len()
}

fn main() {}
