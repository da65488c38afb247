//! The Prometheus scrape endpoint `ServerBuilder::run` serves for `--metrics-bind ADDR` (or
//! `MCP_METRICS_BIND`): `GET /metrics` on its own listener, apart from the MCP endpoint, so
//! that it can stay on an internal address.

use std::net::SocketAddr;

use axum::Router;
use axum::http::header;
use axum::routing::get;
use tokio_util::sync::CancellationToken;

use crate::error::Error;
use crate::telemetry::metrics;

/// Turns the metrics on and serves them on `bind` until `shutdown`.
pub(crate) async fn serve(bind: SocketAddr, shutdown: CancellationToken) -> Result<(), Error> {
    metrics::enable();
    let listener = super::bind(bind).await?;
    tracing::info!(addr = %listener.local_addr()?, "serving metrics at /metrics");
    let app = Router::new().route(
        "/metrics",
        get(|| async {
            let (body, content_type) = metrics::encode();
            ([(header::CONTENT_TYPE, content_type)], body)
        }),
    );
    tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await;
        if let Err(e) = served {
            tracing::error!(error = %e, "the metrics endpoint stopped");
        }
    });
    Ok(())
}
