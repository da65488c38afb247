//! An MCP client: to a [`Server`](crate::server::Server) in this process (for tests, over
//! an in-memory pipe in the real stdio wire format), to a server started as a child process
//! over stdio, or (feature `client-http`) to a Streamable HTTP endpoint. It speaks
//! 2026-07-28 and falls back to `initialize` for a legacy server (found out with the
//! `server/discover` probe the spec prescribes), follows pagination, MRTR rounds and tasks,
//! and answers elicitation, sampling and roots requests through callbacks, whichever era
//! asks them.
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
mod era;
mod error;
mod extension;
mod facade;
pub(crate) mod handlers;
mod requests;
mod resolve;
mod subscription;
mod transport;
mod typed;

pub use builder::ClientBuilder;
pub use error::ClientError;
pub use extension::{ClientExtension, Launch};
pub use facade::Client;
pub use requests::RequestOptions;
pub use subscription::Subscription;
