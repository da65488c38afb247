//! The occurrences of one event type kept for replay: a ring bounded in count and in bytes,
//! each occurrence numbered in order, and the cursors that point into it. A cursor is
//! `<log>.<n>`: which log and the number of the last occurrence the subscriber has been
//! given (or scanned past). A process's own log has a random id (a cursor from before a
//! restart, or of another type, is known for what it is) and numbers its occurrences 1, 2,
//! 3…; a log shared by the replicas (feature `redis`, `shared.rs`) has an id every replica
//! derives from its Redis key and numbers occurrences as Redis did, so that its cursors are
//! good on any replica and after a restart. Nothing in a cursor is trusted: it only says
//! where to start reading, and every occurrence read still passes the subscriber's filter.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use tokio::sync::watch;

/// One occurrence.
pub(super) struct Entry {
    /// Its number in the log (from 1).
    pub(super) seq: u64,
    pub(super) event_id: String,
    /// RFC 3339, UTC.
    pub(super) timestamp: String,
    /// Milliseconds since the Unix epoch (for `maxAgeMs`).
    pub(super) at_ms: u64,
    /// The payload as JSON.
    pub(super) data: Box<RawValue>,
    /// The payload as emitted (what filters read).
    pub(super) payload: Box<dyn Any + Send + Sync>,
}

impl Entry {
    /// What it weighs against the byte budget.
    fn weight(&self) -> usize {
        self.data.get().len() + self.event_id.len() + 64
    }
}

/// How long a request waits for a shared log to hold what Redis kept of it, when the
/// server has just started.
const SETTLE: Duration = Duration::from_secs(2);

/// The ring.
struct Ring {
    entries: VecDeque<Arc<Entry>>,
    bytes: usize,
    /// The number of the next occurrence (a process's own log).
    next: u64,
    /// The number of the newest occurrence dropped (0: none): a position before it missed
    /// some.
    dropped: u64,
}

/// One event type's log.
pub(super) struct Log {
    /// This log's id, in its cursors.
    id: String,
    /// Whether it is shared by the replicas (numbered by Redis).
    shared: bool,
    ring: Mutex<Ring>,
    /// The number of the newest occurrence (0: none yet); streams wait on it.
    head: watch::Sender<u64>,
    /// Whether it holds what was kept before this process started (a shared log, once
    /// loaded; a process's own log always).
    ready: watch::Sender<bool>,
    max_events: usize,
    max_bytes: usize,
}

/// Where a subscriber starts reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Start {
    /// After this occurrence.
    pub(super) after: u64,
    /// Whether the cursor it came from pointed where nothing is kept any more (or to a log
    /// of an earlier process): occurrences may have been missed.
    pub(super) truncated: bool,
}

/// What a read found after a position.
pub(super) struct Read {
    /// The occurrences kept after the position, oldest first.
    pub(super) entries: Vec<Arc<Entry>>,
    /// Whether some after the position were dropped before this read.
    pub(super) gap: bool,
    /// The newest occurrence's number.
    pub(super) head: u64,
}

impl Log {
    /// This process's own log.
    pub(super) fn new(max_events: usize, max_bytes: usize) -> Self {
        Self::with_id(
            crate::unguessable::hex_id()[..12].to_owned(),
            false,
            max_events,
            max_bytes,
        )
    }

    /// A log the replicas share, kept at `key`: its id is derived from the key (FNV-1a),
    /// the same on every replica and never one of a process's own logs (those are hex
    /// digits only). Empty and not [`ready`](Self::settled) until it is loaded.
    #[cfg(feature = "redis")]
    pub(super) fn shared(key: &str, max_events: usize, max_bytes: usize) -> Self {
        let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        let id = format!("r{:011x}", hash & 0xfff_ffff_ffff);
        Self::with_id(id, true, max_events, max_bytes)
    }

    fn with_id(id: String, shared: bool, max_events: usize, max_bytes: usize) -> Self {
        Self {
            id,
            shared,
            ring: Mutex::new(Ring {
                entries: VecDeque::new(),
                bytes: 0,
                next: 1,
                dropped: 0,
            }),
            head: watch::channel(0).0,
            ready: watch::channel(!shared).0,
            max_events,
            max_bytes,
        }
    }

