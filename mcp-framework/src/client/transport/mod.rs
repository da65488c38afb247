//! How the client's messages travel: one line of JSON per message over a pipe (the
//! in-process server, or a server started as a child process: `lines.rs`), or Streamable
//! HTTP (`http.rs`, feature `client-http`); a child server's stderr can become log lines
//! (`stderr.rs`). The connection hands each transport whole
//! messages and gets back, through its [`Sink`], whatever the server sends; a transport
//! knows nothing else of the connection.

use std::sync::Arc;

use serde_json::Value;

use super::error::ClientError;
use crate::protocol::RequestId;

#[cfg(feature = "client-http")]
pub(in crate::client) mod http;
pub(in crate::client) mod lines;
mod sink;
pub(in crate::client) mod stderr;

pub(in crate::client) use sink::Sink;

/// The transport of one connection.
pub(in crate::client) enum Transport {
    /// Newline-delimited JSON over a pipe (stdio's wire format).
    Lines(lines::Lines),
    /// Streamable HTTP.
    #[cfg(feature = "client-http")]
    Http(http::Http),
}

impl Transport {
    /// Sends the request `msg` (its id `id`, its method `method`); its answer comes back
    /// through the connection, or [`Connection::fail`] ends it.
    pub(in crate::client) async fn request(
        &self,
        conn: Arc<dyn Sink>,
        id: &RequestId,
        method: &str,
        msg: &Value,
    ) -> Result<(), ClientError> {
        match self {
            Self::Lines(lines) => {
                let _ = (conn, id, method);
                lines.write(msg).await
            }
            #[cfg(feature = "client-http")]
            Self::Http(http) => {
                http.request(conn, id, method, msg);
                Ok(())
            }
        }
    }

    /// Sends a notification or a response (the answer to a server's request).
    pub(in crate::client) async fn post(
        &self,
        conn: &dyn Sink,
        msg: Value,
    ) -> Result<(), ClientError> {
        match self {
            Self::Lines(lines) => {
                let _ = conn;
                lines.write(&msg).await
            }
            #[cfg(feature = "client-http")]
            Self::Http(http) => http.post(conn, msg).await,
        }
    }

    /// Cancels the request `id` by closing its response stream, where that is how the
    /// transport cancels (modern Streamable HTTP); `false` when a `notifications/cancelled`
    /// must be sent instead.
    pub(in crate::client) fn abort(&self, conn: &dyn Sink, id: &RequestId) -> bool {
        match self {
            Self::Lines(_) => {
                let _ = (conn, id);
                false
            }
            #[cfg(feature = "client-http")]
            Self::Http(http) => http.abort(conn, id),
        }
    }

    /// Ends the connection: a child process is asked to exit (stdin closed, then killed
    /// after a grace period), a legacy HTTP session is deleted.
    pub(in crate::client) async fn close(&self, conn: &dyn Sink) {
        match self {
            Self::Lines(lines) => {
                let _ = conn;
                lines.close().await;
            }
            #[cfg(feature = "client-http")]
            Self::Http(http) => http.close(conn).await,
        }
    }
}
