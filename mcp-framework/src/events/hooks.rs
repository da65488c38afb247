//! The webhook side of a built server (feature `events-webhooks`): [`Webhooks`], its
//! configuration, the subscriptions it holds by id, and the `(principal, url)` pairs whose
//! endpoints proved they want deliveries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// At most this many verification POSTs to one host per [`CHALLENGE_WINDOW`].
const CHALLENGES_PER_HOST: u32 = 10;
const CHALLENGE_WINDOW: Duration = Duration::from_secs(60);

/// Webhook delivery, configured: give it to [`Events::webhooks`](super::Events::webhooks).
#[derive(Debug, Clone)]
#[must_use]
pub struct Webhooks {
    pub(super) default_ttl: Duration,
    pub(super) min_ttl: Duration,
    pub(super) max_ttl: Duration,
    pub(super) max_subscriptions: usize,
    pub(super) max_per_principal: usize,
    pub(super) attempts: u32,
    pub(super) backoff: Duration,
    pub(super) timeout: Duration,
    pub(super) private_allowed: bool,
    pub(super) http_allowed: bool,
    pub(super) verified: Vec<String>,
    pub(super) rotation_grace: Duration,
    /// The server's own key for `v1a,` signatures, if it has one.
    pub(super) server_key: Option<ServerKey>,
    /// Public keys published beside it (the next one, or the one it replaced), by id.
    pub(super) published: Vec<(String, Result<ed25519_dalek::VerifyingKey, String>)>,
}

/// The server's ed25519 key for `v1a,` signatures, with its key id (or why the configured
/// text is not one). Its `Debug` shows the id only.
#[derive(Clone)]
pub(super) struct ServerKey {
    pub(super) kid: String,
    pub(super) key: Result<ed25519_dalek::SigningKey, String>,
}

impl std::fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl ServerKey {
    /// `whsk_` and the base64 of an ed25519 key's 32-byte seed, or of its 64-byte key pair
    /// (seed, then public key: checked to match), as Standard Webhooks writes a signing key.
    fn parse(kid: String, text: &str) -> Self {
        use base64::Engine as _;
        let not_one = || {
            format!(
                "the webhook signing key `{kid}` is not a Standard Webhooks ed25519 key \
                 (`whsk_` and the base64 of its 32-byte seed or 64-byte key pair)"
            )
        };
        let key = text
            .strip_prefix("whsk_")
            .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
            .and_then(|bytes| match bytes.len() {
                32 => Some(ed25519_dalek::SigningKey::from_bytes(
                    &bytes.try_into().expect("32 bytes"),
                )),
                64 => ed25519_dalek::SigningKey::from_keypair_bytes(
                    &bytes.try_into().expect("64 bytes"),
                )
                .ok(),
                _ => None,
            })
            .ok_or_else(not_one);
        let key = match key {
            Ok(_) if kid.is_empty() || kid.chars().any(char::is_whitespace) => {
                Err(format!("the webhook signing key id `{kid}` is not usable"))
            }
            other => other,
        };
        Self { kid, key }
    }
}

impl Default for Webhooks {
    fn default() -> Self {
        Self::new()
    }
}

impl Webhooks {
    /// Grants an hour unless asked for less (at least a minute, at most a day); at most
    /// 1,024 subscriptions, 64 per principal; each delivery tried 4 times (after 1 s, 2 s,
    /// 4 s), each attempt given 5 s; `https` only, to public addresses only; a replaced
    /// secret signs beside the new one for 5 minutes.
    pub fn new() -> Self {
        Self {
            default_ttl: Duration::from_secs(3600),
            min_ttl: Duration::from_secs(60),
            max_ttl: Duration::from_secs(24 * 3600),
            max_subscriptions: 1024,
            max_per_principal: 64,
            attempts: 4,
            backoff: Duration::from_secs(1),
            timeout: Duration::from_secs(5),
            private_allowed: false,
            http_allowed: false,
            verified: Vec::new(),
            rotation_grace: Duration::from_secs(300),
            server_key: None,
            published: Vec::new(),
        }
    }

    /// The TTL granted when the client suggests none, and the bounds of any grant (a
    /// suggestion below `min` is raised to it; above `max`, or "no expiry", lowered to it).
    pub fn ttl(mut self, default: Duration, min: Duration, max: Duration) -> Self {
        self.min_ttl = min;
        self.max_ttl = max.max(min);
        self.default_ttl = default.clamp(self.min_ttl, self.max_ttl);
        self
    }

    /// At most `total` subscriptions, and `per_principal` of one principal; one more is
    /// refused with `-32025`.
    pub fn max_subscriptions(mut self, total: usize, per_principal: usize) -> Self {
        self.max_subscriptions = total;
        self.max_per_principal = per_principal;
        self
    }

