//! The accept loop behind `serve_http`: it owns the listener, the limit on connections served
//! at once, the pause after an accept error, and graceful shutdown (stop accepting, let each
//! connection finish its requests, then return). Each connection is served by
//! [`connection::serve`], with its timers.
//!
//! Beyond the limit, new connections wait in the listener's backlog: the loop takes a
//! permit before it accepts. While it waits, idle connections (between requests, or silent
//! since they were accepted) are asked to close. An accept error other than a connection's own (`EMFILE`, `ENFILE`, `ENOBUFS`,
//! `ENOMEM`) pauses the loop, from 10 ms doubling up to 1 s, instead of spinning.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::config::HttpConfig;
use super::connection::{self, Timeouts};

/// How often a full server asks idle connections again to make room.
const SHED_EVERY: Duration = Duration::from_millis(250);
/// How often a full server says so in the log.
const WARN_EVERY: Duration = Duration::from_secs(10);
/// The pause after the first of a run of accept errors, and the longest one.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// Accepts and serves connections until `shutdown`, then waits for them to finish.
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    config: &HttpConfig,
    shutdown: CancellationToken,
) {
    let max = config
        .max_connections
        .unwrap_or_else(default_max_connections);
    let timeouts = Timeouts {
        header: config.header_read_timeout,
        idle: config.connection_idle_timeout,
    };
    let permits = Arc::new(Semaphore::new(max));
    let shed = Arc::new(Notify::new());
    let connections = TaskTracker::new();
    let mut pause = BACKOFF.0;
    let mut warned = None;
    loop {
        let Some(permit) = permit(&permits, &shed, &mut warned, max, &shutdown).await else {
            break;
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                pause = BACKOFF.0;
                accepted
            }
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                tracing::error!(error = %e, ?pause, "accepting a connection failed; pausing");
                drop(permit);
                shed.notify_waiters();
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = shutdown.cancelled() => break,
                }
                pause = (pause * 2).min(BACKOFF.1);
                continue;
            }
        };
        // Small writes (SSE events) go out at once.
        let _ = stream.set_nodelay(true);
        let served = connection::serve(
            stream,
            peer,
            router.clone(),
            timeouts,
            shutdown.clone(),
            shed.clone(),
        );
        connections.spawn(async move {
            served.await;
            drop(permit);
        });
    }
    drop(listener);
    connections.close();
    tracing::debug!(
        open = connections.len(),
        "not accepting: waiting for connections to finish"
    );
    connections.wait().await;
}

/// A permit to serve one more connection: at once, or once one closes (asking idle ones to
/// make room meanwhile); `None` on shutdown.
async fn permit(
    permits: &Arc<Semaphore>,
    shed: &Notify,
    warned: &mut Option<Instant>,
    max: usize,
    shutdown: &CancellationToken,
) -> Option<OwnedSemaphorePermit> {
    if let Ok(p) = permits.clone().try_acquire_owned() {
        return Some(p);
    }
    if warned.is_none_or(|at| at.elapsed() >= WARN_EVERY) {
        *warned = Some(Instant::now());
        tracing::warn!(
            max,
            "connection limit reached: new connections wait until one closes"
        );
    }
    loop {
        shed.notify_waiters();
        tokio::select! {
            p = permits.clone().acquire_owned() => return p.ok(),
            () = tokio::time::sleep(SHED_EVERY) => {}
            () = shutdown.cancelled() => return None,
        }
    }
}

/// An error of the connection being accepted, not of the listener: try the next one.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// The soft open-file limit less 64 descriptors for everything else, between 64 and
/// 10,000; 10,000 where there is no such limit.
fn default_max_connections() -> usize {
    const MAX: usize = 10_000;
    #[cfg(unix)]
    {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        limit.current.map_or(MAX, |soft| {
            usize::try_from(soft)
                .unwrap_or(MAX)
                .saturating_sub(64)
                .clamp(64, MAX)
        })
    }
    #[cfg(not(unix))]
    MAX
}
