//! Serving the Server Card at `<endpoint>/server-card` and the AI Catalog at
//! `/.well-known/ai-catalog.json` as the discovery rules ask: their media types, open CORS
//! (public, read-only metadata: any origin, `GET`, `If-None-Match` allowed, `ETag`
//! exposed), `Cache-Control: public, max-age=3600`, an `ETag` (a digest of the body) and
//! `304 Not Modified` for a matching `If-None-Match`. The `Host` check of the endpoint
//! applies (a card without public URLs names the endpoint as the request reached it); the
//! origin check does not (any page may read public metadata).

use axum::body::Body;
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::endpoint::Endpoint;
use crate::card::{CARD_MEDIA_TYPE, CATALOG_MEDIA_TYPE, Card};

/// `GET <endpoint>/server-card`, for the endpoint at `endpoint`.
pub(super) fn card(ep: &Endpoint, endpoint: &str, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    serve(ep, &parts, CARD_MEDIA_TYPE, |card, base| {
        Some(card.document(Some(&format!("{base}{endpoint}"))))
    })
}

/// `GET /.well-known/ai-catalog.json`: the card of the endpoint at `endpoint`, listed.
pub(super) fn catalog(ep: &Endpoint, endpoint: &str, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    serve(ep, &parts, CATALOG_MEDIA_TYPE, |card, base| {
        let card_url = card
            .public_card_url()
            .unwrap_or_else(|| format!("{base}{}", card_path(endpoint)));
        card.catalog(&card_url)
    })
}

/// Where the card of the endpoint at `endpoint` is served.
pub(super) fn card_path(endpoint: &str) -> String {
    format!("{}/server-card", endpoint.trim_end_matches('/'))
}

/// The document `render` makes of the card for this request, with the headers of public
/// metadata; `404` when the server has no card (or no catalog).
fn serve(
    ep: &Endpoint,
    parts: &Parts,
    media: &'static str,
    render: impl FnOnce(&Card, &str) -> Option<Value>,
) -> Response {
    if parts.method == Method::OPTIONS {
        return super::cors::public(StatusCode::NO_CONTENT.into_response());
    }
    if parts.method != Method::GET && parts.method != Method::HEAD {
        let mut response = super::cors::public(StatusCode::METHOD_NOT_ALLOWED.into_response());
        response.headers_mut().insert(
            header::ALLOW,
            HeaderValue::from_static("GET, HEAD, OPTIONS"),
        );
        return response;
    }
    let base = match ep.guard.reached(parts) {
        Ok(base) => base,
        Err(rejected) => return super::cors::public(rejected.into_response()),
    };
    let Some(document) = ep.http.card.as_ref().and_then(|card| render(card, &base)) else {
        return super::cors::public(StatusCode::NOT_FOUND.into_response());
    };
    let body = serde_json::to_vec(&document).expect("a card serializes");
    let digest = Sha256::digest(&body);
    let etag = format!(
        "\"{}\"",
        digest[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let mut headers = HeaderMap::new();
    headers.insert(header::ETAG, HeaderValue::from_str(&etag).expect("hex"));
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    if matches_etag(&parts.headers, &etag) {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        response.headers_mut().extend(headers);
        return super::cors::public(response);
    }
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    let body = if parts.method == Method::HEAD {
        Body::empty()
    } else {
        Body::from(body)
    };
    let mut response = Response::new(body);
    response.headers_mut().extend(headers);
    super::cors::public(response)
}

/// Whether `If-None-Match` names `etag` (or is `*`); weak validators compare by their
/// opaque part, as RFC 9110 asks for `If-None-Match`.
fn matches_etag(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == "*" || tag == etag)
}
