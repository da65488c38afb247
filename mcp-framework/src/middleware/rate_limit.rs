//! [`RateLimitLayer`]: a rate limit per principal (the `governor` crate's GCRA, keyed by
//! [`Principal`]), refusing calls beyond it with [`RateLimited`].

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use futures_util::future::{Either, Ready, ready};
use governor::clock::Clock as _;
use governor::{DefaultKeyedRateLimiter, Quota};
use tower::{Layer, Service};

use super::call::{Call, CallOutput};
use super::error::RateLimited;
use crate::principal::Principal;
use tower::BoxError;

/// How often (in checks) keys whose budget is full again are forgotten.
const PRUNE_EVERY: u64 = 4096;

/// Allows each principal `calls` calls per `per` (a burst of `calls`, then one more every
/// `per / calls`), refusing further calls with [`RateLimited`]: `-32603` with
/// `data.retryAfterMs`, over HTTP with `429 Too Many Requests`. Calls without a principal
/// (stdio, unauthenticated HTTP) share one budget.
///
/// One layer is one set of budgets: server-wide they count every call of a principal, on an
/// item the calls of that item.
///
/// ```
/// use std::time::Duration;
/// use mcp_framework::Server;
/// use mcp_framework::middleware::RateLimitLayer;
///
/// let server = Server::builder()
///     .layer(RateLimitLayer::per_principal(100, Duration::from_secs(60)))
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
#[derive(Debug, Clone)]
pub struct RateLimitLayer {
    limiter: Arc<Limiter>,
}

#[derive(Debug)]
struct Limiter {
    budgets: DefaultKeyedRateLimiter<Option<Principal>>,
    checks: AtomicU64,
}

impl Limiter {
    /// Takes one call from `principal`'s budget, or says how long to wait.
    fn check(&self, principal: Option<&Principal>) -> Result<(), Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.budgets.retain_recent();
            self.budgets.shrink_to_fit();
        }
        let key = principal.cloned();
        self.budgets
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(self.budgets.clock().now()))
    }
}

impl RateLimitLayer {
    /// `calls` calls (at least one) per `per` for each principal.
    pub fn per_principal(calls: u32, per: Duration) -> Self {
        let calls = NonZeroU32::new(calls).unwrap_or(NonZeroU32::MIN);
        let period = (per / calls.get()).max(Duration::from_nanos(1));
        let quota = Quota::with_period(period)
            .expect("a period of at least 1 ns")
            .allow_burst(calls);
        Self {
            limiter: Arc::new(Limiter {
                budgets: DefaultKeyedRateLimiter::keyed(quota),
                checks: AtomicU64::new(0),
            }),
        }
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit {
            inner,
            limiter: self.limiter.clone(),
        }
    }
}

/// The service of [`RateLimitLayer`].
#[derive(Debug, Clone)]
pub struct RateLimit<S> {
    inner: S,
    limiter: Arc<Limiter>,
}

impl<S> Service<Call> for RateLimit<S>
where
    S: Service<Call, Response = CallOutput, Error = BoxError>,
{
    type Response = CallOutput;
    type Error = BoxError;
    type Future = Either<Ready<Result<CallOutput, BoxError>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Self::Future {
        match self.limiter.check(call.principal()) {
            Ok(()) => Either::Right(self.inner.call(call)),
            Err(wait) => Either::Left(ready(Err(Box::new(RateLimited::new(wait))))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_per_principal() {
        let layer = RateLimitLayer::per_principal(2, Duration::from_secs(60));
        let (alice, bob) = (Principal::new("alice"), Principal::new("bob"));
        let l = &layer.limiter;
        assert!(l.check(Some(&alice)).is_ok());
        assert!(l.check(Some(&alice)).is_ok());
        let wait = l.check(Some(&alice)).unwrap_err();
        assert!(
            wait > Duration::from_secs(20) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert!(l.check(Some(&bob)).is_ok());
        assert!(l.check(None).is_ok());
        assert!(l.check(None).is_ok());
        assert!(l.check(None).is_err());
    }
}
