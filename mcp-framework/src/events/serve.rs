//! `events/list`, `events/poll` and `events/stream`, installed through the extension API.
//! Every method that names an event type finds it the same way ([`find`]): unknown, or
//! hidden from this caller, is `-32023`; lacking its scopes `-32024`; not offered in this
//! delivery mode `-32026`. Arguments are checked against the type's `inputSchema` and
//! become the subscription's filter. A poll holds nothing between requests (its cursor
//! says where it was); a stream holds one of the extension's stream places while it is
//! open.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::log::Entry;
use super::lookup::{Access, access, filter, find};
use super::served::Shared;
use crate::context::Context;
use crate::extension::Setup;
use crate::protocol::events::{
    Delivery, ListEventsParams, ListEventsResult, Occurrence, PollEventsResult, SubscribeParams,
    codes,
};
use crate::protocol::result::ResultType;
use crate::protocol::{ErrorObject, JsonObject, keys};

/// The most occurrences one poll returns, and how many when it does not say.
const MAX_POLL_EVENTS: u64 = 1000;
const DEFAULT_POLL_EVENTS: u64 = 100;

/// Registers the three methods.
pub(super) fn install(setup: &mut Setup, shared: &Arc<Shared>) {
    let s = shared.clone();
    setup.request(
        "events/list",
        move |params: ListEventsParams, cx: Context| {
            let s = s.clone();
            async move { list(&s, &params, &cx) }
        },
    );
    let s = shared.clone();
    setup.request(
        "events/poll",
        move |params: SubscribeParams, cx: Context| {
            let s = s.clone();
            async move {
                s.settled(&params.name).await;
                poll(&s, &params, &cx)
            }
        },
    );
    #[cfg(feature = "events-webhooks")]
    if shared.hooks.is_some() {
        let s = shared.clone();
        setup.request(
            "events/subscribe",
            move |params: super::webhook::WebhookParams, cx: Context| {
                let s = s.clone();
                async move {
                    s.settled(&params.name).await;
                    super::webhook::subscribe(&s, params, &cx).await
                }
            },
        );
        let s = shared.clone();
        setup.request(
            "events/unsubscribe",
            move |params: super::webhook::WebhookParams, cx: Context| {
                let s = s.clone();
                async move { super::webhook::unsubscribe(&s, &params, &cx) }
            },
        );
    }
    let s = shared.clone();
    setup.stream(
        "events/stream",
        move |params: SubscribeParams, cx: Context| {
            let s = s.clone();
            async move {
                s.settled(&params.name).await;
                stream(&s, params, cx).await
            }
        },
    );
}

/// `now − maxAgeMs` in milliseconds since the epoch: nothing older is replayed.
fn floor(max_age_ms: Option<u64>) -> Option<u64> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    max_age_ms.map(|age| now.saturating_sub(age))
}

fn raw(value: &impl serde::Serialize) -> Result<Box<RawValue>, ErrorObject> {
    serde_json::value::to_raw_value(value)
        .map_err(|e| ErrorObject::internal(format!("the result does not serialize: {e}")))
}

/// `events/list`: the types this caller may see, a page at a time.
fn list(
    shared: &Shared,
    params: &ListEventsParams,
    cx: &Context,
) -> Result<Box<RawValue>, ErrorObject> {
    let start = match params.cursor.as_deref() {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| ErrorObject::invalid_params(format!("Invalid cursor: `{c}`")))?,
    };
    let catalog = shared.catalog();
    let visible: Vec<_> = catalog
        .types
        .iter()
        .filter(|s| !matches!(access(s, cx), Access::Hidden))
        .map(|s| &s.descriptor)
        .collect();
    let end = start
        .saturating_add(shared.settings.page_size)
        .min(visible.len());
    let page = visible.get(start..end).unwrap_or_default().to_vec();
    raw(&ListEventsResult {
        result_type: ResultType::Complete,
        events: page,
        next_cursor: (end < visible.len()).then(|| end.to_string()),
    })
}

/// `events/poll`: the occurrences after the cursor that pass the filter (none for a first
/// poll, which only learns where "now" is), and where to start next.
fn poll(
    shared: &Shared,
    params: &SubscribeParams,
    cx: &Context,
) -> Result<Box<RawValue>, ErrorObject> {
    let served = find(shared, cx, &params.name, Delivery::Poll)?;
    let keep = filter(&served, params.arguments.as_ref())?;
    let max = match params.max_events {
        Some(0) => return Err(ErrorObject::invalid_params("maxEvents must be at least 1")),
        Some(n) => n.min(MAX_POLL_EVENTS),
        None => DEFAULT_POLL_EVENTS,
    };
    let next_poll_ms = u64::try_from(shared.settings.next_poll.as_millis()).unwrap_or(u64::MAX);
    let log = &served.log;
    if params.cursor.is_none() {
        return raw(&PollEventsResult {
            result_type: ResultType::Complete,
            events: Vec::new(),
            cursor: log.cursor(log.head()),
            truncated: false,
            has_more: false,
            next_poll_ms,
        });
    }
    let start = log
        .start(params.cursor.as_deref())
        .map_err(ErrorObject::invalid_params)?;
    let read = log.read_after(start.after);
    let mut truncated = start.truncated || read.gap;
    let mut position = if read.gap {
        read.entries.first().map_or(read.head, |e| e.seq - 1)
    } else {
        start.after
    };
    let floor = floor(params.max_age_ms);
    let mut kept: Vec<&Entry> = Vec::new();
    let mut has_more = false;
    for entry in &read.entries {
        if kept.len() as u64 == max {
            has_more = true;
            break;
        }
        position = entry.seq;
        if floor.is_some_and(|f| entry.at_ms < f) {
            truncated = true;
            continue;
        }
        if keep(entry.payload.as_ref()) {
            kept.push(entry);
        }
    }
    let events = kept
        .iter()
        .map(|e| occurrence(e, &served.kind.name, None, None))
        .collect();
    raw(&PollEventsResult {
        result_type: ResultType::Complete,
        events,
        cursor: log.cursor(position),
        truncated,
        has_more,
        next_poll_ms,
    })
}

