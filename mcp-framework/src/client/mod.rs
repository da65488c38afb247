//! An in-process MCP client for tests: it talks to a [`Server`](crate::server::Server)
//! over an in-memory pipe using the real stdio wire format, in modern (2026-07-28) or
//! legacy mode, and answers elicitation, sampling and roots requests through callbacks
//! (retrying MRTR requests for you, or answering legacy server-to-client requests).
//!
//! ```
//! # async fn demo(server: mcp_framework::Server) -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_framework::client::Client;
//! let client = Client::connect(&server).await?;
//! let tools = client.list_tools().await?;
//! let result = client.call_tool("add", serde_json::json!({"a": 1, "b": 2})).await?;
//! # Ok(()) }
//! ```

// Each file below owns one concern (its `//!` says which). This file only re-exports:
// `scripts/check-layers` allows no circle of modules, so the children name one another,
// never this module, and `Client` lives in `facade.rs`.
mod builder;
mod connection;
mod error;
mod facade;
mod handlers;
mod requests;
mod resolve;
mod subscription;
mod typed;

pub use builder::ClientBuilder;
pub use error::ClientError;
pub use facade::Client;
pub use requests::RequestOptions;
pub use subscription::Subscription;
