//! [`EventType`]: one kind of event a server publishes — its name, description, payload
//! type (the `payloadSchema`), the arguments a subscription may give (the `inputSchema`,
//! and the filter that decides which occurrences a subscription gets), how it may be
//! delivered, the scopes a subscriber needs, and how much of it is kept for replay.

use std::any::{Any, TypeId};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::principal::ScopePolicy;
use crate::protocol::JsonObject;
use crate::protocol::events::Delivery;
use crate::schema::{input_schema_for, schema_for};

/// Decides, for one subscription's arguments, which occurrences it gets.
pub(super) type Filter = Arc<dyn Fn(Value) -> Result<Matcher, String> + Send + Sync>;

/// Whether an occurrence (its payload, as emitted) goes to the subscription.
pub(super) type Matcher = Box<dyn Fn(&(dyn Any + Send + Sync)) -> bool + Send + Sync>;

/// Reads a payload back from its JSON (an occurrence another replica emitted).
pub(super) type Decode = fn(&str) -> Result<Box<dyn Any + Send + Sync>, serde_json::Error>;

fn decode_as<T: DeserializeOwned + Send + Sync + 'static>(
    json: &str,
) -> Result<Box<dyn Any + Send + Sync>, serde_json::Error> {
    Ok(Box::new(serde_json::from_str::<T>(json)?))
}

/// One kind of event: `EventType::new::<OrderPlaced>("order.placed")`.
///
/// The payload type's JSON Schema is the `payloadSchema`, and its doc comment the
/// description (unless [`description`](Self::description) gives one). It is serialized for
/// subscribers, and read back when replicas share the occurrences (`Events::redis`,
/// feature `redis`). Without [`arguments`](Self::arguments) a subscription takes no
/// arguments and gets every occurrence.
///
/// ```
/// use mcp_framework::events::EventType;
/// use schemars::JsonSchema;
/// use serde::{Deserialize, Serialize};
///
/// /// An order was placed.
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// struct OrderPlaced { id: String, total_cents: u64, region: String }
///
/// /// Which orders to hear about.
/// #[derive(Deserialize, JsonSchema)]
/// struct Orders {
///     /// Only orders of this region.
///     region: Option<String>,
/// }
///
/// let placed = EventType::new::<OrderPlaced>("order.placed")
///     .arguments(|order: &OrderPlaced, wanted: &Orders| {
///         wanted.region.as_ref().is_none_or(|r| *r == order.region)
///     })
///     .scopes(["orders:read"]);
/// ```
#[derive(Clone)]
#[must_use]
pub struct EventType {
    pub(super) name: String,
    pub(super) description: Option<String>,
    pub(super) delivery: Vec<Delivery>,
    pub(super) payload: TypeId,
    pub(super) payload_name: &'static str,
    pub(super) payload_schema: JsonObject,
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(super) decode: Decode,
    pub(super) input_schema: JsonObject,
    pub(super) filter: Filter,
    pub(super) scopes: Vec<String>,
    pub(super) policy: ScopePolicy,
    pub(super) retain_events: usize,
    pub(super) retain_bytes: usize,
    /// A mistake in its definition, reported by `build()`.
    pub(super) problem: Option<String>,
}

impl std::fmt::Debug for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventType")
            .field("name", &self.name)
            .field("payload", &self.payload_name)
            .field("delivery", &self.delivery)
            .finish_non_exhaustive()
    }
}

