//! Settings that are not part of what the server serves: page size, caching hints, limits
//! and timeouts, and the HTTP transport's [`HttpConfig`] (read by the transport, set on the
//! builder).

use std::time::Duration;

use crate::cache::CacheConfig;
use crate::schema_profile::SchemaProfile;

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
    /// How tool schemas are shaped, unless a tool chooses.
    pub(crate) schema_profile: SchemaProfile,
    /// What happens to results that do not match their output schema.
    pub(crate) output_validation: OutputValidation,
    /// The longest resource URI accepted (`resources/read`, `resources/subscribe`,
    /// completion references).
    pub(crate) max_uri_bytes: usize,
    /// The most requests one connection (stdio) or legacy session runs at once.
    pub(crate) max_concurrent_requests: usize,
    /// `subscriptions/listen` limits.
    pub(crate) listen: ListenConfig,
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
            schema_profile: SchemaProfile::default(),
            output_validation: OutputValidation::default(),
            max_uri_bytes: 16 * 1024,
            max_concurrent_requests: 1024,
            listen: ListenConfig::default(),
            #[cfg(feature = "http")]
            http: HttpConfig::default(),
        }
    }
}

/// What happens to a successful tool result whose `structuredContent` does not validate
/// against the tool's `outputSchema` (or that has none although the tool declares one).
/// The specification says a server **must** send results that conform; a mismatch is a
/// bug in the tool. Set with
/// [`ServerBuilder::output_validation`](crate::ServerBuilder::output_validation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputValidation {
    /// Not checked: the result goes out as the tool made it.
    Off,
    /// Logged as an error, and the client gets a tool error (`isError: true`) saying
    /// what does not match. The default of release builds.
    IsError,
    /// Logged as an error, and the client gets a JSON-RPC internal error (`-32603`): a test
    /// that calls the tool fails. The default of debug builds (`debug_assertions`), tests
    /// included.
    InternalError,
}

impl Default for OutputValidation {
    fn default() -> Self {
        if cfg!(debug_assertions) {
            Self::InternalError
        } else {
            Self::IsError
        }
    }
}

/// Settings of the HTTP transport: what it accepts and how long it keeps things.
///
/// Defaults: bodies up to the server's `max_message_bytes` (4 MiB); `Origin` (when present)
/// must be a localhost origin; when served on a loopback address the `Host` must be a
/// localhost name (DNS-rebinding protection); no proxy is trusted (`Forwarded` and
/// `X-Forwarded-*` are ignored); no CORS; legacy sessions expire after 30 idle minutes, at
/// most 10,000 at once, their resumable streams keep at most 1 MiB of messages for replay
/// per session and 64 MiB in all; long-lived streams get a keep-alive comment every 15 s.
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
    pub(crate) max_sessions_per_peer: Option<usize>,
    pub(crate) replay_bytes_per_session: usize,
    pub(crate) replay_bytes_total: usize,
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
            max_sessions_per_peer: None,
            replay_bytes_per_session: 1024 * 1024,
            replay_bytes_total: 64 * 1024 * 1024,
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

    /// The most legacy sessions at once. When the store is full, the least recently used
    /// session that has been idle for a minute (or half the idle timeout, if shorter) with
    /// nothing running or attached is closed to make room; if there is none, `initialize`
    /// gets `503` with `Retry-After`, so new clients cannot push out sessions in use.
    #[must_use]
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max.max(1);
        self
    }

    /// The most legacy sessions one client address may hold (beyond it, `initialize` gets
    /// `429`). Off by default: behind a reverse proxy every client has the proxy's address.
    #[must_use]
    pub fn max_sessions_per_peer(mut self, max: usize) -> Self {
        self.max_sessions_per_peer = Some(max.max(1));
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
}

/// Limits of `subscriptions/listen` (2026-07-28), whose streams stay open until the client
/// leaves: how many may be open, per client and in all, and for how long. Set with
/// [`ServerBuilder::listen`](crate::ServerBuilder::listen).
///
/// Defaults: 10,000 open streams in all, 32 per client (an HTTP client address, a stdio
/// connection), no lifetime limit.
#[derive(Debug, Clone)]
pub struct ListenConfig {
    pub(crate) enabled: bool,
    pub(crate) max_streams: usize,
    pub(crate) max_streams_per_peer: usize,
    pub(crate) max_lifetime: Option<Duration>,
}

impl Default for ListenConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_streams: 10_000,
            max_streams_per_peer: 32,
            max_lifetime: None,
        }
    }
}

impl ListenConfig {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// No `subscriptions/listen` at all, for servers that must not hold streams (some
    /// serverless platforms): the method answers `-32601` (HTTP 404) and `server/discover`
    /// advertises neither `listChanged` nor `subscribe`.
    pub fn off() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }

    /// The most streams open at once (beyond it a listen request gets an error, HTTP 503).
    #[must_use]
    pub fn max_streams(mut self, max: usize) -> Self {
        self.max_streams = max.max(1);
        self
    }

    /// The most streams one client holds at once (beyond it, an error; HTTP 429). A client
    /// is an address over HTTP (behind a proxy, the proxy's), a connection over stdio.
    #[must_use]
    pub fn max_streams_per_peer(mut self, max: usize) -> Self {
        self.max_streams_per_peer = max.max(1);
        self
    }

    /// Ends every stream after this long with the graceful closing result, so the client
    /// listens again (for deployments that cap how long a request may last).
    #[must_use]
    pub fn max_lifetime(mut self, lifetime: Duration) -> Self {
        self.max_lifetime = Some(lifetime);
        self
    }
}