    /// Tries each delivery `attempts` times, waiting `first_backoff` before the second try
    /// and twice as long before each next one.
    pub fn retries(mut self, attempts: u32, first_backoff: Duration) -> Self {
        self.attempts = attempts.max(1);
        self.backoff = first_backoff;
        self
    }

    /// How long one delivery attempt may take (default 5 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Delivers to private, loopback and other addresses that are not globally routable
    /// too. A callback URL is chosen by the caller: allow this only where every caller
    /// may reach your internal network (development, tests).
    pub fn allow_private_networks(mut self) -> Self {
        self.private_allowed = true;
        self
    }

    /// Accepts `http://` callback URLs (the draft requires `https`: payloads and
    /// signatures would travel in the clear). Development and tests only.
    pub fn allow_plain_http(mut self) -> Self {
        self.http_allowed = true;
        self
    }

    /// How long a subscription's replaced secret keeps signing deliveries beside the new
    /// one after a refresh rotates it (Standard Webhooks multi-signature: `webhook-signature:
    /// v1,<new> v1,<old>`), so that deliveries in flight verify under either secret while
    /// the receiver switches over. Default 5 minutes; zero signs with the new one alone.
    pub fn rotation_grace(mut self, grace: Duration) -> Self {
        self.rotation_grace = grace;
        self
    }

    /// Signs every delivery and verification POST with the server's own ed25519 key too
    /// (Standard Webhooks `v1a,`, after the subscription's `v1,` HMAC), so that a gateway
    /// can tell which server sent it and keeps its protection if a subscription's secret
    /// leaks. `key` is `whsk_` and the base64 of the key's 32-byte seed (`printf whsk_;
    /// head -c 32 /dev/urandom | base64`) or 64-byte key pair; `kid` names it. The public
    /// key is published where the draft provisionally puts it: the Server Card's
    /// `webhooks.signingKeys`, a JWK set (serve a card with
    /// [`ServerBuilder::server_card`](crate::ServerBuilder::server_card)). A key that does
    /// not read fails `build()`.
    pub fn signing_key(mut self, kid: impl Into<String>, key: &str) -> Self {
        self.server_key = Some(ServerKey::parse(kid.into(), key));
        self
    }

    /// Publishes the public key `kid` (`whpk_` and the base64 of its 32 bytes, as Standard
    /// Webhooks writes one) beside the signing key, without signing with it: how the key
    /// is rotated, as the draft asks ("rotation publishes the new key alongside the old").
    /// Publish the next key here first, switch [`signing_key`](Self::signing_key) to it
    /// once receivers have read the card again, and keep the old one published here while
    /// deliveries it signed may still arrive. A key that does not read fails `build()`.
    pub fn published_key(mut self, kid: impl Into<String>, key: &str) -> Self {
        use base64::Engine as _;
        let kid = kid.into();
        let parsed = key
            .strip_prefix("whpk_")
            .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .and_then(|bytes| ed25519_dalek::VerifyingKey::from_bytes(&bytes).ok())
            .ok_or_else(|| {
                format!(
                    "the published key `{kid}` is not a Standard Webhooks ed25519 public key \
                     (`whpk_` and the base64 of its 32 bytes)"
                )
            });
        self.published.push((kid, parsed));
        self
    }

    /// Callback URLs starting with `prefix` are known to want deliveries (an allowlist):
    /// no verification handshake is needed for them.
    pub fn verified(mut self, prefix: impl Into<String>) -> Self {
        self.verified.push(prefix.into());
        self
    }
}

/// One webhook subscription.
pub(super) struct Subscription {
    pub(super) id: String,
    pub(super) principal: String,
    pub(super) url: reqwest::Url,
    pub(super) secrets: Mutex<Secrets>,
    pub(super) expires: Mutex<Instant>,
    /// Ended by `events/unsubscribe` (or a newer subscription with its key).
    pub(super) ended: CancellationToken,
    pub(super) status: Mutex<Status>,
    /// The position every occurrence at or before which was delivered or given up on.
    pub(super) watermark: std::sync::atomic::AtomicU64,
}

/// A subscription's signing secrets: the current one, and the one a refresh replaced,
/// until its grace window ends.
pub(super) struct Secrets {
    current: Vec<u8>,
    previous: Option<(Vec<u8>, Instant)>,
}

impl Secrets {
    pub(super) fn new(current: Vec<u8>) -> Self {
        Self {
            current,
            previous: None,
        }
    }

    /// Makes `next` the current secret; the one it replaces keeps signing for `grace`
    /// (a refresh with the same secret changes nothing).
    pub(super) fn rotate(&mut self, next: Vec<u8>, grace: Duration) {
        if next == self.current {
            return;
        }
        let old = std::mem::replace(&mut self.current, next);
        self.previous = (!grace.is_zero()).then(|| (old, Instant::now() + grace));
    }

