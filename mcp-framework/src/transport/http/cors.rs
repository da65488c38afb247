//! CORS for browser apps on other origins ([`HttpConfig::cors`](crate::HttpConfig::cors)):
//! tower-http's [`CorsLayer`], asking the endpoint's own `Origin` policy which origins are
//! allowed, so that the check and the CORS answers never disagree.
//!
//! The request headers a preflight asks for are allowed as asked: the MCP headers include
//! the open-ended `Mcp-Param-{Name}` family (one per `x-mcp-header` of a tool), which a
//! fixed list cannot name, and a user's layers may read headers of their own. The origin
//! list is the gate; an origin that is not allowed gets no `Access-Control-Allow-Origin`,
//! so its browser reads nothing.
//!
//! Public documents (metadata, cards) are readable from every origin: [`public`].

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method, header};
use axum::response::Response;
use tower_http::cors::{AllowHeaders, AllowMethods, AllowOrigin, CorsLayer, ExposeHeaders};

use super::checks::origin::OriginPolicy;
use super::config::HttpConfig;
use super::endpoint::SESSION_HEADER;

/// How long a browser may cache a preflight's answer.
const MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// The CORS layer of an endpoint, when CORS is on: asked for with `cors(true)`, or by
/// default when origins are listed.
pub(super) fn layer(config: &HttpConfig, origins: &OriginPolicy) -> Option<CorsLayer> {
    if !config.cors.unwrap_or_else(|| origins.is_configured()) {
        return None;
    }
    let policy = origins.clone();
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::predicate(move |origin, _| {
                policy.admit(origin).is_ok()
            }))
            .allow_methods(AllowMethods::list([
                Method::GET,
                Method::POST,
                Method::DELETE,
            ]))
            .allow_headers(AllowHeaders::mirror_request())
            .expose_headers(ExposeHeaders::list([
                HeaderName::from_static(SESSION_HEADER),
                axum::http::header::WWW_AUTHENTICATE,
            ]))
            .max_age(MAX_AGE),
    )
}

/// `response` with the CORS headers of a public, read-only document any origin may read
/// (Protected Resource Metadata, the Server Card): `GET` with `If-None-Match`, `ETag`
/// exposed. These documents hold nothing a caller's credentials unlock.
pub(super) fn public(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("Content-Type, If-None-Match"),
    );
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("ETag"),
    );
    response
}
