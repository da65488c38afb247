//! The Events extension (`io.modelcontextprotocol/events`, SEP-3415, draft): event types
//! as `events/list` describes them, the params of `events/poll` and `events/stream`, what
//! they return, and the notifications of a stream. The error codes are the draft's
//! (provisional) numbers.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::capabilities::JsonObject;
use super::result::ResultType;

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/events";

/// The draft's error codes.
pub mod codes {
    /// No such event type (`data.kind`: `"event"`), or no such subscription.
    pub const NOT_FOUND: i32 = -32023;
    /// The caller may not subscribe to this event type with these arguments.
    pub const FORBIDDEN: i32 = -32024;
    /// A server limit was reached (`data.limit` names it, `data.max` gives it).
    pub const RESOURCE_EXHAUSTED: i32 = -32025;
    /// Well formed, but not supported (a delivery mode the type does not offer:
    /// `data: {"feature": "deliveryMode", "value": "push"}`).
    pub const UNSUPPORTED: i32 = -32026;
}

/// How occurrences of an event type reach a client.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// `events/poll`: the client asks, with a cursor.
    Poll,
    /// `events/stream`: occurrences pushed on one long-lived request's stream.
    Push,
    /// `events/subscribe`: the server posts occurrences to a URL (not served yet).
    Webhook,
}

impl Delivery {
    /// The mode's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Poll => "poll",
            Self::Push => "push",
            Self::Webhook => "webhook",
        }
    }
}

/// An event type, as `events/list` describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventDescriptor {
    /// Its name (`order.placed`).
    pub name: String,
    /// What it is, for people and models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// How its occurrences may be delivered (never empty).
    pub delivery: Vec<Delivery>,
    /// The schema of the `arguments` a subscription gives (filters, options).
    pub input_schema: JsonObject,
    /// The schema of each occurrence's `data`.
    pub payload_schema: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The result of `events/list`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListEventsResult<'a> {
    /// Always `complete`.
    pub result_type: ResultType,
    /// This page of event types.
    pub events: Vec<&'a EventDescriptor>,
    /// The cursor of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The params of `events/list`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ListEventsParams {
    /// Where the page starts.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The params of `events/poll` and `events/stream`: one subscription, `(name, arguments)`,
/// and where to start.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeParams {
    /// The event type.
    pub name: String,
    /// Its arguments (absent reads as `{}`).
    #[serde(default)]
    pub arguments: Option<JsonObject>,
    /// Where the client left off; absent or `null`: start from now.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Replay no occurrence older than this many milliseconds.
    #[serde(default)]
    pub max_age_ms: Option<u64>,
    /// (poll) At most this many occurrences.
    #[serde(default)]
    pub max_events: Option<u64>,
}

/// One occurrence of an event, as it is delivered.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence<'a> {
    /// Its identifier, stable across deliveries (for deduplication).
    pub event_id: &'a str,
    /// Its event type.
    pub name: &'a str,
    /// When it occurred (RFC 3339, UTC).
    pub timestamp: &'a str,
    /// Its payload.
    pub data: &'a RawValue,
    /// (stream) The position after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<&'a str>,
    /// (stream) `{"io.modelcontextprotocol/subscriptionId": …}`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<&'a JsonObject>,
}

/// The result of `events/poll`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PollEventsResult<'a> {
    /// Always `complete`.
    pub result_type: ResultType,
    /// The occurrences after the cursor that match the arguments, oldest first.
    pub events: Vec<Occurrence<'a>>,
    /// Where the next poll starts.
    pub cursor: String,
    /// Whether occurrences were lost between the given cursor and this batch.
    pub truncated: bool,
    /// Whether more are ready now (poll again at once).
    pub has_more: bool,
    /// When to poll next, in milliseconds.
    pub next_poll_ms: u64,
}
