//! What a built server serves of its event types: each type with its descriptor, its
//! arguments' validator and its log, found by name (requests) and by payload type
//! (emitters); the extension's settings; the count of open streams. The set of types is
//! a snapshot replaced whole when a type is added or removed while the server runs
//! ([`EventTypes`](super::EventTypes)): a request works on the snapshot it took, and a
//! removed type's subscriptions are ended through its token.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::kind::EventType;
use super::log;
use crate::extension::ListenNotifier;
use crate::protocol::events::{Delivery, EventDescriptor};
use crate::schema::Validator;
use crate::schema_profile::SchemaProfile;

/// The knobs of the extension.
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    pub(super) heartbeat: Duration,
    pub(super) next_poll: Duration,
    pub(super) max_streams: usize,
    pub(super) page_size: usize,
}

/// One event type as it is served.
pub(super) struct Served {
    pub(super) kind: EventType,
    pub(super) descriptor: EventDescriptor,
    pub(super) validator: Validator,
    pub(super) log: Arc<log::Log>,
    /// Cancelled when the type is removed: its streams and webhook subscriptions end.
    pub(super) removed: CancellationToken,
    /// Its place among the logs the replicas share, when they are shared.
    #[cfg(feature = "redis")]
    pub(super) shared_log: Option<usize>,
}

/// The types served at one moment, found by name and by payload type.
#[derive(Default)]
pub(super) struct Catalog {
    pub(super) types: Vec<Arc<Served>>,
    by_name: HashMap<String, usize>,
    by_payload: HashMap<TypeId, usize>,
}

impl Catalog {
    /// The type named `name`.
    pub(super) fn named(&self, name: &str) -> Option<&Arc<Served>> {
        self.by_name.get(name).map(|&i| &self.types[i])
    }

    /// The type whose payload type is `payload`.
    pub(super) fn of_payload(&self, payload: TypeId) -> Option<&Arc<Served>> {
        self.by_payload.get(&payload).map(|&i| &self.types[i])
    }

    /// Adds `served`, unless its name or payload type is taken (then says which).
    fn insert(&mut self, served: Arc<Served>) -> Result<(), String> {
        self.admits(&served.kind)?;
        let kind = &served.kind;
        self.by_name.insert(kind.name.clone(), self.types.len());
        self.by_payload.insert(kind.payload, self.types.len());
        self.types.push(served);
        Ok(())
    }

    /// Whether `kind` may join: its name and payload type are not taken.
    fn admits(&self, kind: &EventType) -> Result<(), String> {
        if self.by_name.contains_key(&kind.name) {
            return Err(format!("the event type `{}` is defined twice", kind.name));
        }
        if self.by_payload.contains_key(&kind.payload) {
            return Err(format!(
                "`{}` is the payload of two event types: give each type its own",
                kind.payload_name
            ));
        }
        Ok(())
    }

    /// The catalog without the type `name`, and that type.
    fn without(&self, name: &str) -> Option<(Self, Arc<Served>)> {
        let gone = self.named(name)?.clone();
        let mut rest = Self::default();
        for served in self.types.iter().filter(|s| s.kind.name != name) {
            rest.insert(served.clone()).expect("was unique");
        }
        Some((rest, gone))
    }
}

/// `served` with a log the replicas share, the `index`th.
#[cfg(feature = "redis")]
fn shared_log(served: Served, index: usize) -> Served {
    let kind = &served.kind;
    let log = log::Log::shared(&kind.redis_key(), kind.retain_events, kind.retain_bytes);
    Served {
        log: Arc::new(log),
        shared_log: Some(index),
        ..served
    }
}

