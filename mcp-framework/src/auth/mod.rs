//! Authorization (feature `auth`): the server as an OAuth 2.1 resource server, as the MCP
//! specification's authorization chapter asks of HTTP servers.
//!
//! An [`Authorization`] says which resource this server is (its canonical URI), which
//! authorization servers issue its tokens, and how a token is checked (a
//! [`TokenVerifier`]: [`JwtVerifier`] for JWTs, or your own). With it on the HTTP
//! transport ([`ServerBuilder::authorization`](crate::ServerBuilder::authorization)),
//! every request to the endpoint needs a bearer token: a request without one, or with one
//! that does not validate, is answered `401` with a `WWW-Authenticate` challenge naming the
//! Protected Resource Metadata (RFC 9728), which the server publishes at
//! `/.well-known/oauth-protected-resource` (and at the path-suffixed URL of its endpoint).
//! The validated token becomes the request's [`Principal`]; items that
//! require scopes (`#[tool(scopes = […])]`) are refused with `403 insufficient_scope`, or
//! hidden (see [`ScopePolicy`](crate::ScopePolicy)). Over stdio nothing of this applies: a
//! local server takes its credentials from its environment.

mod cache;
mod canonical;
mod claims;
mod discovery;
mod error;
mod fetch;
mod introspection;
mod jwks;
mod jwt;
mod verifier;

use std::fmt;
use std::sync::Arc;

use axum::http::HeaderMap;
use serde_json::{Value, json};

pub use error::AuthError;
pub use jwt::{JwtVerifier, TokenTypes};
pub use verifier::{TokenError, TokenVerifier, Verified, VerifyFuture};

use crate::principal::{Principal, ScopeRules};

/// How the HTTP endpoint authenticates requests: see the [module documentation](self).
///
/// ```no_run
/// use mcp_framework::Server;
/// use mcp_framework::auth::Authorization;
///
/// let auth = Authorization::jwt("https://auth.example.com", "https://mcp.example.com/mcp")?
///     .required_scopes(["mcp"])?;
/// let server = Server::builder().authorization(auth).build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Authorization {
    resource: String,
    authorization_servers: Vec<String>,
    verifier: Arc<dyn TokenVerifier>,
    required_scopes: Vec<Arc<str>>,
    scopes_supported: Option<Vec<String>>,
    resource_name: Option<String>,
    documentation: Option<String>,
    cache: cache::TokenCache<Principal>,
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

/// Why a request was not authenticated.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// No credentials (`401`, no error code).
    Missing,
    /// A malformed `Authorization` header, or a token in the query (`400`).
    Malformed(&'static str),
    /// The token is not valid here (`401 invalid_token`).
    Invalid(String),
    /// The token cannot be checked now (`503`).
    Unavailable(String),
    /// Valid, without the server's required scopes (`403 insufficient_scope`).
    InsufficientScope,
}

/// The longest token accepted.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

impl Authorization {
    /// JWT access tokens of `issuer` for `resource`, this server's canonical URI (the
    /// audience its tokens must name): a [`JwtVerifier`] with its defaults, and `issuer` as
    /// the one authorization server of the metadata.
    pub fn jwt(issuer: impl Into<String>, resource: impl AsRef<str>) -> Result<Self, AuthError> {
        let issuer = issuer.into();
        let verifier = JwtVerifier::new(issuer.clone(), resource.as_ref())?;
        Ok(Self::new(resource, verifier)?.authorization_server(issuer))
    }

    /// Tokens checked by `verifier`, for `resource` (this server's canonical URI). Name the
    /// authorization servers with [`authorization_server`](Self::authorization_server).
    pub fn new(resource: impl AsRef<str>, verifier: impl TokenVerifier) -> Result<Self, AuthError> {
        let resource = canonical::canonical(resource.as_ref()).map_err(AuthError::Resource)?;
        Ok(Self {
            resource,
            authorization_servers: Vec::new(),
            verifier: Arc::new(verifier),
            required_scopes: Vec::new(),
            scopes_supported: None,
            resource_name: None,
            documentation: None,
            cache: cache::TokenCache::new(10_000),
        })
    }

