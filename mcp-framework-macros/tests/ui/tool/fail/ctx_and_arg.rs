use mcp_framework::{State, tool};

struct Store;

/// A parameter cannot be both.
#[tool]
fn both(#[ctx] #[arg] store: State<Store>) -> String {
    let _ = store;
    String::new()
}

fn main() {}
