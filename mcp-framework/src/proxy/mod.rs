//! Proxies (feature `proxy`): another MCP server's tools, prompts, resources and templates
//! served as this server's own, under a prefix, through this server's pipeline (its
//! authorization, scopes, middleware, metrics, caching hints, listen streams and tasks
//! apply to them as to local items).
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_framework::Error> {
//! use mcp_framework::Server;
//! use mcp_framework::proxy::Upstream;
//!
//! Server::builder()
//!     .name("gateway")
//!     .proxy("time", Upstream::stdio("uvx", ["mcp-server-time"]))
//!     .await?
//!     .run()
//!     .await
//! # }
//! ```
//!
//! `upstream.rs` says where the upstream is and starts it; `link.rs` keeps the connection
//! (restarted with backoff when it dies) and follows its changes; `lists.rs` lists what it
//! serves; `items.rs` turns its lists into this server's items (relaying a modern
//! upstream's input requests to the caller); `forward.rs` runs a forwarded request and
//! asks its caller what the upstream asks, `parked.rs` keeps one waiting between its
//! caller's rounds; `complete.rs` completes their arguments upstream; `callers.rs` says
//! whose a legacy upstream's questions are and how a forwarded request speaks for its
//! caller; `tasks.rs` waits for a legacy upstream's task (2025-11-25), `adopted.rs` makes a
//! modern upstream's task this server's; `skills.rs` forwards a modern upstream's Skills
//! extension; `attach.rs` is `ServerBuilder::proxy`.

// The children name one another, never this module (`scripts/check-layers`: no circles).
mod adopted;
mod attach;
mod callers;
mod complete;
mod forward;
mod items;
mod link;
mod lists;
mod meta;
mod parked;
mod skills;
mod tasks;
mod upstream;

pub use upstream::Upstream;
