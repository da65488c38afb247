//! Serde types for every MCP message, for revision 2026-07-28 and the legacy shapes that
//! differ. Plain data: no I/O, no tokio, no axum, and nothing else of this crate.

pub mod annotations;
pub mod capabilities;
pub mod completion;
pub mod content;
pub mod discover;
pub mod elicitation;
pub mod implementation;
pub mod jsonrpc;
pub mod legacy;
pub mod logging;
pub mod meta;
pub mod mrtr;
pub mod notifications;
pub mod params;
pub mod primitives;
pub mod prompts;
pub mod resources;
pub mod result;
pub mod roots;
pub mod sampling;
pub mod subscriptions;
pub mod tools;
pub mod version;

pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use implementation::*;
pub use jsonrpc::{ErrorObject, RequestId, codes};
pub use legacy::*;
pub use logging::LoggingLevel;
pub use meta::{ProgressToken, keys};
pub use mrtr::*;
pub use notifications::*;
pub use params::*;
pub use primitives::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tools::*;
pub use version::ProtocolVersion;
