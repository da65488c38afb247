//! [`from_fn`]: a layer from an async function of the call and the rest of the stack
//! ([`Next`]), for checks and small wrappers that need no type of their own.

use std::fmt;
use std::future::Future;
use std::task::{Context as TaskContext, Poll};

use tower::util::Oneshot;
use tower::{BoxError, Layer, Service, ServiceExt as _};

use super::call::{Call, CallOutput, CallService};

/// A layer that runs `f(call, next)` for every call: `f` may answer the call itself, or
/// pass it on with [`Next::run`] and look at (or change) what comes back.
///
/// ```
/// use mcp_framework::middleware::{self, Call, Next};
/// use mcp_framework::{ErrorObject, Server};
///
/// let server = Server::builder()
///     .layer(middleware::from_fn(|call: Call, next: Next| async move {
///         if call.name().starts_with("admin_") && call.principal().is_none() {
///             return Err(ErrorObject::new(-31403, "sign in first").into());
///         }
///         next.run(call).await
///     }))
///     .build()
///     .unwrap();
/// # drop(server);
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFnLayer<F>
where
    F: Fn(Call, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<CallOutput, BoxError>> + Send + 'static,
{
    FromFnLayer { f }
}

/// The layer of [`from_fn`].
#[derive(Clone)]
pub struct FromFnLayer<F> {
    f: F,
}

impl<F> fmt::Debug for FromFnLayer<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FromFnLayer").finish_non_exhaustive()
    }
}

impl<F: Clone> Layer<CallService> for FromFnLayer<F> {
    type Service = FromFn<F>;

    fn layer(&self, inner: CallService) -> FromFn<F> {
        FromFn {
            f: self.f.clone(),
            inner,
        }
    }
}

/// The service of [`from_fn`].
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
    inner: CallService,
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FromFn").finish_non_exhaustive()
    }
}

impl<F, Fut> Service<Call> for FromFn<F>
where
    F: Fn(Call, Next) -> Fut,
    Fut: Future<Output = Result<CallOutput, BoxError>>,
{
    type Response = CallOutput;
    type Error = BoxError;
    type Future = Fut;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Fut {
        let next = Next {
            inner: self.inner.clone(),
        };
        (self.f)(call, next)
    }
}

/// The rest of the stack, for a [`from_fn`] layer to pass a call on to.
#[derive(Debug, Clone)]
pub struct Next {
    inner: CallService,
}

impl Next {
    /// Passes the call on (to the next layer, in the end to the handler).
    pub fn run(self, call: Call) -> Oneshot<CallService, Call> {
        self.inner.oneshot(call)
    }
}