impl EventType {
    /// Events named `name` whose payloads are `T`s. Delivered by poll and push; the last
    /// 1,000 occurrences (and at most 1 MiB of them) kept for replay.
    pub fn new<T>(name: impl Into<String>) -> Self
    where
        T: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
    {
        let mut payload_schema = schema_for::<T>();
        let description = payload_schema
            .remove("description")
            .and_then(|d| d.as_str().map(str::to_owned));
        Self {
            name: name.into(),
            description,
            delivery: vec![Delivery::Poll, Delivery::Push],
            payload: TypeId::of::<T>(),
            payload_name: std::any::type_name::<T>(),
            payload_schema,
            decode: decode_as::<T>,
            input_schema: no_arguments(),
            filter: Arc::new(|arguments| {
                if arguments.as_object().is_some_and(|a| !a.is_empty()) {
                    return Err("this event type takes no arguments".into());
                }
                Ok(Box::new(|_| true))
            }),
            scopes: Vec::new(),
            policy: ScopePolicy::Challenge,
            retain_events: 1000,
            retain_bytes: 1 << 20,
            problem: None,
        }
    }

    /// Where its occurrences are kept when the replicas share them (`Events::redis`).
    #[cfg(feature = "redis")]
    pub(super) fn redis_key(&self) -> String {
        format!("mcp-framework:events:{}", self.name)
    }

    /// The description clients and models read (instead of the payload type's doc
    /// comment).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The arguments a subscription gives, read as an `A` (its schema is the
    /// `inputSchema`, closed to names it does not have unless it says otherwise; arguments
    /// that do not fit are refused with `-32602`), and the filter:
    /// `keep(payload, arguments)` decides whether an occurrence goes to the subscription.
    pub fn arguments<T, A, F>(mut self, keep: F) -> Self
    where
        T: Send + Sync + 'static,
        A: DeserializeOwned + JsonSchema + Send + Sync + 'static,
        F: Fn(&T, &A) -> bool + Send + Sync + 'static,
    {
        if TypeId::of::<T>() != self.payload {
            self.problem = Some(format!(
                "`{}`: the filter given to `arguments` takes `{}`, not its payload type `{}`",
                self.name,
                std::any::type_name::<T>(),
                self.payload_name
            ));
        }
        let mut schema = input_schema_for::<A>();
        // Arguments the type does not name are refused: a client that misspells a filter
        // would otherwise get everything and believe it filtered.
        if schema.get("properties").is_some() && !schema.contains_key("additionalProperties") {
            schema.insert("additionalProperties".into(), Value::Bool(false));
        }
        self.input_schema = schema;
        let keep = Arc::new(keep);
        self.filter = Arc::new(move |arguments| {
            let wanted: A = serde_json::from_value(arguments).map_err(|e| e.to_string())?;
            let (keep, wanted) = (keep.clone(), Arc::new(wanted));
            Ok(Box::new(move |payload: &(dyn Any + Send + Sync)| {
                payload
                    .downcast_ref::<T>()
                    .is_some_and(|payload| keep(payload, &wanted))
            }))
        });
        self
    }

    /// How its occurrences may be delivered (default: poll and push). `Webhook` is not
    /// served yet: a type listing it is refused at `build()`.
    pub fn delivery(mut self, modes: impl IntoIterator<Item = Delivery>) -> Self {
        self.delivery = modes.into_iter().collect();
        self.delivery.dedup();
        self
    }

    /// Requires subscribers to hold these scopes (by the server's
    /// [`ScopeRules`](crate::ScopeRules)).
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// What callers without the [`scopes`](Self::scopes) see of it: listed and refused
    /// with `-32024` (Forbidden, the default), or ([`ScopePolicy::Hide`]) neither listed nor
    /// found.
    pub fn scope_policy(mut self, policy: ScopePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Keeps the last `events` occurrences, and at most `bytes` of their payloads, for
    /// polls and streams to replay (default 1,000 and 1 MiB); older ones are dropped, and a
    /// subscriber whose cursor points before what is kept is told (`truncated`).
    pub fn retain(mut self, events: usize, bytes: usize) -> Self {
        self.retain_events = events.max(1);
        self.retain_bytes = bytes.max(1);
        self
    }
}

/// The `inputSchema` of an event type without arguments.
fn no_arguments() -> JsonObject {
    match serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false}) {
        Value::Object(o) => o,
        _ => unreachable!("an object"),
    }
}
