//! Delivering a webhook subscription's occurrences: a task per subscription follows its
//! type's log and POSTs each occurrence that passes the filter, in order, signed as
//! Standard Webhooks asks (`webhook-id`, `webhook-timestamp`, `webhook-signature:
//! v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>` and, with the server's own key,
//! `v1a,<base64 ed25519 signature>`, and `X-MCP-Subscription-Id`), a new
//! timestamp and signature on each attempt. A failed attempt is retried with backoff; `410`
//! and `413` are not retried; an occurrence whose attempts ran out is given up. The body's
//! `cursor` is the watermark: every occurrence at or before it was delivered or given up.
//! Occurrences dropped from the log before they could be delivered are announced with a
//! `gap` envelope. The task ends when the subscription expires or is unsubscribed.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hmac::{KeyInit as _, Mac as _};
use serde_json::json;

use super::hooks::{Hooks, Subscription, Webhooks};
use super::kind::Matcher;
use super::served::{Served, Shared};
use crate::protocol::events::Occurrence;

/// A message to POST: its `webhook-id` and body.
pub(super) struct Post {
    pub(super) message_id: String,
    pub(super) body: Vec<u8>,
}

/// How one attempt went.
pub(super) enum Sent {
    /// `2xx`, with (the start of) the response body.
    Delivered(Vec<u8>),
    /// A status that must not be retried (`410`, `413`).
    Refused(u16),
    /// Worth retrying: `lastError`'s category.
    Failed(&'static str),
}

/// The most of a response body read (the verification answer).
const MAX_ANSWER_BYTES: usize = 4096;

/// Refuses a URL whose host is an IP literal this server may not deliver to (a host name
/// is checked when it is resolved, on every connection: `address.rs`); for a host name,
/// also checks now that it resolves to an address it may use, so that a subscription that
/// could never be delivered is refused at once.
pub(super) async fn check_address(config: &Webhooks, url: &reqwest::Url) -> Result<(), String> {
    if config.private_allowed {
        return Ok(());
    }
    let host = url.host_str().unwrap_or_default();
    let literal = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = literal.parse::<std::net::IpAddr>() {
        return if super::address::is_global(ip) {
            Ok(())
        } else {
            Err(format!(
                "delivery.url `{url}` is not a globally routable address"
            ))
        };
    }
    let port = url.port_or_known_default().unwrap_or(443);
    let addrs: Vec<_> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| format!("delivery.url: cannot resolve `{host}`: {e}"))?
        .collect();
    if addrs.iter().any(|a| super::address::is_global(a.ip())) {
        Ok(())
    } else {
        Err(format!(
            "delivery.url: `{host}` resolves to no globally routable address"
        ))
    }
}

/// What every signature of an attempt signs: `<id>.<timestamp>.<body>`.
fn signed_content(message_id: &str, timestamp: u64, body: &[u8]) -> Vec<u8> {
    let timestamp = timestamp.to_string();
    let mut content = Vec::with_capacity(message_id.len() + timestamp.len() + 2 + body.len());
    content.extend_from_slice(message_id.as_bytes());
    content.push(b'.');
    content.extend_from_slice(timestamp.as_bytes());
    content.push(b'.');
    content.extend_from_slice(body);
    content
}

/// `v1,<base64 HMAC-SHA256(secret, content)>`.
fn signature(secret: &[u8], content: &[u8]) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret).expect("HMAC takes any key");
    mac.update(content);
    let tag = mac.finalize().into_bytes();
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(tag)
    )
}

/// `v1a,<base64 ed25519(server key, content)>`.
fn server_signature(key: &ed25519_dalek::SigningKey, content: &[u8]) -> String {
    use ed25519_dalek::Signer as _;
    format!(
        "v1a,{}",
        base64::engine::general_purpose::STANDARD.encode(key.sign(content).to_bytes())
    )
}

/// One attempt: POSTs `post` to `url`, signed now with each of `secrets` (several during a
/// rotation: space-separated, as Standard Webhooks allows).
pub(super) async fn post(
    hooks: &Hooks,
    url: &reqwest::Url,
    subscription: &str,
    secrets: &[Vec<u8>],
    post: &Post,
    read_answer: bool,
) -> Sent {
    if let Err(reason) = check_address(&hooks.config, url).await {
        tracing::warn!(target: "mcp_framework::events", subscription, "not delivered: {reason}");
        return Sent::Failed("connection_refused");
    }
    let timestamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let content = signed_content(&post.message_id, timestamp, &post.body);
    let request = hooks
        .http
        .post(url.clone())
        .header("content-type", "application/json")
        .header("webhook-id", &post.message_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header(
            "webhook-signature",
            secrets
                .iter()
                .map(|s| signature(s, &content))
                .chain(
                    hooks
                        .signer
                        .as_ref()
                        .map(|(_, key)| server_signature(key, &content)),
                )
                .collect::<Vec<_>>()
                .join(" "),
        )
        .header("x-mcp-subscription-id", subscription)
        .body(post.body.clone());
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => {
            return Sent::Failed(if e.is_timeout() {
                "timeout"
            } else if format!("{e:?}").to_ascii_lowercase().contains("tls") {
                "tls_error"
            } else {
                "connection_refused"
            });
        }
    };
    let status = response.status().as_u16();
    match status {
        200..=299 => {
            let mut answer = Vec::new();
            if read_answer {
                let mut response = response;
                while let Ok(Some(chunk)) = response.chunk().await {
                    answer.extend_from_slice(&chunk);
                    if answer.len() > MAX_ANSWER_BYTES {
                        break;
                    }
                }
            }
            Sent::Delivered(answer)
        }
        410 | 413 => Sent::Refused(status),
        400..=499 => Sent::Failed("http_4xx"),
        _ => Sent::Failed("http_5xx"),
    }
}

