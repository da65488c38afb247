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
    ToolError,
    /// Logged as an error, and the client gets a JSON-RPC internal error (`-32603`): a test
    /// that calls the tool fails. The default of debug builds (`debug_assertions`), tests
    /// included.
    ProtocolError,
}

impl Default for OutputValidation {
    fn default() -> Self {
        if cfg!(debug_assertions) {
            Self::ProtocolError
        } else {
            Self::ToolError
        }
    }
}

/// Settings of the HTTP transport: what it accepts and how long it keeps things.
///
/// Defaults: bodies up to the server's `max_message_bytes` (4 MiB); `Origin` (when present)
/// must be a localhost origin; when served on a loopback address the `Host` must be a
/// localhost name (DNS-rebinding protection); legacy sessions expire after 30 idle minutes,
/// at most 10,000 at once; listen streams get a keep-alive comment every 15 s.
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
}
