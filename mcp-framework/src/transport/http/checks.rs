//! What the endpoint checks before a message reaches dispatch: `Origin` and `Host`
//! (DNS-rebinding protection), `Accept`, `Content-Type` and the body size, and on modern
//! requests the request-metadata headers against the body (`-32020`).

use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;

use super::response::rejection;
use crate::headers::{decode_value, single_header};
use crate::protocol::ErrorObject;
use crate::protocol::jsonrpc::Request;
use crate::runtime::config::HttpConfig;

/// Which `Host` values are accepted.
#[derive(Debug, Clone)]
pub(super) enum HostPolicy {
    Any,
    Loopback,
    List(Vec<String>),
}

impl HostPolicy {
    /// The configured hosts; else loopback names when served on a loopback address (`bound`),
    /// else any (a mounted router does not know how it is bound).
    pub(super) fn new(config: &HttpConfig, bound: Option<std::net::SocketAddr>) -> Self {
        match &config.allowed_hosts {
            Some(list) => Self::List(list.clone()),
            None if bound.is_some_and(|a| a.ip().is_loopback()) => Self::Loopback,
            None => Self::Any,
        }
    }

    fn allows(&self, host: Option<&str>) -> bool {
        match self {
            Self::Any => true,
            Self::Loopback => host.is_some_and(is_loopback_host),
            Self::List(list) => host.is_some_and(|h| {
                let bare = h.split(':').next().unwrap_or(h);
                list.iter()
                    .any(|a| a == "*" || a.eq_ignore_ascii_case(h) || a.eq_ignore_ascii_case(bare))
            }),
        }
    }
}

fn origin_allowed(config: &HttpConfig, origin: &str) -> bool {
    match &config.allowed_origins {
        Some(list) => list
            .iter()
            .any(|o| o == "*" || o.eq_ignore_ascii_case(origin)),
        None => {
            let rest = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            rest.is_some_and(is_loopback_host)
        }
    }
}

/// `localhost`, `127.0.0.1` or `[::1]`, with any port.
fn is_loopback_host(hostport: &str) -> bool {
    let host = if let Some(rest) = hostport.strip_prefix('[') {
        rest.split(']')
            .next()
            .map(|h| format!("[{h}]"))
            .unwrap_or_default()
    } else {
        hostport.split(':').next().unwrap_or_default().to_owned()
    };
    matches!(
        host.to_ascii_lowercase().as_str(),
        "localhost" | "127.0.0.1" | "[::1]"
    )
}

/// The rejection of a request whose `Origin` or `Host` is not allowed, if it is one.
pub(super) fn check_security(
    config: &HttpConfig,
    hosts: &HostPolicy,
    parts: &Parts,
) -> Option<Response> {
    let headers = &parts.headers;
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| origin_allowed(config, o));
        if !ok {
            return Some(rejection(
                StatusCode::FORBIDDEN,
                "Forbidden: origin not allowed",
            ));
        }
    }
    // HTTP/2 carries the host in the `:authority` pseudo-header (the URI), not in `Host`.
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()));
    if !hosts.allows(host) {
        return Some(rejection(
            StatusCode::FORBIDDEN,
            "Forbidden: host not allowed",
        ));
    }
    None
}

/// Whether the client accepts SSE; `None` when it accepts neither JSON nor SSE.
pub(super) fn accepts(headers: &HeaderMap) -> Option<bool> {
    if !headers.contains_key(header::ACCEPT) {
        return Some(true);
    }
    let accept = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
        .to_ascii_lowercase();
    let has = |t: &str| {
        accept
            .split(',')
            .any(|part| part.trim().split(';').next() == Some(t))
    };
    let any = has("*/*");
    let json = any || has("application/json") || has("application/*");
    let sse = any || has("text/event-stream") || has("text/*");
    (json || sse).then_some(sse)
}

/// The rejection of a body that is not JSON (a missing `Content-Type` is tolerated).
pub(super) fn check_content_type(headers: &HeaderMap) -> Option<Response> {
    let ct = headers.get(header::CONTENT_TYPE)?;
    let ct = ct.to_str().unwrap_or_default();
    let json = ct
        .trim_start()
        .to_ascii_lowercase()
        .starts_with("application/json");
    (!json).then(|| {
        rejection(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: send application/json",
        )
    })
}

/// The rejection of a body larger than `limit` bytes.
pub(super) fn too_large(limit: usize) -> Response {
    rejection(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("Payload too large: the limit is {limit} bytes"),
    )
}

#[derive(Deserialize)]
struct NameView {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    uri: Option<String>,
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, ErrorObject> {
    single_header(headers, name)?
        .map(|v| {
            v.to_str().map_err(|_| {
                ErrorObject::header_mismatch(format!("{name} contains invalid characters"))
            })
        })
        .transpose()
}

/// The request-metadata headers of a modern request must mirror its body.
pub(super) fn check_standard_headers(
    headers: &HeaderMap,
    request: &Request,
    body_version: &str,
) -> Result<(), ErrorObject> {
    match header_str(headers, "mcp-protocol-version")? {
        None => {
            return Err(ErrorObject::header_mismatch(
                "missing MCP-Protocol-Version header",
            ));
        }
        Some(v) if v != body_version => {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            )));
        }
        Some(_) => {}
    }
    match header_str(headers, "mcp-method")? {
        None => return Err(ErrorObject::header_mismatch("missing Mcp-Method header")),
        Some(m) if m != request.method => {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Method header value '{m}' does not match body value '{}'",
                request.method
            )));
        }
        Some(_) => {}
    }
    let body_name = match request.method.as_str() {
        "tools/call" | "prompts/get" | "resources/read" => {
            let view: NameView =
                serde_json::from_str(request.params.as_deref().map_or("{}", |p| p.get()))
                    .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))?;
            if request.method == "resources/read" {
                view.uri
            } else {
                view.name
            }
        }
        _ => return Ok(()),
    };
    let Some(body_name) = body_name else {
        return Ok(()); // the dispatcher reports the missing field
    };
    let Some(raw) = single_header(headers, "mcp-name")? else {
        return Err(ErrorObject::header_mismatch("missing Mcp-Name header"));
    };
    let decoded = decode_value(raw.as_bytes())
        .map_err(|e| ErrorObject::header_mismatch(format!("Mcp-Name {e}")))?;
    if decoded != body_name {
        return Err(ErrorObject::header_mismatch(format!(
            "Mcp-Name header value '{decoded}' does not match body value '{body_name}'"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn loopback_hosts_and_origins() {
        assert!(is_loopback_host("localhost:8080"));
        assert!(is_loopback_host("127.0.0.1"));
        assert!(is_loopback_host("[::1]:3000"));
        assert!(!is_loopback_host("evil.example.com"));
        assert!(!is_loopback_host("127.0.0.1.evil.com"));
        let config = HttpConfig::default();
        assert!(origin_allowed(&config, "http://localhost:3000"));
        assert!(!origin_allowed(&config, "http://evil.example.com"));
        assert!(!origin_allowed(&config, "null"));
        let config = HttpConfig::default().allow_origin("https://app.example.com");
        assert!(origin_allowed(&config, "https://app.example.com"));
        assert!(!origin_allowed(&config, "http://localhost:3000"));
    }

    #[test]
    fn accept_headers() {
        let mut h = HeaderMap::new();
        assert!(accepts(&h).unwrap());
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        assert!(accepts(&h).unwrap());
        h.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert!(!accepts(&h).unwrap());
        h.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        assert!(accepts(&h).is_none());
    }
}
