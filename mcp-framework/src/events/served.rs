//! What a built server serves of its event types: each type with its descriptor, its
//! arguments' validator and its log, found by name (requests) and by payload type
//! (emitters); the extension's settings; the count of open streams.

use std::collections::HashMap;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use super::kind::EventType;
use super::log;
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
    pub(super) log: log::Log,
}

/// What the server serves: every type, found by name and by payload type.
pub(super) struct Shared {
    pub(super) types: Vec<Served>,
    pub(super) by_name: HashMap<String, usize>,
    pub(super) by_payload: HashMap<std::any::TypeId, usize>,
    pub(super) settings: Settings,
    /// Streams open now.
    pub(super) streams: AtomicUsize,
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
        #[cfg(feature = "redis")] shared_logs: bool,
        #[cfg(feature = "events-webhooks")] webhooks: Option<&super::hooks::Webhooks>,
    ) -> Result<Self, String> {
        #[cfg(feature = "events-webhooks")]
        let hooks = webhooks
            .cloned()
            .map(super::hooks::Hooks::new)
            .transpose()?;
        #[cfg(feature = "events-webhooks")]
        let webhooks_served = hooks.is_some();
        #[cfg(not(feature = "events-webhooks"))]
        let webhooks_served = false;
        let mut problems = Vec::new();
        let mut served = Vec::new();
        let (mut by_name, mut by_payload) = (HashMap::new(), HashMap::new());
        for (i, kind) in types.iter().enumerate() {
            if let Some(problem) = &kind.problem {
                problems.push(problem.clone());
            }
            if kind.name.is_empty() {
                problems.push("an event type has an empty name".to_owned());
            }
            if by_name.insert(kind.name.clone(), i).is_some() {
                problems.push(format!("the event type `{}` is defined twice", kind.name));
            }
            if by_payload.insert(kind.payload, i).is_some() {
                problems.push(format!(
                    "`{}` is the payload of two event types: give each type its own",
                    kind.payload_name
                ));
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
            let validator = match Validator::compile(&kind.input_schema) {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!("`{}`: its arguments' schema: {e}", kind.name));
                    continue;
                }
            };
            // Listed as the server's profile shapes a tool's arguments; checked as written.
            let (input_schema, refused) = profile.shape_input(kind.input_schema.clone());
            for violation in refused {
                problems.push(format!(
                    "`{}`: its arguments' schema breaks the `{}` schema profile at {}: {}",
                    kind.name,
                    profile.name(),
                    violation.pointer(),
                    violation.message()
                ));
            }
            served.push(Served {
                descriptor: EventDescriptor {
                    name: kind.name.clone(),
                    description: kind.description.clone(),
                    delivery: kind.delivery.clone(),
                    input_schema,
                    payload_schema: kind.payload_schema.clone(),
                    meta: None,
                },
                validator,
                log: new_log(
                    kind,
                    #[cfg(feature = "redis")]
                    shared_logs,
                ),
                kind: kind.clone(),
            });
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        Ok(Self {
            types: served,
            by_name,
            by_payload,
            settings,
            streams: AtomicUsize::new(0),
            #[cfg(feature = "redis")]
            store: std::sync::OnceLock::new(),
            #[cfg(feature = "events-webhooks")]
            hooks,
        })
    }
}

impl Shared {
    /// Waits (briefly) until every log holds what was kept of it before this process
    /// started (at once, unless the logs are shared and the server has just started).
    pub(super) async fn settled(&self) {
        for served in &self.types {
            served.log.settled().await;
        }
    }
}

/// The log of `kind`: the process's own, or one the replicas share.
fn new_log(kind: &EventType, #[cfg(feature = "redis")] shared: bool) -> log::Log {
    #[cfg(feature = "redis")]
    if shared {
        return log::Log::shared(&kind.redis_key(), kind.retain_events, kind.retain_bytes);
    }
    log::Log::new(kind.retain_events, kind.retain_bytes)
}
