//! [`Admission`]: how many of one kind of long-lived thing (a `subscriptions/listen`
//! stream) the server holds, in all and per peer. A [`Slot`] is held while the thing lives
//! and gives its place back when dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::peer::PeerId;
use crate::protocol::{ErrorObject, codes};

/// Counts what is held against a total and a per-peer limit.
#[derive(Debug)]
pub(crate) struct Admission {
    what: &'static str,
    max: usize,
    max_per_peer: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    total: usize,
    by_peer: HashMap<PeerId, usize>,
}

/// Why something was not admitted.
#[derive(Debug, Clone)]
pub(crate) enum Refusal {
    /// The server holds its maximum in all.
    Full(ErrorObject),
    /// This peer holds its share.
    PeerFull(ErrorObject),
}

/// A place taken; given back on drop.
#[derive(Debug)]
pub(crate) struct Slot {
    admission: Arc<Admission>,
    peer: Option<PeerId>,
}

impl Admission {
    /// At most `max` at once, `max_per_peer` of them for one peer; `what` names them in
    /// refusals ("listen streams").
    pub(crate) fn new(what: &'static str, max: usize, max_per_peer: usize) -> Self {
        Self {
            what,
            max,
            max_per_peer,
            held: Mutex::new(Held::default()),
        }
    }

    /// Takes a place for `peer` (a thing without a known peer counts in the total only).
    pub(crate) fn admit(self: &Arc<Self>, peer: Option<&PeerId>) -> Result<Slot, Refusal> {
        let mut held = self.held.lock().expect("admission");
        if held.total >= self.max {
            return Err(Refusal::Full(self.refusal(format!(
                "The server holds its maximum of {} {}; retry later",
                self.max, self.what
            ))));
        }
        if let Some(peer) = peer {
            let mine = held.by_peer.entry(peer.clone()).or_default();
            if *mine >= self.max_per_peer {
                return Err(Refusal::PeerFull(self.refusal(format!(
                    "This client holds its maximum of {} {}; close one first",
                    self.max_per_peer, self.what
                ))));
            }
            *mine += 1;
        }
        held.total += 1;
        Ok(Slot {
            admission: self.clone(),
            peer: peer.cloned(),
        })
    }

    fn refusal(&self, message: String) -> ErrorObject {
        ErrorObject::new(codes::INTERNAL_ERROR, message).with_data(serde_json::json!({
            "max": self.max,
            "maxPerClient": self.max_per_peer,
        }))
    }

    /// How many are held.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.held.lock().expect("admission").total
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut held = self.admission.held.lock().expect("admission");
        held.total -= 1;
        if let Some(peer) = &self.peer
            && let Some(n) = held.by_peer.get_mut(peer)
        {
            *n -= 1;
            if *n == 0 {
                held.by_peer.remove(peer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_hold_in_all_and_per_peer_and_places_come_back() {
        let a = Arc::new(Admission::new("streams", 3, 2));
        let (p, q) = (PeerId::Connection(1), PeerId::Connection(2));
        let one = a.admit(Some(&p)).unwrap();
        let _two = a.admit(Some(&p)).unwrap();
        assert!(matches!(a.admit(Some(&p)), Err(Refusal::PeerFull(_))));
        let _three = a.admit(Some(&q)).unwrap();
        assert!(matches!(a.admit(None), Err(Refusal::Full(_))));
        drop(one);
        assert_eq!(a.held(), 2);
        assert!(a.admit(Some(&p)).is_ok());
    }
}
