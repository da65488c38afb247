//! [`RedisTaskStore`]: task records in Redis, so that any replica answers `tasks/get` for
//! a task another one runs, and results outlive the replica that made them.

use std::sync::Mutex;
use std::time::Duration;

use super::timing::REDIS_TIMEOUT;
use crate::error::Error;
use crate::tasks::{StoreFuture, TaskRecord, TaskStore, TaskStoreError, TaskUpdate};

/// How much longer than its TTL Redis keeps a record: a safety net if no replica sweeps
/// (replicas remove expired records themselves, at most a second late).
const EXPIRY_GRACE: Duration = Duration::from_secs(600);

/// How many times an update retries when another replica changed the record meanwhile.
const UPDATE_RETRIES: usize = 16;

/// Creates a record unless its id exists, its holder holds its quota or the store is full.
/// KEYS: record, index, the holder's set (its records by expiry; the empty string: no
/// holder). ARGV: data, expiry score, max tasks, Redis expiry in ms (0: none), id, max per
/// holder, the expiry (ms) before which Redis has dropped a record on its own. A record
/// counts until it is removed (`REMOVE`, by a replica's sweep), or dropped by Redis should
/// no replica sweep ([`EXPIRY_GRACE`] after its TTL).
const CREATE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local held = KEYS[3] ~= ''
if held then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[7])
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'holder' end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], 'rev', 1, 'data', ARGV[1], 'holder', KEYS[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
if tonumber(ARGV[4]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
if held then
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[5])
  if tonumber(ARGV[4]) > 0 then
    if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[4]) then
      redis.call('PEXPIRE', KEYS[3], ARGV[4])
    end
  else
    redis.call('PERSIST', KEYS[3])
  end
end
return 'ok'
";

/// Removes a record, from the index and from its holder's set. KEYS: record, index. ARGV:
/// id. Returns 1 if the record was there.
const REMOVE: &str = r"
local holder = redis.call('HGET', KEYS[1], 'holder')
local deleted = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if holder and holder ~= '' then redis.call('ZREM', holder, ARGV[1]) end
return deleted
";

/// Replaces a record's data if it is still at revision ARGV[1]. KEYS: record. ARGV: rev,
/// data. Returns 1 (replaced), 0 (changed meanwhile) or -1 (gone).
const COMPARE_AND_SET: &str = r"
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', tonumber(rev) + 1, 'data', ARGV[2])
return 1
";

/// A [`TaskStore`] in Redis, shared by every replica (feature `redis`): one hash per
/// record (its JSON and a revision) and a sorted set of the records by expiry, for the
/// bound and the sweep, and one per holder, for its quota (so a caller's quota holds
/// across replicas). Creation is atomic (a Lua script checks the id, the holder's quota
/// and the bound);
/// an update reads the record, applies the [`TaskUpdate`] (the same rules as every store)
/// and writes it back only if no other replica changed it meanwhile (compare-and-set on
/// the revision, retried). It passes [`contract::check`](crate::tasks::contract::check).
///
/// A record outlives the replica that created it; Redis also drops it on its own a while
/// after its TTL, should no replica sweep. An unreachable Redis makes the operation fail
/// (`TaskStoreError::Backend`): a tool that may run inline then does, a task-only tool is
/// refused with 503, `tasks/get` answers an internal error.
///
/// ```no_run
/// # fn doc() -> Result<(), mcp_framework::Error> {
/// use mcp_framework::Server;
/// use mcp_framework::scale::RedisTaskStore;
///
/// let server = Server::builder()
///     .task_store(RedisTaskStore::new("redis://127.0.0.1:6379/", 10_000)?)
///     .build()?;
/// # let _ = server; Ok(()) }
/// ```
pub struct RedisTaskStore {
    client: redis::Client,
    connection: Mutex<Option<redis::aio::MultiplexedConnection>>,
    connecting: tokio::sync::Mutex<()>,
    prefix: String,
    max_tasks: usize,
    create: redis::Script,
    compare_and_set: redis::Script,
    remove: redis::Script,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .field("max_tasks", &self.max_tasks)
            .finish_non_exhaustive()
    }
}

fn backend(e: &redis::RedisError) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string())
}

impl RedisTaskStore {
    /// A store of at most `max_tasks` records on the Redis at `url`, under the key prefix
    /// `mcp-framework:tasks`. Connects on first use (and again after a failure).
    pub fn new(url: &str, max_tasks: usize) -> Result<Self, Error> {
        let client = redis::Client::open(url).map_err(|e| {
            Error::Config(format!(
                "the Redis URL `{}`: {e}",
                super::url::redacted(url)
            ))
        })?;
        Ok(Self {
            client,
            connection: Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            prefix: "mcp-framework:tasks".into(),
            max_tasks,
            create: redis::Script::new(CREATE),
            compare_and_set: redis::Script::new(COMPARE_AND_SET),
            remove: redis::Script::new(REMOVE),
        })
    }

    /// Keys under `prefix` instead (servers sharing one Redis use different prefixes;
    /// replicas of one server the same).
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    fn record_key(&self, id: &str) -> String {
        format!("{}:r:{id}", self.prefix)
    }

