//! Append-only logs the replicas share through Redis streams (one stream per log): what a
//! replica appends is queued and sent by a background task (`XADD … MAXLEN ~ keep`), and a
//! tail task reads what every replica appended, in the order Redis numbered it — the last
//! `keep` entries of each log when it starts, then each new one (`XREAD BLOCK`) — and hands
//! every record to the owner's callback. A stream's numbers (`<ms>-<n>`) are the same on
//! every replica and outlive a restart, so positions in these logs are too.
//!
//! Logs may be added while the tasks run ([`SharedLogs::add`]): the tail starts reading a
//! new one at once (it drops the connection its blocking read waits on, and reconnects).
//!
//! Redis never blocks an append: the queue is bounded and a full one refuses. While Redis
//! is away appends wait in the queue (and are sent when it is back) and the tail reconnects
//! with backoff, continuing where it stopped; entries Redis trimmed meanwhile are reported
//! as [`Tailed::Trimmed`].

use std::sync::{Arc, RwLock};
use std::time::Duration;

use redis::Value;
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use super::timing::{Backoff, REDIS_TIMEOUT};
use crate::error::Error;

/// How long one `XREAD` waits for new entries before it asks again.
const BLOCK: Duration = Duration::from_secs(5);

/// At most this many entries are read per `XREAD`.
const BATCH: usize = 512;

/// A stream entry's number: `<ms>-<n>`, in Redis's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct StreamId {
    pub(crate) ms: u64,
    pub(crate) n: u64,
}

impl StreamId {
    fn parse(text: &str) -> Option<Self> {
        let (ms, n) = text.split_once('-')?;
        Some(Self {
            ms: ms.parse().ok()?,
            n: n.parse().ok()?,
        })
    }

    /// The greatest number before this one.
    fn before(self) -> Self {
        match self.n {
            0 => Self {
                ms: self.ms.saturating_sub(1),
                n: u64::MAX,
            },
            n => Self {
                ms: self.ms,
                n: n - 1,
            },
        }
    }

    fn text(self) -> String {
        format!("{}-{}", self.ms, self.n)
    }
}

/// What the tail hands its owner.
#[derive(Debug)]
pub(crate) enum Tailed {
    /// An entry of log `log` (its index among the keys given to [`SharedLogs::start`]).
    Entry {
        log: usize,
        id: StreamId,
        body: String,
    },
    /// Log `log`'s entries up to `up_to` were trimmed by Redis: a reader whose position is
    /// before it missed some.
    Trimmed { log: usize, up_to: StreamId },
    /// Log `log`'s kept entries were handed over (once): what is read of it from now on
    /// is new.
    Loaded(usize),
}

/// One shared log: its Redis key and how many entries Redis keeps of it.
#[derive(Debug, Clone)]
pub(crate) struct LogKey {
    pub(crate) key: Arc<str>,
    pub(crate) keep: usize,
}

/// The logs, by index; grows when one is added.
type Logs = Arc<RwLock<Vec<LogKey>>>;

/// The handle of the shared logs: appends, adds logs, and the tasks stop when it is
/// dropped.
pub(crate) struct SharedLogs {
    outbound: mpsc::Sender<(usize, String)>,
    logs: Logs,
    /// Wakes the tail when a log is added.
    added: Arc<Notify>,
    stop: CancellationToken,
}

impl std::fmt::Debug for SharedLogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedLogs").finish_non_exhaustive()
    }
}

impl Drop for SharedLogs {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl SharedLogs {
    /// Starts the appending and tailing tasks on the current tokio runtime. Fails only on
    /// a bad URL or outside a runtime: an unreachable Redis is retried in the background.
    pub(crate) fn start(
        url: &str,
        logs: Vec<LogKey>,
        queue: usize,
        deliver: impl Fn(Tailed) + Send + Sync + 'static,
    ) -> Result<Self, Error> {
        let client = redis::Client::open(url).map_err(|e| {
            Error::Config(format!(
                "the Redis URL `{}`: {e}",
                super::url::redacted(url)
            ))
        })?;
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| Error::Config("shared logs are started inside a tokio runtime".into()))?;
        let logs: Logs = Arc::new(RwLock::new(logs));
        let added = Arc::new(Notify::new());
        let (outbound, rx) = mpsc::channel(queue.max(1));
        let stop = CancellationToken::new();
        runtime.spawn(append_loop(client.clone(), logs.clone(), rx, stop.clone()));
        runtime.spawn(tail_loop(
            client,
            logs.clone(),
            added.clone(),
            Arc::new(deliver),
            stop.clone(),
        ));
        Ok(Self {
            outbound,
            logs,
            added,
            stop,
        })
    }

