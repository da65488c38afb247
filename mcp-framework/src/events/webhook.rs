//! Webhook subscriptions (`events/subscribe`, `events/unsubscribe`; feature
//! `events-webhooks`). A subscription is keyed
//! by `(principal, url, name, arguments)` — only an authenticated caller may subscribe, and
//! only its own subscriptions are reachable — and lives for the TTL it was granted,
//! refreshed by subscribing again. A URL is delivered to only once its endpoint has proved
//! it wants the deliveries (it echoes a signed challenge, or matches a configured prefix),
//! over `https`, to globally routable addresses (see `address.rs`), never following a
//! redirect; deliveries are signed (Standard Webhooks) and retried with backoff
//! (`delivery.rs`). Subscriptions are held in memory: a restart loses them and clients
//! subscribe again at their next refresh, so no grant is ever without expiry.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::Digest as _;
use tokio_util::sync::CancellationToken;

use super::delivery::{self, Post, Sent};
use super::hooks::{Hooks, Secrets, Status, Subscription, Webhooks};
use super::kind::Matcher;
use super::lookup::{filter, find};
use super::served::Shared;
use crate::protocol::events::codes;
use crate::protocol::{ErrorObject, JsonObject};

/// The draft's error for an endpoint that cannot be verified or reached.
pub(super) const CALLBACK_ENDPOINT_ERROR: i32 = -32027;

/// The `delivery` of a subscribe or unsubscribe request.
#[derive(Deserialize)]
struct DeliveryParams {
    #[serde(default)]
    mode: Option<String>,
    url: String,
    #[serde(default)]
    secret: Option<String>,
}

/// The params of `events/subscribe` and `events/unsubscribe`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WebhookParams {
    pub(super) name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    delivery: DeliveryParams,
    #[serde(default)]
    cursor: Option<String>,
    /// Absent: the default; `null`: no expiry asked for; a number: a suggestion.
    #[serde(default, deserialize_with = "present")]
    ttl_ms: Option<Option<u64>>,
}

/// `Some(value)` for a present field (`Some(None)` for `null`), `None` when absent.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<u64>>, D::Error> {
    Option::<u64>::deserialize(d).map(Some)
}

fn invalid(message: impl Into<String>) -> ErrorObject {
    ErrorObject::invalid_params(message.into())
}

/// The caller's principal, required by both methods.
fn principal(cx: &crate::context::Context, method: &str) -> Result<String, ErrorObject> {
    cx.principal()
        .map(|p| p.subject().to_owned())
        .ok_or_else(|| {
            ErrorObject::new(
                codes::FORBIDDEN,
                format!("Forbidden: {method} needs an authenticated caller (webhook subscriptions belong to a principal)"),
            )
        })
}

/// The callback URL, checked: `https` (or `http` where allowed), a host, no credentials.
fn callback(config: &Webhooks, url: &str) -> Result<reqwest::Url, ErrorObject> {
    let parsed =
        reqwest::Url::parse(url).map_err(|e| invalid(format!("delivery.url `{url}`: {e}")))?;
    match parsed.scheme() {
        "https" => {}
        "http" if config.http_allowed => {}
        other => {
            return Err(invalid(format!(
                "delivery.url must be https (not `{other}`)"
            )));
        }
    }
    if parsed.host_str().is_none() || !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(invalid("delivery.url needs a host and no credentials"));
    }
    Ok(parsed)
}

