//! A server built with the stdio transport only (`--no-default-features --features
//! inventory[,cli]`): what a stdio-only build weighs, and how fast it starts, with and
//! without the `cli` feature's command line.

use mcp_framework::{Server, tool};

/// Shouts the text back.
#[tool]
fn shout(
    /// What to shout.
    text: String,
) -> String {
    text.to_uppercase()
}

#[tokio::main]
async fn main() -> Result<(), mcp_framework::Error> {
    Server::builder()
        .name("stdio_only")
        .version(env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
