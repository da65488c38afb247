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
/// localhost name (DNS-rebinding protection); no proxy is trusted (`Forwarded` and
/// `X-Forwarded-*` are ignored); no CORS; legacy sessions expire after 30 idle minutes, at
/// most 10,000 at once; listen streams get a keep-alive comment every 15 s.
///
/// Hosts, origins and proxies are checked by [`ServerBuilder::build`](crate::ServerBuilder::build),
/// which fails with [`Error::Config`](crate::Error::Config) on one that does not parse.
///
/// ```
/// use mcp_framework::HttpConfig;
///
/// // Behind nginx on the same machine, serving a browser app on another origin.
/// let config = HttpConfig::new()
///     .allow_host("mcp.example.com")
///     .trust_proxy("127.0.0.1")
///     .allow_origin("https://app.example.com");
/// # let _ = config;
/// ```
#[cfg(feature = "http")]
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
    pub(crate) keep_alive: Duration,
}

#[cfg(feature = "http")]
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
            keep_alive: Duration::from_secs(15),
        }
    }
}

#[cfg(feature = "http")]
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
}
