use mcp_framework::prompt;

/// Headers are for tools.
#[prompt]
fn greet(#[header("X-Name")] name: String) -> String {
    name
}

fn main() {
    let _ = greet(String::new());
}
