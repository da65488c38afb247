//! How long a replica waits for Redis: one connection or command ([`REDIS_TIMEOUT`]), and
//! the pauses between reconnection attempts ([`Backoff`]).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// How long connecting to Redis, and one command, may take.
pub(super) const REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// The first and the longest pause between reconnection attempts.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// Reconnection pauses: doubling from [`BACKOFF`]'s first to its last, each with up to
/// half of it added at random (replicas that lost Redis together do not return together).
pub(super) struct Backoff(Duration);

impl Backoff {
    pub(super) fn new() -> Self {
        Self(BACKOFF.0)
    }

    pub(super) fn reset(&mut self) {
        self.0 = BACKOFF.0;
    }

    /// Sleeps for the next pause; `false` if the bus stopped meanwhile.
    pub(super) async fn sleep(&mut self, stop: &CancellationToken) -> bool {
        let jitter = self
            .0
            .mul_f64(f64::from(getrandom::u32().unwrap_or(0) % 500) / 1000.0);
        let pause = self.0 + jitter;
        self.0 = (self.0 * 2).min(BACKOFF.1);
        tokio::select! {
            () = stop.cancelled() => false,
            () = tokio::time::sleep(pause) => true,
        }
    }
}
