//! The issuer's signing keys (its JWKS), fetched on first use and kept: refreshed when they
//! grow old, and when a token names a key id they lack, at a bounded rate (a burst, then one
//! refresh per interval), so that tokens with made-up key ids cannot make the server fetch
//! without end. One fetch at a time; a failed fetch is not retried before a short pause.
//! Only asymmetric signature keys are kept (no `oct` keys: a public key is never an HMAC
//! secret).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::Value;

use super::discovery::{IssuerMetadata, discover};
use super::fetch::Fetcher;
use super::verifier::TokenError;

/// Where the keys come from.
#[derive(Debug, Clone)]
pub(crate) enum KeySource {
    /// The issuer's metadata names its `jwks_uri`.
    Discovered { issuer: String },
    /// A `jwks_uri` given directly.
    Fixed { jwks_uri: String },
}

/// How keys are refreshed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Refresh {
    /// Keys older than this are fetched again when next used.
    pub(crate) max_age: Duration,
    /// One refresh for an unknown key id per this interval (after a burst of three).
    pub(crate) unknown_kid_interval: Duration,
    /// After a failed fetch, requests are refused for this long without fetching again.
    pub(crate) retry_after_failure: Duration,
}

/// One signature key.
pub(crate) struct Key {
    pub(crate) decoding: DecodingKey,
    /// The key's `alg`, when it states one.
    alg: Option<Algorithm>,
    family: AlgorithmFamily,
    curve: Option<EllipticCurve>,
}

impl Key {
    /// Whether this key may check a signature made with `alg`.
    pub(crate) fn fits(&self, alg: Algorithm) -> bool {
        alg.family() == self.family
            && self.alg.is_none_or(|a| a == alg)
            && match alg {
                Algorithm::ES256 => self.curve == Some(EllipticCurve::P256),
                Algorithm::ES384 => self.curve == Some(EllipticCurve::P384),
                Algorithm::EdDSA => self.curve == Some(EllipticCurve::Ed25519),
                _ => true,
            }
    }
}

/// The keys of one fetch.
struct KeySet {
    by_kid: HashMap<String, Arc<Key>>,
    /// Keys without a `kid`.
    unnamed: Vec<Arc<Key>>,
    fetched: Instant,
}

/// What was learnt of the last fetches.
struct Attempts {
    last_failure: Option<(Instant, TokenError)>,
    /// Unknown-kid refreshes left, and when one was last added back.
    budget: f64,
    budget_at: Instant,
    metadata: Option<IssuerMetadata>,
}

const UNKNOWN_KID_BURST: f64 = 3.0;

/// The cached keys of one issuer.
pub(crate) struct KeyStore {
    source: KeySource,
    fetcher: Fetcher,
    refresh: Refresh,
    keys: RwLock<Option<Arc<KeySet>>>,
    /// Held while fetching: one fetch at a time.
    attempts: tokio::sync::Mutex<Attempts>,
}

impl std::fmt::Debug for KeyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyStore")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// Why a fetch is made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    Missing,
    Old,
    UnknownKid,
}

impl KeyStore {
    pub(crate) fn new(source: KeySource, fetcher: Fetcher, refresh: Refresh) -> Self {
        Self {
            source,
            fetcher,
            refresh,
            keys: RwLock::new(None),
            attempts: tokio::sync::Mutex::new(Attempts {
                last_failure: None,
                budget: UNKNOWN_KID_BURST,
                budget_at: Instant::now(),
                metadata: None,
            }),
        }
    }

    /// The client fetches go through.
    pub(crate) fn fetcher(&self) -> &Fetcher {
        &self.fetcher
    }

    fn current(&self) -> Option<Arc<KeySet>> {
        self.keys.read().expect("keys").clone()
    }

    /// The introspection endpoint the issuer's metadata names (fetching it if needed).
    pub(crate) async fn introspection_endpoint(&self) -> Result<Option<String>, TokenError> {
        let mut attempts = self.attempts.lock().await;
        self.metadata(&mut attempts)
            .await
            .map(|m| m.and_then(|m| m.introspection_endpoint))
    }

    async fn metadata(
        &self,
        attempts: &mut Attempts,
    ) -> Result<Option<IssuerMetadata>, TokenError> {
        let KeySource::Discovered { issuer } = &self.source else {
            return Ok(None);
        };
        if attempts.metadata.is_none() {
            attempts.metadata = Some(discover(&self.fetcher, issuer).await?);
        }
        Ok(attempts.metadata.clone())
    }

