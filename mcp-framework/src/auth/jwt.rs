//! [`JwtVerifier`]: JWT access tokens (RFC 9068) checked as an OAuth 2.1 resource server
//! does: the `typ` header ([`TokenTypes`]), an asymmetric signature by one of the issuer's
//! keys, `iss`, `exp` and `nbf` with a leeway, and an `aud` that names this server's
//! canonical resource URI (RFC 8707).

use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation, decode, decode_header};
use serde_json::Value;

use super::canonical::{canonical, same_resource};
use super::claims::principal_of;
use super::error::AuthError;
use super::fetch::{Fetcher, check_url};
use super::introspection::{Client, Introspector, Limits};
use super::jwks::{KeySource, KeyStore, Refresh};
use super::verifier::{TokenError, TokenVerifier, Verified, VerifyFuture};
use crate::protocol::JsonObject;

/// The signature algorithms accepted: asymmetric ones only (no `none`, no HMAC, whose
/// "secret" would be the issuer's public key).
const ACCEPTED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The longest leeway accepted (a longer one is taken as this): a day.
const MAX_LEEWAY: Duration = Duration::from_secs(24 * 3600);

/// Which `typ` headers a [`JwtVerifier`] accepts (RFC 9068 §2.1: an access token is typed
/// `at+jwt`, RFC 8725 §3.11: a typed JWT cannot be mistaken for another kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TokenTypes {
    /// `at+jwt` (or `application/at+jwt`), and tokens that do not say what they are: no
    /// `typ`, or the generic `JWT`, as many issuers still sign their access tokens. A token
    /// typed as anything else (`dpop+jwt`, `logout+jwt`, `secevent+jwt`,
    /// `token-introspection+jwt`, …: JWTs the same issuer signs with the same keys, for
    /// other purposes) is refused. The default.
    #[default]
    AccessOrUntyped,
    /// Only `at+jwt` (or `application/at+jwt`), as RFC 9068 §4 asks of a resource server:
    /// choose it when the issuer types its access tokens (oidc-provider, and issuers
    /// following RFC 9068).
    AccessOnly,
}

impl TokenTypes {
    /// Whether a token whose header says `typ` is accepted (compared without case, with or
    /// without the `application/` prefix, RFC 7515 §4.1.9).
    fn accepts(self, typ: Option<&str>) -> bool {
        let Some(typ) = typ else {
            return self == Self::AccessOrUntyped;
        };
        let typ = typ.to_ascii_lowercase();
        let typ = typ.strip_prefix("application/").unwrap_or(&typ);
        typ == "at+jwt" || (self == Self::AccessOrUntyped && typ == "jwt")
    }
}

/// Checks JWT access tokens against the keys of their issuer.
///
/// The issuer's metadata (RFC 8414, or OpenID Connect Discovery) is fetched on first use
/// and names its JWKS; keys are kept, refreshed when an hour old and when a token names a
/// key id they lack (at most a burst of three, then one per 30 s). A server whose issuer is
/// down still starts: requests are answered `503` until the keys can be fetched.
///
/// ```no_run
/// use mcp_framework::auth::{Authorization, JwtVerifier};
/// use std::time::Duration;
///
/// let verifier = JwtVerifier::new("https://auth.example.com", "https://mcp.example.com/mcp")?
///     .leeway(Duration::from_secs(30));
/// let auth = Authorization::new("https://mcp.example.com/mcp", verifier)?
///     .authorization_server("https://auth.example.com");
/// # Ok::<(), mcp_framework::auth::AuthError>(())
/// ```
#[derive(Debug)]
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    leeway: Duration,
    types: TokenTypes,
    source: KeySource,
    refresh: Refresh,
    timeout: Duration,
    introspection: Option<Client>,
    introspection_limits: Limits,
    introspector: std::sync::OnceLock<Option<Introspector>>,
    keys: std::sync::OnceLock<KeyStore>,
}

