use mcp_framework::{prompt, resource, tool};

/// A scope with a space is two scopes.
#[tool(scopes = ["notes:read notes:write"])]
fn spaced() -> &'static str {
    "x"
}

/// An empty list.
#[tool(scopes = [])]
fn empty() -> &'static str {
    "x"
}

/// Hidden, but from whom?
#[prompt(hidden)]
fn hidden_for_nobody() -> String {
    "x".into()
}

/// Not a list of strings.
#[resource(uri = "test://r", scopes = [notes])]
fn not_strings() -> String {
    "x".into()
}

fn main() {}
