//! [`AuthError`]: a mistake in the authorization settings.

/// A mistake in the authorization settings.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// The resource URI is not a canonical absolute URI.
    #[error("resource URI: {0}")]
    Resource(String),
    /// An issuer, authorization server or JWKS URL is not usable.
    #[error("authorization server: {0}")]
    Issuer(String),
    /// A scope is not an RFC 6749 scope token.
    #[error("scope {0:?} is not a scope token (printable ASCII without spaces, `\"` or `\\`)")]
    Scope(String),
}