    /// Adds an occurrence of this process's own log (numbered here).
    pub(super) fn push(&self, make: impl FnOnce(u64) -> Entry) -> u64 {
        let mut ring = self.ring.lock().expect("event log");
        let seq = ring.next;
        ring.next += 1;
        self.keep(ring, make(seq));
        seq
    }

    /// Adds an occurrence of a shared log, numbered by where it is kept; one not newer
    /// than the newest here is a repeat, and ignored.
    #[cfg(feature = "redis")]
    pub(super) fn insert(&self, entry: Entry) {
        let ring = self.ring.lock().expect("event log");
        if entry.seq > self.head() {
            self.keep(ring, entry);
        }
    }

    /// Appends `entry` (the newest), drops the oldest beyond the bounds, wakes the streams.
    fn keep(&self, mut ring: std::sync::MutexGuard<'_, Ring>, entry: Entry) {
        let seq = entry.seq;
        ring.bytes += entry.weight();
        ring.entries.push_back(Arc::new(entry));
        while ring.entries.len() > self.max_events
            || (ring.bytes > self.max_bytes && ring.entries.len() > 1)
        {
            if let Some(old) = ring.entries.pop_front() {
                ring.bytes -= old.weight();
                ring.dropped = old.seq;
            }
        }
        self.head.send_replace(seq);
    }

    /// Occurrences up to `seq` were dropped where the shared log is kept.
    #[cfg(feature = "redis")]
    pub(super) fn trimmed(&self, seq: u64) {
        let mut ring = self.ring.lock().expect("event log");
        ring.dropped = ring.dropped.max(seq);
    }

    /// The shared log holds what was kept before this process started.
    #[cfg(feature = "redis")]
    pub(super) fn loaded(&self) {
        self.ready.send_replace(true);
    }

    /// Waits (briefly) until the log holds what was kept before this process started, so
    /// that "now" is not taken to be before it.
    pub(super) async fn settled(&self) {
        let mut ready = self.ready.subscribe();
        let _ = tokio::time::timeout(SETTLE, ready.wait_for(|ready| *ready)).await;
    }

    /// The occurrences kept after `after`.
    pub(super) fn read_after(&self, after: u64) -> Read {
        let ring = self.ring.lock().expect("event log");
        let skip = ring.entries.partition_point(|e| e.seq <= after);
        Read {
            entries: ring.entries.iter().skip(skip).cloned().collect(),
            gap: after < ring.dropped,
            head: self.head(),
        }
    }

    /// The newest occurrence's number.
    pub(super) fn head(&self) -> u64 {
        *self.head.borrow()
    }

    /// Waits for occurrences newer than the head when it was subscribed.
    pub(super) fn watch(&self) -> watch::Receiver<u64> {
        self.head.subscribe()
    }

    /// The cursor of the position after occurrence `seq`.
    pub(super) fn cursor(&self, seq: u64) -> String {
        format!("{}.{seq}", self.id)
    }

    /// Where a client's cursor starts: `None` (no cursor) is now; a cursor of this log its
    /// position; a cursor of another log (an earlier process, another type) or one beyond
    /// the head the oldest occurrence kept, truncated. In a shared log a position beyond
    /// the head is one another replica has seen first, and kept. `Err`: not a cursor at
    /// all.
    pub(super) fn start(&self, cursor: Option<&str>) -> Result<Start, String> {
        let Some(cursor) = cursor else {
            return Ok(Start {
                after: self.head(),
                truncated: false,
            });
        };
        let (id, seq) = cursor
            .split_once('.')
            .and_then(|(id, n)| Some((id, n.parse::<u64>().ok()?)))
            .ok_or_else(|| format!("`{cursor}` is not a cursor this server gave"))?;
        if id == self.id && (self.shared || seq <= self.head()) {
            return Ok(Start {
                after: seq,
                truncated: false,
            });
        }
        let ring = self.ring.lock().expect("event log");
        Ok(Start {
            after: ring.entries.front().map_or(self.head(), |e| e.seq - 1),
            truncated: true,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(feature = "redis")]
    fn a_shared_log_id_is_the_same_everywhere_and_not_hex() {
        use super::Log;
        let id = |key| Log::shared(key, 1, 1).id;
        assert_eq!(id("a"), id("a"));
        assert_ne!(id("a"), id("b"));
        assert!(id("a").starts_with('r'));
        assert_eq!(id("a").len(), 12);
        assert_eq!(Log::new(1, 1).id.len(), 12);
    }
}
