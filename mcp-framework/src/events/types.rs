//! [`EventTypes`]: adds and removes event types while the server runs (a plugin loaded, a
//! data source connected). Listeners that asked (`eventsListChanged` on
//! `subscriptions/listen`) are sent `notifications/events/list_changed`; a removed type's
//! streams get `notifications/events/terminated` and its webhook subscriptions a
//! `terminated` envelope, both `-32023` (`data.kind: "event"`), as the draft asks.

use std::sync::{Arc, OnceLock};

use super::kind::EventType;
use super::served::Shared;

/// Why an event type was not added.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EventTypeError {
    /// The server with these events is not built yet (add the type to
    /// [`Events`](super::Events) instead).
    #[error("the server with these events is not built yet")]
    NotServing,
    /// The type cannot be served: its name or payload type is taken, its arguments'
    /// schema does not compile or breaks the server's schema profile, it has no delivery
    /// mode… (every reason, in one message).
    #[error("the event type cannot be served: {0}")]
    Invalid(String),
}

/// Changes a built server's event types. Cheap to clone; take it from
/// [`Events::event_types`](super::Events::event_types) before the server is built.
///
/// ```
/// use mcp_framework::events::{EventType, Events};
/// use mcp_framework::{Server, ToolSet, PromptSet, ResourceSet};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// /// A plugin's alert.
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// struct PluginAlert { text: String }
///
/// let events = Events::new();
/// let types = events.event_types();
/// let server = Server::builder()
///     .tools(ToolSet::new()).prompts(PromptSet::new()).resources(ResourceSet::new())
///     .extension(events)
///     .build()?;
/// types.add(EventType::new::<PluginAlert>("plugin.alert"))?;   // listed from now on
/// assert_eq!(types.names(), ["plugin.alert"]);
/// assert!(types.remove("plugin.alert"));                        // its streams end
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct EventTypes {
    serving: Arc<OnceLock<Arc<Shared>>>,
}

impl std::fmt::Debug for EventTypes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventTypes")
            .field("serving", &self.serving.get().is_some())
            .finish()
    }
}

impl EventTypes {
    pub(super) fn new(serving: Arc<OnceLock<Arc<Shared>>>) -> Self {
        Self { serving }
    }

    /// Serves `event` from now on (checked as `build()` checks the configured types). With
    /// Redis, its occurrences are shared as the configured types' are: add it on every
    /// replica; a type removed and added again takes up what Redis kept of it.
    pub fn add(&self, event: EventType) -> Result<(), EventTypeError> {
        let shared = self.serving.get().ok_or(EventTypeError::NotServing)?;
        shared.add(event).map_err(EventTypeError::Invalid)
    }

    /// Stops serving the type `name`: it is no longer listed, polled or streamed, its open
    /// streams and webhook subscriptions end, and its kept occurrences are forgotten (with
    /// Redis, Redis keeps them, and the type takes them up again if it is added back).
    /// `false` if no type has that name (or the server is not built yet).
    pub fn remove(&self, name: &str) -> bool {
        self.serving.get().is_some_and(|shared| shared.remove(name))
    }

    /// The names of the types served now, in the order they were added.
    pub fn names(&self) -> Vec<String> {
        self.serving.get().map_or_else(Vec::new, |shared| {
            (shared.catalog().types.iter())
                .map(|s| s.kind.name.clone())
                .collect()
        })
    }
}
