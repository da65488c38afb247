use mcp_framework::prompt;

fn not_a_completer(x: u32) -> u32 {
    x
}

/// Completes with the wrong function.
#[prompt]
fn greet(#[complete(not_a_completer)] name: String) -> String {
    name
}

fn main() {}