/// Delivers `post` with retries; whether it was delivered.
async fn deliver(hooks: &Hooks, sub: &Subscription, post: &Post) -> bool {
    let mut backoff = hooks.config.backoff;
    for attempt in 1..=hooks.config.attempts {
        let secrets = sub.secrets.lock().expect("secrets").signing();
        match self::post(hooks, &sub.url, &sub.id, &secrets, post, false).await {
            Sent::Delivered(_) => {
                let mut status = sub.status.lock().expect("status");
                status.last_delivery_at =
                    Some(humantime::format_rfc3339_seconds(SystemTime::now()).to_string());
                status.last_error = None;
                return true;
            }
            Sent::Refused(code) => {
                tracing::debug!(target: "mcp_framework::events", subscription = %sub.id, code, "delivery refused: not retried");
                return false;
            }
            Sent::Failed(reason) => {
                sub.status.lock().expect("status").last_error = Some(reason);
                if attempt < hooks.config.attempts {
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = sub.ended.cancelled() => return false,
                    }
                    backoff = backoff.saturating_mul(2);
                }
            }
        }
    }
    tracing::warn!(target: "mcp_framework::events", subscription = %sub.id, "a delivery was given up after {} attempts", hooks.config.attempts);
    false
}

/// The task of one subscription: from `after`, every occurrence of `served` that passes
/// `keep`, until the subscription ends (unsubscribed, expired, or its type removed: then a
/// `terminated` envelope says so).
pub(super) async fn run(
    shared: Arc<Shared>,
    served: Arc<Served>,
    sub: Arc<Subscription>,
    keep: Matcher,
    after: u64,
) {
    let hooks = shared.hooks.as_ref().expect("webhooks configured");
    let log = &served.log;
    let mut head = log.watch();
    let mut position = after;
    loop {
        let read = log.read_after(position);
        if read.gap {
            position = read.entries.first().map_or(read.head, |e| e.seq - 1);
            let envelope = Post {
                message_id: format!("msg_gap_{}", &crate::unguessable::hex_id()[..16]),
                body: json!({"type": "gap", "cursor": log.cursor(position)})
                    .to_string()
                    .into_bytes(),
            };
            deliver(hooks, &sub, &envelope).await;
            sub.watermark.store(position, Ordering::Release);
        }
        for entry in &read.entries {
            if sub.ended.is_cancelled() {
                return;
            }
            if keep(entry.payload.as_ref()) {
                // The watermark after this one is delivered (or given up on).
                let cursor = log.cursor(entry.seq);
                let body = serde_json::to_vec(&Occurrence {
                    event_id: &entry.event_id,
                    name: &served.kind.name,
                    timestamp: &entry.timestamp,
                    data: &entry.data,
                    cursor: Some(&cursor),
                    meta: None,
                })
                .expect("an occurrence serializes");
                let post = Post {
                    message_id: entry.event_id.clone(),
                    body,
                };
                deliver(hooks, &sub, &post).await;
            }
            position = entry.seq;
            sub.watermark.store(position, Ordering::Release);
        }
        let expires = *sub.expires.lock().expect("expiry");
        tokio::select! {
            () = sub.ended.cancelled() => return,
            () = served.removed.cancelled() => {
                let error = super::lookup::removed(&served.kind.name);
                let envelope = Post {
                    message_id: format!("msg_terminated_{}", &crate::unguessable::hex_id()[..16]),
                    body: json!({"type": "terminated", "error": error}).to_string().into_bytes(),
                };
                deliver(hooks, &sub, &envelope).await;
                sub.ended.cancel();
                break;
            }
            changed = head.changed() => if changed.is_err() { break },
            () = tokio::time::sleep_until(expires.into()) => {
                // Refreshed meanwhile: go on.
                if *sub.expires.lock().expect("expiry") <= std::time::Instant::now() {
                    break;
                }
            }
        }
    }
    forget(&shared, &sub);
}

/// Forgets a subscription whose delivery ended (expired, or its type's access revoked).
pub(super) fn forget(shared: &Shared, sub: &Subscription) {
    if let Some(hooks) = &shared.hooks {
        let mut subs = hooks.subscriptions.lock().expect("subscriptions");
        if subs.get(&sub.id).is_some_and(|s| std::ptr::eq(&**s, sub)) {
            subs.remove(&sub.id);
        }
    }
}
