//! The long-lived SSE answer of `subscriptions/listen`: the acknowledgement, then the change
//! notifications with keep-alive comments between them, then (on shutdown) the final result.
//! A subscriber that falls behind has its stream closed and listens again.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;
use futures_util::stream;
use tokio_util::sync::DropGuard;

use super::sse;
use crate::dispatch::Reply;
use crate::protocol::RequestId;
use crate::subscriptions::{Listen, ListenEvent};

pub(super) fn stream(
    keep_alive: Duration,
    id: RequestId,
    listen: Listen,
    guard: DropGuard,
) -> Response {
    let ack = listen.acknowledgement();
    struct Open {
        id: RequestId,
        listen: Option<Listen>,
        _guard: DropGuard,
    }
    let state = Open {
        id,
        listen: Some(listen),
        _guard: guard,
    };
    let head = stream::once(async move { Ok::<_, Infallible>(sse::event(&ack)) });
    let rest = stream::unfold(state, move |mut s| async move {
        let listen = s.listen.as_mut()?;
        let event = tokio::select! {
            e = listen.next() => e,
            () = tokio::time::sleep(keep_alive) => {
                return Some((Ok(Bytes::from_static(sse::KEEP_ALIVE)), s));
            }
        };
        match event {
            ListenEvent::Notify(n) => Some((Ok(sse::event(&n)), s)),
            ListenEvent::End(result) => {
                s.listen = None;
                Some((Ok(sse::event(&Reply::result_message(&s.id, &result))), s))
            }
            // Close the stream: the client listens again.
            ListenEvent::Lagged => None,
        }
    });
    sse::sse_response(futures_util::StreamExt::chain(head, rest))
}
