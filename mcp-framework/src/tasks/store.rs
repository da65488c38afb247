//! [`TaskStore`]: where task records live, so that a task's result outlives the request
//! that created it; [`MemoryTaskStore`], the bounded in-process default. A store shared by
//! several replicas (the scale-out feature) implements the same trait and passes the same
//! [`contract`](super::contract).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use super::record::{TaskRecord, TaskUpdate};

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
pub trait TaskStore: Send + Sync + 'static {
    /// Adds a new record ([`TaskStoreError::Full`] at the store's bound).
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()>;
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
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        (**self).create(record)
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

/// The server's store, as its tasks hold it: the one the builder was given, replaceable
/// until serving starts (`Server::run`'s `--redis-url`).
pub(crate) struct SharedStore(arc_swap::ArcSwap<Box<dyn TaskStore>>);

impl SharedStore {
    pub(crate) fn new(store: Box<dyn TaskStore>) -> Self {
        Self(arc_swap::ArcSwap::from_pointee(store))
    }

    /// Keeps records in `store` from now on.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn replace(&self, store: Box<dyn TaskStore>) {
        self.0.store(std::sync::Arc::new(store));
    }
}

impl TaskStore for SharedStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        let store = self.0.load_full();
        Box::pin(async move { store.create(record).await })
    }
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let store = self.0.load_full();
        Box::pin(async move { store.get(id).await })
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let store = self.0.load_full();
        Box::pin(async move { store.update(id, update).await })
    }
    fn expired(&self, now_ms: u64, limit: usize) -> StoreFuture<'_, Vec<String>> {
        let store = self.0.load_full();
        Box::pin(async move { store.expired(now_ms, limit).await })
    }
    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let store = self.0.load_full();
        Box::pin(async move { store.remove(id).await })
    }
}

/// The default store: records in a map in this process, at most `max_tasks` of them.
/// Tasks do not survive a restart, and replicas do not see each other's.
pub struct MemoryTaskStore {
    max_tasks: usize,
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl fmt::Debug for MemoryTaskStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryTaskStore")
            .field("max_tasks", &self.max_tasks)
            .field("tasks", &self.len())
            .finish()
    }
}

impl MemoryTaskStore {
    /// A store of at most `max_tasks` records.
    pub fn new(max_tasks: usize) -> Self {
        Self {
            max_tasks,
            records: Mutex::new(HashMap::new()),
        }
    }

    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.records.lock().expect("task records").len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        let mut records = self.records.lock().expect("task records");
        let outcome = if records.contains_key(&record.id) {
            Err(TaskStoreError::Exists(record.id))
        } else if records.len() >= self.max_tasks {
            Err(TaskStoreError::Full {
                max: self.max_tasks,
            })
        } else {
            records.insert(record.id.clone(), record);
            Ok(())
        };
        Box::pin(std::future::ready(outcome))
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        let found = self.records.lock().expect("task records").get(id).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        let mut records = self.records.lock().expect("task records");
        let after = records.get_mut(id).map(|record| {
            update.apply(record);
            record.clone()
        });
        Box::pin(std::future::ready(Ok(after)))
    }

    fn expired(&self, now_ms: u64, limit: usize) -> StoreFuture<'_, Vec<String>> {
        let ids = self
            .records
            .lock()
            .expect("task records")
            .values()
            .filter(|r| r.is_expired(now_ms))
            .take(limit)
            .map(|r| r.id.clone())
            .collect();
        Box::pin(std::future::ready(Ok(ids)))
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let removed = self
            .records
            .lock()
            .expect("task records")
            .remove(id)
            .is_some();
        Box::pin(std::future::ready(Ok(removed)))
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
                .create(TaskRecord::new(format!("t{i}"), None, 0, None, None))
                .await
                .unwrap();
        }
        let third = store
            .create(TaskRecord::new("t2".into(), None, 0, None, None))
            .await;
        assert_eq!(third, Err(TaskStoreError::Full { max: 2 }));
        assert!(store.remove("t0").await.unwrap());
        store
            .create(TaskRecord::new("t2".into(), None, 0, None, None))
            .await
            .unwrap();
        assert_eq!(store.len(), 2);
    }
}
