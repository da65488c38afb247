//! What every request to the endpoint shares ([`Endpoint`]), the legacy session a request
//! names with `Mcp-Session-Id`, and the client's address.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::ConnectInfo;
use axum::http::HeaderMap;
use axum::http::request::Parts;

use super::budget::BodyBudget;
use super::checks::HostPolicy;
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
    pub(super) hosts: HostPolicy,
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

/// The client's address, when the server is served with connection info (`serve_http`,
/// or a router served with `into_make_service_with_connect_info::<SocketAddr>()`).
pub(super) fn peer_addr(parts: &Parts) -> Option<IpAddr> {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
}
