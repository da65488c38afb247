//! Legacy sessions over HTTP (2025-11-25 and older): `initialize` opens one and names it in
//! `Mcp-Session-Id`; `GET` opens its session-wide stream or resumes a response stream
//! (`Last-Event-ID`); `DELETE` ends it. A session's request runs detached from its
//! connection (a dropped connection is not a cancellation there), and everything it sends
//! is recorded in a [resumable stream](super::resumable) whose first event primes the client
//! with an id and a retry interval. Detached requests are bounded: per session (its
//! in-flight limit), in all (a place from the session store), and in time when nobody
//! follows them: a request whose stream no connection has followed for the resume timeout
//! is cancelled, and its stream ends with an error saying so.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures_util::future::Either;
use futures_util::stream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::auth;
use super::checks::media::Answer;
use super::endpoint::{Endpoint, SESSION_HEADER, session_of};
use super::response::{
    busy_response, error_response, message_response, method_not_allowed, rejection,
    session_not_found, unavailable,
};
use super::resumable::{Attach, Live, ResumableStream};
use super::sessions::{Attachment, HttpSession, Refused};
use super::sse;
use crate::dispatch::{self, Carrier, Failure, Reply, open_session};
use crate::peer::{HttpParts, PeerId, Sink, StreamCloser};
use crate::principal::Principal;
use crate::protocol::jsonrpc::Request;
use crate::protocol::meta::Head;
use crate::protocol::{ErrorObject, RequestId, codes};

/// `initialize`: a new session, named in the response's `Mcp-Session-Id`.
pub(super) fn initialize(
    ep: &Endpoint,
    parts: &Parts,
    request: &Request,
    answer: Answer,
) -> Response {
    match open_session(&ep.server, request.params.as_deref(), None) {
        Ok((session, result)) => {
            let session = Arc::new(ep.sessions().open(session, ep.guard.client_addr(parts)));
            let id = session.id.clone();
            if let Err(refused) = ep.sessions().insert(session) {
                return refused_response(&request.id, refused);
            }
            let mut r = message_response(
                StatusCode::OK,
                Reply::result_message(&request.id, &result),
                answer,
            );
            r.headers_mut().insert(
                SESSION_HEADER,
                HeaderValue::from_str(&id).expect("hex is a valid header value"),
            );
            r
        }
        Err(e) => error_response(StatusCode::BAD_REQUEST, Some(&request.id), &e),
    }
}

fn refused_response(id: &RequestId, refused: Refused) -> Response {
    match refused {
        Refused::Full(max) => unavailable(
            Some(id),
            &ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!("The server holds its maximum of {max} sessions in use; retry later"),
            ),
        ),
        Refused::PeerFull(max) => busy_response(
            Some(id),
            &ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!("This client holds its maximum of {max} sessions; end one (DELETE) first"),
            ),
        ),
    }
}

/// `GET`: the session-wide stream (server-to-client requests and change notifications), or
/// with `Last-Event-ID` the rest of a response stream.
pub(super) fn get(ep: &Endpoint, parts: &Parts) -> Response {
    match session_of(ep, &parts.headers) {
        None => method_not_allowed(),
        Some(Err(())) => session_not_found(),
        Some(Ok(session)) => {
            if let Some(last) = parts
                .headers
                .get("last-event-id")
                .and_then(|v| v.to_str().ok())
            {
                return resume(session, last);
            }
            let (tx, rx) = mpsc::channel::<Bytes>(64);
            session.session.attach(tx);
            let shutdown = ep.server.shutdown.clone();
            let closed = session.session.closed.clone();
            let keep_alive = ep.http.config.keep_alive;
            let held = session.attachment();
            sse::sse_response(stream::unfold(
                (rx, shutdown, closed, held),
                move |(mut rx, shutdown, closed, held)| async move {
                    tokio::select! {
                        () = shutdown.cancelled() => None,
                        () = closed.cancelled() => None,
                        m = rx.recv() => m.map(|m| (Ok(sse::event(&m)), (rx, shutdown, closed, held))),
                        () = tokio::time::sleep(keep_alive) => {
                            Some((Ok(Bytes::from_static(sse::KEEP_ALIVE)), (rx, shutdown, closed, held)))
                        }
                    }
                },
            ))
        }
    }
}

