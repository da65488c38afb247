//! The facade: [`Server`] (serve stdio, a stream, HTTP, or one message; [`Server::run`] picks
//! the transport from the command line) and its [`builder`]. The only module that names the
//! transports: it hands them the runtime state, and they never see a `Server`.

pub(crate) mod builder;
mod cli;
#[cfg(feature = "metrics")]
mod metrics;

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;

use crate::dispatch::{Carrier, Reply, dispatch};
use crate::error::Error;
use crate::protocol::jsonrpc::{Incoming, parse_message};
use crate::protocol::{ErrorObject, Implementation};
use crate::runtime::handle::ServerHandle;
use crate::runtime::state::ServerInner;
#[cfg(feature = "http")]
use crate::transport::http::{self, BodyBudget, Sessions};
use crate::transport::stdio;

/// An MCP server: what it serves and how. Cheap to clone. Serve it with
/// [`run`](Self::run) (transport chosen on the command line), [`serve_stdio`](Self::serve_stdio),
/// [`serve_http`](Self::serve_http) or mount [`router`](Self::router) in an axum app.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
    /// Legacy HTTP sessions by `Mcp-Session-Id`, shared by every router of this server.
    #[cfg(feature = "http")]
    sessions: Arc<Sessions>,
    /// The bytes request bodies being received may buffer together, shared likewise.
    #[cfg(feature = "http")]
    body_budget: Arc<BodyBudget>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl Server {
    /// A server over this state (see [`ServerBuilder::build`](builder::ServerBuilder::build)).
    fn from_inner(inner: ServerInner) -> Self {
        Self {
            #[cfg(feature = "http")]
            sessions: Arc::new(Sessions::new(&inner.config.http)),
            #[cfg(feature = "http")]
            body_budget: Arc::new(BodyBudget::new(inner.config.http.max_buffered_body_bytes)),
            inner: Arc::new(inner),
        }
    }

    /// A handle for run-time changes (add/remove tools, announce resource updates).
    pub fn handle(&self) -> ServerHandle {
        ServerHandle::from_inner(self.inner.clone())
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Serves newline-delimited JSON-RPC on stdin/stdout until stdin closes.
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        stdio::serve_stdio(self.inner.clone()).await
    }

    /// Serves newline-delimited JSON-RPC over any byte stream (a Unix or TCP socket, an
    /// in-memory pipe) until `reader` ends.
    pub async fn serve_stream<R, W>(&self, reader: R, writer: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        stdio::serve(self.inner.clone(), reader, writer).await
    }

    /// Serves one JSON-RPC message outside any transport (a custom transport, a serverless
    /// function, a benchmark): the encoded response of a request, `None` for anything else.
    /// There is no session and no stream, so request-scoped notifications are dropped and
    /// `subscriptions/listen` is refused.
    pub async fn handle_message(&self, message: &[u8]) -> Option<Bytes> {
        match parse_message(message) {
            Err(rejected) => Some(Reply::error_message(rejected.id.as_ref(), &rejected.error)),
            Ok(Incoming::Request(request)) => {
                let id = request.id.clone();
                match dispatch(&self.inner, request, Carrier::default()).await {
                    Reply::Listen(_) => Some(Reply::error_message(
                        Some(&id),
                        &ErrorObject::invalid_request(
                            "subscriptions/listen needs a streaming transport",
                        ),
                    )),
                    reply => reply.into_message(&id),
                }
            }
            Ok(_) => None,
        }
    }

    /// An axum router serving the MCP endpoint at `/mcp`. Mount it in your app, add tower
    /// layers (timeouts, tracing, authentication, CORS) as you like. `Host` is not checked
    /// unless [`HttpConfig::allow_host`](crate::HttpConfig::allow_host) was set (the server
    /// does not know how it is bound).
    #[cfg(feature = "http")]
    pub fn router(&self) -> axum::Router {
        self.router_at("/mcp")
    }

    /// [`router`](Self::router) with the endpoint at `path`.
    #[cfg(feature = "http")]
    pub fn router_at(&self, path: &str) -> axum::Router {
        http::router(
            self.inner.clone(),
            self.sessions.clone(),
            self.body_budget.clone(),
            path,
            None,
            &self.inner.config.http,
        )
    }

    /// Serves Streamable HTTP on `addr` at `/mcp` until shutdown (SIGINT/SIGTERM through
    /// [`run`](Self::run), or [`ServerHandle::shutdown`]).
    #[cfg(feature = "http")]
    pub async fn serve_http(&self, addr: std::net::SocketAddr) -> Result<(), Error> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        self.serve_http_listener(listener, "/mcp").await
    }

    /// Serves Streamable HTTP on a bound listener (bind `127.0.0.1:0` in tests and read
    /// the port from the listener first).
    #[cfg(feature = "http")]
    pub async fn serve_http_listener(
        &self,
        listener: tokio::net::TcpListener,
        path: &str,
    ) -> Result<(), Error> {
        let config = &self.inner.config.http;
        http::serve(
            self.inner.clone(),
            self.sessions.clone(),
            self.body_budget.clone(),
            listener,
            path,
            config,
        )
        .await
    }

    /// Starts a graceful shutdown: open subscriptions end with their final result and
    /// the transports stop.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Runs the server with the transport named on the command line:
    ///
    /// ```text
    /// <bin> stdio
    /// <bin> http [--bind 127.0.0.1:8080] [--path /mcp] [--allow-host HOST]...
    ///            [--allow-origin ORIGIN]... [--trust-proxy ADDR|CIDR]...
    /// ```
    ///
    /// The `http` options add to the [`HttpConfig`](crate::HttpConfig) set in code: each
    /// calls [`allow_host`](crate::HttpConfig::allow_host),
    /// [`allow_origin`](crate::HttpConfig::allow_origin) or
    /// [`trust_proxy`](crate::HttpConfig::trust_proxy) once per value.
    ///
    /// Without arguments it serves stdio. Logs go to stderr (`RUST_LOG` filters them).
    /// SIGINT/SIGTERM shut down gracefully.
    pub async fn run(self) -> Result<(), Error> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        self.run_with_args(&args).await
    }

    /// [`run`](Self::run) with explicit arguments (without the program name).
    pub async fn run_with_args(self, args: &[String]) -> Result<(), Error> {
        let _telemetry = cli::init_telemetry(&self.inner.info.name);
        let (args, metrics_bind) = cli::take_metrics_bind(args)?;
        let (args, redis_url) = cli::take_redis_url(&args)?;
        let (args, state_keys) = cli::take_state_keys(&args)?;
        if let Some(keys) = state_keys {
            let ids: Vec<&str> = keys.iter().map(crate::mrtr::StateKey::id).collect();
            tracing::info!(keys = ?ids, "requestState keys from the key file (the first seals)");
            let sealer = self.inner.sealer.load().with_keys(keys);
            self.inner.sealer.store(std::sync::Arc::new(sealer));
        }
        let command = cli::parse(&args)?;
        if let Some(url) = redis_url {
            #[cfg(feature = "redis")]
            {
                let bus = crate::scale::RedisEventBus::connect(url.as_str())
                    .map_err(|e| Error::Usage(e.to_string()))?;
                // Not the URL itself: it may hold a password.
                tracing::info!("change events shared through Redis");
                self.inner.bus.replace(Box::new(bus));
                if let Some(tasks) = &self.inner.tasks {
                    let store = crate::scale::RedisTaskStore::new(&url, tasks.config.max_tasks)
                        .map_err(|e| Error::Usage(e.to_string()))?;
                    tracing::info!("tasks kept in Redis");
                    tasks.store.replace(Box::new(store));
                }
            }
            #[cfg(not(feature = "redis"))]
            {
                // Not the URL itself: it may hold a password.
                let _ = url;
                return Err(Error::Usage(
                    "`--redis-url`: this server was built without the `redis` feature".into(),
                ));
            }
        }
        if let Some(bind) = metrics_bind {
            #[cfg(feature = "metrics")]
            metrics::serve(bind, self.inner.shutdown.clone()).await?;
            #[cfg(not(feature = "metrics"))]
            return Err(Error::Usage(format!(
                "`--metrics-bind {bind}`: this server was built without the `metrics` feature"
            )));
        }
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            cli::shutdown_signal().await;
            shutdown.cancel();
        });
        match command {
            cli::Command::Help(text) => {
                eprintln!("{text}");
                Ok(())
            }
            cli::Command::Stdio => {
                tracing::info!(name = %self.inner.info.name, version = %self.inner.info.version, "serving stdio");
                self.serve_stdio().await
            }
            #[cfg(feature = "http")]
            cli::Command::Http { bind, path, access } => {
                #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
                let mut config = cli::with_access(self.inner.config.http.clone(), &access)?;
                #[cfg(feature = "auth")]
                default_scopes_supported(&mut config, &self.inner.catalog.load());
                http::check_config(&config).map_err(|e| Error::Usage(e.to_string()))?;
                let listener = tokio::net::TcpListener::bind(bind).await?;
                tracing::info!(addr = %listener.local_addr()?, %path, "serving Streamable HTTP");
                http::serve(
                    self.inner.clone(),
                    self.sessions.clone(),
                    self.body_budget.clone(),
                    listener,
                    &path,
                    &config,
                )
                .await
            }
        }
    }
}

/// An authorization that does not say which scopes clients start with publishes every
/// scope the served items require (without it, clients ask for the authorization server's
/// own list, `openid` and all).
#[cfg(feature = "auth")]
fn default_scopes_supported(
    config: &mut crate::runtime::config::HttpConfig,
    catalog: &crate::catalog::Catalog,
) {
    if let Some(auth) = config.authorization.as_mut() {
        // Not shared yet: the builder and the command line have the only reference.
        if let Some(auth) = std::sync::Arc::get_mut(auth) {
            auth.default_scopes_supported(catalog.scopes());
        }
    }
}
