//! Settings that are not part of what the server serves: page size, caching hints, limits
//! and timeouts. (The HTTP transport's settings, `HttpConfig`, live with that transport.)

use std::time::Duration;

use crate::cache::CacheConfig;
use crate::principal::{ScopePolicy, ScopeRules, Unauthenticated};
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
    /// On shutdown or stdio EOF, how long in-flight requests may still finish (the
    /// shutdown's grace period).
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
    /// Which granted scopes imply which.
    pub(crate) scope_rules: ScopeRules,
    /// What callers without an item's scopes see of it, unless the item chooses.
    pub(crate) scope_policy: ScopePolicy,
    /// The scopes of a request without a principal.
    pub(crate) unauthenticated: Unauthenticated,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            page_size: 1000,
            cache: CacheConfig::default(),
            client_request_timeout: Duration::from_secs(300),
            max_message_bytes: 4 * 1024 * 1024,
            drain_timeout: Duration::from_secs(10),
            schema_profile: SchemaProfile::default(),
            output_validation: OutputValidation::default(),
            max_uri_bytes: 16 * 1024,
            max_concurrent_requests: 1024,
            listen: ListenConfig::default(),
            scope_rules: ScopeRules::default(),
            scope_policy: ScopePolicy::default(),
            unauthenticated: Unauthenticated::default(),
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

/// Limits of `subscriptions/listen` (2026-07-28), whose streams stay open until the client
/// leaves: how many may be open, per client and in all, and for how long. Set with
/// [`ServerBuilder::listen`](crate::ServerBuilder::listen).
///
/// Defaults: 10,000 open streams in all, 32 per client (an HTTP client address, a stdio
/// connection), no lifetime limit, 1,024 resource URIs per stream (and per legacy session's
/// `resources/subscribe`).
#[derive(Debug, Clone)]
pub struct ListenConfig {
    pub(crate) enabled: bool,
    pub(crate) max_streams: usize,
    pub(crate) max_streams_per_peer: usize,
    pub(crate) max_lifetime: Option<Duration>,
    pub(crate) max_resource_subscriptions: usize,
}

impl Default for ListenConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            max_streams: 10_000,
            max_streams_per_peer: 32,
            max_lifetime: None,
            max_resource_subscriptions: 1024,
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

    /// The most resource URIs one subscriber watches: a listen stream's
    /// `resourceSubscriptions` (more is refused with `-32602`, nothing is dropped silently),
    /// and a legacy session's `resources/subscribe` set. Each URI is at most the server's
    /// `max_uri_bytes` long, so a subscriber holds a bounded number of bytes.
    #[must_use]
    pub fn max_resource_subscriptions(mut self, max: usize) -> Self {
        self.max_resource_subscriptions = max.max(1);
        self
    }
}
