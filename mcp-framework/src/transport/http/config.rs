//! [`HttpConfig`]: the settings of the HTTP transport, set on the builder (or by the command
//! line of `ServerBuilder::run`), checked once by `build()`, and owned by the built server's
//! [`Http`](super::Http), which every router and listener of that server reads.

use std::time::Duration;

/// Settings of the HTTP transport: what it accepts and how long it keeps things.
///
/// Defaults: bodies up to the server's `max_message_bytes` (4 MiB); `Origin` (when present)
/// must be a localhost origin; when served on a loopback address the `Host` must be a
/// localhost name (DNS-rebinding protection); no proxy is trusted (`Forwarded` and
/// `X-Forwarded-*` are ignored); no CORS; legacy sessions expire after 30 idle minutes, at
/// most 10,000 at once and 1,000 per client address, their resumable streams keep at most
/// 1 MiB of messages for replay per session and 64 MiB in all, at most 10,000 of their
/// requests run at once in all, and one whose stream no connection has followed for 60 s is
/// cancelled; long-lived streams get a keep-alive comment every 15 s.
///
/// Slow and greedy clients, wherever the endpoint runs: a body must arrive within 30 s
/// (else `408`), and the bodies being received share a budget of 32 MiB (beyond it `503`);
/// the rest of a refused body is read and discarded for at most 5 s and 16 MiB before the
/// connection closes, so that the client reads its answer.
/// Served by [`Server::serve_http`](crate::Server::serve_http),
/// [`serve_http_listener`](crate::Server::serve_http_listener) or
/// [`ServerBuilder::run`](crate::ServerBuilder::run) (not for a
/// [`router`](crate::Server::router) you mount in your own server), also: a
/// request head must arrive within 10 s, a connection idle for 75 s between requests is
/// closed, and at most [`max_connections`](Self::max_connections) connections are served at
/// once (by default a little under the process's open-file limit, at most 10,000).
///
/// Hosts, origins and proxies are checked by [`ServerBuilder::build`](crate::ServerBuilder::build),
/// which fails with [`Error::Config`](crate::Error::Config) on one that does not parse.
///
/// ```
/// use std::time::Duration;
/// use mcp_framework::HttpConfig;
///
/// // Behind nginx on the same machine, serving a browser app on another origin.
/// let config = HttpConfig::new()
///     .allow_host("mcp.example.com")
///     .trust_proxy("127.0.0.1")
///     .allow_origin("https://app.example.com")
///     .header_read_timeout(Duration::from_secs(5))
///     .body_read_timeout(Duration::from_secs(10))
///     .connection_idle_timeout(Duration::from_secs(120))
///     .max_connections(2_000)
///     .max_buffered_body_bytes(128 * 1024 * 1024);
/// # let _ = config;
/// ```
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `None`: the server's `max_message_bytes`.
    pub(crate) max_body_bytes: Option<usize>,
    pub(crate) allowed_origins: Option<Vec<String>>,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) trusted_proxies: Vec<String>,
    /// `None`: CORS for the allowed origins when origins are listed.
    pub(crate) cors: Option<bool>,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_peer: usize,
    /// Legacy requests running detached from their connections, across all sessions.
    pub(crate) max_detached_requests: usize,
    /// How long a legacy request runs on while no connection follows its stream.
    pub(crate) resume_timeout: Duration,
    /// The bits of an IPv6 address that name one client in per-client limits.
    pub(crate) client_ipv6_prefix: u8,
    pub(crate) replay_bytes_per_session: usize,
    pub(crate) replay_bytes_total: usize,
    pub(crate) keep_alive: Duration,
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) connection_idle_timeout: Duration,
    /// `None`: derived from the open-file limit when serving starts.
    pub(crate) max_connections: Option<usize>,
    pub(crate) max_buffered_body_bytes: usize,
    /// How long, and how many bytes, a refused body is read and discarded before closing.
    pub(crate) linger_time: Duration,
    pub(crate) linger_bytes: usize,
    /// Bearer tokens on every request (feature `auth`).
    #[cfg(feature = "auth")]
    pub(crate) authorization: Option<std::sync::Arc<crate::auth::Authorization>>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            max_body_bytes: None,
            allowed_origins: None,
            allowed_hosts: None,
            trusted_proxies: Vec::new(),
            cors: None,
            session_idle_timeout: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            max_sessions_per_peer: 1_000,
            max_detached_requests: 10_000,
            resume_timeout: Duration::from_secs(60),
            client_ipv6_prefix: 64,
            replay_bytes_per_session: 1024 * 1024,
            replay_bytes_total: 64 * 1024 * 1024,
            keep_alive: Duration::from_secs(15),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            connection_idle_timeout: Duration::from_secs(75),
            max_connections: None,
            max_buffered_body_bytes: 32 * 1024 * 1024,
            linger_time: Duration::from_secs(5),
            linger_bytes: 16 * 1024 * 1024,
            #[cfg(feature = "auth")]
            authorization: None,
        }
    }
}

