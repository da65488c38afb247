//! [`TaskStore`]: where task records live, so that a task's result outlives the request
//! that created it, and at most so many of them per holder (one caller's quota);
//! [`MemoryTaskStore`], the bounded in-process default (a number of records, and a byte
//! budget for their contents). A store shared by several replicas (the scale-out feature)
//! implements the same trait and passes the same [`contract`](super::contract).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use super::record::{TaskRecord, TaskUpdate};
use crate::protocol::ErrorObject;

/// The default byte budget of a [`MemoryTaskStore`]: 256 MiB of results, errors and
/// questions (a caller at the default quota of 100 tasks, each with a result of the
/// default maximum of 1 MiB, holds at most 100 MiB of it).
pub const DEFAULT_MAX_BYTES: usize = 256 << 20;

/// The future a [`TaskStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send + 'a>>;

/// Why a store could not do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds its maximum of tasks.
    #[error("the task store is full ({max} tasks)")]
    Full {
        /// The maximum.
        max: usize,
    },
    /// The record's holder holds its maximum of tasks (its quota).
    #[error("this caller holds its maximum of {max} tasks")]
    HolderFull {
        /// The maximum per holder.
        max: usize,
    },
    /// A task with this id exists already.
    #[error("a task with id {0:?} exists already")]
    Exists(String),
    /// The backend failed (a shared store's connection, say).
    #[error("the task store failed: {0}")]
    Backend(String),
}

/// Keeps task records. Every method is atomic with respect to the others; `update`
/// applies a [`TaskUpdate`] with [`TaskUpdate::apply`], so a final record never changes.
///
/// Creation is strongly consistent: once `create` returns, `get` finds the record (the
/// extension forbids answering with a task before then).
///
/// A record counts against its [`holder`](TaskRecord::holder)'s quota from its creation
/// until it is removed (running or finished): `create` refuses a record whose holder holds
/// `max_per_holder` records already. A record without a holder counts against no quota.
pub trait TaskStore: Send + Sync + 'static {
    /// Adds a new record: [`TaskStoreError::Exists`] for an id in use,
    /// [`TaskStoreError::HolderFull`] when its holder holds `max_per_holder` records,
    /// [`TaskStoreError::Full`] at the store's bound.
    fn create(&self, record: TaskRecord, max_per_holder: usize) -> StoreFuture<'_, ()>;
    /// The record with this id, if it is kept (expired or not: the caller checks).
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;
    /// Applies `update` to the record with this id; returns the record as it is after
    /// (unchanged if it was final), or `None` if there is no such record.
    fn update<'a>(&'a self, id: &'a str, update: TaskUpdate)
    -> StoreFuture<'a, Option<TaskRecord>>;
    /// Ids of up to `limit` records expired at `now_ms` (see [`TaskRecord::is_expired`]).
    fn expired(&self, now_ms: u64, limit: usize) -> StoreFuture<'_, Vec<String>>;
    /// Removes a record; returns whether it was there.
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
}

/// A shared store is a store (keep an `Arc` to look into it, in tests say).
impl<T: TaskStore + ?Sized> TaskStore for std::sync::Arc<T> {
    fn create(&self, record: TaskRecord, max_per_holder: usize) -> StoreFuture<'_, ()> {
        (**self).create(record, max_per_holder)
    }
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        (**self).get(id)
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        (**self).update(id, update)
    }
    fn expired(&self, now_ms: u64, limit: usize) -> StoreFuture<'_, Vec<String>> {
        (**self).expired(now_ms, limit)
    }
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        (**self).remove(id)
    }
}

/// The default store: records in a map in this process, at most `max_tasks` of them, and
/// at most [`max_bytes`](Self::max_bytes) of their contents
/// ([`TaskRecord::payload_bytes`]: results, errors, questions). A result (or question)
/// that would take the store past its byte budget fails its task instead of being kept.
/// Tasks do not survive a restart, and replicas do not see each other's.
pub struct MemoryTaskStore {
    max_tasks: usize,
    max_bytes: usize,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    records: HashMap<String, Kept>,
    /// The payload bytes of every record.
    bytes: usize,
    /// Records per holder.
    by_holder: HashMap<String, usize>,
}

struct Kept {
    record: TaskRecord,
    /// Its payload bytes, as counted in `Held::bytes`.
    bytes: usize,
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("max_tasks", &self.max_tasks)
            .field("max_bytes", &self.max_bytes)
            .field("tasks", &self.len())
            .field("bytes", &self.bytes())
            .finish()
    }
}

impl MemoryTaskStore {
    /// A store of at most `max_tasks` records, and [`DEFAULT_MAX_BYTES`] of their
    /// contents.
    pub fn new(max_tasks: usize) -> Self {
        Self {
            max_tasks,
            max_bytes: DEFAULT_MAX_BYTES,
            held: Mutex::new(Held::default()),
        }
    }

    /// Keeps at most `max` bytes of contents (results, errors, questions) in all.
    #[must_use]
    pub fn max_bytes(mut self, max: usize) -> Self {
        self.max_bytes = max;
        self
    }

    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.held.lock().expect("task records").records.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of contents it holds (counted against [`max_bytes`](Self::max_bytes)).
    pub fn bytes(&self) -> usize {
        self.held.lock().expect("task records").bytes
    }

