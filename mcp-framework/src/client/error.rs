//! `ClientError`: what a client call fails with (the server's JSON-RPC error, a server that
//! could not be started or reached, an HTTP refusal, a closed connection or session, a timeout, a
//! cancelled request, no protocol version in common, a result of the wrong shape).

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::ErrorObject;

/// An error from the client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    #[error("{0}")]
    Rpc(ErrorObject),
    /// The server's program could not be started.
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        /// The program that was run.
        program: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// The extensions' contributions to a stdio server's launch conflict (each conflict
    /// named).
    #[error("cannot launch the server: {0}")]
    Launch(String),
    /// The HTTP request could not be made or its response not read (connection refused,
    /// TLS, a broken stream).
    #[error("cannot reach the server: {0}")]
    Transport(String),
    /// The server refused the HTTP request with a status and no JSON-RPC error.
    #[error("the server answered HTTP {status}{}", if message.is_empty() { String::new() } else { format!(": {message}") })]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The start of the body, or the `WWW-Authenticate` challenge of a 401/403.
        message: String,
    },
    /// The connection closed.
    #[error("the connection to the server closed")]
    Closed,
    /// The server no longer knows this client's legacy session (it ended it, or it
    /// restarted): the connection is closed; connect again for a new session.
    #[error("the server ended the session: connect again for a new one")]
    SessionEnded,
    /// The server did not answer within the timeout.
    #[error("the server did not answer in time")]
    Timeout,
    /// The request was cancelled by this client.
    #[error("the request was cancelled")]
    Cancelled,
    /// The server speaks no protocol revision this client does.
    #[error("the server speaks none of this client's protocol versions (it supports {})", supported.join(", "))]
    UnsupportedVersion {
        /// The versions the server listed.
        supported: Vec<String>,
    },
    /// A result did not have the expected shape.
    #[error("unexpected result: {0}")]
    Decode(String),
}

impl ClientError {
    /// The JSON-RPC error, if the server sent one.
    pub fn rpc(&self) -> Option<&ErrorObject> {
        match self {
            Self::Rpc(e) => Some(e),
            _ => None,
        }
    }
}

/// Reads a result as `T`, or fails with [`ClientError::Decode`].
pub(super) fn decode<T: DeserializeOwned>(v: Value) -> Result<T, ClientError> {
    serde_json::from_value(v).map_err(|e| ClientError::Decode(e.to_string()))
}
