//! The occurrences of one event type kept for replay: a ring bounded in count and in bytes,
//! each occurrence numbered in order, and the cursors that point into it. A cursor is
//! `<log>.<n>`: which log (a random id per process and type, so that a cursor from before a
//! restart, or of another type, is known for what it is) and the number of the last
//! occurrence the subscriber has been given (or scanned past). Nothing in a cursor is
//! trusted: it only says where to start reading, and every occurrence read still passes
//! the subscriber's filter.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

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

/// The ring.
struct Ring {
    entries: VecDeque<Arc<Entry>>,
    bytes: usize,
    /// The number of the next occurrence.
    next: u64,
}

/// One event type's log.
pub(super) struct Log {
    /// This log's id, in its cursors.
    id: String,
    ring: Mutex<Ring>,
    /// The number of the newest occurrence (0: none yet); streams wait on it.
    head: watch::Sender<u64>,
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
    pub(super) fn new(max_events: usize, max_bytes: usize) -> Self {
        Self {
            id: crate::unguessable::hex_id()[..12].to_owned(),
            ring: Mutex::new(Ring {
                entries: VecDeque::new(),
                bytes: 0,
                next: 1,
            }),
            head: watch::channel(0).0,
            max_events,
            max_bytes,
        }
    }

    /// Adds an occurrence (numbered here) and drops the oldest ones beyond the bounds.
    pub(super) fn push(&self, make: impl FnOnce(u64) -> Entry) -> u64 {
        let seq = {
            let mut ring = self.ring.lock().expect("event log");
            let seq = ring.next;
            ring.next += 1;
            let entry = make(seq);
            ring.bytes += entry.weight();
            ring.entries.push_back(Arc::new(entry));
            while ring.entries.len() > self.max_events
                || (ring.bytes > self.max_bytes && ring.entries.len() > 1)
            {
                if let Some(old) = ring.entries.pop_front() {
                    ring.bytes -= old.weight();
                }
            }
            seq
        };
        self.head.send_replace(seq);
        seq
    }

    /// The occurrences kept after `after`.
    pub(super) fn read_after(&self, after: u64) -> Read {
        let ring = self.ring.lock().expect("event log");
        let head = ring.next - 1;
        let first = ring.entries.front().map_or(ring.next, |e| e.seq);
        let skip =
            usize::try_from(after.saturating_add(1).saturating_sub(first)).unwrap_or(usize::MAX);
        Read {
            entries: ring.entries.iter().skip(skip).cloned().collect(),
            gap: after.saturating_add(1) < first,
            head,
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
    /// the head the oldest occurrence kept, truncated. `Err`: not a cursor at all.
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
        if id == self.id && seq <= self.head() {
            return Ok(Start {
                after: seq,
                truncated: false,
            });
        }
        let ring = self.ring.lock().expect("event log");
        let first = ring.entries.front().map_or(ring.next, |e| e.seq);
        Ok(Start {
            after: first - 1,
            truncated: true,
        })
    }
}
