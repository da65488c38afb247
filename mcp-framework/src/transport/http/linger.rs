//! Refusing a request whose body is still on its way (a lingering close). hyper closes an
//! HTTP/1.1 connection whose request body is left unread when the response is sent, and a
//! client still writing that body then meets a reset connection instead of the answer (the
//! kernel answers unread data at close, and data sent after it, with RST): httpx's
//! `AsyncClient`, which the Python SDK uses, reports `ReadError` for every body over the size
//! limit. So a refusal sent before the body was read through (`413`, the body budget's `503`,
//! a rejection of the request's head) says `Connection: close`, and the rest of the body is
//! read and discarded, at most [`Linger::bytes`] for at most [`Linger::time`]; then the
//! connection closes, after the client has finished writing and can read its answer.
//!
//! Not done where it would not help: HTTP/2 ends one stream (`RST_STREAM`, not the
//! connection); a client waiting for `100 Continue` sends no body; a body that declares
//! more than the bytes to be read is closed on at once.

use std::time::Duration;

use axum::body::BodyDataStream;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Version, header};
use axum::response::Response;
use futures_util::StreamExt as _;
use hyper::body::Body as _;

use super::config::HttpConfig;

/// How much of a refused body is read and discarded before the connection closes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Linger {
    /// The longest time, from the refusal.
    pub(super) time: Duration,
    /// The most bytes.
    pub(super) bytes: usize,
}

impl Linger {
    /// The settings of `config`.
    pub(super) fn of(config: &HttpConfig) -> Self {
        Self {
            time: config.linger_time,
            bytes: config.linger_bytes,
        }
    }
}

/// The body of a refused request that has not been read: all of it (`started: false`), or
/// what is left after a part was read.
#[derive(Debug)]
pub(super) struct Unread {
    pub(super) body: BodyDataStream,
    pub(super) started: bool,
}

impl Unread {
    /// A body not read at all.
    pub(super) fn whole(body: axum::body::Body) -> Self {
        Self {
            body: body.into_data_stream(),
            started: false,
        }
    }
}

/// `response` refuses the request of `parts`, whose body is `unread`: when the client may
/// still be writing it, the answer closes the connection and the body is drained in the
/// background within `linger`.
pub(super) fn refuse(
    parts: &Parts,
    unread: Unread,
    linger: Linger,
    mut response: Response,
) -> Response {
    let body = unread.body;
    if parts.version > Version::HTTP_11 || body.is_end_stream() {
        return response;
    }
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    // Reading the body would make hyper send `100 Continue`, inviting the body it refuses.
    let waits_for_continue = !unread.started && expects_continue(&parts.headers);
    let more_than_read = body.size_hint().lower() > linger.bytes as u64;
    if !waits_for_continue && !more_than_read && linger.bytes > 0 && !linger.time.is_zero() {
        tokio::spawn(drain(body, linger));
    }
    response
}

fn expects_continue(headers: &HeaderMap) -> bool {
    headers
        .get(header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"))
}

/// Reads and discards `body` to its end, or until `linger` runs out.
async fn drain(mut body: BodyDataStream, linger: Linger) {
    let mut left = linger.bytes;
    let read = async {
        while let Some(Ok(chunk)) = body.next().await {
            match left.checked_sub(chunk.len()) {
                Some(n) => left = n,
                None => return false,
            }
        }
        true
    };
    match tokio::time::timeout(linger.time, read).await {
        Ok(true) => tracing::trace!("refused body drained"),
        Ok(false) => tracing::debug!(
            bytes = linger.bytes,
            "refused body larger than the bytes read before closing"
        ),
        Err(_) => tracing::debug!(
            time = ?linger.time,
            "refused body not sent in the time allowed before closing"
        ),
    }
}
