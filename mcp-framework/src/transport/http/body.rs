//! Receiving a POST body: at most the size limit, within the body read timeout, and only
//! while the [`BodyBudget`] shared by every body being received has room; what goes wrong is
//! a [`BodyError`], answered with its status, and a body refused while the client may still
//! be sending it comes back unread, to be [drained](super::linger). This runs in the
//! handler, so it holds wherever the endpoint is mounted.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt as _;

use super::budget::{BodyBudget, Reservation};
use super::checks::Rejected;
use super::linger::Unread;
use super::response::{rejection, unavailable};
use crate::protocol::{ErrorObject, codes};

/// Why a body was not received.
#[derive(Debug, thiserror::Error)]
pub(super) enum BodyError {
    /// Larger than the size limit (declared or read).
    #[error("the body is larger than {0} bytes")]
    TooLarge(usize),
    /// Not complete within the body read timeout.
    #[error("the body did not arrive within {0:?}")]
    TimedOut(Duration),
    /// The budget has no room for it.
    #[error("too many request bodies are being received")]
    Busy,
    /// The connection failed or the framing was malformed.
    #[error("the body could not be read: {0}")]
    Read(#[source] axum::Error),
}

impl BodyError {
    /// The answer to a request whose body was not received.
    pub(super) fn into_response(self) -> Response {
        match self {
            Self::TooLarge(limit) => Rejected::TooLarge(limit).into_response(),
            Self::TimedOut(_) => {
                let mut r = rejection(
                    StatusCode::REQUEST_TIMEOUT,
                    "Request Timeout: the body did not arrive in time",
                );
                r.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                r
            }
            Self::Busy => unavailable(
                None,
                &ErrorObject::new(
                    codes::INVALID_REQUEST,
                    "Service Unavailable: too many request bodies are being received, retry later",
                ),
            ),
            Self::Read(_) => rejection(
                StatusCode::BAD_REQUEST,
                "Bad Request: the body could not be read",
            ),
        }
    }
}

/// What a body read needs to know.
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyLimits {
    /// The largest body, in bytes.
    pub(super) max_bytes: usize,
    /// The time from the start of the read to the body's last byte.
    pub(super) timeout: Duration,
}

/// A body that was not received: why, and the part of it not read yet when the client may
/// still be sending it (a refusal [lingers](super::linger) on it).
#[derive(Debug)]
pub(super) struct NotReceived {
    pub(super) error: BodyError,
    pub(super) unread: Option<Unread>,
}

impl NotReceived {
    fn new(error: BodyError, unread: Option<Unread>) -> Self {
        Self { error, unread }
    }
}

/// Reads a whole body. The bytes come with their share of `budget`: drop it once they are
/// no longer buffered.
pub(super) async fn read(
    budget: &Arc<BodyBudget>,
    limits: BodyLimits,
    headers: &HeaderMap,
    body: Body,
) -> Result<(Bytes, Reservation), NotReceived> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limits.max_bytes) {
        let error = BodyError::TooLarge(limits.max_bytes);
        return Err(NotReceived::new(error, Some(Unread::whole(body))));
    }
    let mut reservation = Reservation::new(budget.clone());
    if !reservation.grow_to(declared.unwrap_or(0)) {
        return Err(NotReceived::new(BodyError::Busy, Some(Unread::whole(body))));
    }
    let collect = collect(body, limits.max_bytes, declared, &mut reservation);
    let bytes = match limits.timeout {
        Duration::MAX => collect.await,
        timeout => tokio::time::timeout(timeout, collect)
            .await
            .unwrap_or(Err(NotReceived::new(BodyError::TimedOut(timeout), None))),
    }?;
    Ok((bytes, reservation))
}

/// The body's bytes, growing `reservation` as they come (a body with a `Content-Length`
/// reserved it up front); a body of one chunk is not copied, one of several is copied once
/// into a buffer of its declared length.
async fn collect(
    body: Body,
    max_bytes: usize,
    declared: Option<usize>,
    reservation: &mut Reservation,
) -> Result<Bytes, NotReceived> {
    let mut stream = body.into_data_stream();
    let mut first: Option<Bytes> = None;
    let mut rest = BytesMut::new();
    let mut len = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| NotReceived::new(BodyError::Read(e), None))?;
        len = len.saturating_add(chunk.len());
        let refused = if len > max_bytes {
            Some(BodyError::TooLarge(max_bytes))
        } else if !reservation.grow_to(len) {
            Some(BodyError::Busy)
        } else {
            None
        };
        if let Some(error) = refused {
            let unread = Unread {
                body: stream,
                started: true,
            };
            return Err(NotReceived::new(error, Some(unread)));
        }
        match &first {
            None => first = Some(chunk),
            Some(head) => {
                if rest.is_empty() {
                    rest.reserve(declared.unwrap_or(len).max(len));
                    rest.extend_from_slice(head);
                }
                rest.extend_from_slice(&chunk);
            }
        }
    }
    Ok(if rest.is_empty() {
        first.unwrap_or_default()
    } else {
        rest.freeze()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunked(parts: &'static [&'static str]) -> Body {
        let chunks = parts
            .iter()
            .map(|p| Ok::<_, std::io::Error>(Bytes::from_static(p.as_bytes())));
        Body::from_stream(futures_util::stream::iter(chunks))
    }

    fn limits(max_bytes: usize) -> BodyLimits {
        BodyLimits {
            max_bytes,
            timeout: Duration::from_secs(5),
        }
    }

    #[tokio::test]
    async fn chunks_are_joined_within_the_limits() {
        let budget = Arc::new(BodyBudget::new(1 << 20));
        let mut headers = HeaderMap::new();
        let (bytes, held) = read(
            &budget,
            limits(100),
            &headers,
            chunked(&["{\"a\"", ":", "1}"]),
        )
        .await
        .unwrap();
        assert_eq!(&bytes[..], b"{\"a\":1}");
        drop(held);
        let too_large = read(&budget, limits(5), &headers, chunked(&["{\"a\"", ":1}"])).await;
        assert!(matches!(
            too_large,
            Err(NotReceived {
                error: BodyError::TooLarge(5),
                unread: Some(_)
            })
        ));
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("7"));
        let (bytes, _held) = read(&budget, limits(100), &headers, chunked(&["{\"a\"", ":1}"]))
            .await
            .unwrap();
        assert_eq!(&bytes[..], b"{\"a\":1}");
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("101"));
        let declared = read(&budget, limits(100), &headers, chunked(&[])).await;
        assert!(matches!(
            declared,
            Err(NotReceived {
                error: BodyError::TooLarge(100),
                unread: Some(Unread { started: false, .. })
            })
        ));
    }

    #[tokio::test]
    async fn a_full_budget_refuses() {
        let budget = Arc::new(BodyBudget::new(64));
        let mut hog = Reservation::new(budget.clone());
        assert!(hog.grow_to(60));
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("10"));
        let refused = read(&budget, limits(100), &headers, chunked(&["0123456789"])).await;
        let refused = refused.unwrap_err().error;
        assert!(matches!(refused, BodyError::Busy));
        let answer = refused.into_response();
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(answer.headers()[header::RETRY_AFTER], "1");
    }
}