impl HttpConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows browser requests from this origin, a serialized origin as browsers send it
    /// (`https://app.example.com`, `http://localhost:5173`: a scheme, a host, maybe a port,
    /// no path); `"*"` allows any, `"null"` the opaque origin of sandboxed frames and
    /// `file:` pages. Listing origins replaces the localhost default and turns on CORS for
    /// them (see [`cors`](Self::cors)). Requests without `Origin` (non-browser clients) are
    /// always allowed.
    #[must_use]
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins
            .get_or_insert_with(Vec::new)
            .push(origin.into());
        self
    }

    /// Allows this `Host` (`api.example.com`, `api.example.com:8443`, `[::1]:8080`): without
    /// a port, any port; with one, that port only (a request naming none is on its scheme's
    /// default port, 80 or 443); `"*"` allows any. Setting any host turns the automatic
    /// loopback-only check off. Behind a reverse proxy, list the names clients use: with
    /// [`trust_proxy`](Self::trust_proxy), the host the proxy forwards is checked.
    #[must_use]
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts
            .get_or_insert_with(Vec::new)
            .push(host.into());
        self
    }

    /// Trusts the reverse proxy at this address (`127.0.0.1`, `::1`) or in this CIDR range
    /// (`10.0.0.0/8`, `fd00::/8`); call once per entry. A request whose TCP peer is a
    /// trusted proxy is checked against the host and protocol the proxy forwards
    /// (`Forwarded`, RFC 7239, else `X-Forwarded-Host` and `X-Forwarded-Proto`), so that
    /// the `Host` check sees the name the client used; through a chain of proxies, every
    /// proxy's address must be trusted, and the outermost one's values count. Requests from
    /// other peers, and requests to a [`Server::router`](crate::Server::router) served
    /// without connect info, have these headers ignored. The proxy must set these headers
    /// itself, not pass on a client's.
    #[must_use]
    pub fn trust_proxy(mut self, proxy: impl Into<String>) -> Self {
        self.trusted_proxies.push(proxy.into());
        self
    }

    /// Whether the endpoint answers CORS for browser apps on other origins. By default it
    /// does exactly when origins are listed with [`allow_origin`](Self::allow_origin),
    /// for those origins: preflight `OPTIONS` requests are answered without reaching the
    /// endpoint (the method, and the request headers a preflight asks for, are allowed;
    /// cached for an hour), and answers expose `Mcp-Session-Id` and `WWW-Authenticate`.
    /// `cors(false)` leaves CORS to a layer of your own (mount
    /// [`Server::router`](crate::Server::router)); `cors(true)` without listed origins
    /// answers CORS for the localhost origins.
    #[must_use]
    pub fn cors(mut self, enabled: bool) -> Self {
        self.cors = Some(enabled);
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

    /// The most legacy sessions at once. When the store is full, the least recently used
    /// session that has been idle for a minute (or half the idle timeout, if shorter) with
    /// nothing running or attached is closed to make room; if there is none, `initialize`
    /// gets `503` with `Retry-After`, so new clients cannot push out sessions in use.
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// The most legacy sessions one client address may hold (default 1,000, a tenth of the
    /// default [`max_sessions`](Self::max_sessions): one address cannot fill the store, and a
    /// machine or NAT with many clients still fits). A client at its share gets room the way
    /// a full store makes it: its own least recently used session that has been idle for a
    /// minute (or half the idle timeout) with nothing running or attached is closed;
    /// without one, `initialize` gets `429` with `Retry-After`. Behind a reverse proxy every
    /// client has the proxy's address: name it with [`trust_proxy`](Self::trust_proxy) so
    /// that the share is per forwarded client, or raise this (`usize::MAX`: no share).
    #[must_use]
    pub fn max_sessions_per_peer(mut self, max: usize) -> Self {
        self.max_sessions_per_peer = max.max(1);
        self
    }

    /// The most legacy requests running at once across every session (default 10,000, as
    /// many as the default connection limit lets 2026-07-28 requests run). A legacy
    /// session's request (2025-11-25 and older, answered with SSE) runs detached from its
    /// connection, so that the client can resume its stream; each session runs at most
    /// [`ServerBuilder::max_concurrent_requests`](crate::ServerBuilder::max_concurrent_requests)
    /// of them, and this bounds them in all. Beyond it a request gets `503` with
    /// `Retry-After` (a JSON-RPC error `-32603` with its id).
    #[must_use]
    pub fn max_detached_requests(mut self, max: usize) -> Self {
        self.max_detached_requests = max.max(1);
        self
    }

    /// How long a legacy request runs on while no connection follows its response stream
    /// (default 60 s): its connection closed, and no `GET` with `Last-Event-ID` took the
    /// stream up again. Then the request is cancelled (its handler sees
    /// [`Context::cancelled`](crate::Context::cancelled), its place is freed), and a client
    /// that resumes later reads an error (`-32603`) instead of a result. A client that
    /// resumes in time, even after several lost connections, is not affected.
    /// `Duration::MAX` turns it off.
    #[must_use]
    pub fn resume_timeout(mut self, timeout: Duration) -> Self {
        self.resume_timeout = timeout;
        self
    }

    /// How per-client limits ([`max_sessions_per_peer`](Self::max_sessions_per_peer), the
    /// `subscriptions/listen` streams per client) tell IPv6 clients apart: by their first
    /// `bits` (default 64, at most 128). One host or site usually holds a whole /64, so
    /// counting each of its addresses as a client would give it 2^64 shares. IPv4 clients
    /// are told apart by their whole address, and an IPv4-mapped IPv6 address
    /// (`::ffff:192.0.2.1`) is its IPv4 address.
    #[must_use]
    pub fn client_ipv6_prefix(mut self, bits: u8) -> Self {
        self.client_ipv6_prefix = bits.min(128);
        self
    }

    /// The bytes of messages legacy resumable streams keep for replay: per session and
    /// across all sessions (defaults 1 MiB and 64 MiB). Beyond either, a session's oldest
    /// messages are dropped first; a client resuming before a dropped message gets `410
    /// Gone`.
    #[must_use]
    pub fn replay_budget(mut self, per_session: usize, total: usize) -> Self {
        self.replay_bytes_per_session = per_session;
        self.replay_bytes_total = total.max(per_session);
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
    /// listener's backlog until one closes; while the server is full, idle connections
    /// (between requests, or silent since they were accepted) are closed to make room. By default: the process's soft open-file
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
    /// 32 MiB: eight bodies of the default 4 MiB limit, or thousands of ordinary messages). A body reserves its `Content-Length` before it is read (a chunked body,
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

    /// How much of a refused request body is read and discarded after the answer (default
    /// 5 s and 16 MiB, four bodies of the default size limit). A request refused before its
    /// body was read through (`413`, a `503` of the body budget, a `403`/`415` of its head)
    /// is answered with `Connection: close`; on HTTP/1.1 the server then goes on reading the
    /// body until it ends, `time` has passed or `bytes` were read, and only then closes the
    /// connection: a client that writes its whole body before it reads (httpx's
    /// `AsyncClient`, under the Python SDK) reads the answer instead of a reset connection.
    /// A body that declares more than `bytes` is not read (the connection closes at once),
    /// nor is one whose client waits for `100 Continue`. The bytes are discarded as they
    /// come: nothing is buffered. `Duration::ZERO` or `0` turns it off. It applies to a
    /// mounted [`Server::router`](crate::Server::router) too.
    #[must_use]
    pub fn lingering_close(mut self, time: Duration, bytes: usize) -> Self {
        self.linger_time = time;
        self.linger_bytes = bytes;
        self
    }
}
