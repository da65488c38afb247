//! What dispatch answers a transport with: a [`Reply`], the [`Failure`] class of an error
//! (HTTP picks its status from it), and the one place a reply becomes a JSON-RPC message.

use bytes::Bytes;

use crate::protocol::jsonrpc::{error_message, result_message};
use crate::protocol::{ErrorObject, RequestId, codes};
use crate::subscriptions::Listen;

/// What a transport should send back for a request.
#[derive(Debug)]
pub(crate) enum Reply {
    /// An encoded `result` object.
    Result(Bytes),
    /// A JSON-RPC error, and what kind of failure it is.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Error(ErrorObject, Failure),
    /// A `subscriptions/listen` stream for the transport to drive.
    Listen(Box<Listen>),
    /// The request was cancelled: send nothing.
    Cancelled,
}

/// The class of a failed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The request itself is malformed, or needs what the client did not declare (HTTP 400).
    BadRequest,
    /// Unknown method (HTTP 404).
    NotFound,
    /// The request was understood and answered with an error (HTTP 200).
    Answered,
    /// A limit of what one client may hold was reached; retry later (HTTP 429).
    Busy,
    /// A limit of what the server holds in all was reached; retry later (HTTP 503).
    Unavailable,
    /// The caller lacks scopes the item needs (HTTP 403 with a step-up challenge).
    Forbidden(Box<Challenge>),
}

/// What a refusal for scopes challenges the client for: every scope the item requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) scopes: Vec<String>,
}

impl Reply {
    /// A malformed request.
    pub(super) fn bad(e: ErrorObject) -> Self {
        Self::Error(e, Failure::BadRequest)
    }

    /// A request that was understood and failed.
    pub(super) fn error(e: ErrorObject) -> Self {
        Self::Error(e, Failure::Answered)
    }

    /// The refusal of a caller that lacks `scopes` (every scope the item requires):
    /// `-32003` with them in `data.requiredScopes`, and the challenge's scopes as data.
    pub(super) fn forbidden(scopes: Vec<String>) -> Self {
        Self::Error(
            ErrorObject::insufficient_scope(scopes.clone()),
            Failure::Forbidden(Box::new(Challenge { scopes })),
        )
    }

    /// A refusal that came as an error from outside dispatch's own checks (a middleware
    /// layer's, a subscription's): a `-32003` is the same challenge as dispatch's, for the
    /// scopes its `data.requiredScopes` lists; any other error is answered as it is.
    pub(super) fn refusal(e: ErrorObject) -> Self {
        if e.code != codes::INSUFFICIENT_SCOPE {
            return Self::error(e);
        }
        let scopes = e
            .data
            .as_ref()
            .and_then(|d| d.get("requiredScopes"))
            .and_then(serde_json::Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Self::Error(e, Failure::Forbidden(Box::new(Challenge { scopes })))
    }

    /// The response to request `id`; `None` when there is nothing to send (a cancelled
    /// request, or a listen stream, which the transport drives).
    pub(crate) fn into_message(self, id: &RequestId) -> Option<Bytes> {
        match self {
            Self::Result(result) => Some(Self::result_message(id, &result)),
            Self::Error(e, _) => Some(Self::error_message(Some(id), &e)),
            Self::Cancelled | Self::Listen(_) => None,
        }
    }

    /// A result message around already-encoded `result` bytes (a listen stream's final
    /// result, `initialize`).
    pub(crate) fn result_message(id: &RequestId, result: &[u8]) -> Bytes {
        Bytes::from(result_message(id, result))
    }

    /// An error message; `id` is `None` when the request's id could not be read.
    pub(crate) fn error_message(id: Option<&RequestId>, error: &ErrorObject) -> Bytes {
        Bytes::from(error_message(id, error))
    }
}
