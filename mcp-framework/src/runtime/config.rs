//! Settings that are not part of what the server serves: page size, caching hints, limits
//! and timeouts, and the HTTP transport's [`HttpConfig`] (read by the transport, set on the
//! builder).

use std::time::Duration;

use crate::cache::CacheConfig;

/// Limits and settings that are not part of what the server serves.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) page_size: usize,
    pub(crate) cache: CacheConfig,
    /// How long a legacy server-to-client request waits for its answer.
    pub(crate) client_request_timeout: Duration,
    /// The largest message accepted (HTTP body, stdio line).
    pub(crate) max_message_bytes: usize,
    /// On stdio EOF, how long in-flight requests may still finish.
    pub(crate) drain_timeout: Duration,
    #[cfg(feature = "http")]
    pub(crate) http: HttpConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            page_size: 1000,
            cache: CacheConfig::default(),
            client_request_timeout: Duration::from_secs(300),
            max_message_bytes: 4 * 1024 * 1024,
            drain_timeout: Duration::from_secs(5),
            #[cfg(feature = "http")]
            http: HttpConfig::default(),
        }
    }
}

/// Settings of the HTTP transport: what it accepts and how long it keeps things.
///
/// Defaults: bodies up to the server's `max_message_bytes` (4 MiB); `Origin` (when present)
/// must be a localhost origin; when served on a loopback address the `Host` must be a
/// localhost name (DNS-rebinding protection); legacy sessions expire after 30 idle minutes,
/// at most 10,000 at once; listen streams get a keep-alive comment every 15 s.
///
/// Slow and greedy clients: a request head must arrive within 10 s, a body within 30 s
/// (else `408`); bodies being received share a budget of 64 MiB (beyond it `503`). These
/// hold wherever the endpoint runs. Served by [`Server::serve_http`](crate::Server::serve_http),
/// [`serve_http_listener`](crate::Server::serve_http_listener) or [`run`](crate::Server::run)
/// (not for a [`router`](crate::Server::router) you mount in your own server), a connection
/// idle for 75 s between requests is closed, and at most
/// [`max_connections`](Self::max_connections) connections are served at once (by default
/// a little under the process's open-file limit, at most 10,000).
///
/// ```
/// use std::time::Duration;
/// use mcp_framework::HttpConfig;
///
/// let config = HttpConfig::new()
///     .header_read_timeout(Duration::from_secs(5))
///     .body_read_timeout(Duration::from_secs(10))
///     .connection_idle_timeout(Duration::from_secs(120))
///     .max_connections(2_000)
///     .max_buffered_body_bytes(128 * 1024 * 1024);
/// # let _ = config;
/// ```
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `None`: the server's `max_message_bytes`.
    pub(crate) max_body_bytes: Option<usize>,
    pub(crate) allowed_origins: Option<Vec<String>>,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) keep_alive: Duration,
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) connection_idle_timeout: Duration,
    /// `None`: derived from the open-file limit when serving starts.
    pub(crate) max_connections: Option<usize>,
    pub(crate) max_buffered_body_bytes: usize,
}

#[cfg(feature = "http")]
impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: None,
            allowed_origins: None,
            allowed_hosts: None,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            keep_alive: Duration::from_secs(15),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            connection_idle_timeout: Duration::from_secs(75),
            max_connections: None,
            max_buffered_body_bytes: 64 * 1024 * 1024,
        }
    }
}

#[cfg(feature = "http")]
impl HttpConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows browser requests from this origin (`https://app.example.com`); `"*"` allows
    /// any. Requests without `Origin` (non-browser clients) are always allowed.
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins
            .get_or_insert_with(Vec::new)
            .push(origin.into());
        self
    }

    /// Allows this `Host` (`api.example.com`, with or without port); `"*"` allows any.
    /// Setting any host turns the automatic loopback-only check off.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts
            .get_or_insert_with(Vec::new)
            .push(host.into());
        self
    }

    /// The largest request body accepted (larger bodies get 413); by default the server's
    /// [`max_message_bytes`](crate::ServerBuilder::max_message_bytes).
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = Some(bytes);
        self
    }

    /// How long an unused legacy session lives.
    #[must_use]
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// The most legacy sessions at once (the least recently used one is closed to make room).
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// The interval of keep-alive comments on long-lived streams.
    #[must_use]
    pub fn keep_alive(mut self, interval: Duration) -> Self {
        self.keep_alive = interval;
        self
    }

    /// How long a request head (request line and headers) may take to arrive (default
    /// 10 s). It counts from the head's first byte, so a client trickling bytes cannot
    /// stretch it; a new connection must deliver its first head within this time of being
    /// accepted (on HTTP/2, which multiplexes, that is the only time it applies). The
    /// connection is closed when it runs out. Only when served by
    /// [`Server::serve_http`](crate::Server::serve_http) and its siblings (an app that mounts
    /// [`Server::router`](crate::Server::router) in its own server sets its own).
    /// `Duration::MAX` turns it off.
    #[must_use]
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a request body may take to arrive, from the end of its head to its last byte
    /// (default 30 s). A body still incomplete then is answered with `408 Request Timeout`
    /// (a JSON-RPC error without id) and the connection is closed. It applies to a mounted
    /// [`Server::router`](crate::Server::router) too. `Duration::MAX` turns it off.
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// How long a connection may stay open between requests, with no request in progress
    /// (default 75 s, longer than the 60 s idle timeout common in load balancers, so that
    /// they close first). Long-lived response streams are requests in progress: they are
    /// not idle. Only when served by [`Server::serve_http`](crate::Server::serve_http) and
    /// its siblings. `Duration::MAX` turns it off.
    #[must_use]
    pub fn connection_idle_timeout(mut self, timeout: Duration) -> Self {
        self.connection_idle_timeout = timeout;
        self
    }

    /// The most connections served at once (at least 1). Further connections wait in the
    /// listener's backlog until one closes; while the server is full, connections idle
    /// between requests are closed to make room. By default: the process's soft open-file
    /// limit (`ulimit -n`) less 64 descriptors for everything else, between 64 and 10,000
    /// (10,000 where the limit cannot be read), so that accepting never runs out of file
    /// descriptors. Only when served by [`Server::serve_http`](crate::Server::serve_http)
    /// and its siblings.
    #[must_use]
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = Some(max.max(1));
        self
    }

    /// The most body bytes buffered at once across every request being received (default
    /// 64 MiB). A body reserves its `Content-Length` before it is read (a chunked body,
    /// as it grows); one that does not fit is answered with `503 Service Unavailable` and
    /// `Retry-After: 1`. Bodies over 1/64 of the budget may fill only 3/4 of it, so that a
    /// few large uploads (or stalled ones) cannot lock out ordinary small messages; a body
    /// within the size limit is always admitted when nothing else is buffered. It applies
    /// to a mounted [`Server::router`](crate::Server::router) too (one budget per
    /// [`Server`](crate::Server)).
    #[must_use]
    pub fn max_buffered_body_bytes(mut self, bytes: usize) -> Self {
        self.max_buffered_body_bytes = bytes;
        self
    }
}
