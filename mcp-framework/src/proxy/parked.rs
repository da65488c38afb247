//! `Parked`: forwarded requests waiting between two rounds of their caller's multi
//! round-trip request (2026-07-28). A legacy upstream asked a question; the caller was sent
//! it as an input request, which ends its round; the upstream's request waits here, the
//! upstream blocked on its question, until the caller's retry brings the answer (and takes
//! the request back, `forward.rs`).
//!
//! A parked request waits only while it is the upstream's one request: a legacy upstream's
//! questions name no request, and with several in flight none can be asked, so a request
//! that starts gives up those parked (their retries call the upstream again, as a replayed
//! handler would). Bounded besides: at most [`MAX_PARKED`] wait at once (one more is given
//! up), each at most [`HOLD`]; a request given up is cancelled upstream.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::protocol::{ErrorObject, InputRequest};

/// The most forwarded requests waiting at once, per upstream.
pub(super) const MAX_PARKED: usize = 256;

/// How long a forwarded request waits for its caller's retry.
pub(super) const HOLD: Duration = Duration::from_secs(300);

/// Which retry may take a parked request back: the same caller (its principal's subject)
/// making the same request (method, the upstream's name or URI, a digest of the
/// arguments). The question's key and digest are checked against what the retry answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ParkKey {
    pub(super) principal: Option<String>,
    pub(super) method: &'static str,
    pub(super) name: String,
    pub(super) arguments: String,
}

/// The question a parked request waits on: the key its caller was asked it under, the
/// question, and where the answer goes.
pub(super) struct Pending {
    pub(super) key: String,
    pub(super) request: InputRequest,
    pub(super) reply: oneshot::Sender<Result<Value, ErrorObject>>,
}

/// A parked request (`W`: what runs it, `forward.rs`'s `Forwarded`).
struct Entry<W> {
    id: u64,
    key: ParkKey,
    held: W,
    pending: Pending,
}

/// The forwarded requests of one upstream waiting for their callers' retries.
pub(super) struct Parked<W> {
    next: AtomicU64,
    waiting: Mutex<Vec<Entry<W>>>,
}

impl<W> Default for Parked<W> {
    fn default() -> Self {
        Self {
            next: AtomicU64::new(0),
            waiting: Mutex::new(Vec::new()),
        }
    }
}

impl<W: Send + 'static> Parked<W> {
    /// Keeps `held`, waiting on `pending`, for the retry of `key`; given up (dropped: its
    /// upstream request cancelled) when full, or outside a runtime.
    pub(super) fn park(self: &Arc<Self>, key: ParkKey, held: W, pending: Pending) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        {
            let mut waiting = self.waiting.lock().expect("parked");
            if waiting.len() >= MAX_PARKED {
                tracing::warn!(
                    target: "mcp_framework::proxy",
                    "{MAX_PARKED} forwarded calls already wait for their callers' answers: \
                     this one is given up (its retry calls the upstream again)"
                );
                return;
            }
            waiting.push(Entry {
                id,
                key,
                held,
                pending,
            });
        }
        let parked = Arc::downgrade(self);
        runtime.spawn(async move {
            tokio::time::sleep(HOLD).await;
            if let Some(parked) = parked.upgrade() {
                let expired = parked.remove(|entry| entry.id == id);
                drop(expired);
            }
        });
    }

    /// Takes back the request parked for `key` that `answer` finds the answer to its
    /// question for, with that answer.
    pub(super) fn take(
        &self,
        key: &ParkKey,
        answer: impl Fn(&W, &Pending) -> Option<Value>,
    ) -> Option<(W, Pending, Value)> {
        let mut found = None;
        let entry = self.remove(|entry| {
            if found.is_some() || entry.key != *key {
                return false;
            }
            found = answer(&entry.held, &entry.pending);
            found.is_some()
        })?;
        Some((entry.held, entry.pending, found?))
    }

    /// Gives up every parked request (dropped outside the lock: each cancels its upstream
    /// request).
    pub(super) fn give_up(&self) {
        let given_up = std::mem::take(&mut *self.waiting.lock().expect("parked"));
        if !given_up.is_empty() {
            tracing::debug!(
                target: "mcp_framework::proxy",
                "a new request gives up {} parked call(s)",
                given_up.len()
            );
        }
    }

    /// Removes the first entry `which` picks.
    fn remove(&self, mut which: impl FnMut(&Entry<W>) -> bool) -> Option<Entry<W>> {
        let mut waiting = self.waiting.lock().expect("parked");
        let at = waiting.iter().position(&mut which)?;
        Some(waiting.swap_remove(at))
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::oneshot::error::TryRecvError;

    use super::*;

    fn key(n: usize) -> ParkKey {
        ParkKey {
            principal: None,
            method: "tools/call",
            name: format!("tool_{n}"),
            arguments: String::new(),
        }
    }

    /// A request parked as `n`, and where its question's answer would arrive.
    fn park(
        parked: &Arc<Parked<usize>>,
        n: usize,
    ) -> oneshot::Receiver<Result<Value, ErrorObject>> {
        let (reply, answer) = oneshot::channel();
        let pending = Pending {
            key: "roots-1".into(),
            request: InputRequest::list_roots(),
            reply,
        };
        parked.park(key(n), n, pending);
        answer
    }

    fn given_up(answer: &mut oneshot::Receiver<Result<Value, ErrorObject>>) -> bool {
        matches!(answer.try_recv(), Err(TryRecvError::Closed))
    }

    #[tokio::test(start_paused = true)]
    async fn parked_requests_are_bounded_in_number_and_time() {
        let parked = Arc::new(Parked::default());
        let mut answers: Vec<_> = (0..=MAX_PARKED).map(|n| park(&parked, n)).collect();
        // One more than the bound is given up at once: its question is refused upstream.
        assert!(given_up(answers.last_mut().unwrap()));
        assert!(!given_up(&mut answers[0]));
        // A retry takes back the one its answer finds, once.
        let taken = parked.take(&key(3), |n, _| (*n == 3).then_some(Value::Bool(true)));
        assert!(matches!(taken, Some((3, _, Value::Bool(true)))));
        assert!(parked.take(&key(3), |_, _| Some(Value::Null)).is_none());
        // Another request's key, or an answer that is not there, takes nothing.
        assert!(parked.take(&key(4), |_, _| None).is_none());
        assert!(
            parked
                .take(&key(MAX_PARKED), |_, _| Some(Value::Null))
                .is_none()
        );
        // None waits longer than HOLD.
        tokio::time::sleep(HOLD + Duration::from_secs(1)).await;
        for _ in 0..4 {
            tokio::task::yield_now().await;
        }
        assert!(given_up(&mut answers[0]));
        assert!(parked.take(&key(4), |_, _| Some(Value::Null)).is_none());
        assert!(parked.waiting.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_request_that_starts_gives_up_those_parked() {
        let parked = Arc::new(Parked::default());
        let mut answers: Vec<_> = (0..3).map(|n| park(&parked, n)).collect();
        parked.give_up();
        assert!(answers.iter_mut().all(given_up));
    }
}
