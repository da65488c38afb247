//! [`InFlight`]: the requests of one connection or session that are still running, by id,
//! so that `notifications/cancelled` can stop them. A client may reuse an id once its
//! request is answered: every entry has a ticket, and a finished request only forgets its
//! own entry. How many run at once is bounded: beyond the limit a request is refused
//! ([`Busy`]) rather than queued, so that the answers a running request waits for
//! (elicitation, sampling) can still be read.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tokio_util::sync::CancellationToken;

use crate::protocol::RequestId;

/// Running requests by id.
#[derive(Debug)]
pub(crate) struct InFlight {
    map: Mutex<HashMap<RequestId, (u64, CancellationToken)>>,
    next_ticket: AtomicU64,
    /// Requests started and not finished (a reused id is counted twice).
    running: AtomicUsize,
    limit: usize,
}

/// Too many requests are running already; the limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Busy(pub(crate) usize);

impl Busy {
    /// The JSON-RPC error a refused request gets.
    pub(crate) fn error(self) -> crate::protocol::ErrorObject {
        crate::protocol::ErrorObject::new(
            crate::protocol::codes::INTERNAL_ERROR,
            format!(
                "Server busy: {} requests of this connection are running already; retry later",
                self.0
            ),
        )
        .with_data(serde_json::json!({ "maxConcurrentRequests": self.0 }))
    }
}

/// The entry of one tracked request (see [`InFlight::finish`]).
#[derive(Debug)]
pub(crate) struct Ticket {
    id: RequestId,
    seq: u64,
    /// Whether it counts against the limit.
    counted: bool,
}

impl InFlight {
    /// At most `limit` requests at once.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            next_ticket: AtomicU64::new(0),
            running: AtomicUsize::new(0),
            limit: limit.max(1),
        }
    }

    /// Tracks a request until [`finish`](Self::finish), unless `limit` requests run already.
    pub(crate) fn start(&self, id: RequestId, cancel: CancellationToken) -> Result<Ticket, Busy> {
        let admitted = self
            .running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            });
        if admitted.is_err() {
            return Err(Busy(self.limit));
        }
        Ok(self.track(id, cancel, true))
    }

    /// Tracks a long-lived streaming request (an extension's stream) for cancellation,
    /// outside the limit: the stream bounds what it holds itself.
    pub(crate) fn start_stream(&self, id: RequestId, cancel: CancellationToken) -> Ticket {
        self.track(id, cancel, false)
    }

    fn track(&self, id: RequestId, cancel: CancellationToken, counted: bool) -> Ticket {
        let seq = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        self.map
            .lock()
            .expect("inflight")
            .insert(id.clone(), (seq, cancel));
        Ticket { id, seq, counted }
    }

    /// How many requests are running.
    pub(crate) fn running(&self) -> usize {
        self.running.load(Ordering::Acquire)
    }

    /// Forgets a finished request (not a newer one that reused its id).
    pub(crate) fn finish(&self, ticket: &Ticket) {
        if ticket.counted {
            self.running.fetch_sub(1, Ordering::AcqRel);
        }
        let mut map = self.map.lock().expect("inflight");
        if map.get(&ticket.id).is_some_and(|(s, _)| *s == ticket.seq) {
            map.remove(&ticket.id);
        }
    }

    /// Cancels the request with this id, if it is running.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some((_, token)) = self.map.lock().expect("inflight").get(id) {
            token.cancel();
        }
    }

    /// Cancels every running request.
    pub(crate) fn cancel_all(&self) {
        for (_, token) in self.map.lock().expect("inflight").values() {
            token.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_id_keeps_the_newer_entry() {
        let inflight = InFlight::new(8);
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        let first = inflight.start(RequestId::Number(1), a.clone()).unwrap();
        let _second = inflight.start(RequestId::Number(1), b.clone()).unwrap();
        inflight.finish(&first);
        inflight.cancel(&RequestId::Number(1));
        assert!(!a.is_cancelled());
        assert!(b.is_cancelled());
    }

    #[test]
    fn beyond_the_limit_requests_are_refused_until_one_finishes() {
        let inflight = InFlight::new(2);
        let one = inflight
            .start(RequestId::Number(1), CancellationToken::new())
            .unwrap();
        // A reused id still counts: the limit cannot be dodged by reusing ids.
        let _two = inflight
            .start(RequestId::Number(1), CancellationToken::new())
            .unwrap();
        assert!(
            inflight
                .start(RequestId::Number(3), CancellationToken::new())
                .is_err()
        );
        inflight.finish(&one);
        assert!(
            inflight
                .start(RequestId::Number(3), CancellationToken::new())
                .is_ok()
        );
        assert_eq!(inflight.running(), 2);
    }
}
