//! The plain HTTP answers: a JSON body (or, for a client that accepts only SSE, one event),
//! a JSON-RPC error with its status, `202 Accepted`, and the rejections every method of the
//! endpoint shares.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;

use super::checks::media::Answer;
use super::sse;
use crate::dispatch::{Failure, Reply};
use crate::protocol::{ErrorObject, RequestId, codes};

pub(super) fn json_response(status: StatusCode, body: Bytes) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The one message answering a request: JSON, or an SSE stream of that one event when
/// the client accepts only SSE and the status is `200` (error statuses stay JSON).
pub(super) fn message_response(status: StatusCode, message: Bytes, answer: Answer) -> Response {
    if answer == Answer::SseOnly && status == StatusCode::OK {
        let event = sse::event(&message);
        return sse::sse_response(futures_util::stream::once(async move {
            Ok::<_, std::convert::Infallible>(event)
        }));
    }
    json_response(status, message)
}

pub(super) fn error_response(
    status: StatusCode,
    id: Option<&RequestId>,
    error: &ErrorObject,
) -> Response {
    json_response(status, Reply::error_message(id, error))
}

/// A transport-level rejection: `-32600` with no id, and the status that says why.
pub(super) fn rejection(status: StatusCode, message: impl Into<String>) -> Response {
    error_response(
        status,
        None,
        &ErrorObject::new(codes::INVALID_REQUEST, message),
    )
}

pub(super) fn status_of(failure: &Failure) -> StatusCode {
    match failure {
        Failure::BadRequest => StatusCode::BAD_REQUEST,
        Failure::NotFound => StatusCode::NOT_FOUND,
        Failure::Answered => StatusCode::OK,
        Failure::Busy => StatusCode::TOO_MANY_REQUESTS,
        Failure::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        Failure::Forbidden(_) => StatusCode::FORBIDDEN,
    }
}

/// The answer to a failed request: its status, and `Retry-After` when a limit refused it.
pub(super) fn failure_response(failure: &Failure, id: &RequestId, error: &ErrorObject) -> Response {
    match failure {
        Failure::Busy => busy_response(Some(id), error),
        Failure::Unavailable => unavailable(Some(id), error),
        _ => error_response(status_of(failure), Some(id), error),
    }
}

/// How long a refused client is told to wait (`Retry-After`, seconds).
const RETRY_AFTER_SECS: &str = "1";

/// `429 Too Many Requests` with `Retry-After`: a limit of what one client may hold.
pub(super) fn busy_response(id: Option<&RequestId>, error: &ErrorObject) -> Response {
    let mut r = error_response(StatusCode::TOO_MANY_REQUESTS, id, error);
    r.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(RETRY_AFTER_SECS),
    );
    r
}

/// `503 Service Unavailable` with `Retry-After`: a limit of what the server holds in all.
pub(super) fn unavailable(id: Option<&RequestId>, error: &ErrorObject) -> Response {
    let mut r = error_response(StatusCode::SERVICE_UNAVAILABLE, id, error);
    r.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(RETRY_AFTER_SECS),
    );
    r
}

pub(super) fn accepted() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}

pub(super) fn method_not_allowed() -> Response {
    let mut r = rejection(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method not allowed: the MCP endpoint accepts POST",
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

pub(super) fn session_not_found() -> Response {
    rejection(
        StatusCode::NOT_FOUND,
        "Session not found: initialize a new session",
    )
}
