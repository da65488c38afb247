//! [`BoxFuture`]: the one future type of handlers and completers (the generated code and
//! run-time closures box their futures into it).

use std::future::Future;
use std::pin::Pin;

/// A boxed, `Send` future, as the generated handlers return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;
