//! The change event bus: registry mutations and `resource_updated` are published here and
//! fanned out to list caches, `subscriptions/listen` streams and legacy sessions.
//!
//! The bus is a small trait so that a distributed backend (several replicas behind a load
//! balancer) can be plugged in: such a backend forwards remote events into the local
//! [`broadcast`] channel it hands out from [`EventBus::subscribe`].

use std::fmt;
use std::sync::{Arc, OnceLock};

use tokio::sync::broadcast;

/// Something that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChangeEvent {
    /// The tool list changed.
    ToolsChanged,
    /// The prompt list changed.
    PromptsChanged,
    /// The resource list (or template list) changed.
    ResourcesChanged,
    /// The contents of a resource changed.
    ResourceUpdated(Arc<str>),
    /// A task changed (the Tasks extension): for `notifications/tasks` on the listen
    /// streams of its owner that asked for it.
    TaskChanged(Arc<TaskEvent>),
    /// Something an extension announces on `subscriptions/listen` changed: the listen
    /// filter field that asks for its notification (see
    /// [`Setup::listen_notification`](crate::extension::Setup::listen_notification)).
    Extension(Arc<str>),
    /// Events may have been lost (a replica lost its connection to the others for a
    /// while): every list, and everything an extension announces, may have changed. Each
    /// listener is told so in the terms it asked for (every `list_changed` and extension
    /// notification its filter set); nothing is replayed.
    Resync,
}

/// A task's new state, as `notifications/tasks` carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskEvent {
    /// The task's id.
    pub id: Arc<str>,
    /// The principal that owns it (`None` without authorization).
    pub owner: Option<Arc<str>>,
    /// The task as `tasks/get` would show it now (a `DetailedTask`, as JSON).
    pub detail: Arc<str>,
}

/// Fans change events out to every subscriber.
pub trait EventBus: Send + Sync + 'static {
    /// Publishes an event to every current subscriber.
    fn publish(&self, event: ChangeEvent);
    /// A new receiver of every event published from now on. A receiver that falls more
    /// than the channel's capacity behind sees `RecvError::Lagged`; the framework then
    /// closes that subscription (the client re-listens) instead of buffering without bound.
    fn subscribe(&self) -> broadcast::Receiver<ChangeEvent>;

    /// Whether events reach other processes (replicas): then events nobody here listens
    /// for are published all the same (a task's progress, for a listener on another
    /// replica). Default: `false`.
    fn is_distributed(&self) -> bool {
        false
    }
}

/// The default bus: an in-process broadcast channel, made at the first subscription (its
/// `capacity` slots are allocated then: a server nobody listens to never holds them).
pub struct LocalBus {
    capacity: usize,
    tx: OnceLock<broadcast::Sender<ChangeEvent>>,
}

impl fmt::Debug for LocalBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalBus")
            .field(
                "receivers",
                &self.tx.get().map_or(0, broadcast::Sender::receiver_count),
            )
            .finish()
    }
}

impl LocalBus {
    /// A bus whose receivers may fall `capacity` events behind before they are closed.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            tx: OnceLock::new(),
        }
    }
}

impl Default for LocalBus {
    fn default() -> Self {
        Self::new(1024)
    }
}

impl EventBus for LocalBus {
    fn publish(&self, event: ChangeEvent) {
        // No channel or no receivers is fine: nobody is listening.
        if let Some(tx) = self.tx.get() {
            let _ = tx.send(event);
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<ChangeEvent> {
        self.tx
            .get_or_init(|| broadcast::channel(self.capacity).0)
            .subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn slow_receivers_lag_instead_of_growing() {
        let bus = LocalBus::new(2);
        let mut rx = bus.subscribe();
        for _ in 0..5 {
            bus.publish(ChangeEvent::ToolsChanged);
        }
        assert!(matches!(
            rx.recv().await,
            Err(broadcast::error::RecvError::Lagged(_))
        ));
    }
}
