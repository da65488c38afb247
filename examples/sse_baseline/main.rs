//! `sse_baseline`: the floor for `scripts/bench-listen`. A plain axum app with no MCP in
//! it: any POST whose body mentions `subscriptions/listen` gets an SSE stream that sends
//! one `acknowledged` event and then forwards a broadcast channel; any other POST
//! broadcasts one `list_changed` event. What is left above it in the framework's figures
//! is the framework's own cost.
//!
//! ```text
//! sse_baseline 127.0.0.1:PORT
//! ```

use std::convert::Infallible;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use futures_util::stream;
use tokio::sync::broadcast;

async fn endpoint(State(tx): State<broadcast::Sender<Bytes>>, body: Bytes) -> Response {
    if body.windows(20).any(|w| w == b"subscriptions/listen") {
        let ack = Bytes::from_static(
            b"event: message\ndata: {\"method\":\"notifications/subscriptions/acknowledged\"}\n\n",
        );
        let rx = tx.subscribe();
        let events = stream::unfold((Some(ack), rx), |(first, mut rx)| async move {
            if let Some(ack) = first {
                return Some((Ok::<_, Infallible>(ack), (None, rx)));
            }
            match rx.recv().await {
                Ok(b) => Some((Ok(b), (None, rx))),
                Err(_) => None,
            }
        });
        let mut r = Response::new(Body::from_stream(events));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        return r;
    }
    let _ = tx.send(Bytes::from_static(
        b"event: message\ndata: {\"method\":\"notifications/tools/list_changed\"}\n\n",
    ));
    Response::new(Body::from("{}"))
}

#[tokio::main]
async fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".into());
    let (tx, _) = broadcast::channel(1024);
    let app = Router::new()
        .route("/mcp", axum::routing::post(endpoint))
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind(&addr).await.expect("bind");
    axum::serve(listener, app).await.expect("serve");
}
