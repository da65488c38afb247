//! MCP-level middleware: [tower] layers around every `tools/call`, `prompts/get` and
//! `resources/read`, the same on every transport and in both protocol eras; and, around
//! every JSON-RPC message, [`RpcMiddleware`] (`rpc.rs`).
//!
//! A layer wraps a [`Service`](tower::Service) from [`Call`] to [`CallOutput`] with the error
//! type [`BoxError`], so tower's own layers (`TimeoutLayer`, `ConcurrencyLimitLayer`,
//! `ServiceBuilder`, `option_layer`, `map_request`, …) and layers written for this crate
//! compose directly. Add one server-wide with
//! [`ServerBuilder::layer`](crate::ServerBuilder::layer), or on one item with
//! `#[tool(layer = …)]` (also `#[prompt]`, `#[resource]`) or
//! [`ToolDefinition::layer`](crate::ToolDefinition::layer). The server-wide layers run
//! first, then the item's, then the handler; the first layer added is the outermost.
//!
//! A layer may let the call through, answer it itself (`Ok(CallOutput::Tool(…))`), reject it
//! (`Err(…)`), time it out or watch what comes back. What an error leaving the stack becomes
//! on the wire:
//!
//! | error | answer |
//! | --- | --- |
//! | an [`ErrorObject`](crate::ErrorObject) | that JSON-RPC error (a protocol error) |
//! | [`RateLimited`] | `-32603` with `data.retryAfterMs` (HTTP 429 with `Retry-After`) |
//! | tower's `Elapsed` (a timeout) | `-32603` "tool `name` timed out" |
//! | anything else | `-32603` naming the item and the error |
//!
//! A tool call that a layer wants the *model* to see as failed (a tool execution error it
//! can act on) is answered with `Ok(CallOutput::Tool(CallToolResult::error(…)))` instead:
//! a result with `isError: true`.
//!
//! When a layer drops the handler before it finishes (a timeout), the handler's
//! [`Context::cancelled`](crate::Context::cancelled) fires, for whatever it spawned, while
//! the client still gets the layer's answer. With no layer configured anywhere, calls take
//! the same path as without this module: nothing is boxed or cloned.
//!
//! Owns: the request and response types ([`Call`], [`CallOutput`]), the boxed service
//! between layers ([`CallService`]), the stacks built once
//! by `build()` (`stack`), how an error leaving a stack is answered (`error`), and the
//! ready-made layers: [`from_fn`] (a layer from an async function), [`timeout`],
//! [`concurrency_limit`], `RateLimitLayer` (feature `rate-limit`) and [`AuditLayer`].
//!
//! Imports: the leaves, the protocol, and `context` (a call carries its `Context`: like the
//! registry's handlers, an import that runs up; see `scripts/check-layers`).

pub(crate) mod audit;
mod call;
mod error;
mod from_fn;
mod limit;
#[cfg(feature = "rate-limit")]
mod rate_limit;
pub(crate) mod rpc;
mod stack;

pub use audit::{Audit, AuditLayer};
pub use call::{Call, CallOutput, CallService, InputRequired, Method};
pub use error::RateLimited;
pub use from_fn::{FromFn, FromFnLayer, Next, from_fn};
pub use limit::{concurrency_limit, timeout};
#[cfg(feature = "rate-limit")]
pub use rate_limit::{RateLimit, RateLimitLayer};
pub use rpc::{RpcMessage, RpcMiddleware, RpcNotification, RpcRequest};
pub use tower::BoxError;
pub use tower::limit::ConcurrencyLimitLayer;
pub use tower::timeout::TimeoutLayer;

pub(crate) use call::Item;
pub(crate) use error::{Rejection, rejection};
pub(crate) use stack::{Layers, Route, Run, serve};
