//! The Events extension (`io.modelcontextprotocol/events`, SEP-3415, draft): a server
//! publishes typed event streams — "an order was placed", "a build finished" — and clients
//! poll them (`events/poll`, with a cursor) or hold a stream open (`events/stream`) instead
//! of polling tools. Built on the public extension API (`crate::extension`), as a third
//! party would build it: [`Events`] is an [`Extension`].
//!
//! - `kind.rs`: [`EventType`], one kind of event (payload type, arguments and filter,
//!   delivery modes, scopes, retention);
//! - `log.rs`: the occurrences kept per type for replay, and cursors into them;
//! - `emitter.rs`: [`Emitter`], how handlers and background tasks publish occurrences;
//! - `types.rs`: [`EventTypes`], types added and removed while the server runs;
//! - `served.rs`: the types as a built server serves them (a snapshot, found by name and
//!   by payload type, with their logs);
//! - `shared.rs` (feature `redis`): the logs kept in Redis streams, which every replica
//!   reads, so that an occurrence emitted on one is polled and streamed on any;
//! - `lookup.rs`: finding the type a request names (access, delivery mode) and its filter;
//! - `serve.rs`: `events/list`, `events/poll` and `events/stream`;
//! - `hooks.rs`, `webhook.rs`, `delivery.rs`, `address.rs`, `receiver.rs` (feature
//!   `events-webhooks`): the webhook configuration and subscriptions,
//!   `events/subscribe`/`unsubscribe`, their signed deliveries, where a webhook may be
//!   delivered, and the origins that publish their consent in a well-known document.
//!
//! The draft defines the extension for 2026-07-28 only: a legacy client is not offered it.

#[cfg(feature = "events-webhooks")]
mod address;
#[cfg(feature = "events-webhooks")]
mod delivery;
mod emitter;
#[cfg(feature = "events-webhooks")]
mod hooks;
mod kind;
mod log;
mod lookup;
#[cfg(feature = "events-webhooks")]
mod receiver;
mod serve;
mod served;
#[cfg(feature = "redis")]
mod shared;
mod types;
#[cfg(feature = "events-webhooks")]
mod webhook;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

pub use crate::protocol::events::Delivery;
pub use emitter::{EmitError, Emitter};
#[cfg(feature = "events-webhooks")]
pub use hooks::Webhooks;
pub use kind::EventType;
pub use types::{EventTypeError, EventTypes};

use crate::extension::{Extension, Setup};
use crate::protocol::JsonObject;
use crate::protocol::events::EXTENSION;
use served::{Settings, Shared};

/// How many emits may wait for Redis (`Events::redis`).
#[cfg(feature = "redis")]
const EMIT_QUEUE: usize = 4096;

/// The Events extension with its event types: register it with
/// [`ServerBuilder::extension`](crate::ServerBuilder::extension), and publish with its
/// [`Emitter`].
///
/// ```
/// use mcp_framework::events::{EventType, Events};
/// use mcp_framework::{Server, ToolSet, PromptSet, ResourceSet};
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// /// A build finished.
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// struct BuildFinished { id: u64, ok: bool }
///
/// let events = Events::new().event(EventType::new::<BuildFinished>("build.finished"));
/// let emitter = events.emitter();
/// let server = Server::builder()
///     .tools(ToolSet::new()).prompts(PromptSet::new()).resources(ResourceSet::new())
///     .state(emitter.clone()) // handlers take it as `State<Emitter>`
///     .extension(events)
///     .build()?;
/// emitter.emit(BuildFinished { id: 7, ok: true })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Events {
    types: Vec<EventType>,
    settings: Settings,
    #[cfg(feature = "events-webhooks")]
    webhooks: Option<Webhooks>,
    /// Where the replicas share the occurrences.
    #[cfg(feature = "redis")]
    redis: Option<String>,
    /// Set when the server is built: what the emitters publish into.
    serving: Arc<OnceLock<Arc<Shared>>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("types", &self.types)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl Default for Events {
    fn default() -> Self {
        Self::new()
    }
}

impl Events {
    /// No event types yet; streams beat every 15 s, polls are told to come back in 5 s, at
    /// most 1,024 streams are open at once.
    pub fn new() -> Self {
        Self {
            types: Vec::new(),
            settings: Settings {
                heartbeat: Duration::from_secs(15),
                next_poll: Duration::from_secs(5),
                max_streams: 1024,
                page_size: 100,
            },
            serving: Arc::new(OnceLock::new()),
            #[cfg(feature = "events-webhooks")]
            webhooks: None,
            #[cfg(feature = "redis")]
            redis: None,
        }
    }

