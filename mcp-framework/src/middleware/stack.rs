//! Stacks of layers, built once (the server's by `ServerBuilder::build`, an item's when its
//! entry is compiled) and cloned for every call: [`Layers`] as collected, the two innermost
//! services ([`Route`]: the item's own stack, else its handler; [`Run`]: the handler), and
//! [`serve`], which dispatch calls.

use std::fmt;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use futures_util::future::Either;
use tower::util::Oneshot;
use tower::{Layer, Service, ServiceExt as _};

use super::call::{Call, CallOutput, CallService};
use crate::future::BoxFuture;
use tower::BoxError;

/// A layer, its service boxed into a [`CallService`].
type BoxLayer = Arc<dyn Fn(CallService) -> CallService + Send + Sync>;

/// Layers in the order they were added, the first one outermost.
#[derive(Clone, Default)]
pub(crate) struct Layers(Vec<BoxLayer>);

impl fmt::Debug for Layers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layers({})", self.0.len())
    }
}

impl Layers {
    /// Adds a layer inside the ones added before.
    pub(crate) fn push<L>(&mut self, layer: L)
    where
        L: Layer<CallService> + Send + Sync + 'static,
        L::Service: Service<Call, Response = CallOutput> + Clone + Send + Sync + 'static,
        <L::Service as Service<Call>>::Error: Into<BoxError>,
        <L::Service as Service<Call>>::Future: Send + 'static,
    {
        self.0
            .push(Arc::new(move |inner| CallService::new(layer.layer(inner))));
    }

    /// The layers over `inner`, or `None` without layers.
    pub(crate) fn build<S>(&self, inner: S) -> Option<CallService>
    where
        S: Service<
                Call,
                Response = CallOutput,
                Error = BoxError,
                Future = BoxFuture<Result<CallOutput, BoxError>>,
            > + Clone
            + Send
            + Sync
            + 'static,
    {
        if self.0.is_empty() {
            return None;
        }
        let mut service = CallService::boxed(inner);
        for layer in self.0.iter().rev() {
            service = layer(service);
        }
        Some(service)
    }
}

/// The innermost service of the server's stack: the item's own stack, else its handler.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Route;

impl Service<Call> for Route {
    type Response = CallOutput;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallOutput, BoxError>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        match call.item.layers().cloned() {
            Some(stack) => Box::pin(stack.oneshot(call)),
            None => call.run(),
        }
    }
}

/// The innermost service of an item's stack: the handler.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Run;

impl Service<Call> for Run {
    type Response = CallOutput;
    type Error = BoxError;
    type Future = BoxFuture<Result<CallOutput, BoxError>>;

    fn poll_ready(&mut self, _: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, call: Call) -> Self::Future {
        call.run()
    }
}

/// Serves a call through the server's stack (a clone of it), or straight to the item.
pub(crate) fn serve(
    stack: Option<&CallService>,
    call: Call,
) -> Either<Oneshot<CallService, Call>, BoxFuture<Result<CallOutput, BoxError>>> {
    match stack {
        Some(stack) => Either::Left(stack.clone().oneshot(call)),
        None => Either::Right(Route.call(call)),
    }
}
