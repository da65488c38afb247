//! Sync and async tools, doc comments, `Option`, `&str`, `Context` and `#[ctx]`.
#![deny(warnings)]

use mcp_framework::{Context, ServerHandle, tool, tools};

/// Adds two numbers.
///
/// The second paragraph.
#[tool]
async fn add(
    /// The left operand.
    a: f64,
    /** The right operand. */
    b: f64,
) -> f64 {
    a + b
}

/// Greets someone, synchronously.
#[tool]
fn greet(name: &str, greeting: Option<String>) -> String {
    format!("{}, {name}!", greeting.as_deref().unwrap_or("Hello"))
}

/// Uses the request context.
#[tool]
async fn whoami(cx: Context, #[ctx] server: ServerHandle, n: u8) -> String {
    let _ = server.has_tool("whoami");
    format!("{} {n}", cx.protocol_version().as_str())
}

/// Borrows the context.
#[tool]
fn borrow(cx: &Context, #[ctx] server: &ServerHandle) {
    let _ = (cx.is_cancelled(), server.has_tool("x"));
}

/// No parameters, no return value.
#[tool]
fn nothing() {}

/// A raw identifier.
#[tool]
fn r#match(r#type: String) -> String {
    r#type
}

/// A `const fn` is fine.
#[tool]
const fn constant() -> u32 {
    42
}

fn main() {
    let set = tools![add, greet, whoami, borrow, nothing, r#match, constant];
    assert_eq!(set.len(), 7);
    // The functions stay callable.
    let _ = greet("you", None);
    let _ = add(1.0, 2.0);
}