impl JwtVerifier {
    /// Tokens issued by `issuer` (its exact identifier, as its metadata states it) for
    /// `audience`, this server's canonical resource URI (e.g. `https://mcp.example.com/mcp`).
    pub fn new(issuer: impl Into<String>, audience: impl AsRef<str>) -> Result<Self, AuthError> {
        let issuer = issuer.into();
        check_url(&issuer).map_err(AuthError::Issuer)?;
        let audience = canonical(audience.as_ref()).map_err(AuthError::Resource)?;
        Ok(Self {
            source: KeySource::Discovered {
                issuer: issuer.clone(),
            },
            issuer,
            audience,
            leeway: Duration::from_secs(60),
            types: TokenTypes::default(),
            refresh: Refresh {
                max_age: Duration::from_secs(3600),
                unknown_kid_interval: Duration::from_secs(30),
                retry_after_failure: Duration::from_secs(2),
            },
            timeout: Duration::from_secs(5),
            introspection: None,
            introspection_limits: Limits::default(),
            introspector: std::sync::OnceLock::new(),
            keys: std::sync::OnceLock::new(),
        })
    }

    /// How far `exp` and `nbf` may be off (clock skew; default 60 s, at most a day).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway.min(MAX_LEEWAY);
        self
    }

    /// Which `typ` headers are accepted (default [`TokenTypes::AccessOrUntyped`]: `at+jwt`,
    /// `JWT` or none). Refused tokens are answered `401 invalid_token`.
    ///
    /// ```
    /// use mcp_framework::auth::{JwtVerifier, TokenTypes};
    ///
    /// // An issuer that types its access tokens `at+jwt` (RFC 9068).
    /// let verifier = JwtVerifier::new("https://auth.example.com", "https://mcp.example.com/mcp")?
    ///     .token_types(TokenTypes::AccessOnly);
    /// # Ok::<(), mcp_framework::auth::AuthError>(())
    /// ```
    #[must_use]
    pub fn token_types(mut self, types: TokenTypes) -> Self {
        self.types = types;
        self
    }

    /// Takes the keys from this JWKS URL instead of the one the issuer's metadata names.
    pub fn jwks_uri(mut self, jwks_uri: impl Into<String>) -> Result<Self, AuthError> {
        let jwks_uri = jwks_uri.into();
        check_url(&jwks_uri).map_err(AuthError::Issuer)?;
        self.source = KeySource::Fixed { jwks_uri };
        Ok(self)
    }

    /// At most one key refresh for an unknown key id per `interval`, after a burst of three
    /// (default 30 s); keys are also refreshed once `max_age` old (default one hour).
    #[must_use]
    pub fn refresh(mut self, interval: Duration, max_age: Duration) -> Self {
        self.refresh.unknown_kid_interval = interval;
        self.refresh.max_age = max_age;
        self
    }

    /// How long a fetch from the issuer may take (default 5 s).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Checks tokens that are not JWTs (opaque tokens) with the issuer's RFC 7662
    /// introspection endpoint (named by its metadata), as this client. A valid token's
    /// answer is kept until the token expires, at most five minutes; a refused one (not
    /// active, another audience or issuer) is refused from memory for a minute (see
    /// [`introspection_negative_cache`](Self::introspection_negative_cache)); at most 16
    /// calls are in flight to the issuer at once (see
    /// [`introspection_concurrency`](Self::introspection_concurrency)).
    #[must_use]
    pub fn introspection(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.introspection = Some(Client {
            id: client_id.into(),
            secret: client_secret.into(),
        });
        self
    }

    /// Tokens the issuer's introspection refused are refused again without asking it, for
    /// `keep` (default 60 s), and at most `max` of them are remembered (default 10,000;
    /// when full, the expired go first, then an arbitrary half). Only the SHA-256 of a
    /// token is kept. `max` 0 turns this off. A token cannot become active once refused,
    /// so the only cost of a longer `keep` is memory; the benefit is that a client
    /// repeating a junk token costs the issuer one call per `keep`.
    #[must_use]
    pub fn introspection_negative_cache(mut self, keep: Duration, max: usize) -> Self {
        self.introspection_limits.refused_for = keep;
        self.introspection_limits.max_refused = max;
        self
    }

    /// At most `max` introspection calls are in flight to the issuer at once (default 16;
    /// at least 1). A request that finds them all taken waits up to `wait` for one
    /// (default 1 s), then is answered `503` with `Retry-After` and tried again by the
    /// client: a burst of junk tokens costs the issuer at most `max` calls at a time, and
    /// valid tokens queued behind them are delayed by at most `wait` before they are told
    /// to retry.
    #[must_use]
    pub fn introspection_concurrency(mut self, max: usize, wait: Duration) -> Self {
        self.introspection_limits.max_in_flight = max.max(1);
        self.introspection_limits.wait = wait;
        self
    }

    /// The issuer whose tokens are accepted.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub(crate) fn key_store(&self) -> &KeyStore {
        self.keys.get_or_init(|| {
            KeyStore::new(
                self.source.clone(),
                Fetcher::new(self.timeout),
                self.refresh,
            )
        })
    }

    async fn check(&self, token: &str) -> Result<Verified, TokenError> {
        let header = match decode_header(token) {
            Ok(header) => header,
            Err(e) => return self.opaque(token, &e.to_string()).await,
        };
        if !self.types.accepts(header.typ.as_deref()) {
            return Err(TokenError::invalid(match &header.typ {
                Some(typ) => format!("a token of type `{typ}` is not an access token (at+jwt)"),
                None => "the token has no type; access tokens are typed at+jwt".to_owned(),
            }));
        }
        if !ACCEPTED.contains(&header.alg) {
            return Err(TokenError::invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let key = self
            .key_store()
            .key(header.kid.as_deref(), header.alg)
            .await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "iss"]);
        validation.validate_aud = false;
        validation.validate_nbf = true;
        validation.leeway = self.leeway.as_secs();
        let data = decode::<JsonObject>(token, &key.decoding, &validation).map_err(|e| {
            TokenError::invalid(match e.kind() {
                ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
                ErrorKind::ImmatureSignature => "the token is not valid yet".to_owned(),
                ErrorKind::InvalidIssuer => "the token is from another issuer".to_owned(),
                ErrorKind::InvalidSignature => "the signature does not verify".to_owned(),
                _ => format!("the token does not validate: {e}"),
            })
        })?;
        let claims = data.claims;
        let audiences: Vec<&str> = match claims.get("aud") {
            Some(Value::String(a)) => vec![a.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !audiences.iter().any(|a| same_resource(&self.audience, a)) {
            return Err(TokenError::invalid(format!(
                "the token is not for this resource ({})",
                self.audience
            )));
        }
        Ok(principal_of(claims))
    }
}

impl JwtVerifier {
    /// A token that is not a JWT: introspected, when introspection is on.
    async fn opaque(&self, token: &str, why: &str) -> Result<Verified, TokenError> {
        let introspector = self.introspector.get_or_init(|| {
            self.introspection
                .clone()
                .map(|client| Introspector::new(client, self.introspection_limits))
        });
        let Some(introspector) = introspector else {
            return Err(TokenError::invalid(format!("not a JWT: {why}")));
        };
        if let Some(refused) = introspector.refused(token) {
            return Err(refused);
        }
        let store = self.key_store();
        let endpoint = store.introspection_endpoint().await?.ok_or_else(|| {
            TokenError::unavailable("the issuer's metadata names no introspection_endpoint")
        })?;
        introspector
            .check(
                store.fetcher(),
                &endpoint,
                token,
                &self.issuer,
                &self.audience,
            )
            .await
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_types() {
        let lenient = TokenTypes::AccessOrUntyped;
        let strict = TokenTypes::AccessOnly;
        for typ in [
            "at+jwt",
            "AT+JWT",
            "application/at+jwt",
            "Application/At+JWT",
        ] {
            assert!(lenient.accepts(Some(typ)), "{typ}");
            assert!(strict.accepts(Some(typ)), "{typ}");
        }
        for typ in [None, Some("JWT"), Some("jwt"), Some("application/jwt")] {
            assert!(lenient.accepts(typ), "{typ:?}");
            assert!(!strict.accepts(typ), "{typ:?}");
        }
        for typ in [
            "dpop+jwt",
            "logout+jwt",
            "token-introspection+jwt",
            "at+jwt ",
            "",
        ] {
            assert!(!lenient.accepts(Some(typ)), "{typ}");
            assert!(!strict.accepts(Some(typ)), "{typ}");
        }
    }
}
