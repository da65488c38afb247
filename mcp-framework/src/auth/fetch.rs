//! Fetching the authorization server's documents (metadata, JWKS, introspection answers):
//! HTTPS only (plain HTTP to a loopback address, for local servers and tests), no
//! redirects, bounded in time and size.

use std::time::Duration;

use serde_json::Value;

use super::verifier::TokenError;

/// The largest document accepted from an authorization server.
const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// An HTTP client for the authorization server.
#[derive(Debug, Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
}

impl Fetcher {
    pub(crate) fn new(timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("mcp-framework/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("a TLS backend is compiled in");
        Self { client }
    }

    /// GETs a JSON document.
    pub(crate) async fn get_json(&self, url: &str) -> Result<Value, TokenError> {
        check_url(url).map_err(TokenError::Unavailable)?;
        let response = self
            .client
            .get(url)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| TokenError::unavailable(format!("GET {url}: {e}")))?;
        read_json(url, response).await
    }

    /// POSTs a form with HTTP Basic client authentication (RFC 7662 introspection).
    pub(crate) async fn post_form(
        &self,
        url: &str,
        client: (&str, &str),
        form: &[(&str, &str)],
    ) -> Result<Value, TokenError> {
        check_url(url).map_err(TokenError::Unavailable)?;
        let body = form
            .iter()
            .map(|(k, v)| format!("{}={}", urlencode(k), urlencode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let response = self
            .client
            .post(url)
            .basic_auth(urlencode(client.0), Some(urlencode(client.1)))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| TokenError::unavailable(format!("POST {url}: {e}")))?;
        read_json(url, response).await
    }
}

async fn read_json(url: &str, mut response: reqwest::Response) -> Result<Value, TokenError> {
    let status = response.status();
    if !status.is_success() {
        return Err(TokenError::unavailable(format!("{url} answered {status}")));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| TokenError::unavailable(format!("{url}: {e}")))?
    {
        if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(TokenError::unavailable(format!(
                "{url}: the document is larger than {MAX_DOCUMENT_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body)
        .map_err(|e| TokenError::unavailable(format!("{url}: not JSON: {e}")))
}

/// HTTPS, or HTTP to a loopback host.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    if url.starts_with("https://") {
        return Ok(());
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(format!("`{url}` is not an https URL"));
    };
    let host = rest.split(['/', '?']).next().unwrap_or_default();
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if loopback {
        Ok(())
    } else {
        Err(format!(
            "`{url}`: authorization servers are reached over https (plain http only on loopback)"
        ))
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn urlencode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(check_url("https://auth.example.com/.well-known/x").is_ok());
        assert!(check_url("http://127.0.0.1:8080/x").is_ok());
        assert!(check_url("http://[::1]:8080/x").is_ok());
        assert!(check_url("http://localhost/x").is_ok());
        assert!(check_url("http://auth.example.com/x").is_err());
        assert!(check_url("http://127.0.0.1.evil.com/x").is_err());
        assert!(check_url("ftp://127.0.0.1/x").is_err());
        assert_eq!(urlencode("a b&c"), "a%20b%26c");
    }
}
