//! [`Carrier`]: what a transport knows of a request besides the message, handed to dispatch
//! with it.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::peer::{HttpParts, PeerId, Sink, StreamCloser, Transport};
use crate::principal::Principal;
use crate::protocol::meta::Head;
use crate::session::legacy::LegacySession;

/// What the transport carrying a request hands to dispatch with it.
#[derive(Debug, Default)]
pub(crate) struct Carrier {
    pub(crate) cancel: CancellationToken,
    /// Where request-scoped messages go (none: they are dropped).
    pub(crate) sink: Option<Sink>,
    /// The legacy session the request arrived on.
    pub(crate) session: Option<Arc<LegacySession>>,
    pub(crate) http: Option<Arc<HttpParts>>,
    /// `params._meta` and where the other members are, when the transport already read
    /// them (HTTP validates headers with them).
    pub(crate) head: Option<Head>,
    /// Closes the response connection, keeping the stream (legacy HTTP).
    pub(crate) close_stream: Option<StreamCloser>,
    /// Who sent it, when the transport knows (limits per client).
    pub(crate) peer: Option<PeerId>,
    /// The principal of a stdio session: an identity the server took from its environment
    /// (`ServerBuilder::stdio_principal`, `Setup::stdio_principal`).
    pub(crate) session_principal: Option<Principal>,
}

impl Carrier {
    /// The request's authenticated principal: HTTP's authentication, or the identity a
    /// stdio session was given.
    pub(crate) fn principal(&self) -> Option<&Principal> {
        match &self.http {
            Some(http) => http.principal.as_ref(),
            None => self.session_principal.as_ref(),
        }
    }

    /// The transport that made this carrier: HTTP hands down its request parts, stdio
    /// framing its connection as the peer, `handle_message` neither.
    pub(crate) fn transport(&self) -> Transport {
        match (&self.http, &self.peer) {
            (Some(_), _) => Transport::Http,
            (None, Some(PeerId::Connection(_))) => Transport::Stdio,
            _ => Transport::Direct,
        }
    }
}
