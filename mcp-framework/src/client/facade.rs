//! `Client`: the handle every request goes through (cheap to clone, one connection
//! shared), and connecting one: to a `Server` in this process (`connect`), to a server
//! started as a child process over stdio (`connect_stdio`), or to a Streamable HTTP
//! endpoint (`connect_http`, feature `client-http`); then the era is settled (`era.rs`).
//! `close` ends the connection.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use tokio::io::BufReader;
use tokio::sync::broadcast;

use super::builder::{ClientBuilder, Era};
use super::connection::Connection;
use super::error::ClientError;
use super::transport::lines::{Lines, spawn_reader};
use super::transport::{Sink, Transport};
use crate::protocol::{Implementation, ProtocolVersion, ServerCapabilities};
use crate::server::Server;

/// A connected MCP client. Cheap to clone; the connection ends when the last clone is
/// dropped (a child process is killed then) or at [`close`](Client::close).
#[derive(Clone)]
pub struct Client {
    pub(super) conn: Arc<Connection>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("protocol_version", &self.protocol_version())
            .field("server", &self.server_info())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Connects to `server` in this process, in modern (2026-07-28) mode with no
    /// capabilities.
    pub async fn connect(server: &Server) -> Result<Self, ClientError> {
        Self::builder().connect(server).await
    }

    /// Configures a client.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::new()
    }

    /// Every notification not tied to a subscription (progress, log messages, legacy
    /// list changes), from now on.
    pub fn notifications(&self) -> broadcast::Receiver<Value> {
        self.conn.notifications()
    }

    /// The revision this client speaks with the server.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.conn.legacy().unwrap_or(ProtocolVersion::LATEST)
    }

    /// The server's name and version, as `server/discover` or `initialize` gave them.
    pub fn server_info(&self) -> Option<&Implementation> {
        self.conn.handshake().and_then(|h| h.info.as_ref())
    }

    /// The server's capabilities, as `server/discover` or `initialize` gave them.
    pub fn server_capabilities(&self) -> Option<&ServerCapabilities> {
        self.conn.handshake().and_then(|h| h.capabilities.as_ref())
    }

    /// The server's instructions for the model, if it gave any.
    pub fn instructions(&self) -> Option<&str> {
        self.conn
            .handshake()
            .and_then(|h| h.instructions.as_deref())
    }

    /// Completes once the connection is gone: the server's process exited or closed its
    /// output (stdio), or [`close`](Self::close) was called.
    pub async fn closed(&self) {
        self.conn.closed().await;
    }

    /// Ends the connection: a child process gets its stdin closed and 2 s to exit before
    /// it is killed; a legacy HTTP session is deleted; open streams are closed. Requests
    /// still waiting fail with [`ClientError::Closed`].
    pub async fn close(self) {
        self.conn.transport.close(&*self.conn).await;
        self.conn.close_all();
    }
}

impl ClientBuilder {
    /// Connects to `server` in this process, over an in-memory pipe in the stdio wire
    /// format (modern unless [`legacy`](Self::legacy) is set: the server is known to speak
    /// both eras, so there is nothing to probe).
    pub async fn connect(self, server: &Server) -> Result<Client, ClientError> {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        let server = server.clone();
        tokio::spawn(async move {
            let _ = server.serve_stream(server_read, server_write).await;
        });
        let (read, write) = tokio::io::split(client_io);
        let era = match self.era {
            Era::Auto => Era::Modern,
            era => era,
        };
        let max = self.max_message_bytes;
        let conn = Connection::new(Transport::Lines(Lines::new(Box::new(write), None)), self);
        spawn_reader(&(conn.clone() as Arc<dyn Sink>), BufReader::new(read), max);
        Self::settle(conn, era).await
    }

    /// Starts `command` as a child process and speaks to it over its stdin and stdout
    /// (its stderr goes where the command sends it, inherited unless set, or to the log with
    /// [`log_stderr`](Self::log_stderr)). The era is
    /// probed unless set. The process is killed when the last `Client` is dropped.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_framework::client::ClientError> {
    /// use mcp_framework::client::Client;
    /// let mut command = tokio::process::Command::new("npx");
    /// command.args(["-y", "@modelcontextprotocol/server-everything"]);
    /// let client = Client::builder().connect_stdio(command).await?;
    /// let tools = client.list_tools().await?;
    /// client.close().await;
    /// # Ok(()) }
    /// ```
    pub async fn connect_stdio(
        self,
        mut command: tokio::process::Command,
    ) -> Result<Client, ClientError> {
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true);
        if self.stderr_label.is_some() {
            command.stderr(std::process::Stdio::piped());
        }
        super::extension::apply(&self.extensions, &mut command).map_err(ClientError::Launch)?;
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let mut child = command
            .spawn()
            .map_err(|source| ClientError::Spawn { program, source })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        if let (Some(label), Some(stderr)) = (self.stderr_label.clone(), child.stderr.take()) {
            super::transport::stderr::spawn_logger(stderr, label);
        }
        let (era, max) = (self.era, self.max_message_bytes);
        let conn = Connection::new(
            Transport::Lines(Lines::new(Box::new(stdin), Some(child))),
            self,
        );
        spawn_reader(
            &(conn.clone() as Arc<dyn Sink>),
            BufReader::new(stdout),
            max,
        );
        Self::settle(conn, era).await
    }

    /// Connects to the Streamable HTTP endpoint `url` (e.g. `http://127.0.0.1:8080/mcp`).
    /// The era is probed unless set: a legacy server gets `initialize` and its session.
    #[cfg(feature = "client-http")]
    pub async fn connect_http(self, url: &str) -> Result<Client, ClientError> {
        let url = reqwest::Url::parse(url)
            .map_err(|e| ClientError::Transport(format!("`{url}` is not a URL: {e}")))?;
        let era = self.era;
        let http =
            super::transport::http::Http::new(url, self.bearer.clone(), self.max_message_bytes)?;
        let conn = Connection::new(Transport::Http(http), self);
        Self::settle(conn, era).await
    }

    /// The client over `conn`, its era settled.
    async fn settle(conn: Arc<Connection>, era: Era) -> Result<Client, ClientError> {
        let client = Client { conn };
        client.settle_era(era).await?;
        Ok(client)
    }
}