/// `whsec_` and the base64 of 24 to 64 bytes: the bytes.
fn secret(value: Option<&str>) -> Result<Vec<u8>, ErrorObject> {
    let value = value.ok_or_else(|| invalid("delivery.secret is required (whsec_…)"))?;
    let bytes = value
        .strip_prefix("whsec_")
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .ok_or_else(|| invalid("delivery.secret must be `whsec_` and base64"))?;
    if !(24..=64).contains(&bytes.len()) {
        return Err(invalid(format!(
            "delivery.secret must hold 24 to 64 bytes (it holds {})",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// JSON with every object's keys sorted (the key's arguments compare by it).
fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// `sub_` and 16 hex digits of the SHA-256 of the key.
fn subscription_id(principal: &str, url: &str, name: &str, arguments: &Value) -> String {
    let mut hash = sha2::Sha256::new();
    for part in [principal, url, name, &canonical(arguments)] {
        hash.update(part.len().to_be_bytes());
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("sub_{hex}")
}

/// RFC 3339 of an instant `after` from now.
fn rfc3339_in(after: Duration) -> String {
    humantime::format_rfc3339_seconds(SystemTime::now() + after).to_string()
}

/// `events/subscribe`.
pub(super) async fn subscribe(
    shared: &Arc<Shared>,
    params: WebhookParams,
    cx: &crate::context::Context,
) -> Result<Value, ErrorObject> {
    let hooks = shared.hooks.as_ref().expect("installed only with webhooks");
    let principal = principal(cx, "events/subscribe")?;
    let served = find(
        shared,
        cx,
        &params.name,
        crate::protocol::events::Delivery::Webhook,
    )?;
    if params
        .delivery
        .mode
        .as_deref()
        .is_some_and(|m| m != "webhook")
    {
        return Err(invalid("delivery.mode must be `webhook`"));
    }
    let arguments = Value::Object(params.arguments.clone().unwrap_or_default());
    let keep: Matcher = filter(&served, params.arguments.as_ref())?;
    let url = callback(&hooks.config, &params.delivery.url)?;
    let secret = secret(params.delivery.secret.as_deref())?;
    delivery::check_address(&hooks.config, &url)
        .await
        .map_err(invalid)?;
    let config = &hooks.config;
    let ttl = match params.ttl_ms {
        None => config.default_ttl,
        // No expiry is not granted: subscriptions live in memory.
        Some(None) => config.max_ttl,
        Some(Some(ms)) => Duration::from_millis(ms).clamp(config.min_ttl, config.max_ttl),
    };
    let id = subscription_id(&principal, url.as_str(), &params.name, &arguments);
    let log = &served.log;
    let existing = hooks
        .subscriptions
        .lock()
        .expect("subscriptions")
        .get(&id)
        .cloned();
    if let Some(sub) = existing.filter(|s| !s.ended.is_cancelled()) {
        // A refresh: the secret replaced (the old one signs beside it for the grace
        // window), the TTL granted again.
        sub.secrets
            .lock()
            .expect("secrets")
            .rotate(secret, config.rotation_grace);
        *sub.expires.lock().expect("expiry") = Instant::now() + ttl;
        let status = sub.status.lock().expect("status").clone();
        let watermark = sub.watermark.load(std::sync::atomic::Ordering::Acquire);
        return Ok(json!({
            "resultType": "complete",
            "id": id,
            "refreshBefore": rfc3339_in(ttl),
            "cursor": log.cursor(watermark),
            "truncated": false,
            "deliveryStatus": {
                "active": true,
                "lastDeliveryAt": status.last_delivery_at,
                "lastError": status.last_error,
            },
        }));
    }
    {
        let subs = hooks.subscriptions.lock().expect("subscriptions");
        let mine = subs.values().filter(|s| s.principal == principal).count();
        if subs.len() >= config.max_subscriptions || mine >= config.max_per_principal {
            let (limit, max) = if mine >= config.max_per_principal {
                ("subscriptionsPerPrincipal", config.max_per_principal)
            } else {
                ("subscriptions", config.max_subscriptions)
            };
            return Err(ErrorObject::new(
                codes::RESOURCE_EXHAUSTED,
                format!("Resource exhausted: at most {max} webhook subscriptions"),
            )
            .with_data(json!({"limit": limit, "max": max})));
        }
    }
    verify(hooks, &principal, &url, &id, &secret).await?;
    let start = log.start(params.cursor.as_deref()).map_err(invalid)?;
    let sub = Arc::new(Subscription {
        id: id.clone(),
        principal,
        url,
        secrets: Mutex::new(Secrets::new(secret)),
        expires: Mutex::new(Instant::now() + ttl),
        ended: CancellationToken::new(),
        status: Mutex::new(Status::default()),
        watermark: std::sync::atomic::AtomicU64::new(start.after),
    });
    {
        // Checked again: others may have subscribed while this endpoint was verified.
        let mut subs = hooks.subscriptions.lock().expect("subscriptions");
        let mine = subs
            .values()
            .filter(|s| s.principal == sub.principal)
            .count();
        if !subs.contains_key(&id)
            && (subs.len() >= config.max_subscriptions || mine >= config.max_per_principal)
        {
            return Err(ErrorObject::new(
                codes::RESOURCE_EXHAUSTED,
                "Resource exhausted: too many webhook subscriptions",
            )
            .with_data(json!({"limit": "subscriptions"})));
        }
        if let Some(old) = subs.insert(id.clone(), sub.clone()) {
            old.ended.cancel();
        }
    }
    tokio::spawn(delivery::run(
        shared.clone(),
        served.clone(),
        sub,
        keep,
        start.after,
    ));
    Ok(json!({
        "resultType": "complete",
        "id": id,
        "refreshBefore": rfc3339_in(ttl),
        "cursor": log.cursor(start.after),
        "truncated": start.truncated,
    }))
}

/// The verification handshake, unless the endpoint is known to want deliveries (the
/// allowlist, an earlier handshake, or its origin's well-known receiver document): a
/// signed `verification` envelope whose nonce it must echo.
async fn verify(
    hooks: &Hooks,
    principal: &str,
    url: &reqwest::Url,
    id: &str,
    secret: &[u8],
) -> Result<(), ErrorObject> {
    if hooks
        .config
        .verified
        .iter()
        .any(|p| url.as_str().starts_with(p.as_str()))
    {
        return Ok(());
    }
    let key = (principal.to_owned(), url.to_string());
    if hooks
        .verified
        .lock()
        .expect("verified")
        .get(&key)
        .is_some_and(|until| *until > Instant::now())
    {
        return Ok(());
    }
    // An origin that publishes its consent for this path needs no challenge.
    if super::receiver::cover(hooks, url).await {
        hooks
            .verified
            .lock()
            .expect("verified")
            .insert(key, Instant::now() + hooks.config.max_ttl);
        return Ok(());
    }
    if !hooks.may_challenge(url.host_str().unwrap_or_default()) {
        return Err(ErrorObject::new(
            codes::RESOURCE_EXHAUSTED,
            "Resource exhausted: too many endpoint verifications for this host; retry in a minute",
        )
        .with_data(json!({"limit": "verificationsPerHost"})));
    }
    let nonce = crate::unguessable::hex_id();
    let body = json!({"type": "verification", "challenge": nonce}).to_string();
    let post = Post {
        message_id: format!("msg_verification_{}", &crate::unguessable::hex_id()[..16]),
        body: body.into_bytes(),
    };
    let failed = |reason: &'static str| {
        ErrorObject::new(
            CALLBACK_ENDPOINT_ERROR,
            format!(
                "CallbackEndpointError: the endpoint did not confirm it wants deliveries ({reason})"
            ),
        )
        .with_data(json!({"reason": reason}))
    };
    match delivery::post(hooks, url, id, &[secret.to_vec()], &post, true).await {
        Sent::Delivered(answer) => {
            let echoed = serde_json::from_slice::<Value>(&answer)
                .ok()
                .and_then(|v| v["challenge"].as_str().map(str::to_owned))
                .unwrap_or_default();
            if !constant_time_eq(echoed.as_bytes(), nonce.as_bytes()) {
                return Err(failed("challenge_failed"));
            }
        }
        Sent::Refused(_) => return Err(failed("challenge_failed")),
        Sent::Failed(reason) => return Err(failed(reason)),
    }
    hooks
        .verified
        .lock()
        .expect("verified")
        .insert(key, Instant::now() + hooks.config.max_ttl);
    Ok(())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

/// `events/unsubscribe`: the caller's subscription with this key ends.
pub(super) fn unsubscribe(
    shared: &Shared,
    params: &WebhookParams,
    cx: &crate::context::Context,
) -> Result<Value, ErrorObject> {
    let hooks = shared.hooks.as_ref().expect("installed only with webhooks");
    let principal = principal(cx, "events/unsubscribe")?;
    let not_found = || {
        ErrorObject::new(codes::NOT_FOUND, "No such subscription")
            .with_data(json!({"kind": "subscription"}))
    };
    let url = reqwest::Url::parse(&params.delivery.url).map_err(|_| not_found())?;
    let arguments = Value::Object(params.arguments.clone().unwrap_or_default());
    let id = subscription_id(&principal, url.as_str(), &params.name, &arguments);
    let exists = hooks
        .subscriptions
        .lock()
        .expect("subscriptions")
        .contains_key(&id);
    if !exists {
        return Err(not_found());
    }
    hooks.remove(&id);
    Ok(json!({"resultType": "complete"}))
}
