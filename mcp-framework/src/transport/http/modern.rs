//! A request answered on its own connection: JSON, or an SSE stream once the handler sends a
//! request-scoped notification first, or always for a client that accepts only SSE; closing
//! the connection cancels the request. Every
//! modern request takes this path, and so does a legacy session's request whose client
//! accepts JSON only (the rest of a legacy session's requests take [`super::legacy`]).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::auth;
use super::checks::media::Answer;
use super::endpoint::Endpoint;
use super::response::{error_response, failure_response, message_response};
use super::sessions::HttpSession;
use super::{checks, legacy, listen, sse};
use crate::dispatch::{Carrier, Failure, Reply, dispatch};
use crate::peer::{HttpParts, PeerId, Sink};
use crate::principal::Principal;
use crate::protocol::jsonrpc::Request;
use crate::protocol::meta::{RequestedVersion, read_request_head};
use crate::protocol::{ErrorObject, RequestId, codes};

pub(super) type ReplyFuture = Pin<Box<dyn Future<Output = Reply> + Send>>;

pub(super) async fn serve_request(
    ep: Arc<Endpoint>,
    parts: Parts,
    request: Request,
    session: Option<Arc<HttpSession>>,
    answer: Answer,
) -> Response {
    let head = match read_request_head(request.params.as_deref()) {
        Ok(m) => m,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e),
    };
    let modern = session.is_none() || head.meta.protocol_version.is_some();
    if let (true, Some(version)) = (
        modern,
        head.meta
            .protocol_version
            .as_ref()
            .map(RequestedVersion::as_str),
    ) && let Err(e) =
        checks::metadata::check_standard_headers(&parts.headers, &request, &head.members, version)
    {
        return error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e);
    }
    if let (false, Some(session), true) = (modern, &session, answer.sse()) {
        return legacy::serve_request(&ep, parts, request, session.clone(), head).await;
    }
    let id = request.id.clone();
    // A stream (an extension's streaming method) always has one.
    let needs_stream = session.is_some()
        || head.meta.progress_token.is_some()
        || head.meta.log_level.is_some()
        || ep.server.extensions.streams(&request.method);
    let cancel = CancellationToken::new();
    let guard = cancel.clone().drop_guard();
    let (tx, rx) = if needs_stream {
        let (tx, rx) = mpsc::channel::<Bytes>(64);
        (Some(tx), Some(rx))
    } else {
        (None, None)
    };
    let principal = parts.extensions.get::<Principal>().cloned();
    let peer = ep.guard.client_addr(&parts).map(PeerId::Addr);
    let http = Arc::new(HttpParts {
        headers: parts.headers,
        principal,
    });
    let carrier = Carrier {
        cancel: cancel.clone(),
        sink: tx.map(|tx| Sink::new(tx, cancel.clone())),
        session: session.map(|s| s.session.clone()),
        http: Some(http),
        head: Some(head),
        close_stream: None,
        peer,
        session_principal: None,
    };
    let server = ep.server.clone();
    let mut fut: ReplyFuture = Box::pin(async move { dispatch(&server, request, carrier).await });
    let Some(mut rx) = rx else {
        return finish(&ep, &id, fut.await, guard, answer);
    };
    // Wait for the reply, or for a first notification (which turns the answer into SSE).
    loop {
        tokio::select! {
            biased;
            Some(first) = rx.recv() => {
                if answer.sse() {
                    return sse_request_stream(id, vec![first], Some(fut), None, rx, guard);
                }
                // The client takes JSON only: notifications cannot reach it.
            }
            reply = &mut fut => {
                let mut queued = Vec::new();
                while let Ok(n) = rx.try_recv() {
                    queued.push(n);
                }
                if queued.is_empty() || !answer.sse() || matches!(reply, Reply::Listen(_)) {
                    return finish(&ep, &id, reply, guard, answer);
                }
                let last = reply.into_message(&id);
                return sse_request_stream(id, queued, None, last, rx, guard);
            }
        }
    }
}

/// A JSON answer, one SSE event for a client that accepts only SSE (or, for
/// `subscriptions/listen`, its stream).
fn finish(
    ep: &Endpoint,
    id: &RequestId,
    reply: Reply,
    guard: DropGuard,
    answer: Answer,
) -> Response {
    match reply {
        Reply::Result(bytes) => {
            drop(guard.disarm());
            message_response(StatusCode::OK, Reply::result_message(id, &bytes), answer)
        }
        // A 200 answer may go out as SSE; the statuses of a failure (and its Retry-After)
        // stay.
        Reply::Error(e, Failure::Answered) => {
            message_response(StatusCode::OK, Reply::error_message(Some(id), &e), answer)
        }
        Reply::Error(e, Failure::Forbidden(challenge)) => {
            auth::forbidden(ep, Some(id), &e, &challenge.scopes)
        }
        Reply::Error(e, failure) => failure_response(&failure, id, &e),
        Reply::Cancelled => message_response(
            StatusCode::OK,
            Reply::error_message(
                Some(id),
                &ErrorObject::new(codes::INVALID_REQUEST, "Request cancelled"),
            ),
            answer,
        ),
        Reply::Listen(l) => listen::stream(ep.http.config.keep_alive, id.clone(), *l, guard),
    }
}

/// The SSE answer of a request that sent notifications before its reply: the queued
/// notifications, then whatever else the handler sends, then the reply.
fn sse_request_stream(
    id: RequestId,
    queued: Vec<Bytes>,
    fut: Option<ReplyFuture>,
    reply: Option<Bytes>,
    rx: mpsc::Receiver<Bytes>,
    guard: DropGuard,
) -> Response {
    struct Running {
        id: RequestId,
        fut: Option<ReplyFuture>,
        reply: Option<Bytes>,
        rx: mpsc::Receiver<Bytes>,
        _guard: DropGuard,
    }
    let state = Running {
        id,
        fut,
        reply,
        rx,
        _guard: guard,
    };
    let head = stream::iter(
        queued
            .into_iter()
            .map(|n| Ok::<_, Infallible>(sse::event(&n))),
    );
    let rest = stream::unfold(state, |mut s| async move {
        loop {
            if let Some(fut) = s.fut.as_mut() {
                tokio::select! {
                    biased;
                    Some(n) = s.rx.recv() => return Some((Ok(sse::event(&n)), s)),
                    reply = fut => {
                        s.fut = None;
                        s.reply = reply.into_message(&s.id);
                    }
                }
            } else {
                // Notifications sent in the same poll as the reply come first.
                if let Ok(n) = s.rx.try_recv() {
                    return Some((Ok(sse::event(&n)), s));
                }
                let last = s.reply.take()?;
                return Some((Ok(sse::event(&last)), s));
            }
        }
    });
    sse::sse_response(futures_util::StreamExt::chain(head, rest))
}
