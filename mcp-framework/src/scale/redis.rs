//! [`RedisEventBus`]: change events shared by every replica through Redis pub/sub.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::StreamExt as _;
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;

use super::timing::{Backoff, REDIS_TIMEOUT};
use super::wire::{self, Message};
use crate::bus::{ChangeEvent, EventBus};
use crate::error::Error;

/// A change event bus shared by the replicas of a server through Redis pub/sub: a change
/// made on one replica (`ServerHandle`, `resource_updated`, a task's progress) reaches the
/// `subscriptions/listen` streams and legacy sessions of every replica.
///
/// Every replica publishes its own events on one channel (`mcp-framework:events` unless
/// [`channel`](RedisEventBusBuilder::channel) says otherwise) and delivers the others'
/// to its listeners; a replica never delivers its own twice (each message names its
/// sender, a random id per bus).
///
/// Redis never blocks a request: publishing puts the event in a bounded queue that a
/// background task sends from, and receiving happens on a task of its own. Pub/sub keeps
/// no messages for a subscriber that is away, so when a replica's subscription comes back
/// after an outage it tells its own listeners that every list may have changed (tools,
/// prompts and resources `list_changed`: they list again), and a replica that could not
/// publish for a while (or dropped events because its queue was full) sends a resync of
/// the same meaning to the others once it can. Resource updates lost that way are not
/// replayed; subscribers see the resync's `list_changed` instead. Reconnection backs off
/// from 100 ms to 5 s, with jitter.
///
/// ```no_run
/// # async fn doc() -> Result<(), mcp_framework::Error> {
/// use mcp_framework::Server;
/// use mcp_framework::scale::RedisEventBus;
///
/// let server = Server::builder()
///     .event_bus(RedisEventBus::connect("redis://127.0.0.1:6379/")?)
///     .build()?;
/// # let _ = server; Ok(()) }
/// ```
pub struct RedisEventBus {
    local: broadcast::Sender<ChangeEvent>,
    outbound: mpsc::Sender<ChangeEvent>,
    /// An event could not be queued: the others need a resync.
    dropped: Arc<AtomicBool>,
    stop: CancellationToken,
}

impl std::fmt::Debug for RedisEventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventBus")
            .field("receivers", &self.local.receiver_count())
            .finish_non_exhaustive()
    }
}

/// Options of a [`RedisEventBus`].
#[derive(Clone)]
pub struct RedisEventBusBuilder {
    url: String,
    channel: String,
    capacity: usize,
    queue: usize,
}

impl std::fmt::Debug for RedisEventBusBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventBusBuilder")
            .field("url", &super::url::redacted(&self.url))
            .field("channel", &self.channel)
            .field("capacity", &self.capacity)
            .field("queue", &self.queue)
            .finish()
    }
}

impl RedisEventBusBuilder {
    /// The pub/sub channel (default `mcp-framework:events`): replicas of one server share
    /// it; different servers on one Redis use different channels.
    #[must_use]
    pub fn channel(mut self, channel: impl Into<String>) -> Self {
        self.channel = channel.into();
        self
    }

    /// How far a local listener may fall behind before it is closed (default 1024
    /// events, as [`LocalBus`](crate::bus::LocalBus)).
    #[must_use]
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// How many events may wait to be published while Redis is slow or away (default
    /// 4096); beyond that they are dropped and the other replicas get a resync.
    #[must_use]
    pub fn queue(mut self, queue: usize) -> Self {
        self.queue = queue.max(1);
        self
    }

    /// Starts the bus: its publishing and subscribing tasks, on the current tokio
    /// runtime. Fails only on a bad URL or outside a runtime: an unreachable Redis is
    /// retried in the background (and logged), never waited for.
    pub fn start(self) -> Result<RedisEventBus, Error> {
        let client = redis::Client::open(self.url.as_str()).map_err(|e| {
            Error::Config(format!(
                "the Redis URL `{}`: {e}",
                super::url::redacted(&self.url)
            ))
        })?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            Error::Config("a RedisEventBus is started inside a tokio runtime".into())
        })?;
        let replica: Arc<str> = crate::unguessable::hex_id().into();
        let (local, _) = broadcast::channel(self.capacity);
        let (outbound, rx) = mpsc::channel(self.queue);
        let dropped = Arc::new(AtomicBool::new(false));
        let stop = CancellationToken::new();
        let channel: Arc<str> = self.channel.into();
        runtime.spawn(publish_loop(Publisher {
            client: client.clone(),
            channel: channel.clone(),
            replica: replica.clone(),
            rx,
            dropped: dropped.clone(),
            stop: stop.clone(),
        }));
        runtime.spawn(subscribe_loop(Subscriber {
            client,
            channel,
            replica,
            local: local.clone(),
            stop: stop.clone(),
        }));
        Ok(RedisEventBus {
            local,
            outbound,
            dropped,
            stop,
        })
    }
}

