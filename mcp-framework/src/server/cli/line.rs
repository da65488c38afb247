//! What the command line asks for, as the parsers ([`parse`](super::parse) with clap,
//! [`parse_plain`](super::parse_plain) without) produce it and [`apply`](super::apply) and
//! `run()` read it.

use std::net::SocketAddr;

use crate::server::process::LogFormat;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CommandLine {
    pub(crate) command: Command,
    /// `--metrics-bind` (or `MCP_METRICS_BIND`): serve Prometheus metrics there.
    pub(crate) metrics_bind: Option<SocketAddr>,
    /// `--redis-url` (or `MCP_REDIS_URL`): the event bus and task store of the replicas.
    pub(crate) redis_url: Option<String>,
    /// `--state-key-file` (or `MCP_STATE_KEY_FILE`): the keys that seal `requestState`.
    pub(crate) state_key_file: Option<String>,
    /// `--shutdown-grace` (or `MCP_SHUTDOWN_GRACE`): how long running requests may finish.
    pub(crate) shutdown_grace: Option<std::time::Duration>,
    /// `--log-format` (or `MCP_LOG_FORMAT`).
    pub(crate) log_format: LogFormat,
}

/// The transport to serve.
#[derive(Debug, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // one per process
pub(crate) enum Command {
    Stdio,
    #[cfg(all(feature = "http", feature = "cli"))]
    Http {
        bind: SocketAddr,
        path: String,
        /// Added to the builder's `HttpConfig`.
        access: Access,
    },
    /// `inspect [--json] [--card]`.
    #[cfg(feature = "cli")]
    Inspect {
        json: bool,
        /// The Server Card instead of the items.
        card: bool,
    },
    /// `call`, `get-prompt`, `read`.
    #[cfg(feature = "cli")]
    Invoke(crate::server::invoke::Invocation),
    /// `install`, `uninstall`.
    #[cfg(feature = "cli")]
    Install(crate::server::install::Install),
}

/// The deployment options of `http` that add to the builder's [`HttpConfig`].
#[cfg(all(feature = "http", feature = "cli"))]
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Access {
    /// `--allow-host`.
    pub(crate) hosts: Vec<String>,
    /// `--allow-origin`.
    pub(crate) origins: Vec<String>,
    /// `--trust-proxy`.
    pub(crate) proxies: Vec<String>,
    /// `--max-connections`.
    pub(crate) max_connections: Option<usize>,
    /// `--auth-issuer`, `--auth-audience`, `--auth-required-scopes` (clap makes sure that
    /// issuer and audience come together).
    pub(crate) auth: Option<(String, String, Vec<String>)>,
}