    /// Shares one more log; its index (the one it already has, if its key is shared
    /// already: its entries keep coming under that index).
    pub(crate) fn add(&self, log: LogKey) -> usize {
        let mut logs = self.logs.write().expect("shared logs");
        if let Some(i) = logs.iter().position(|l| l.key == log.key) {
            return i;
        }
        logs.push(log);
        self.added.notify_one();
        logs.len() - 1
    }

    /// Queues `body` for log `log`; `false` when the queue is full (Redis is away or slow).
    pub(crate) fn append(&self, log: usize, body: String) -> bool {
        self.outbound.try_send((log, body)).is_ok()
    }
}

fn config(response: Duration) -> redis::AsyncConnectionConfig {
    redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(REDIS_TIMEOUT))
        .set_response_timeout(Some(response))
}

/// Sends the queued appends in order; one that fails is sent again once Redis is back.
async fn append_loop(
    client: redis::Client,
    logs: Logs,
    mut rx: mpsc::Receiver<(usize, String)>,
    stop: CancellationToken,
) {
    let config = config(REDIS_TIMEOUT);
    let mut conn: Option<redis::aio::MultiplexedConnection> = None;
    let mut backoff = Backoff::new();
    loop {
        let (log, body) = tokio::select! {
            () = stop.cancelled() => return,
            next = rx.recv() => match next {
                Some(next) => next,
                None => return,
            },
        };
        let Some(target) = logs.read().expect("shared logs").get(log).cloned() else {
            continue;
        };
        loop {
            let c = match &mut conn {
                Some(c) => c,
                None => match client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                {
                    Ok(c) => {
                        backoff.reset();
                        conn.insert(c)
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot reach Redis to append to a shared log");
                        if !backoff.sleep(&stop).await {
                            return;
                        }
                        continue;
                    }
                },
            };
            let sent: redis::RedisResult<Value> = redis::cmd("XADD")
                .arg(&*target.key)
                .arg("MAXLEN")
                .arg("~")
                .arg(target.keep)
                .arg("*")
                .arg("e")
                .arg(&body)
                .query_async(c)
                .await;
            match sent {
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "appending to a shared log in Redis failed");
                    conn = None;
                }
            }
        }
    }
}

/// Reads every log: first what Redis keeps of each, then what is appended, reconnecting
/// (and continuing from where it stopped) whenever the connection is lost.
async fn tail_loop(
    client: redis::Client,
    logs: Logs,
    added: Arc<Notify>,
    deliver: Arc<dyn Fn(Tailed) + Send + Sync>,
    stop: CancellationToken,
) {
    let config = config(BLOCK + REDIS_TIMEOUT);
    let mut backoff = Backoff::new();
    // Where each log has been read to; `None` until its kept entries were loaded.
    let mut after: Vec<Option<StreamId>> = Vec::new();
    loop {
        let targets = logs.read().expect("shared logs").clone();
        after.resize(targets.len(), None);
        let tailed = tokio::select! {
            () = stop.cancelled() => return,
            // A log was added: read it too, on a new connection (the old one is blocked).
            () = added.notified() => continue,
            tailed = tail(&client, &config, &targets, &*deliver, &mut after, &mut backoff) => tailed,
        };
        if let Err(e) = tailed {
            tracing::warn!(error = %e, "reading the shared logs from Redis failed");
        }
        if !backoff.sleep(&stop).await {
            return;
        }
    }
}

