//! [`InFlight`]: the requests of one connection or session that are still running, by id,
//! so that `notifications/cancelled` can stop them. A client may reuse an id once its
//! request is answered: every entry has a ticket, and a finished request only forgets its
//! own entry.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

use crate::protocol::RequestId;

/// Running requests by id.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    map: Mutex<HashMap<RequestId, (u64, CancellationToken)>>,
    next_ticket: AtomicU64,
}

/// The entry of one tracked request (see [`InFlight::finish`]).
#[derive(Debug)]
pub(crate) struct Ticket {
    id: RequestId,
    seq: u64,
}

impl InFlight {
    /// Tracks a request until [`finish`](Self::finish).
    pub(crate) fn start(&self, id: RequestId, cancel: CancellationToken) -> Ticket {
        let seq = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        self.map
            .lock()
            .expect("inflight")
            .insert(id.clone(), (seq, cancel));
        Ticket { id, seq }
    }

    /// Forgets a finished request (not a newer one that reused its id).
    pub(crate) fn finish(&self, ticket: &Ticket) {
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
        let inflight = InFlight::default();
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        let first = inflight.start(RequestId::Number(1), a.clone());
        let _second = inflight.start(RequestId::Number(1), b.clone());
        inflight.finish(&first);
        inflight.cancel(&RequestId::Number(1));
        assert!(!a.is_cancelled());
        assert!(b.is_cancelled());
    }
}
