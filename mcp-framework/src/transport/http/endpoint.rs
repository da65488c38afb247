//! What every request to the endpoint shares ([`Endpoint`]), and the legacy session a
//! request names with `Mcp-Session-Id`.

use std::sync::Arc;

use axum::http::HeaderMap;

use super::budget::BodyBudget;
use super::checks::Guard;
use super::sessions::{HttpSession, Sessions};
use crate::runtime::state::ServerInner;

pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// What every request to the endpoint shares.
#[derive(Debug)]
pub(super) struct Endpoint {
    pub(super) server: Arc<ServerInner>,
    pub(super) sessions: Arc<Sessions>,
    /// The bytes every body being received may buffer together.
    pub(super) budget: Arc<BodyBudget>,
    pub(super) guard: Guard,
    /// Bearer tokens on every request.
    #[cfg(feature = "auth")]
    pub(super) auth: Option<Arc<crate::auth::Authorization>>,
}

/// The session a request names with `Mcp-Session-Id`: `None` without the header, `Err`
/// when it names a session that is gone.
pub(super) fn session_of(
    ep: &Endpoint,
    headers: &HeaderMap,
) -> Option<Result<Arc<HttpSession>, ()>> {
    let id = headers.get(SESSION_HEADER)?;
    let id = id.to_str().unwrap_or_default();
    Some(ep.sessions.get(id).ok_or(()))
}
