//! `Sink`: the connection as a transport sees it: where the server's messages go, how a
//! request fails in the transport, and the era (what HTTP headers depend on).

use std::sync::Arc;

use serde_json::Value;

use crate::client::error::ClientError;
use crate::protocol::{ProtocolVersion, RequestId};

/// Where a transport puts what the server sends (the connection, seen from below).
pub(in crate::client) trait Sink: Send + Sync {
    /// One message from the server.
    fn deliver(self: Arc<Self>, msg: Value);
    /// The request `id` failed in the transport (a refusal, a broken stream).
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    fn fail(&self, id: &RequestId, error: ClientError);
    /// Whether the request `id` still waits for its answer (or is an open listen).
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    fn is_open(&self, id: &RequestId) -> bool;
    /// The transport is gone: every request waiting fails.
    fn closed(&self);
    /// The legacy revision in use, or `None` while requests are modern.
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    fn legacy(&self) -> Option<ProtocolVersion>;
}
