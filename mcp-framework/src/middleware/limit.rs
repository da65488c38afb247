//! Tower's timeout and concurrency limit, named for calls: [`timeout`] and
//! [`concurrency_limit`] return tower's own layers.

use std::time::Duration;

use tower::limit::ConcurrencyLimitLayer;
use tower::timeout::TimeoutLayer;

/// Fails a call that takes longer than `limit` with `-32603` "tool `name` timed out" (tower's
/// [`TimeoutLayer`]). The handler is stopped: its future is dropped and its
/// [`Context::cancelled`](crate::Context::cancelled) fires for what it spawned.
///
/// ```
/// use std::time::Duration;
/// use mcp_framework::{Server, middleware};
///
/// let server = Server::builder()
///     .layer(middleware::timeout(Duration::from_secs(30)))
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
pub fn timeout(limit: Duration) -> TimeoutLayer {
    TimeoutLayer::new(limit)
}

/// Runs at most `max` calls at once (at least one); further calls wait for a place (tower's
/// [`ConcurrencyLimitLayer`]). Server-wide, the limit is shared by every call; on an item,
/// by the calls of that item. Put a [`timeout`] outside it to bound the wait too.
pub fn concurrency_limit(max: usize) -> ConcurrencyLimitLayer {
    ConcurrencyLimitLayer::new(max.max(1))
}