impl RedisEventBus {
    /// Options for a bus on the Redis at `url` (`redis://[user:password@]host[:port][/db]`,
    /// `rediss://` for TLS is not built in).
    pub fn builder(url: impl Into<String>) -> RedisEventBusBuilder {
        RedisEventBusBuilder {
            url: url.into(),
            channel: "mcp-framework:events".into(),
            capacity: 1024,
            queue: 4096,
        }
    }

    /// A bus on the Redis at `url` with the default options ([`builder`](Self::builder)
    /// then [`start`](RedisEventBusBuilder::start)).
    pub fn connect(url: impl Into<String>) -> Result<Self, Error> {
        Self::builder(url).start()
    }
}

impl Drop for RedisEventBus {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl EventBus for RedisEventBus {
    fn publish(&self, event: ChangeEvent) {
        let _ = self.local.send(event.clone());
        if self.outbound.try_send(event).is_err() && !self.dropped.swap(true, Ordering::AcqRel) {
            tracing::warn!("Redis is not keeping up: change events dropped, replicas will resync");
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<ChangeEvent> {
        self.local.subscribe()
    }

    fn is_distributed(&self) -> bool {
        true
    }
}

struct Publisher {
    client: redis::Client,
    channel: Arc<str>,
    replica: Arc<str>,
    rx: mpsc::Receiver<ChangeEvent>,
    dropped: Arc<AtomicBool>,
    stop: CancellationToken,
}

/// Sends the queued events, one `PUBLISH` each; after a failure (or dropped events) a
/// resync goes first.
async fn publish_loop(mut p: Publisher) {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(REDIS_TIMEOUT))
        .set_response_timeout(Some(REDIS_TIMEOUT));
    let mut conn: Option<redis::aio::MultiplexedConnection> = None;
    let mut backoff = Backoff::new();
    let mut owe_resync = false;
    loop {
        let event = tokio::select! {
            () = p.stop.cancelled() => return,
            e = p.rx.recv() => match e {
                Some(e) => e,
                None => return,
            },
        };
        owe_resync |= p.dropped.swap(false, Ordering::AcqRel);
        let payload = wire::encode(&p.replica, &Message::Change(event));
        loop {
            let c = match &mut conn {
                Some(c) => c,
                None => match p
                    .client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                {
                    Ok(c) => {
                        backoff.reset();
                        conn.insert(c)
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot reach Redis to publish change events");
                        owe_resync = true;
                        if !backoff.sleep(&p.stop).await {
                            return;
                        }
                        continue;
                    }
                },
            };
            let message = if owe_resync {
                wire::encode(&p.replica, &Message::Resync)
            } else {
                payload.clone()
            };
            let sent: redis::RedisResult<i64> = redis::cmd("PUBLISH")
                .arg(&*p.channel)
                .arg(message)
                .query_async(c)
                .await;
            match sent {
                Ok(_) if owe_resync => owe_resync = false,
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "publishing a change event to Redis failed");
                    conn = None;
                    owe_resync = true;
                }
            }
        }
    }
}

struct Subscriber {
    client: redis::Client,
    channel: Arc<str>,
    replica: Arc<str>,
    local: broadcast::Sender<ChangeEvent>,
    stop: CancellationToken,
}

/// Delivers the other replicas' events to the local listeners, resubscribing (and
/// resyncing them) whenever the subscription was lost.
async fn subscribe_loop(s: Subscriber) {
    let mut backoff = Backoff::new();
    // Events may have been missed: at the first subscription after a failure.
    let mut missed = false;
    loop {
        let subscribed = tokio::time::timeout(REDIS_TIMEOUT, async {
            let mut pubsub = s.client.get_async_pubsub().await?;
            pubsub.subscribe(&*s.channel).await?;
            redis::RedisResult::Ok(pubsub)
        })
        .await;
        match subscribed {
            Ok(Ok(pubsub)) => {
                backoff.reset();
                if missed {
                    tracing::info!("Redis subscription back: listeners resync");
                    resync(&s.local);
                }
                let mut messages = pubsub.into_on_message();
                loop {
                    let msg = tokio::select! {
                        () = s.stop.cancelled() => return,
                        m = messages.next() => m,
                    };
                    let Some(msg) = msg else { break };
                    deliver(&s, msg.get_payload_bytes());
                }
                tracing::warn!("lost the Redis subscription for change events");
            }
            Ok(Err(e)) => tracing::warn!(error = %e, "cannot subscribe to Redis change events"),
            Err(_) => tracing::warn!("subscribing to Redis change events timed out"),
        }
        missed = true;
        if !backoff.sleep(&s.stop).await {
            return;
        }
    }
}

fn deliver(s: &Subscriber, payload: &[u8]) {
    match wire::decode(payload) {
        Ok((from, _)) if *from == *s.replica => {}
        Ok((_, Message::Change(event))) => {
            let _ = s.local.send(event);
        }
        Ok((_, Message::Resync)) => resync(&s.local),
        Err(e) => tracing::debug!(error = %e, "skipped a change event of another format"),
    }
}

/// Every list, and everything an extension announces, may have changed.
fn resync(local: &broadcast::Sender<ChangeEvent>) {
    let _ = local.send(ChangeEvent::Resync);
}