    /// Adds an authorization server (its issuer identifier) to the metadata.
    #[must_use]
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        if !self.authorization_servers.contains(&issuer) {
            self.authorization_servers.push(issuer);
        }
        self
    }

    /// Scopes every request's token must grant (a token without them is answered `403`);
    /// they are also the `scope` of the `401` challenge and, unless
    /// [`scopes_supported`](Self::scopes_supported) says otherwise, of the metadata.
    pub fn required_scopes<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Result<Self, AuthError> {
        for scope in scopes {
            let scope = scope.into();
            if !crate::principal::Requirement::valid_scope(&scope) {
                return Err(AuthError::Scope(scope));
            }
            if !self.required_scopes.iter().any(|s| **s == *scope) {
                self.required_scopes.push(scope.into());
            }
        }
        Ok(self)
    }

    /// The metadata's `scopes_supported`: the scopes a client asks for to start with (the
    /// MCP specification: the minimal set for basic use; more come by step-up). Default:
    /// the required scopes and every scope a served item requires.
    #[must_use]
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// `scopes_supported` when none was set: the required scopes and `scopes`.
    pub(crate) fn default_scopes_supported(&mut self, scopes: Vec<String>) {
        if self.scopes_supported.is_none() {
            let mut all = self.required();
            all.extend(
                scopes
                    .into_iter()
                    .filter(|s| !self.required_scopes.iter().any(|r| **r == **s)),
            );
            self.scopes_supported = (!all.is_empty()).then_some(all);
        }
    }

    /// The metadata's `resource_name` (shown to users by clients).
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The metadata's `resource_documentation` URL.
    #[must_use]
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.documentation = Some(url.into());
        self
    }

    /// This server's canonical resource URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The server-wide required scopes.
    pub(crate) fn required(&self) -> Vec<String> {
        self.required_scopes.iter().map(|s| s.to_string()).collect()
    }

    /// The principal of the request whose headers and query are these.
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
        query: Option<&str>,
        rules: &ScopeRules,
    ) -> Result<Principal, Refusal> {
        if query.is_some_and(|q| {
            q.split('&')
                .any(|pair| pair.split('=').next() == Some("access_token"))
        }) {
            return Err(Refusal::Malformed(
                "access tokens go in the Authorization header, never in the URL",
            ));
        }
        let token = bearer_token(headers)?;
        let principal = match self.cache.get(token) {
            Some(principal) => principal,
            None => {
                let verified = self.verifier.verify(token).await.map_err(|e| match e {
                    TokenError::Invalid(reason) => Refusal::Invalid(reason),
                    TokenError::Unavailable(reason) => Refusal::Unavailable(reason),
                })?;
                if let Some(until) = verified.expires_at {
                    self.cache.put(token, verified.principal.clone(), until);
                }
                verified.principal
            }
        };
        if !rules
            .missing(principal.scopes(), &self.required_scopes)
            .is_empty()
        {
            return Err(Refusal::InsufficientScope);
        }
        Ok(principal)
    }

    /// The URL of the Protected Resource Metadata: the well-known path inserted before the
    /// resource URI's path (RFC 9728 §3.1).
    pub(crate) fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// The paths the metadata is served at: the path-suffixed one, and the root one.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let (_, path) = split_origin(&self.resource);
        let root = "/.well-known/oauth-protected-resource".to_owned();
        if path.is_empty() {
            vec![root]
        } else {
            vec![format!("{root}{path}"), root]
        }
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub(crate) fn metadata(&self) -> Value {
        let mut doc = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        let scopes = self
            .scopes_supported
            .clone()
            .unwrap_or_else(|| self.required());
        if !scopes.is_empty() {
            doc["scopes_supported"] = json!(scopes);
        }
        if let Some(name) = &self.resource_name {
            doc["resource_name"] = json!(name);
        }
        if let Some(url) = &self.documentation {
            doc["resource_documentation"] = json!(url);
        }
        doc
    }
}

/// `https://h:1/a/b` → (`https://h:1`, `/a/b`).
fn split_origin(uri: &str) -> (&str, &str) {
    let start = uri.find("://").map_or(0, |i| i + 3);
    match uri[start..].find(['/', '?']) {
        Some(i) => uri.split_at(start + i),
        None => (uri, ""),
    }
}

/// The token of the one `Authorization: Bearer …` header.
fn bearer_token(headers: &HeaderMap) -> Result<&str, Refusal> {
    let mut values = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Refusal::Missing);
    };
    if values.next().is_some() {
        return Err(Refusal::Malformed("more than one Authorization header"));
    }
    let value = value
        .to_str()
        .map_err(|_| Refusal::Malformed("the Authorization header is not ASCII"))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Another scheme: no bearer credentials.
        return Err(Refusal::Missing);
    }
    let token = token.trim_start_matches(' ');
    // b64token (RFC 6750 §2.1).
    let body = token.trim_end_matches('=');
    if token.is_empty()
        || token.len() > MAX_TOKEN_BYTES
        || body.is_empty()
        || !body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        })
    {
        return Err(Refusal::Malformed("the bearer token is malformed"));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(axum::http::header::AUTHORIZATION, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn bearer_tokens_are_read_strictly() {
        assert_eq!(
            bearer_token(&headers(&["Bearer abc.def-_~+/=="])).ok(),
            Some("abc.def-_~+/==")
        );
        assert_eq!(bearer_token(&headers(&["bearer abc"])).ok(), Some("abc"));
        assert!(matches!(bearer_token(&headers(&[])), Err(Refusal::Missing)));
        assert!(matches!(
            bearer_token(&headers(&["Basic YTpi"])),
            Err(Refusal::Missing)
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer "])),
            Err(Refusal::Malformed(_))
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer a b"])),
            Err(Refusal::Malformed(_))
        ));
        assert!(matches!(
            bearer_token(&headers(&["Bearer a", "Bearer b"])),
            Err(Refusal::Malformed(_))
        ));
    }

    #[test]
    fn metadata_locations() {
        struct Never;
        impl TokenVerifier for Never {
            fn verify<'a>(&'a self, _: &'a str) -> VerifyFuture<'a> {
                Box::pin(async { Err(TokenError::invalid("never")) })
            }
        }
        let a = Authorization::new("HTTPS://MCP.example.com/mcp", Never).unwrap();
        assert_eq!(a.resource(), "https://mcp.example.com/mcp");
        assert_eq!(
            a.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            a.metadata_paths(),
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        let root = Authorization::new("https://mcp.example.com", Never).unwrap();
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            root.metadata_paths(),
            ["/.well-known/oauth-protected-resource"]
        );
        assert!(Authorization::new("mcp.example.com", Never).is_err());
    }
}
