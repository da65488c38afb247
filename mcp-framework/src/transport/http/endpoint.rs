//! What every router and listener of one server shares ([`Http`]: its settings, sessions and
//! body budget), what every request to one endpoint shares ([`Endpoint`]), and the legacy
//! session a request names with `Mcp-Session-Id`.

use std::sync::Arc;

use axum::http::HeaderMap;

use super::budget::BodyBudget;
use super::checks::{ConfigError, Guard};
use super::config::HttpConfig;
use super::sessions::{HttpSession, Sessions};
use crate::runtime::state::ServerInner;

pub(super) const SESSION_HEADER: &str = "mcp-session-id";

/// The HTTP side of one server, made once by `build()`: its settings, the legacy sessions
/// and the body budget that every router and listener of the server share.
#[derive(Debug)]
pub(crate) struct Http {
    pub(super) config: HttpConfig,
    /// Legacy HTTP sessions by `Mcp-Session-Id`.
    pub(super) sessions: Sessions,
    /// The bytes request bodies being received may buffer together.
    pub(super) budget: Arc<BodyBudget>,
    /// The Server Card served beside the endpoint, if any.
    pub(crate) card: Option<crate::card::Card>,
}

impl Http {
    /// The HTTP side of a server with these settings, once their hosts, origins and proxies
    /// parse (the only place they are checked: what is served is this).
    pub(crate) fn new(
        config: HttpConfig,
        card: Option<crate::card::Card>,
    ) -> Result<Self, ConfigError> {
        Guard::new(&config, None)?;
        Ok(Self {
            sessions: Sessions::new(&config),
            budget: Arc::new(BodyBudget::new(config.max_buffered_body_bytes)),
            config,
            card,
        })
    }
}

/// What every request to the endpoint shares.
#[derive(Debug)]
pub(super) struct Endpoint {
    pub(super) server: Arc<ServerInner>,
    /// The server's settings, sessions and body budget.
    pub(super) http: Arc<Http>,
    pub(super) guard: Guard,
    /// Bearer tokens on every request.
    #[cfg(feature = "auth")]
    pub(super) auth: Option<Arc<crate::auth::Authorization>>,
}

impl Endpoint {
    /// The server's legacy sessions.
    pub(super) fn sessions(&self) -> &Sessions {
        &self.http.sessions
    }
}

/// The session a request names with `Mcp-Session-Id`: `None` without the header, `Err`
/// when it names a session that is gone.
pub(super) fn session_of(
    ep: &Endpoint,
    headers: &HeaderMap,
) -> Option<Result<Arc<HttpSession>, ()>> {
    let id = headers.get(SESSION_HEADER)?;
    let id = id.to_str().unwrap_or_default();
    Some(ep.sessions().get(id).ok_or(()))
}
