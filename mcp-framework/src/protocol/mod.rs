//! Serde types for every MCP message, for revision 2026-07-28 and the legacy shapes that
//! differ. Plain data: no I/O, no tokio, no axum.

pub mod capabilities;
pub mod implementation;
pub mod jsonrpc;
pub mod logging;
pub mod meta;
pub mod params;
pub mod result;
pub mod version;

pub use capabilities::*;
pub use implementation::*;
pub use jsonrpc::{ErrorObject, RequestId, codes};
pub use logging::LoggingLevel;
pub use meta::{ProgressToken, keys};
pub use params::*;
pub use result::*;
pub use version::ProtocolVersion;
