//! Server-sent events: the response that carries them, one event per JSON-RPC message
//! (with an id on resumable streams), keep-alive comments and retry hints.

use std::convert::Infallible;

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream::Stream;

/// The retry interval a client is told to wait before polling back (milliseconds).
pub(super) const RETRY_MS: u32 = 500;

/// A comment that keeps an idle stream open.
pub(super) const KEEP_ALIVE: &[u8] = b":\n\n";

pub(super) fn sse_response(
    events: impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static,
) -> Response {
    let mut r = Response::new(Body::from_stream(events));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// One event carrying a JSON-RPC message.
pub(super) fn event(message: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(message.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// One event with an id (`{stream}-{seq}`, resumable streams).
pub(super) fn event_with_id(stream: u64, seq: u64, message: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(message.len() + 48);
    out.extend_from_slice(format!("id: {stream}-{seq}\nevent: message\ndata: ").as_bytes());
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

/// The first event of a resumable stream: its id (sequence 0) and the retry interval.
pub(super) fn priming(stream: u64) -> Bytes {
    Bytes::from(format!("id: {stream}-0\nretry: {RETRY_MS}\ndata: \n\n"))
}

/// What a connection the server closes (but not its stream) ends with: when to poll back.
pub(super) fn retry() -> Bytes {
    Bytes::from(format!("retry: {RETRY_MS}\n\n"))
}