    /// Delivers by webhook too (`events/subscribe`, `events/unsubscribe`; feature
    /// `events-webhooks`): types that list [`Delivery::Webhook`] are served to
    /// authenticated callers this way.
    #[cfg(feature = "events-webhooks")]
    #[must_use]
    pub fn webhooks(mut self, webhooks: Webhooks) -> Self {
        self.webhooks = Some(webhooks);
        self
    }

    /// Keeps the occurrences in the Redis at `url` (`redis://[user:password@]host[:port][/db]`;
    /// feature `redis`), where every replica of the server reads them: an occurrence
    /// emitted on one replica is polled, streamed and delivered on any, a cursor is good on
    /// every replica and after a restart (while Redis keeps what it points at), and each
    /// type's stream (`mcp-framework:events:<type>`) keeps its [`retain`](EventType::retain)
    /// count. Servers sharing one Redis give their types different names, or use different
    /// databases (`/db`). Without this, the command line's `--redis-url` is used.
    ///
    /// An emit queues the occurrence for Redis and returns; while Redis is away up to
    /// 4,096 wait (then [`EmitError::Backlog`]), and subscribers hear of an occurrence once
    /// Redis has it.
    #[cfg(feature = "redis")]
    #[must_use]
    pub fn redis(mut self, url: impl Into<String>) -> Self {
        self.redis = Some(url.into());
        self
    }

    /// Publishes events of this type.
    #[must_use]
    pub fn event(mut self, event: EventType) -> Self {
        self.types.push(event);
        self
    }

    /// How often an open stream says it is alive (`notifications/events/heartbeat`, with its
    /// cursor) when nothing else is sent; the draft asks for 30 s at most.
    #[must_use]
    pub fn heartbeat(mut self, every: Duration) -> Self {
        self.settings.heartbeat = every.max(Duration::from_millis(10));
        self
    }

    /// The `nextPollMs` a poll is answered with (default 5 s).
    #[must_use]
    pub fn next_poll(mut self, after: Duration) -> Self {
        self.settings.next_poll = after;
        self
    }

    /// At most this many `events/stream` requests open at once, over every client (default
    /// 1,024); one more is refused with `-32025` (`data.limit: "subscriptions"`).
    #[must_use]
    pub fn max_streams(mut self, max: usize) -> Self {
        self.settings.max_streams = max;
        self
    }

    /// Publishes the occurrences of this extension's types once the server is built
    /// (before that, [`Emitter::emit`] fails with [`EmitError::NotServing`]).
    pub fn emitter(&self) -> Emitter {
        Emitter::new(self.serving.clone())
    }

    /// Adds and removes types once the server is built (`notifications/events/list_changed`
    /// tells the listeners that asked).
    pub fn event_types(&self) -> EventTypes {
        EventTypes::new(self.serving.clone())
    }
}

impl Extension for Events {
    fn id(&self) -> &str {
        EXTENSION
    }

    /// `{"listChanged": true}`: types added or removed while the server runs
    /// ([`EventTypes`]) are announced to the listeners that asked.
    fn settings(&self) -> JsonObject {
        let mut settings = JsonObject::new();
        settings.insert("listChanged".into(), true.into());
        settings
    }

    fn modern_only(&self) -> bool {
        true
    }

    fn setup(&self, setup: &mut Setup) {
        #[cfg(feature = "redis")]
        let redis = self
            .redis
            .clone()
            .or_else(|| setup.redis_url().map(str::to_owned));
        let list_changed =
            setup.listen_notification("eventsListChanged", "notifications/events/list_changed");
        let shared = match Shared::build(
            &self.types,
            self.settings,
            setup.schema_profile(),
            list_changed,
            #[cfg(feature = "redis")]
            redis.is_some(),
            #[cfg(feature = "events-webhooks")]
            self.webhooks.as_ref(),
        ) {
            Ok(shared) => Arc::new(shared),
            Err(problems) => {
                setup.refuse(problems);
                return;
            }
        };
        #[cfg(feature = "redis")]
        if let Some(url) = redis {
            match shared::connect(&shared, &url, EMIT_QUEUE) {
                Ok(logs) => {
                    let _ = shared.store.set(logs);
                }
                Err(problem) => {
                    setup.refuse(problem);
                    return;
                }
            }
        }
        // The server's webhook signing key, where the draft provisionally publishes it.
        #[cfg(feature = "events-webhooks")]
        if let Some(keys) = shared.hooks.as_ref().and_then(hooks::Hooks::signing_keys) {
            setup.server_card_member("webhooks", serde_json::json!({"signingKeys": keys}));
        }
        if self.serving.set(shared.clone()).is_err() {
            setup.refuse("these Events were built into a server already: make one per server");
            return;
        }
        serve::install(setup, &shared);
    }
}
