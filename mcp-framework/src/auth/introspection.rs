//! Opaque access tokens checked by the authorization server (RFC 7662 token introspection):
//! the answer must say `active`, name this server in `aud` and, when it states one, the
//! expected issuer. Bounded, so that junk tokens cannot turn into as many calls to the
//! issuer: a token found invalid is refused from memory for a while (keyed by its digest),
//! and at most so many calls are in flight to the issuer at once; a request that finds
//! them all taken waits a moment for one, then is answered `503` with `Retry-After`.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Semaphore;

use super::cache::TokenCache;
use super::canonical::same_resource;
use super::claims::principal_of;
use super::fetch::Fetcher;
use super::verifier::{TokenError, Verified};

/// The client credentials the server introspects with.
#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) id: String,
    pub(crate) secret: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The bounds of introspection (see [`JwtVerifier`](super::JwtVerifier)'s
/// `introspection_*` settings).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Calls in flight to the issuer at once.
    pub(crate) max_in_flight: usize,
    /// How long a request waits for a place among them.
    pub(crate) wait: Duration,
    /// How long a refused token is refused from memory.
    pub(crate) refused_for: Duration,
    /// How many refused tokens are remembered.
    pub(crate) max_refused: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_in_flight: 16,
            wait: Duration::from_secs(1),
            refused_for: Duration::from_secs(60),
            max_refused: 10_000,
        }
    }
}

/// Introspection for one issuer, within its [`Limits`].
#[derive(Debug)]
pub(crate) struct Introspector {
    client: Client,
    limits: Limits,
    calls: Semaphore,
    /// Why a token was refused, by its digest.
    refused: TokenCache<Arc<str>>,
}

impl Introspector {
    pub(crate) fn new(client: Client, limits: Limits) -> Self {
        Self {
            client,
            calls: Semaphore::new(limits.max_in_flight.max(1)),
            refused: TokenCache::new(limits.max_refused),
            limits,
        }
    }

    /// A refusal of `token` still remembered.
    pub(crate) fn refused(&self, token: &str) -> Option<TokenError> {
        self.refused
            .get(token)
            .map(|why| TokenError::Invalid(why.to_string()))
    }

    /// Asks `endpoint` about `token`, within the limits.
    pub(crate) async fn check(
        &self,
        fetcher: &Fetcher,
        endpoint: &str,
        token: &str,
        issuer: &str,
        audience: &str,
    ) -> Result<Verified, TokenError> {
        if let Some(refused) = self.refused(token) {
            return Err(refused);
        }
        let Ok(Ok(_permit)) = tokio::time::timeout(self.limits.wait, self.calls.acquire()).await
        else {
            return Err(TokenError::unavailable(format!(
                "{} introspection calls to the issuer are in flight; none ended within {:?}",
                self.limits.max_in_flight.max(1),
                self.limits.wait
            )));
        };
        // Another request may have learnt about this token while this one waited.
        if let Some(refused) = self.refused(token) {
            return Err(refused);
        }
        let result = introspect(fetcher, endpoint, &self.client, token, issuer, audience).await;
        if let Err(TokenError::Invalid(why)) = &result {
            self.refused
                .keep(token, Arc::from(why.as_str()), self.limits.refused_for);
        }
        result
    }
}

/// Asks `endpoint` about `token`.
async fn introspect(
    fetcher: &Fetcher,
    endpoint: &str,
    client: &Client,
    token: &str,
    issuer: &str,
    audience: &str,
) -> Result<Verified, TokenError> {
    let answer = fetcher
        .post_form(
            endpoint,
            (&client.id, &client.secret),
            &[("token", token), ("token_type_hint", "access_token")],
        )
        .await?;
    read(answer, issuer, audience)
}

fn read(answer: Value, issuer: &str, audience: &str) -> Result<Verified, TokenError> {
    let Value::Object(claims) = answer else {
        return Err(TokenError::unavailable(
            "the introspection answer is not an object",
        ));
    };
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err(TokenError::invalid("the token is not active"));
    }
    if let Some(iss) = claims.get("iss").and_then(Value::as_str)
        && iss != issuer
    {
        return Err(TokenError::invalid("the token is from another issuer"));
    }
    let for_us = match claims.get("aud") {
        Some(Value::String(a)) => same_resource(audience, a),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .any(|a| same_resource(audience, a)),
        _ => false,
    };
    if !for_us {
        return Err(TokenError::invalid(format!(
            "the token is not for this resource ({audience})"
        )));
    }
    Ok(principal_of(claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers() {
        let (iss, aud) = ("https://as", "https://rs/mcp");
        let ok = read(
            json!({"active": true, "aud": aud, "sub": "ada", "scope": "a b", "exp": 4102444800u64}),
            iss,
            aud,
        )
        .unwrap();
        assert_eq!(ok.principal().subject(), "ada");
        assert!(ok.principal().scopes().contains("b"));
        assert!(ok.expires_at.is_some());
        assert!(matches!(
            read(json!({"active": false}), iss, aud),
            Err(TokenError::Invalid(_))
        ));
        assert!(matches!(
            read(json!({"active": true, "aud": "https://other"}), iss, aud),
            Err(TokenError::Invalid(_))
        ));
        assert!(matches!(
            read(json!({"active": true}), iss, aud),
            Err(TokenError::Invalid(_))
        ));
        assert!(matches!(
            read(
                json!({"active": true, "aud": aud, "iss": "https://evil"}),
                iss,
                aud
            ),
            Err(TokenError::Invalid(_))
        ));
    }
}