    /// The key that checks a token signed with `alg` under key id `kid`.
    pub(crate) async fn key(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Key>, TokenError> {
        let keys = match self.current() {
            Some(keys) if keys.fetched.elapsed() < self.refresh.max_age => keys,
            Some(old) => match self.fetch(Why::Old, old.fetched).await {
                Ok(keys) => keys,
                Err(e) => {
                    tracing::warn!(error = %e, "the issuer's keys could not be refreshed; using the old ones");
                    old
                }
            },
            None => self.fetch(Why::Missing, Instant::now()).await?,
        };
        if let Some(key) = pick(&keys, kid, alg)? {
            return Ok(key);
        }
        let Some(_) = kid else {
            return Err(TokenError::invalid(format!(
                "no key of the issuer fits {alg:?} tokens"
            )));
        };
        // A key id the keys lack: perhaps the issuer rotated its keys.
        let keys = self.fetch(Why::UnknownKid, keys.fetched).await?;
        pick(&keys, kid, alg)?.ok_or_else(|| {
            TokenError::invalid("the token's key id is not one of the issuer's keys")
        })
    }

    /// Fetches the keys unless another fetch since `seen` already did, or the rules of
    /// `why` say not now (then the keys as they are).
    async fn fetch(&self, why: Why, seen: Instant) -> Result<Arc<KeySet>, TokenError> {
        let mut attempts = self.attempts.lock().await;
        // Another fetch finished while this one waited: its keys are as new as they get.
        if let Some(keys) = self.current()
            && keys.fetched > seen
        {
            return Ok(keys);
        }
        if let Some((at, e)) = &attempts.last_failure
            && at.elapsed() < self.refresh.retry_after_failure
        {
            return match self.current() {
                Some(keys) if why == Why::UnknownKid => Ok(keys),
                _ => Err(e.clone()),
            };
        }
        if why == Why::UnknownKid {
            let now = Instant::now();
            let interval = self.refresh.unknown_kid_interval.as_secs_f64().max(1e-3);
            attempts.budget = (attempts.budget
                + now.duration_since(attempts.budget_at).as_secs_f64() / interval)
                .min(UNKNOWN_KID_BURST);
            attempts.budget_at = now;
            if attempts.budget < 1.0 {
                return self
                    .current()
                    .ok_or_else(|| TokenError::unavailable("no keys yet"));
            }
            attempts.budget -= 1.0;
        }
        match self.download(&mut attempts).await {
            Ok(keys) => {
                attempts.last_failure = None;
                let keys = Arc::new(keys);
                *self.keys.write().expect("keys") = Some(keys.clone());
                Ok(keys)
            }
            Err(e) => {
                tracing::warn!(error = %e, "fetching the issuer's keys failed");
                // Metadata may have moved: discover it again next time.
                attempts.metadata = None;
                attempts.last_failure = Some((Instant::now(), e.clone()));
                Err(e)
            }
        }
    }

    async fn download(&self, attempts: &mut Attempts) -> Result<KeySet, TokenError> {
        let jwks_uri = match &self.source {
            KeySource::Fixed { jwks_uri } => jwks_uri.clone(),
            KeySource::Discovered { .. } => self
                .metadata(attempts)
                .await?
                .map(|m| m.jwks_uri)
                .unwrap_or_default(),
        };
        let doc = self.fetcher.get_json(&jwks_uri).await?;
        let keys = parse(&doc);
        tracing::debug!(
            jwks_uri,
            keys = keys.by_kid.len() + keys.unnamed.len(),
            "issuer keys fetched"
        );
        Ok(keys)
    }
}

/// The key for `kid` and `alg`: `Ok(None)` when the set lacks the key id, an error when the
/// key named does not fit the algorithm.
fn pick(keys: &KeySet, kid: Option<&str>, alg: Algorithm) -> Result<Option<Arc<Key>>, TokenError> {
    match kid {
        Some(kid) => match keys.by_kid.get(kid) {
            Some(key) if key.fits(alg) => Ok(Some(key.clone())),
            Some(_) => Err(TokenError::invalid(format!(
                "the key `{kid}` does not sign {alg:?} tokens"
            ))),
            None => Ok(None),
        },
        None => {
            let mut fitting = keys
                .unnamed
                .iter()
                .chain(keys.by_kid.values())
                .filter(|k| k.fits(alg));
            match (fitting.next(), fitting.next()) {
                (Some(key), None) => Ok(Some(key.clone())),
                (Some(_), Some(_)) => Err(TokenError::invalid(
                    "the token names no key id and the issuer has several keys",
                )),
                (None, _) => Ok(None),
            }
        }
    }
}

/// The signature keys of a JWKS document; keys that cannot be read, encryption keys and
/// symmetric keys are left out.
fn parse(doc: &Value) -> KeySet {
    let mut set = KeySet {
        by_kid: HashMap::new(),
        unnamed: Vec::new(),
        fetched: Instant::now(),
    };
    let entries = doc
        .get("keys")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for entry in entries {
        let Ok(jwk) = serde_json::from_value::<Jwk>(entry) else {
            continue;
        };
        if matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature) {
            continue;
        }
        let (family, curve) = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => (AlgorithmFamily::Rsa, None),
            AlgorithmParameters::EllipticCurve(p) => (AlgorithmFamily::Ec, Some(p.curve.clone())),
            AlgorithmParameters::OctetKeyPair(p) => (AlgorithmFamily::Ed, Some(p.curve.clone())),
            _ => continue,
        };
        let alg = match jwk.common.key_algorithm {
            Some(a) => match a.to_string().parse::<Algorithm>() {
                Ok(alg) if alg.family() == family => Some(alg),
                _ => continue,
            },
            None => None,
        };
        let Ok(decoding) = DecodingKey::from_jwk(&jwk) else {
            continue;
        };
        let key = Arc::new(Key {
            decoding,
            alg,
            family,
            curve,
        });
        match jwk.common.key_id {
            Some(kid) => {
                set.by_kid.insert(kid, key);
            }
            None => set.unnamed.push(key),
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_and_encryption_keys_are_left_out() {
        let doc = serde_json::json!({"keys": [
            {"kty": "oct", "kid": "h", "k": "c2VjcmV0"},
            {"kty": "EC", "kid": "e", "use": "enc", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "kid": "s", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "whatever"}
        ]});
        let set = parse(&doc);
        assert_eq!(set.by_kid.keys().collect::<Vec<_>>(), ["s"]);
        let key = &set.by_kid["s"];
        assert!(key.fits(Algorithm::ES256));
        assert!(!key.fits(Algorithm::ES384));
        assert!(!key.fits(Algorithm::HS256));
        assert!(!key.fits(Algorithm::RS256));
    }
}