fn occurrence<'a>(
    entry: &'a Entry,
    name: &'a str,
    cursor: Option<&'a str>,
    meta: Option<&'a JsonObject>,
) -> Occurrence<'a> {
    Occurrence {
        event_id: &entry.event_id,
        name,
        timestamp: &entry.timestamp,
        data: &entry.data,
        cursor,
        meta,
    }
}

/// A place among the open streams, given back when dropped.
struct Place<'s>(&'s Shared);

impl<'s> Place<'s> {
    fn take(shared: &'s Shared) -> Result<Self, ErrorObject> {
        let max = shared.settings.max_streams;
        shared
            .streams
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| {
                ErrorObject::new(
                    codes::RESOURCE_EXHAUSTED,
                    format!("Resource exhausted: {max} event streams are open; retry later"),
                )
                .with_data(json!({"limit": "subscriptions", "max": max}))
            })?;
        Ok(Self(shared))
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        self.0.streams.fetch_sub(1, Ordering::AcqRel);
    }
}

/// `events/stream`: `notifications/events/active` (where it starts, and whether
/// occurrences were missed), the occurrences after the cursor that pass the filter, then
/// each new one as it is emitted, a heartbeat when nothing else is sent; every
/// notification tagged with the request's id. Ends when the client cancels (nothing more is
/// sent), the server shuts down (the final result), or the type is removed
/// (`notifications/events/terminated`, then the final result).
async fn stream(
    shared: &Shared,
    params: SubscribeParams,
    cx: Context,
) -> Result<Value, ErrorObject> {
    let served = find(shared, &cx, &params.name, Delivery::Push)?;
    let keep = filter(&served, params.arguments.as_ref())?;
    let log = &served.log;
    let start = log
        .start(params.cursor.as_deref())
        .map_err(ErrorObject::invalid_params)?;
    let _place = Place::take(shared)?;
    let mut tag = JsonObject::new();
    tag.insert(keys::SUBSCRIPTION_ID.into(), cx.request_id().to_value());
    // Watching before the first read: nothing emitted between the two is missed.
    let mut head = log.watch();
    let mut floor = floor(params.max_age_ms).filter(|_| params.cursor.is_some());
    let mut position = start.after;
    let mut first = Some(start.truncated);
    let heartbeat = shared.settings.heartbeat;
    let name = served.kind.name.as_str();
    loop {
        let read = log.read_after(position);
        let skipped = floor.is_some_and(|f| read.entries.iter().any(|e| e.at_ms < f));
        if read.gap {
            position = read.entries.first().map_or(read.head, |e| e.seq - 1);
        }
        if let Some(truncated) = first.take() {
            let active = json!({"cursor": log.cursor(position), "truncated": truncated || read.gap || skipped, "_meta": tag});
            if !cx.notify("notifications/events/active", &active).await {
                return Ok(Value::Null);
            }
        } else if read.gap {
            let active = json!({"cursor": log.cursor(position), "truncated": true, "_meta": tag});
            if !cx.notify("notifications/events/active", &active).await {
                return Ok(Value::Null);
            }
        }
        for entry in &read.entries {
            position = entry.seq;
            if floor.is_some_and(|f| entry.at_ms < f) || !keep(entry.payload.as_ref()) {
                continue;
            }
            let cursor = log.cursor(entry.seq);
            let event = occurrence(entry, name, Some(&cursor), Some(&tag));
            if !cx.notify("notifications/events/event", &event).await {
                return Ok(Value::Null);
            }
        }
        floor = None;
        tokio::select! {
            biased;
            () = cx.shutting_down() => break,
            () = served.removed.cancelled() => {
                let ended = json!({"error": super::lookup::removed(name), "_meta": tag});
                cx.notify("notifications/events/terminated", &ended).await;
                break;
            }
            changed = head.changed() => if changed.is_err() { break },
            () = tokio::time::sleep(heartbeat) => {
                let beat = json!({"cursor": log.cursor(position), "_meta": tag});
                if !cx.notify("notifications/events/heartbeat", &beat).await {
                    return Ok(Value::Null);
                }
            }
        }
    }
    Ok(json!({"resultType": "complete", "_meta": tag}))
}
