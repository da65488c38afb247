//! Occurrences the replicas share (feature `redis`): each event type's log is kept in a
//! Redis stream (`mcp-framework:events:<type>`). An emit appends to the stream, and every
//! replica — the emitting one too — adds what the stream gets to its own log, numbered as
//! Redis numbered it: an occurrence emitted on one replica is polled and streamed from any
//! other, cursors are good on every replica, and they outlive a restart for as long as
//! Redis keeps what they point at.

use std::sync::{Arc, Weak};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::log::Entry;
use super::served::Shared;
use crate::scale::streams::{LogKey, SharedLogs, StreamId, Tailed};

/// An occurrence's number in its log: Redis's `<ms>-<n>`, in order, as one number.
fn seq_of(id: StreamId) -> u64 {
    const N_BITS: u32 = 20;
    id.ms
        .saturating_mul(1 << N_BITS)
        .saturating_add(id.n.min((1 << N_BITS) - 1))
}

/// An occurrence as the stream keeps it.
#[derive(Serialize, Deserialize)]
struct Kept<'a> {
    id: &'a str,
    ts: &'a str,
    ms: u64,
    #[serde(borrow)]
    data: &'a RawValue,
}

/// An occurrence, as the stream keeps it.
pub(super) fn body(event_id: &str, timestamp: &str, at_ms: u64, data: &RawValue) -> String {
    serde_json::to_string(&Kept {
        id: event_id,
        ts: timestamp,
        ms: at_ms,
        data,
    })
    .expect("an occurrence serializes")
}

/// Starts sharing `shared`'s logs through the Redis at `url`, at most `queue` emits
/// waiting while Redis is away.
pub(super) fn connect(shared: &Arc<Shared>, url: &str, queue: usize) -> Result<SharedLogs, String> {
    let keys = shared
        .shared_logs
        .read()
        .expect("shared logs")
        .iter()
        .map(|served| LogKey {
            key: served.kind.redis_key().into(),
            keep: served.kind.retain_events,
        })
        .collect();
    let weak = Arc::downgrade(shared);
    SharedLogs::start(url, keys, queue, move |tailed| deliver(&weak, tailed))
        .map_err(|e| e.to_string())
}

/// Adds what the stream got to the replica's log.
fn deliver(shared: &Weak<Shared>, tailed: Tailed) {
    let Some(shared) = shared.upgrade() else {
        return;
    };
    match tailed {
        Tailed::Entry { log, id, body } => {
            let Some(served) = shared.shared_log(log) else {
                return;
            };
            let Ok(kept) = serde_json::from_str::<Kept<'_>>(&body) else {
                tracing::warn!(event = %served.kind.name, "skipped an occurrence kept in another format");
                return;
            };
            // A payload this build cannot read (another version of its type) still goes to
            // subscribers without a filter; no filter matches it.
            let payload = (served.kind.decode)(kept.data.get()).unwrap_or_else(|e| {
                tracing::warn!(event = %served.kind.name, error = %e, "an occurrence's payload does not read as this build's type");
                Box::new(())
            });
            served.log.insert(Entry {
                seq: seq_of(id),
                event_id: kept.id.to_owned(),
                timestamp: kept.ts.to_owned(),
                at_ms: kept.ms,
                data: kept.data.to_owned(),
                payload,
            });
        }
        Tailed::Trimmed { log, up_to } => {
            if let Some(served) = shared.shared_log(log) {
                served.log.trimmed(seq_of(up_to));
            }
        }
        Tailed::Loaded(log) => {
            if let Some(served) = shared.shared_log(log) {
                served.log.loaded();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_redis_order() {
        let ids = [(1, 0), (1, 1), (1, 70_000), (2, 0), (1_800_000_000_000, 5)];
        let seqs: Vec<u64> = ids
            .iter()
            .map(|&(ms, n)| seq_of(StreamId { ms, n }))
            .collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    }
}
