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

/// Who is behind a request, for limits of what one client may hold: an address over HTTP
/// (its [`client_key`]), a connection over stdio.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum PeerId {
    /// The client's address (HTTP), as [`client_key`] gives it.
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

/// The address that stands for a client in per-client limits: an IPv4 address as it is
/// (an IPv4-mapped IPv6 address as its IPv4 address), an IPv6 address as its network of
/// `v6_prefix` bits (its other bits zero).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn client_key(ip: IpAddr, v6_prefix: u8) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let bits = u32::from(v6_prefix.min(128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

/// Where request-scoped messages (progress, log messages, legacy server requests) go:
/// the stdio writer or the request's HTTP response stream. Nothing is sent once the
/// request is cancelled.
#[derive(Clone)]
pub(crate) struct Sink {
    tx: mpsc::Sender<Bytes>,
    cancel: CancellationToken,
    /// What every message passes through before it is sent (JSON-RPC middleware): the
    /// message, changed, or `None` to drop it.
    map: Option<MessageMap>,
}

/// A rewrite of encoded messages: the message to send, or `None` to drop it.
#[derive(Clone)]
pub(crate) struct MessageMap(pub(crate) Arc<dyn Fn(Bytes) -> Option<Bytes> + Send + Sync>);

impl MessageMap {
    /// The message to send instead of `message`, or `None` to drop it.
    pub(crate) fn apply(&self, message: Bytes) -> Option<Bytes> {
        (self.0)(message)
    }
}

impl fmt::Debug for MessageMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MessageMap")
    }
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sink")
            .field("mapped", &self.map.is_some())
            .finish_non_exhaustive()
    }
}

impl Sink {
    pub(crate) fn new(tx: mpsc::Sender<Bytes>, cancel: CancellationToken) -> Self {
        Self {
            tx,
            cancel,
            map: None,
        }
    }

    /// Passes every message through `map` before it is sent.
    pub(crate) fn mapped(mut self, map: MessageMap) -> Self {
        self.map = Some(map);
        self
    }

    /// Sends one encoded message; `false` when the request is gone (a message the map
    /// drops counts as sent).
    pub(crate) async fn send(&self, message: Bytes) -> bool {
        match self.outgoing(message) {
            Ok(message) => self.tx.send(message).await.is_ok(),
            Err(sent) => sent,
        }
    }

    /// Sends without waiting (for the `tracing` bridge); drops the message when full.
    pub(crate) fn try_send(&self, message: Bytes) -> bool {
        match self.outgoing(message) {
            Ok(message) => self.tx.try_send(message).is_ok(),
            Err(sent) => sent,
        }
    }

    /// The message as it goes out, through the map if there is one; `Err` when nothing is
    /// to be sent, with what the senders report: `false` when the request is gone, `true`
    /// when the map dropped the message.
    fn outgoing(&self, message: Bytes) -> Result<Bytes, bool> {
        if self.cancel.is_cancelled() {
            return Err(false);
        }
        match &self.map {
            Some(map) => map.apply(message).ok_or(true),
            None => Ok(message),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ip: &str, prefix: u8) -> String {
        client_key(ip.parse().unwrap(), prefix).to_string()
    }

    #[test]
    fn ipv6_clients_are_keyed_by_their_network_ipv4_by_address() {
        assert_eq!(key("2001:db8:1:2:aaaa::1", 64), "2001:db8:1:2::");
        assert_eq!(
            key("2001:db8:1:2:ffff:ffff:ffff:ffff", 64),
            "2001:db8:1:2::"
        );
        assert_ne!(key("2001:db8:1:3::1", 64), key("2001:db8:1:2::1", 64));
        assert_eq!(key("2001:db8:1:2:aaaa::1", 48), "2001:db8:1::");
        assert_eq!(key("2001:db8:1:2:aaaa::1", 128), "2001:db8:1:2:aaaa::1");
        assert_eq!(key("2001:db8:1:2:aaaa::1", 0), "::");
        assert_eq!(key("2001:db8::1", 200), "2001:db8::1");
        // IPv4: the whole address, whatever the prefix; mapped is the same client.
        assert_eq!(key("192.0.2.7", 64), "192.0.2.7");
        assert_eq!(key("::ffff:192.0.2.7", 64), "192.0.2.7");
        assert_eq!(key("::ffff:192.0.2.7", 0), "192.0.2.7");
        assert_ne!(key("192.0.2.7", 64), key("192.0.2.8", 64));
        assert_eq!(key("::1", 64), "::");
    }
}
