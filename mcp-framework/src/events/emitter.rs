//! [`Emitter`]: publishes occurrences into the event types' logs, from handlers (take it as
//! `State<Emitter>`) or from background tasks; open streams hear of them at once.

use std::any::TypeId;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::log::Entry;
use super::served::Shared;

/// Why an occurrence was not published.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The server with these events is not built yet.
    #[error("the server with these events is not built yet")]
    NotServing,
    /// No event type of the server has this payload type.
    #[error("no event type has the payload type `{0}`: add EventType::new::<{0}>(…) to Events")]
    UnknownPayload(&'static str),
    /// The occurrences are kept in Redis, which has been away long enough that the
    /// emits waiting for it fill their queue.
    #[error("Redis is away and the occurrences waiting for it fill their queue: try again later")]
    Backlog,
    /// The payload does not serialize to JSON.
    #[error("the payload does not serialize: {0}")]
    Serialize(String),
}

/// Publishes occurrences of a server's event types. Cheap to clone.
#[derive(Clone)]
pub struct Emitter {
    serving: Arc<OnceLock<Arc<Shared>>>,
}

impl std::fmt::Debug for Emitter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emitter")
            .field("serving", &self.serving.get().is_some())
            .finish()
    }
}

impl Emitter {
    pub(super) fn new(serving: Arc<OnceLock<Arc<Shared>>>) -> Self {
        Self { serving }
    }

    /// Publishes `payload` as an occurrence of the event type whose payload type is `T`,
    /// now, under a new id; returns the id.
    pub fn emit<T: Serialize + Send + Sync + 'static>(
        &self,
        payload: T,
    ) -> Result<String, EmitError> {
        self.publish(None, payload)
    }

    /// Publishes `payload` under `event_id`: the id the source already gives it (a
    /// webhook's event id, a queue offset), so that a client seeing it twice can tell.
    pub fn emit_with_id<T: Serialize + Send + Sync + 'static>(
        &self,
        event_id: impl Into<String>,
        payload: T,
    ) -> Result<String, EmitError> {
        self.publish(Some(event_id.into()), payload)
    }

    fn publish<T: Serialize + Send + Sync + 'static>(
        &self,
        event_id: Option<String>,
        payload: T,
    ) -> Result<String, EmitError> {
        let shared = self.serving.get().ok_or(EmitError::NotServing)?;
        let catalog = shared.catalog();
        let served = catalog
            .of_payload(TypeId::of::<T>())
            .ok_or(EmitError::UnknownPayload(std::any::type_name::<T>()))?;
        let data = serde_json::value::to_raw_value(&payload)
            .map_err(|e| EmitError::Serialize(e.to_string()))?;
        let now = SystemTime::now();
        let at_ms = now
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let timestamp =
            humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(at_ms)).to_string();
        let id = event_id.unwrap_or_else(|| format!("evt_{}", &crate::unguessable::hex_id()[..20]));
        #[cfg(feature = "redis")]
        if let (Some(store), Some(index)) = (shared.store.get(), served.shared_log) {
            let body = super::shared::body(&id, &timestamp, at_ms, &data);
            return if store.append(index, body) {
                Ok(id)
            } else {
                Err(EmitError::Backlog)
            };
        }
        let event_id = id.clone();
        served.log.push(move |seq| Entry {
            seq,
            event_id,
            timestamp,
            at_ms,
            data,
            payload: Box::new(payload),
        });
        Ok(id)
    }
}
