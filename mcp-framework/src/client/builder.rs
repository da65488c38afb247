//! `ClientBuilder`: what a client is built with (the protocol mode, its capabilities and
//! implementation info, the handlers for the server's questions, the timeout). Connecting
//! is the facade's (`facade.rs`): the connection keeps the builder as its configuration.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use super::handlers::Handlers;
use crate::protocol::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, Implementation, ProtocolVersion, Root,
};

/// Configures a [`Client`](super::Client).
#[must_use]
pub struct ClientBuilder {
    /// The legacy revision spoken, or `None` for modern (2026-07-28).
    pub(super) legacy: Option<ProtocolVersion>,
    pub(super) capabilities: ClientCapabilities,
    pub(super) info: Implementation,
    pub(super) handlers: Handlers,
    /// How long a request waits for its answer.
    pub(super) timeout: Duration,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("legacy", &self.legacy)
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Modern mode, no capabilities, no handlers, a 30 s timeout.
    pub(super) fn new() -> Self {
        Self {
            legacy: None,
            capabilities: ClientCapabilities::default(),
            info: Implementation {
                name: "mcp-framework-test-client".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Implementation::default()
            },
            handlers: Handlers::default(),
            timeout: Duration::from_secs(30),
        }
    }

    /// Speak a legacy revision: `initialize` first, then use the session.
    pub fn legacy(mut self, version: ProtocolVersion) -> Self {
        self.legacy = Some(version);
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
        let e = self
            .capabilities
            .elicitation
            .get_or_insert_with(Default::default);
        e.form.get_or_insert_with(Default::default);
        e.url.get_or_insert_with(Default::default);
        self
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

    /// How long to wait for each answer (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}