    /// The failure that replaces an update (of `what`) after which the record would weigh
    /// `bytes`, with `in_use` bytes held in all: the update does not fit.
    fn over_budget(&self, what: &str, at_ms: u64, bytes: usize, in_use: usize) -> TaskUpdate {
        TaskUpdate::at(at_ms).failed(ErrorObject::internal(format!(
            "The task's {what} ({bytes} bytes) would take the server's task store past its \
             budget of {} bytes ({in_use} in use), so it was not kept; retry later",
            self.max_bytes
        )))
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord, max_per_holder: usize) -> StoreFuture<'_, ()> {
        let mut held = self.held.lock().expect("task records");
        let held = &mut *held;
        let mine = record
            .holder
            .as_ref()
            .map_or(0, |h| held.by_holder.get(h).copied().unwrap_or(0));
        let outcome = if held.records.contains_key(&record.id) {
            Err(TaskStoreError::Exists(record.id))
        } else if record.holder.is_some() && mine >= max_per_holder {
            Err(TaskStoreError::HolderFull {
                max: max_per_holder,
            })
        } else if held.records.len() >= self.max_tasks {
            Err(TaskStoreError::Full {
                max: self.max_tasks,
            })
        } else {
            if let Some(holder) = &record.holder {
                *held.by_holder.entry(holder.clone()).or_default() += 1;
            }
            let bytes = record.payload_bytes();
            held.bytes += bytes;
            held.records
                .insert(record.id.clone(), Kept { record, bytes });
            Ok(())
        };
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let found = self
            .held
            .lock()
            .expect("task records")
            .records
            .get(id)
            .map(|k| k.record.clone());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let mut held = self.held.lock().expect("task records");
        let held = &mut *held;
        let after = held.records.get_mut(id).map(|kept| {
            if kept.record.status.is_terminal() {
                return kept.record.clone(); // final: it never changes
            }
            let what = if update.result.is_some() {
                "result"
            } else if update.error.is_some() {
                "error"
            } else {
                "questions"
            };
            let at_ms = update.at_ms;
            let mut next = kept.record.clone();
            update.apply(&mut next);
            let mut bytes = next.payload_bytes();
            let others = held.bytes - kept.bytes;
            // Only an update that grows the record can be refused: a failure note, a
            // lease renewal or an answer taken always lands.
            if bytes > kept.bytes && others + bytes > self.max_bytes {
                next = kept.record.clone();
                self.over_budget(what, at_ms, bytes, held.bytes)
                    .apply(&mut next);
                bytes = next.payload_bytes();
            }
            held.bytes = others + bytes;
            kept.bytes = bytes;
            kept.record = next;
            kept.record.clone()
        });
        Box::pin(std::future::ready(Ok(after)))
    }

    fn expired(&self, now_ms: u64, limit: usize) -> StoreFuture<'_, Vec<String>> {
        let ids = self
            .held
            .lock()
            .expect("task records")
            .records
            .values()
            .filter(|k| k.record.is_expired(now_ms))
            .take(limit)
            .map(|k| k.record.id.clone())
            .collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let mut held = self.held.lock().expect("task records");
        let held = &mut *held;
        let removed = held.records.remove(id).inspect(|kept| {
            held.bytes -= kept.bytes;
            if let Some(holder) = &kept.record.holder
                && let Some(n) = held.by_holder.get_mut(holder)
            {
                *n -= 1;
                if *n == 0 {
                    held.by_holder.remove(holder);
                }
            }
        });
        Box::pin(std::future::ready(Ok(removed.is_some())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_memory_store_keeps_the_contract() {
        super::super::contract::check(&MemoryTaskStore::new(super::super::contract::MIN_CAPACITY))
            .await;
    }

    #[tokio::test]
    async fn it_holds_at_most_its_bound() {
        let store = MemoryTaskStore::new(2);
        for i in 0..2 {
            store
                .create(TaskRecord::new(format!("t{i}"), None, 0, None, None), 1)
                .await
                .unwrap();
        }
        let third = store
            .create(TaskRecord::new("t2".into(), None, 0, None, None), 1)
            .await;
        assert_eq!(third, Err(TaskStoreError::Full { max: 2 }));
        assert!(store.remove("t0").await.unwrap());
        store
            .create(TaskRecord::new("t2".into(), None, 0, None, None), 1)
            .await
            .unwrap();
        assert_eq!(store.len(), 2);
    }

    fn result_of(bytes: usize) -> crate::tasks::RawJson {
        serde_json::Value::String("x".repeat(bytes - 2)).into()
    }

    #[tokio::test]
    async fn contents_past_the_byte_budget_fail_their_task_instead_of_being_kept() {
        let store = MemoryTaskStore::new(10).max_bytes(1_000);
        for id in ["a", "b", "c"] {
            store
                .create(TaskRecord::new(id.into(), None, 0, None, None), 10)
                .await
                .unwrap();
        }
        let a = store
            .update("a", TaskUpdate::at(1).completed(result_of(600)))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(a.status, crate::protocol::TaskStatus::Completed);
        assert_eq!(store.bytes(), 600);
        // 600 + 500 > 1,000: b fails, and what it keeps is its (short) failure.
        let b = store
            .update("b", TaskUpdate::at(2).completed(result_of(500)))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(b.status, crate::protocol::TaskStatus::Failed);
        assert!(b.result.is_none());
        let message = &b.error.as_ref().unwrap().message;
        assert!(message.contains("budget of 1000 bytes"), "{message}");
        assert!(message.contains("result (500 bytes)"), "{message}");
        assert_eq!(store.bytes(), 600 + b.payload_bytes());
        // Removing a frees its bytes: c's result now fits.
        assert!(store.remove("a").await.unwrap());
        let c = store
            .update("c", TaskUpdate::at(3).completed(result_of(500)))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(c.status, crate::protocol::TaskStatus::Completed);
        assert_eq!(store.bytes(), b.payload_bytes() + 500);
        for id in ["b", "c"] {
            store.remove(id).await.unwrap();
        }
        assert_eq!(store.bytes(), 0);
    }
}
