//! The notes server (see `lib.rs`):
//!
//! ```text
//! notes stdio                          # for a desktop client that spawns it
//! notes http --bind 127.0.0.1:8080     # Streamable HTTP at http://127.0.0.1:8080/mcp
//! ```

#[tokio::main]
async fn main() -> Result<(), mcp_framework::Error> {
    notes::builder().run().await
}
