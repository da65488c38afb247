//! The facade: [`Server`] (serve stdio, a stream, HTTP, or one message) and its [`builder`]
//! ([`run`](builder::ServerBuilder::run) applies the command line to the builder, builds,
//! and serves the transport it names). The only module that names the transports: it hands
//! them the runtime state, and they never see a `Server`.

mod build;
pub(crate) mod builder;
mod cli;
#[cfg(feature = "cli")]
mod inspect;
#[cfg(feature = "cli")]
mod install;
#[cfg(feature = "cli")]
mod invoke;
#[cfg(feature = "metrics")]
mod metrics;
mod process;
mod run;

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
use crate::transport::http::{self, Http};
use crate::transport::stdio;

/// An MCP server: what it serves and how, fixed when it was built. Cheap to clone. Serve it
/// with [`serve_stdio`](Self::serve_stdio), [`serve_http`](Self::serve_http), or mount
/// [`router`](Self::router) in an axum app; or let
/// [`ServerBuilder::run`](builder::ServerBuilder::run) build it and pick the transport from
/// the command line.
#[derive(Clone)]
pub struct Server {
    inner: Arc<ServerInner>,
    /// Its HTTP settings, legacy sessions and body budget, shared by every router of it.
    #[cfg(feature = "http")]
    http: Arc<Http>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl Server {
    /// A server over this state (see [`ServerBuilder::build`](builder::ServerBuilder::build)).
    fn from_inner(inner: ServerInner, #[cfg(feature = "http")] http: Arc<Http>) -> Self {
        Self {
            inner: Arc::new(inner),
            #[cfg(feature = "http")]
            http,
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
        http::router(self.inner.clone(), self.http.clone(), path, None)
    }

    /// Serves Streamable HTTP on `addr` at `/mcp` until shutdown (SIGINT/SIGTERM through
    /// [`ServerBuilder::run`](builder::ServerBuilder::run), or [`ServerHandle::shutdown`]).
    #[cfg(feature = "http")]
    pub async fn serve_http(&self, addr: std::net::SocketAddr) -> Result<(), Error> {
        let listener = bind(addr).await?;
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
        http::serve(self.inner.clone(), self.http.clone(), listener, path).await
    }

    /// Starts a graceful shutdown: open subscriptions end with their final result, the
    /// transports stop, and the requests still running after the grace period
    /// ([`ServerBuilder::shutdown_grace`](builder::ServerBuilder::shutdown_grace)) are cut.
    pub fn shutdown(&self) {
        self.inner.begin_shutdown();
    }
}

/// A listener on `addr`, or [`Error::Bind`] naming it.
#[cfg(feature = "http")]
pub(crate) async fn bind(addr: std::net::SocketAddr) -> Result<tokio::net::TcpListener, Error> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })
}
