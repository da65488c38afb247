//! `ClientError`: what a client call fails with (the server's JSON-RPC error, a closed
//! connection, a timeout, a result of the wrong shape).

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
    /// The connection closed.
    #[error("the connection to the server closed")]
    Closed,
    /// The server did not answer within the timeout.
    #[error("the server did not answer in time")]
    Timeout,
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
