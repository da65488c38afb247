use mcp_framework::tool;

struct NotAView;

/// A tool.
#[tool(ui = NotAView)]
fn a() -> String {
    String::new()
}

#[tool(ui = "https://example.com/view")]
fn b() -> String {
    String::new()
}

#[tool(visibility = "agent")]
fn c() -> String {
    String::new()
}

#[tool(visibility = [])]
fn d() -> String {
    String::new()
}

#[tool(ui = 42)]
fn e() -> String {
    String::new()
}

fn main() {}
