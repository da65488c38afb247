//! Transports: bytes in, bytes out. They frame messages, multiplex requests and map
//! replies to their wire form, handing each request to `dispatch` with what they know of it
//! (a `Carrier`); what a tool is stays in dispatch. The facade starts them with the
//! runtime state.
//!
//! Imports: dispatch, sessions and subscriptions, the runtime state and the leaves; never
//! the facade, nor the registry, catalog, outcomes or rendering.

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod stdio;