/// What the server serves: the types, the settings, the open streams.
pub(super) struct Shared {
    /// Read by every request and emit without a lock, as the server's own catalog is.
    catalog: ArcSwap<Catalog>,
    /// Taken by whoever adds or removes a type, so that changes do not cross.
    changing: Mutex<()>,
    pub(super) settings: Settings,
    /// Streams open now.
    pub(super) streams: AtomicUsize,
    /// How listed schemas are shaped (types added while serving are shaped alike).
    profile: SchemaProfile,
    /// Tells listeners that asked (`eventsListChanged`) when the set of types changes.
    list_changed: ListenNotifier,
    /// The types whose logs the replicas share, in the order of those logs (a type added
    /// while serving is added to them; one removed stays, so that its log is taken up
    /// again if it comes back).
    #[cfg(feature = "redis")]
    pub(super) shared_logs: std::sync::RwLock<Vec<Arc<Served>>>,
    /// Where the replicas share the logs (`Events::redis`), once connected.
    #[cfg(feature = "redis")]
    pub(super) store: std::sync::OnceLock<crate::scale::streams::SharedLogs>,
    /// Webhook delivery, when configured.
    #[cfg(feature = "events-webhooks")]
    pub(super) hooks: Option<super::hooks::Hooks>,
}

impl Shared {
    /// Builds what is served from the configured types; `Err` names every problem.
    pub(super) fn build(
        types: &[EventType],
        settings: Settings,
        profile: SchemaProfile,
        list_changed: ListenNotifier,
        #[cfg(feature = "redis")] shared_logs: bool,
        #[cfg(feature = "events-webhooks")] webhooks: Option<&super::hooks::Webhooks>,
    ) -> Result<Self, String> {
        #[cfg(feature = "events-webhooks")]
        let hooks = webhooks
            .cloned()
            .map(super::hooks::Hooks::new)
            .transpose()?;
        let mut shared = Self {
            catalog: ArcSwap::default(),
            changing: Mutex::new(()),
            settings,
            streams: AtomicUsize::new(0),
            profile,
            list_changed,
            #[cfg(feature = "redis")]
            shared_logs: std::sync::RwLock::default(),
            #[cfg(feature = "redis")]
            store: std::sync::OnceLock::new(),
            #[cfg(feature = "events-webhooks")]
            hooks,
        };
        let mut problems = Vec::new();
        let mut catalog = Catalog::default();
        for kind in types {
            match shared.serve(kind.clone()) {
                Ok(served) => {
                    #[cfg(feature = "redis")]
                    let served = if shared_logs {
                        let logs = shared.shared_logs.get_mut().expect("shared logs");
                        let served = Arc::new(shared_log(served, logs.len()));
                        logs.push(served.clone());
                        served
                    } else {
                        Arc::new(served)
                    };
                    #[cfg(not(feature = "redis"))]
                    let served = Arc::new(served);
                    if let Err(problem) = catalog.insert(served) {
                        problems.push(problem);
                    }
                }
                Err(mut found) => problems.append(&mut found),
            }
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        shared.catalog = ArcSwap::from_pointee(catalog);
        Ok(shared)
    }

    /// `kind` as it is served (with a log of this process's own), or every reason it
    /// cannot be.
    fn serve(&self, kind: EventType) -> Result<Served, Vec<String>> {
        #[cfg(feature = "events-webhooks")]
        let webhooks_served = self.hooks.is_some();
        #[cfg(not(feature = "events-webhooks"))]
        let webhooks_served = false;
        let mut problems = Vec::new();
        if let Some(problem) = &kind.problem {
            problems.push(problem.clone());
        }
        if kind.name.is_empty() {
            problems.push("an event type has an empty name".to_owned());
        }
        if kind.delivery.is_empty() {
            problems.push(format!("`{}` has no delivery mode", kind.name));
        }
        if kind.delivery.contains(&Delivery::Webhook) && !webhooks_served {
            problems.push(format!(
                "`{}` is delivered by webhook: configure Events::webhooks (feature `events-webhooks`)",
                kind.name
            ));
        }
        let validator = Validator::compile(&kind.input_schema).map_err(|e| {
            problems.push(format!("`{}`: its arguments' schema: {e}", kind.name));
        });
        // Listed as the server's profile shapes a tool's arguments; checked as written.
        let (input_schema, refused) = self.profile.shape_input(kind.input_schema.clone());
        for violation in refused {
            problems.push(format!(
                "`{}`: its arguments' schema breaks the `{}` schema profile at {}: {}",
                kind.name,
                self.profile.name(),
                violation.pointer(),
                violation.message()
            ));
        }
        match validator {
            Ok(validator) if problems.is_empty() => Ok(Served {
                descriptor: EventDescriptor {
                    name: kind.name.clone(),
                    description: kind.description.clone(),
                    delivery: kind.delivery.clone(),
                    input_schema,
                    payload_schema: kind.payload_schema.clone(),
                    meta: None,
                },
                validator,
                log: Arc::new(log::Log::new(kind.retain_events, kind.retain_bytes)),
                kind,
                removed: CancellationToken::new(),
                #[cfg(feature = "redis")]
                shared_log: None,
            }),
            _ => Err(problems),
        }
    }

    /// The type whose log is the `index`th the replicas share.
    #[cfg(feature = "redis")]
    pub(super) fn shared_log(&self, index: usize) -> Option<Arc<Served>> {
        self.shared_logs
            .read()
            .expect("shared logs")
            .get(index)
            .cloned()
    }

    /// The types served now.
    pub(super) fn catalog(&self) -> arc_swap::Guard<Arc<Catalog>> {
        self.catalog.load()
    }

    /// Serves `kind` from now on, and tells the listeners that asked.
    pub(super) fn add(&self, kind: EventType) -> Result<(), String> {
        let served = self.serve(kind).map_err(|p| p.join("; "))?;
        {
            let _changing = self.changing.lock().expect("event types");
            let current = self.catalog.load_full();
            current.admits(&served.kind)?;
            #[cfg(feature = "redis")]
            let served = self.share(served);
            #[cfg(not(feature = "redis"))]
            let served = Arc::new(served);
            let mut next = Catalog::default();
            for s in &current.types {
                next.insert(s.clone()).expect("was unique");
            }
            next.insert(served).expect("admitted");
            self.catalog.store(Arc::new(next));
        }
        self.list_changed.notify();
        Ok(())
    }

    /// `served` with its log shared through Redis, when the logs are: the log it had if
    /// its key was shared before (a type that comes back takes up its occurrences), a new
    /// one tailed from now on otherwise.
    #[cfg(feature = "redis")]
    fn share(&self, served: Served) -> Arc<Served> {
        let Some(store) = self.store.get() else {
            return Arc::new(served);
        };
        // Held while the log is added, so that the tail hands over nothing of it before
        // it is here to take it.
        let mut logs = self.shared_logs.write().expect("shared logs");
        let index = store.add(crate::scale::streams::LogKey {
            key: served.kind.redis_key().into(),
            keep: served.kind.retain_events,
        });
        let served = match logs.get(index) {
            Some(before) => Arc::new(Served {
                log: before.log.clone(),
                shared_log: Some(index),
                ..served
            }),
            None => Arc::new(shared_log(served, index)),
        };
        if index < logs.len() {
            logs[index] = served.clone();
        } else {
            logs.push(served.clone());
        }
        served
    }

    /// Stops serving the type `name` (its streams and webhook subscriptions end, its
    /// occurrences are forgotten), and tells the listeners that asked; `false` if no type
    /// has that name.
    pub(super) fn remove(&self, name: &str) -> bool {
        let gone = {
            let _changing = self.changing.lock().expect("event types");
            let Some((rest, gone)) = self.catalog.load().without(name) else {
                return false;
            };
            self.catalog.store(Arc::new(rest));
            gone
        };
        gone.removed.cancel();
        self.list_changed.notify();
        true
    }

    /// Waits (briefly) until the log of the type `name` holds what was kept of it before
    /// this process started (at once, unless the logs are shared and the server has just
    /// started, or the type was just added); at once for a name no type has.
    pub(super) async fn settled(&self, name: &str) {
        let log = self.catalog().named(name).map(|s| s.log.clone());
        if let Some(log) = log {
            log.settled().await;
        }
    }
}
