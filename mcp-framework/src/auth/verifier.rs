//! The [`TokenVerifier`] seam: anything that turns a bearer token into a [`Principal`], and
//! the [`TokenError`]s it refuses one with.

use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;

use crate::principal::Principal;

/// The future of [`TokenVerifier::verify`].
pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<Verified, TokenError>> + Send + 'a>>;

/// Checks an access token and says who it was issued to. [`JwtVerifier`](super::JwtVerifier)
/// is the built-in one (JWTs against the issuer's keys); implement this for anything else
/// (introspection of your own, API keys, a token exchange).
///
/// A verifier is called once per distinct token until the expiry it reports: the framework
/// keeps what it answered (see [`Verified`]), so a verifier need not cache.
///
/// ```
/// use mcp_framework::Principal;
/// use mcp_framework::auth::{TokenError, TokenVerifier, Verified, VerifyFuture};
///
/// struct ApiKeys;
///
/// impl TokenVerifier for ApiKeys {
///     fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
///         Box::pin(async move {
///             match token {
///                 "k-ada" => Ok(Verified::new(Principal::new("ada").with_scopes(["notes"]))),
///                 _ => Err(TokenError::invalid("unknown API key")),
///             }
///         })
///     }
/// }
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal `token` stands for, or why it is refused.
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a>;
}

/// A token a [`TokenVerifier`] accepted: its principal, and until when the answer holds.
#[derive(Debug, Clone)]
pub struct Verified {
    pub(crate) principal: Principal,
    pub(crate) expires_at: Option<SystemTime>,
}

impl Verified {
    /// A principal; the answer is not kept (the verifier is asked again for the next request
    /// with the same token) unless [`until`](Self::until) says how long it holds.
    pub fn new(principal: Principal) -> Self {
        Self {
            principal,
            expires_at: None,
        }
    }

    /// The token is valid until `expires_at` (its `exp`): the answer is kept until then.
    #[must_use]
    pub fn until(mut self, expires_at: SystemTime) -> Self {
        self.expires_at = Some(expires_at);
        self
    }

    /// The principal.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not valid here: malformed, badly signed, expired, not yet valid, from
    /// another issuer, for another audience. Answered with `401` and
    /// `error="invalid_token"`.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The token cannot be checked now (the issuer's keys or metadata cannot be fetched).
    /// Answered with `503` and `Retry-After`; never taken as valid.
    #[error("the token cannot be checked now: {0}")]
    Unavailable(String),
}

impl TokenError {
    /// [`TokenError::Invalid`] with a reason (sent to the client as `error_description`).
    pub fn invalid(reason: impl Into<String>) -> Self {
        Self::Invalid(reason.into())
    }

    /// [`TokenError::Unavailable`] with a reason (logged, not sent).
    pub fn unavailable(reason: impl Into<String>) -> Self {
        Self::Unavailable(reason.into())
    }
}