/// One connection's worth of tailing; returns on the first error.
async fn tail(
    client: &redis::Client,
    config: &redis::AsyncConnectionConfig,
    logs: &[LogKey],
    deliver: &(dyn Fn(Tailed) + Send + Sync),
    after: &mut [Option<StreamId>],
    backoff: &mut Backoff,
) -> redis::RedisResult<()> {
    let mut conn = client
        .get_multiplexed_async_connection_with_config(config)
        .await?;
    for (log, target) in logs.iter().enumerate() {
        // What Redis dropped (trimmed, deleted) of it, on every (re)connection.
        let info: redis::RedisResult<Value> = redis::cmd("XINFO")
            .arg("STREAM")
            .arg(&*target.key)
            .query_async(&mut conn)
            .await;
        if let Ok(info) = info
            && let Some(up_to) = field(&info, "max-deleted-entry-id").and_then(id_of)
            && up_to > StreamId::default()
        {
            deliver(Tailed::Trimmed { log, up_to });
        }
        if after[log].is_none() {
            let kept: Value = redis::cmd("XREVRANGE")
                .arg(&*target.key)
                .arg("+")
                .arg("-")
                .arg("COUNT")
                .arg(target.keep)
                .query_async(&mut conn)
                .await?;
            let mut entries = entries(&kept);
            entries.reverse();
            // Redis may keep more than were read: those before the first are missed.
            if entries.len() >= target.keep
                && let Some(&(first, _)) = entries.first()
            {
                deliver(Tailed::Trimmed {
                    log,
                    up_to: first.before(),
                });
            }
            let mut last = StreamId::default();
            for (id, body) in entries {
                last = id;
                deliver(Tailed::Entry { log, id, body });
            }
            after[log] = Some(last);
            deliver(Tailed::Loaded(log));
        }
    }
    backoff.reset();
    loop {
        let mut read = redis::cmd("XREAD");
        read.arg("COUNT")
            .arg(BATCH)
            .arg("BLOCK")
            .arg(u64::try_from(BLOCK.as_millis()).unwrap_or(5000))
            .arg("STREAMS");
        for target in logs {
            read.arg(&*target.key);
        }
        for position in after.iter() {
            read.arg(position.unwrap_or_default().text());
        }
        let reply: Value = read.query_async(&mut conn).await?;
        for (key, entries_of) in pairs(&reply) {
            let Some(log) = text(key).and_then(|k| logs.iter().position(|l| *l.key == *k)) else {
                continue;
            };
            for (id, body) in entries(entries_of) {
                after[log] = Some(id);
                deliver(Tailed::Entry { log, id, body });
            }
        }
    }
}

/// A reply's key-value pairs: a RESP3 map, or a RESP2 array of two-element arrays (XREAD)
/// or of alternating keys and values (XINFO).
fn pairs(value: &Value) -> Vec<(&Value, &Value)> {
    match value {
        Value::Map(map) => map.iter().map(|(k, v)| (k, v)).collect(),
        Value::Array(items)
            if items
                .iter()
                .all(|i| matches!(i, Value::Array(p) if p.len() == 2)) =>
        {
            items
                .iter()
                .filter_map(|i| match i {
                    Value::Array(p) => Some((&p[0], &p[1])),
                    _ => None,
                })
                .collect()
        }
        Value::Array(items) => items.chunks_exact(2).map(|p| (&p[0], &p[1])).collect(),
        _ => Vec::new(),
    }
}

fn field<'v>(value: &'v Value, name: &str) -> Option<&'v Value> {
    if let Value::Array(items) = value {
        return items
            .chunks_exact(2)
            .find(|p| text(&p[0]).as_deref() == Some(name))
            .map(|p| &p[1]);
    }
    pairs(value)
        .into_iter()
        .find(|(k, _)| text(k).as_deref() == Some(name))
        .map(|(_, v)| v)
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => String::from_utf8(bytes.clone()).ok(),
        Value::SimpleString(s) => Some(s.clone()),
        Value::VerbatimString { text, .. } => Some(text.clone()),
        _ => None,
    }
}

fn id_of(value: &Value) -> Option<StreamId> {
    StreamId::parse(&text(value)?)
}

/// The entries of an `XRANGE`-shaped reply: `[[id, [field, value, …]], …]`, with the
/// value of field `e`.
fn entries(value: &Value) -> Vec<(StreamId, String)> {
    let Value::Array(items) = value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| {
            let Value::Array(pair) = item else {
                return None;
            };
            let id = id_of(pair.first()?)?;
            let body = field(pair.get(1)?, "e").and_then(text)?;
            Some((id, body))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    #[test]
    fn xread_replies_are_read_in_both_protocols() {
        let entry = Value::Array(vec![
            bulk("1700000000000-3"),
            Value::Array(vec![bulk("e"), bulk("{}")]),
        ]);
        let resp2 = Value::Array(vec![Value::Array(vec![
            bulk("k"),
            Value::Array(vec![entry.clone()]),
        ])]);
        let resp3 = Value::Map(vec![(bulk("k"), Value::Array(vec![entry]))]);
        for reply in [resp2, resp3] {
            let p = pairs(&reply);
            assert_eq!(p.len(), 1);
            assert_eq!(text(p[0].0).as_deref(), Some("k"));
            let e = entries(p[0].1);
            assert_eq!(
                e,
                vec![(
                    StreamId {
                        ms: 1_700_000_000_000,
                        n: 3
                    },
                    "{}".to_owned()
                )]
            );
        }
    }

    #[test]
    fn xinfo_fields_are_found() {
        let info = Value::Array(vec![
            bulk("length"),
            Value::Int(2),
            bulk("max-deleted-entry-id"),
            bulk("5-1"),
        ]);
        assert_eq!(
            field(&info, "max-deleted-entry-id").and_then(id_of),
            Some(StreamId { ms: 5, n: 1 })
        );
    }
}