/// `DELETE`: ends the session.
pub(super) fn delete(ep: &Endpoint, parts: &Parts) -> Response {
    match parts.headers.get(SESSION_HEADER) {
        None => method_not_allowed(),
        Some(id) => {
            if ep.sessions().remove(id.to_str().unwrap_or_default()) {
                Response::new(Body::empty())
            } else {
                session_not_found()
            }
        }
    }
}

/// A session's request: run detached from the connection, every message recorded in a new
/// resumable stream that this response follows. The status goes out with the stream's first
/// bytes, so a request dispatch refuses for the caller's scopes is answered `403` (with its
/// challenge) instead, before the stream starts: dispatch resolves the request at once and
/// says so.
pub(super) async fn serve_request(
    ep: &Endpoint,
    parts: Parts,
    request: Request,
    session: Arc<HttpSession>,
    head: Head,
) -> Response {
    let id = request.id.clone();
    let principal = parts.extensions.get::<Principal>().cloned();
    let cancel = CancellationToken::new();
    let ticket = match session.session.inflight.start(id.clone(), cancel.clone()) {
        Ok(ticket) => ticket,
        Err(busy) => {
            return busy_response(Some(&id), &busy.error());
        }
    };
    let place = match ep.sessions().detached_place() {
        Ok(place) => place,
        Err(max) => {
            session.session.inflight.finish(&ticket);
            return unavailable(Some(&id), &all_places_taken(max));
        }
    };
    let resume_timeout = ep.http.config.resume_timeout;
    let abandon = cancel.clone();
    let (tx, mut rx) = mpsc::channel::<Bytes>(64);
    let peer = ep.guard.client_addr(&parts).map(PeerId::Addr);
    // Closing travels through the same channel as the messages (as an empty message), so
    // whatever the handler sent before closing still goes out on this connection.
    let closer = {
        let tx = tx.clone();
        StreamCloser(Arc::new(move || {
            let _ = tx.try_send(Bytes::new());
        }))
    };
    let carrier = Carrier {
        cancel: cancel.clone(),
        sink: Some(Sink::new(tx.clone(), cancel.clone())),
        session: Some(session.session.clone()),
        http: Some(Arc::new(HttpParts {
            headers: parts.headers,
            principal,
        })),
        head: Some(head),
        close_stream: Some(closer),
        peer,
        session_principal: None,
    };
    drop(tx);
    let server = ep.server.clone();
    let running = session.clone();
    // What dispatch decided at once: a refusal for scopes (answered here, with its status)
    // or a stream to follow.
    let (decided, decision) =
        oneshot::channel::<Result<(u64, Attach), (ErrorObject, Vec<String>)>>();
    let answer_id = id.clone();
    tokio::spawn(async move {
        let cut = server.clone();
        let (routed, record) = dispatch::start(&server, request, carrier);
        let fut = match routed {
            Err(Reply::Error(e, Failure::Forbidden(challenge))) => {
                let scopes = challenge.scopes.clone();
                let _ = record.answered(Reply::Error(e.clone(), Failure::Forbidden(challenge)));
                running.session.inflight.finish(&ticket);
                let _ = decided.send(Err((e, scopes)));
                return;
            }
            Err(reply) => Either::Left(std::future::ready(record.answered(reply))),
            Ok(run) => Either::Right(async move {
                let run = dispatch::cut_at_cutoff(&cut, cancel, run);
                let run = std::pin::pin!(run.instrument(record.span().clone()));
                record.run(run).await
            }),
        };
        let recorder = running.streams.open();
        if decided.send(Ok((recorder.id, recorder.attach(0)))).is_err() {
            // The client is gone before its stream began: the request goes on, detached.
            recorder.detach();
        }
        let record = |session: &HttpSession, recorder: &ResumableStream, n: Bytes| {
            if n.is_empty() {
                recorder.detach();
            } else {
                session.streams.push(recorder, n, false);
            }
        };
        tokio::pin!(fut);
        let unfollowed = recorder.unfollowed_for(resume_timeout);
        tokio::pin!(unfollowed);
        let watched = resume_timeout != Duration::MAX;
        let mut abandoned = false;
        let reply = loop {
            tokio::select! {
                biased;
                Some(n) = rx.recv() => record(&running, &recorder, n),
                reply = &mut fut => break reply,
                () = &mut unfollowed, if watched && !abandoned => {
                    tracing::debug!(
                        request = %id,
                        timeout = ?resume_timeout,
                        "cancelling a legacy request whose stream nobody followed"
                    );
                    abandoned = true;
                    abandon.cancel();
                }
            }
        };
        while let Ok(n) = rx.try_recv() {
            record(&running, &recorder, n);
        }
        let message = if abandoned {
            Some(Reply::error_message(
                Some(&id),
                &abandoned_error(resume_timeout),
            ))
        } else {
            reply.into_message(&id)
        };
        match message {
            Some(message) => running.streams.push(&recorder, message, true),
            None => recorder.detach(),
        }
        running.session.inflight.finish(&ticket);
        drop(place);
    });
    match decision.await {
        Ok(Ok((stream, attached))) => resumable_response(session, stream, attached),
        Ok(Err((forbidden, scopes))) => auth::forbidden(ep, Some(&answer_id), &forbidden, &scopes),
        Err(_) => unavailable(
            Some(&answer_id),
            &ErrorObject::internal("the request ended before its stream began"),
        ),
    }
}