    /// The secrets that sign a delivery now, the current one first.
    pub(super) fn signing(&self) -> Vec<Vec<u8>> {
        let mut secrets = vec![self.current.clone()];
        if let Some((old, until)) = &self.previous
            && Instant::now() < *until
        {
            secrets.push(old.clone());
        }
        secrets
    }
}

/// What `deliveryStatus` says.
#[derive(Debug, Default, Clone)]
pub(super) struct Status {
    pub(super) last_delivery_at: Option<String>,
    pub(super) last_error: Option<&'static str>,
}

/// The webhook side of a built server.
pub(super) struct Hooks {
    pub(super) config: Webhooks,
    /// The server's key for `v1a,` signatures, and its id.
    pub(super) signer: Option<(String, ed25519_dalek::SigningKey)>,
    /// The public keys published beside it, and their ids.
    published: Vec<(String, ed25519_dalek::VerifyingKey)>,
    pub(super) http: reqwest::Client,
    pub(super) subscriptions: Mutex<HashMap<String, Arc<Subscription>>>,
    /// `(principal, url)` pairs whose endpoint proved it wants deliveries, until when.
    pub(super) verified: Mutex<HashMap<(String, String), Instant>>,
    /// Verification POSTs sent to each host in the current minute (a victim's URL cannot be
    /// flooded with challenges by subscribing it many times).
    pub(super) challenges: Mutex<HashMap<String, (Instant, u32)>>,
    /// The receiver-published documents read, by origin (`receiver.rs`).
    pub(super) receivers: Mutex<HashMap<String, (Instant, Vec<String>)>>,
}

impl Hooks {
    /// The public half of the server's key, then the keys published beside it, as a JWK
    /// set (`kty: OKP`, `crv: Ed25519`): what the Server Card publishes under
    /// `webhooks.signingKeys`.
    pub(super) fn signing_keys(&self) -> Option<serde_json::Value> {
        use base64::Engine as _;
        let keys: Vec<serde_json::Value> = (self.signer.iter())
            .map(|(kid, key)| (kid, key.verifying_key()))
            .chain(self.published.iter().map(|(kid, key)| (kid, *key)))
            .map(|(kid, key)| {
                let x = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(key.as_bytes());
                serde_json::json!({
                    "kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": kid, "x": x,
                })
            })
            .collect();
        (!keys.is_empty()).then(|| serde_json::json!({ "keys": keys }))
    }

    pub(super) fn new(config: Webhooks) -> Result<Self, String> {
        let signer = match &config.server_key {
            None => None,
            Some(ServerKey { kid, key }) => Some((kid.clone(), key.clone()?)),
        };
        let mut published = Vec::new();
        for (kid, key) in &config.published {
            let key = key.clone()?;
            let taken = signer.as_ref().is_some_and(|(k, _)| k == kid)
                || published.iter().any(|(k, _)| k == kid);
            if taken {
                return Err(format!("the webhook key id `{kid}` names two keys"));
            }
            published.push((kid.clone(), key));
        }
        let http = reqwest::Client::builder()
            .dns_resolver(Arc::new(super::address::Resolver {
                private_allowed: config.private_allowed,
            }))
            .redirect(reqwest::redirect::Policy::none())
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .build()
            .map_err(|e| format!("the webhook client: {e}"))?;
        Ok(Self {
            config,
            signer,
            published,
            http,
            subscriptions: Mutex::new(HashMap::new()),
            verified: Mutex::new(HashMap::new()),
            challenges: Mutex::new(HashMap::new()),
            receivers: Mutex::new(HashMap::new()),
        })
    }

    /// Takes one of the host's verification POSTs for this minute; `false` when they are
    /// spent.
    pub(super) fn may_challenge(&self, host: &str) -> bool {
        let now = Instant::now();
        let mut challenges = self.challenges.lock().expect("challenges");
        if challenges.len() > 4096 {
            challenges.retain(|_, (since, _)| now.duration_since(*since) < CHALLENGE_WINDOW);
        }
        let (since, sent) = challenges.entry(host.to_owned()).or_insert((now, 0));
        if now.duration_since(*since) >= CHALLENGE_WINDOW {
            (*since, *sent) = (now, 0);
        }
        if *sent >= CHALLENGES_PER_HOST {
            return false;
        }
        *sent += 1;
        true
    }

    pub(super) fn remove(&self, id: &str) {
        if let Some(sub) = self.subscriptions.lock().expect("subscriptions").remove(id) {
            sub.ended.cancel();
        }
    }
}
