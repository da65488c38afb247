//! `ClientBuilder`: what a client is built with (the era it speaks or how it finds out, its
//! capabilities and implementation info, the handlers for the server's questions, the
//! timeouts and limits, a bearer token for HTTP). Connecting is the facade's (`facade.rs`):
//! the connection keeps the builder as its configuration.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use super::handlers::Handlers;
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, Implementation, ProtocolVersion, Root,
};

/// Which protocol era a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// Probe with `server/discover`, fall back to `initialize` (the spec's rule).
    Auto,
    /// 2026-07-28, without a probe.
    Modern,
    /// `initialize` with this revision, then its session.
    Legacy(ProtocolVersion),
}

/// Configures a [`Client`](super::Client).
#[must_use]
pub struct ClientBuilder {
    pub(super) era: Era,
    pub(super) capabilities: ClientCapabilities,
    pub(super) info: Implementation,
    pub(super) handlers: Handlers,
    /// How long a request waits for its answer.
    pub(super) timeout: Duration,
    /// How long the `server/discover` probe waits before the server is taken for legacy.
    pub(super) probe_timeout: Duration,
    /// The largest message read from the server.
    pub(super) max_message_bytes: usize,
    /// The bearer token of every HTTP request.
    #[cfg_attr(not(feature = "client-http"), allow(dead_code))]
    pub(super) bearer: Option<String>,
    /// The label a child server's stderr is logged under, when it is logged.
    pub(super) stderr_label: Option<String>,
    /// The client's extensions, in order.
    pub(super) extensions: Vec<std::sync::Arc<dyn super::extension::ClientExtension>>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("era", &self.era)
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// The era found out by probing, no capabilities, no handlers, a 30 s timeout.
    pub(super) fn new() -> Self {
        Self {
            era: Era::Auto,
            capabilities: ClientCapabilities::default(),
            info: Implementation {
                name: "mcp-framework-client".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Implementation::default()
            },
            handlers: Handlers::default(),
            timeout: Duration::from_secs(30),
            probe_timeout: Duration::from_secs(10),
            max_message_bytes: 16 << 20,
            bearer: None,
            stderr_label: None,
            extensions: Vec::new(),
        }
    }

    /// Speak a legacy revision: `initialize` first, then use the session. (By default the
    /// client probes with `server/discover` and falls back to `initialize` with the newest
    /// legacy revision when the server is not modern; in-process it speaks modern.)
    pub fn legacy(mut self, version: ProtocolVersion) -> Self {
        self.era = Era::Legacy(version);
        self
    }

    /// Speak 2026-07-28 without probing first.
    pub fn modern(mut self) -> Self {
        self.era = Era::Modern;
        self
    }

    /// The name and version this client gives the server (`clientInfo`).
    pub fn client_info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// How long the `server/discover` probe waits before the server is taken for a legacy
    /// one that does not answer unknown requests (default 10 s).
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// The largest message the client reads from the server (default 16 MiB); a larger one
    /// fails its request (HTTP) or closes the connection (stdio).
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Registers a client-side extension: declared under the client's
    /// `capabilities.extensions` (with its settings), and its contributions to a stdio
    /// server's launch applied by [`connect_stdio`](Self::connect_stdio).
    pub fn extension(mut self, extension: impl super::extension::ClientExtension) -> Self {
        self.capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                extension.id().to_owned(),
                serde_json::Value::Object(extension.settings()),
            );
        self.extensions.push(std::sync::Arc::new(extension));
        self
    }

    /// Logs what a server started by [`connect_stdio`](Self::connect_stdio) writes to its
    /// stderr, a `tracing` event per line (target `mcp_framework::client::stderr`, field
    /// `server = label`), instead of letting it write to wherever the command's stderr goes.
    pub fn log_stderr(mut self, label: impl Into<String>) -> Self {
        self.stderr_label = Some(label.into());
        self
    }

    /// Sends `Authorization: Bearer <token>` with every HTTP request.
    #[cfg(feature = "client-http")]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer = Some(token.into());
        self
    }

    /// Declares capabilities (callbacks declare theirs automatically).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Answers form and URL elicitation (and declares the `elicitation` capability).
    pub fn on_elicit<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitResult> + Send + 'static,
    {
        self.handlers.elicit = Some(Arc::new(move |p| Box::pin(f(p))));
        self.declare_elicitation();
        self
    }

    /// Declares the `elicitation` capability, both modes.
    fn declare_elicitation(&mut self) {
        let e = self
            .capabilities
            .elicitation
            .get_or_insert_with(Default::default);
        e.form.get_or_insert_with(Default::default);
        e.url.get_or_insert_with(Default::default);
    }

    /// Answers sampling requests (and declares the `sampling` capability).
    pub fn on_sample<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = CreateMessageResult> + Send + 'static,
    {
        self.handlers.sample = Some(Arc::new(move |p| Box::pin(f(p))));
        self.capabilities
            .sampling
            .get_or_insert_with(Default::default);
        self
    }

    /// Answers `roots/list` (and declares the `roots` capability).
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.handlers.roots = Some(Arc::new(move |()| {
            let r = roots.clone();
            Box::pin(async move { r })
        }));
        self.capabilities.roots.get_or_insert_with(Default::default);
        self
    }

    /// Passes every question of the server (elicitation, sampling, roots), as it came, to
    /// `relay`, and declares every capability (a proxy asks its own caller).
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn relay(mut self, relay: super::handlers::Relay) -> Self {
        self.handlers.relay = Some(relay);
        self.declare_elicitation();
        self.capabilities
            .sampling
            .get_or_insert_with(Default::default);
        self.capabilities.roots.get_or_insert_with(Default::default);
        self
    }

    /// How long to wait for each answer (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}
