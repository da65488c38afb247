//! Newline-delimited JSON-RPC over a byte stream (stdin/stdout by default).
//!
//! Requests run concurrently (responses may interleave); `notifications/cancelled` stops a
//! request and nothing more is written for it; one writer owns the output and flushes when
//! it has nothing else queued. On EOF, in-flight requests get a short grace period.
//!
//! A request is first polled by the reading task itself: one that finishes without waiting
//! (most tool calls, every list) is answered without a task of its own; one that waits is
//! spawned. [`process`] takes the process's own stdin and stdout; [`threads`] is its
//! fallback for streams that cannot be read or written without blocking.

mod connection;
mod process;
mod threads;

pub(crate) use connection::serve;
pub(crate) use process::serve_stdio;