    fn index_key(&self) -> String {
        format!("{}:expiry", self.prefix)
    }

    /// The set of `holder`'s records (the empty string for none).
    fn holder_key(&self, holder: Option<&str>) -> String {
        holder.map_or_else(String::new, |h| format!("{}:holder:{h}", self.prefix))
    }

    /// The shared connection, made if there is none.
    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, TaskStoreError> {
        if let Some(c) = self.connection.lock().expect("connection").clone() {
            return Ok(c);
        }
        let _one = self.connecting.lock().await;
        if let Some(c) = self.connection.lock().expect("connection").clone() {
            return Ok(c);
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(REDIS_TIMEOUT))
            .set_response_timeout(Some(REDIS_TIMEOUT));
        let c = self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(|e| backend(&e))?;
        *self.connection.lock().expect("connection") = Some(c.clone());
        Ok(c)
    }

    /// `result`, dropping the connection when Redis failed (the next call reconnects).
    fn checked<T>(&self, result: redis::RedisResult<T>) -> Result<T, TaskStoreError> {
        result.map_err(|e| {
            if e.is_io_error() || e.is_timeout() || e.is_connection_dropped() {
                *self.connection.lock().expect("connection") = None;
            }
            backend(&e)
        })
    }

    /// The record and its revision.
    async fn read(&self, id: &str) -> Result<Option<(String, TaskRecord)>, TaskStoreError> {
        let mut c = self.connection().await?;
        let (rev, data): (Option<String>, Option<String>) = self.checked(
            redis::cmd("HMGET")
                .arg(self.record_key(id))
                .arg("rev")
                .arg("data")
                .query_async(&mut c)
                .await,
        )?;
        match (rev, data) {
            (Some(rev), Some(data)) => {
                let record = serde_json::from_str(&data).map_err(|e| {
                    TaskStoreError::Backend(format!("an unreadable task record in Redis: {e}"))
                })?;
                Ok(Some((rev, record)))
            }
            _ => Ok(None),
        }
    }
}

fn json(record: &TaskRecord) -> String {
    serde_json::to_string(record).expect("a task record serializes")
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord, max_per_holder: usize) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let mut c = self.connection().await?;
            let score = record
                .expires_at_ms()
                .map_or_else(|| "+inf".to_owned(), |at| at.to_string());
            let expire_ms = record
                .ttl_ms
                .map_or(0, |ttl| ttl.saturating_add(EXPIRY_GRACE.as_millis() as u64));
            let outcome: String = self.checked(
                self.create
                    .key(self.record_key(&record.id))
                    .key(self.index_key())
                    .key(self.holder_key(record.holder.as_deref()))
                    .arg(json(&record))
                    .arg(score)
                    .arg(self.max_tasks)
                    .arg(expire_ms)
                    .arg(&record.id)
                    .arg(max_per_holder)
                    .arg(
                        crate::tasks::record::now_ms()
                            .saturating_sub(EXPIRY_GRACE.as_millis() as u64),
                    )
                    .invoke_async(&mut c)
                    .await,
            )?;
            match outcome.as_str() {
                "ok" => Ok(()),
                "exists" => Err(TaskStoreError::Exists(record.id)),
                "holder" => Err(TaskStoreError::HolderFull {
                    max: max_per_holder,
                }),
                "full" => Err(TaskStoreError::Full {
                    max: self.max_tasks,
                }),
                other => Err(TaskStoreError::Backend(format!(
                    "unexpected answer from Redis: {other}"
                ))),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move { Ok(self.read(id).await?.map(|(_, r)| r)) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        update: TaskUpdate,
    ) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            for _ in 0..UPDATE_RETRIES {
                let Some((rev, mut record)) = self.read(id).await? else {
                    return Ok(None);
                };
                if !update.clone().apply(&mut record) {
                    return Ok(Some(record)); // final: it never changes
                }
                let mut c = self.connection().await?;
                let replaced: i64 = self.checked(
                    self.compare_and_set
                        .key(self.record_key(id))
                        .arg(&rev)
                        .arg(json(&record))
                        .invoke_async(&mut c)
                        .await,
                )?;
                match replaced {
                    1 => return Ok(Some(record)),
                    -1 => return Ok(None),
                    _ => {} // another replica wrote first: read again
                }
            }
            Err(TaskStoreError::Backend(format!(
                "task {id} kept changing under {UPDATE_RETRIES} attempts to update it"
            )))
        })
    }

    fn expired(&self, now_ms: u64, limit: usize) -> StoreFuture<'_, Vec<String>> {
        Box::pin(async move {
            let mut c = self.connection().await?;
            self.checked(
                redis::cmd("ZRANGEBYSCORE")
                    .arg(self.index_key())
                    .arg("-inf")
                    .arg(now_ms)
                    .arg("LIMIT")
                    .arg(0)
                    .arg(limit)
                    .query_async(&mut c)
                    .await,
            )
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut c = self.connection().await?;
            let deleted: i64 = self.checked(
                self.remove
                    .key(self.record_key(id))
                    .key(self.index_key())
                    .arg(id)
                    .invoke_async(&mut c)
                    .await,
            )?;
            Ok(deleted == 1)
        })
    }
}