/// The refusal of a request when every place for a detached request is taken.
fn all_places_taken(max: usize) -> ErrorObject {
    ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!(
            "Server busy: {max} legacy requests are running already (the server's maximum); \
             retry later"
        ),
    )
    .with_data(serde_json::json!({ "maxDetachedRequests": max }))
}

/// What a client that resumes a request cancelled for want of a follower reads.
fn abandoned_error(timeout: Duration) -> ErrorObject {
    let ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!(
            "Request cancelled: no connection followed its response stream for {ms} ms \
             (resume it with Last-Event-ID sooner)"
        ),
    )
    .with_data(serde_json::json!({ "resumeTimeoutMs": ms }))
}

/// An SSE response replaying and then following a resumable stream; `410 Gone` when
/// messages the client has not seen were dropped to stay within the replay budget.
fn resumable_response(session: Arc<HttpSession>, stream: u64, attached: Attach) -> Response {
    let (replay, live) = match attached {
        Attach::Follow { replay, live } => (replay, live),
        Attach::Gone { oldest } => {
            let error = ErrorObject::new(
                codes::INVALID_REQUEST,
                "Events of this stream after Last-Event-ID were dropped to stay within the \
                 server's replay budget: they cannot be replayed",
            )
            .with_data(serde_json::json!({
                "stream": stream,
                "oldestAvailable": oldest.map(|seq| format!("{stream}-{seq}")),
            }));
            return error_response(StatusCode::GONE, None, &error);
        }
    };
    let replay_done = replay.iter().any(|(_, _, last)| *last);
    let replay: Vec<Result<Bytes, Infallible>> = std::iter::once(Ok(sse::priming(stream)))
        .chain(
            replay
                .into_iter()
                .map(|(seq, m, _)| Ok(sse::event_with_id(stream, seq, &m))),
        )
        .collect();
    if replay_done {
        session.streams.forget(stream);
    }
    struct Follow {
        live: Option<Live>,
        session: Arc<HttpSession>,
        stream: u64,
        closing: bool,
        _held: Attachment,
    }
    let state = Follow {
        live: if replay_done { None } else { live },
        _held: session.attachment(),
        session,
        stream,
        closing: false,
    };
    let rest = stream::unfold(state, |mut s| async move {
        if s.closing {
            return None;
        }
        let live = s.live.as_mut()?;
        match live.recv().await {
            Some((seq, m, last)) => {
                if last {
                    s.session.streams.forget(s.stream);
                    s.live = None;
                }
                Some((Ok(sse::event_with_id(s.stream, seq, &m)), s))
            }
            None => {
                // The server closed the connection but not the stream: tell the client
                // when to poll back, then end the body.
                s.closing = true;
                Some((Ok(sse::retry()), s))
            }
        }
    });
    sse::sse_response(futures_util::StreamExt::chain(stream::iter(replay), rest))
}

/// `GET` with `Last-Event-ID`: resumes a response stream.
fn resume(session: Arc<HttpSession>, last_event_id: &str) -> Response {
    let parsed = last_event_id
        .split_once('-')
        .and_then(|(s, n)| Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
    let Some((stream_id, seq)) = parsed else {
        return rejection(StatusCode::BAD_REQUEST, "Invalid Last-Event-ID");
    };
    match session.streams.get(stream_id) {
        Some(stream) => {
            let attached = stream.attach(seq);
            resumable_response(session, stream_id, attached)
        }
        None => rejection(StatusCode::NOT_FOUND, "Unknown stream: it ended or expired"),
    }
}
