//! What a transport knows of the peer behind one request and hands down with it: which
//! [`Transport`] it is, the [`Sink`] back to it (request-scoped messages), the
//! [`StreamCloser`] of legacy HTTP polling and, over HTTP, the request's headers and
//! authenticated [`Principal`](crate::Principal).

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::principal::Principal;

/// The transport a request arrived on (see [`Context::transport`](crate::Context::transport)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// Newline-delimited JSON-RPC: stdio, or a stream given to `Server::serve_stream`.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// No transport: a message handed to `Server::handle_message`.
    Direct,
}

impl Transport {
    /// `stdio`, `http` or `direct`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::Http => "http",
            Self::Direct => "direct",
        }
    }
}

/// Who is behind a request, for limits of what one client may hold: an address over HTTP,
/// a connection over stdio.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PeerId {
    /// The client's address (HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Addr(IpAddr),
    /// One connection (stdio, a served stream).
    Connection(u64),
}

impl PeerId {
    /// A peer id no other connection of this process has.
    pub(crate) fn new_connection() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Self::Connection(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// Where request-scoped messages (progress, log messages, legacy server requests) go:
/// the stdio writer or the request's HTTP response stream. Nothing is sent once the
/// request is cancelled.
#[derive(Clone, Debug)]
pub(crate) struct Sink {
    tx: mpsc::Sender<Bytes>,
    cancel: CancellationToken,
}

impl Sink {
    pub(crate) fn new(tx: mpsc::Sender<Bytes>, cancel: CancellationToken) -> Self {
        Self { tx, cancel }
    }

    /// Sends one encoded message; `false` when the request is gone.
    pub(crate) async fn send(&self, message: Bytes) -> bool {
        if self.cancel.is_cancelled() {
            return false;
        }
        self.tx.send(message).await.is_ok()
    }

    /// Sends without waiting (for the `tracing` bridge); drops the message when full.
    pub(crate) fn try_send(&self, message: Bytes) -> bool {
        !self.cancel.is_cancelled() && self.tx.try_send(message).is_ok()
    }
}

/// Closes a request's response connection without ending its stream (legacy HTTP polling).
#[derive(Clone)]
pub(crate) struct StreamCloser(pub(crate) Arc<dyn Fn() + Send + Sync>);

impl fmt::Debug for StreamCloser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StreamCloser")
    }
}

/// HTTP-specific request parts.
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpParts {
    #[cfg(feature = "http")]
    pub(crate) headers: axum::http::HeaderMap,
    pub(crate) principal: Option<Principal>,
}
