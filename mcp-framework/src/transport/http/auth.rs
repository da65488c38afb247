//! Authorization on the endpoint (feature `auth`): the bearer token of every request
//! checked before its body is read (`401`, `400`, `403` or `503` with their challenges),
//! the Protected Resource Metadata routes, and the `403` of a call that lacks an item's
//! scopes (with or without an [`Authorization`]: a layer of the application may have
//! inserted the principal).

#[cfg(feature = "auth")]
use std::sync::Arc;

#[cfg(feature = "auth")]
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
#[cfg(feature = "auth")]
use bytes::Bytes;

use super::response::error_response;
#[cfg(feature = "auth")]
use super::response::{json_response, unavailable};
#[cfg(feature = "auth")]
use crate::protocol::codes;
use crate::protocol::{ErrorObject, RequestId};

use super::challenge::{ErrorCode, bearer};
use super::endpoint::Endpoint;
#[cfg(feature = "auth")]
use crate::auth::{Authorization, Refusal};
#[cfg(feature = "auth")]
use crate::principal::ScopeRules;

/// Authenticates the request of `parts`: its principal goes into the extensions, or the
/// refusal is the answer.
#[cfg(feature = "auth")]
pub(super) async fn authenticate(
    auth: &Authorization,
    rules: &ScopeRules,
    parts: &mut Parts,
) -> Result<(), Response> {
    match auth
        .authenticate(&parts.headers, parts.uri.query(), rules)
        .await
    {
        Ok(principal) => {
            parts.extensions.insert(principal);
            Ok(())
        }
        Err(refusal) => Err(refused(auth, &refusal)),
    }
}

#[cfg(feature = "auth")]
fn refused(auth: &Authorization, refusal: &Refusal) -> Response {
    let (status, code, scopes, message) = match refusal {
        Refusal::Missing => (
            StatusCode::UNAUTHORIZED,
            ErrorCode::None,
            auth.required(),
            "Unauthorized: this server needs a bearer token".to_owned(),
        ),
        Refusal::Malformed(why) => (
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            Vec::new(),
            format!("Bad request: {why}"),
        ),
        Refusal::Invalid(why) => (
            StatusCode::UNAUTHORIZED,
            ErrorCode::InvalidToken,
            auth.required(),
            format!("Unauthorized: {why}"),
        ),
        Refusal::InsufficientScope => (
            StatusCode::FORBIDDEN,
            ErrorCode::InsufficientScope,
            auth.required(),
            "Forbidden: the token lacks the scopes this server requires".to_owned(),
        ),
        Refusal::Unavailable(why) => {
            tracing::warn!(reason = %why, "a token could not be checked");
            return unavailable(
                None,
                &ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    "Service Unavailable: the token cannot be checked now, retry later",
                ),
            );
        }
    };
    tracing::debug!(status = status.as_u16(), reason = %message, "request refused");
    let description = match refusal {
        Refusal::Invalid(why) => Some(why.as_str()),
        Refusal::Malformed(why) => Some(*why),
        _ => None,
    };
    let mut r = error_response(
        status,
        None,
        &ErrorObject::new(codes::INVALID_REQUEST, message),
    );
    let challenge = bearer(Some(&auth.metadata_url()), code, &scopes, description);
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

/// The Protected Resource Metadata document (RFC 9728), readable from any origin.
#[cfg(feature = "auth")]
pub(super) fn metadata(auth: &Arc<Authorization>) -> Response {
    let body = Bytes::from(auth.metadata().to_string());
    let mut r = super::cors::public(json_response(StatusCode::OK, body));
    r.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=300"),
    );
    r
}

/// `403 Forbidden` for a call lacking `scopes`, with the step-up challenge for them.
pub(super) fn forbidden(
    ep: &Endpoint,
    id: Option<&RequestId>,
    error: &ErrorObject,
    scopes: &[String],
) -> Response {
    #[cfg(feature = "auth")]
    let metadata = ep.auth.as_deref().map(Authorization::metadata_url);
    #[cfg(not(feature = "auth"))]
    let metadata: Option<String> = {
        let _ = ep;
        None
    };
    let challenge = bearer(
        metadata.as_deref(),
        ErrorCode::InsufficientScope,
        scopes,
        None,
    );
    let mut r = error_response(StatusCode::FORBIDDEN, id, error);
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}
