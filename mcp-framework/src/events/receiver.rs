//! The receiver-published well-known document (`/.well-known/mcp-webhook-receiver.json`):
//! an origin's standing consent to deliveries under the path prefixes it lists
//! (`{"receivers": ["/hooks/"]}`), which stands in for the verification challenge of a
//! callback URL it covers. Fetched over the deliveries' SSRF-hardened client (no
//! redirects, addresses checked when resolved), at most 16 KiB, and cached per origin as
//! its `Cache-Control` allows (5 minutes without one, an hour at most; a failed fetch is
//! remembered as "nothing covered" for a minute), for at most 1,024 origins.

use std::time::{Duration, Instant};

use super::delivery::check_address;
use super::hooks::Hooks;

/// The path of the document on an origin.
pub(super) const PATH: &str = "/.well-known/mcp-webhook-receiver.json";
const MAX_BYTES: usize = 16 * 1024;
const MAX_ORIGINS: usize = 1024;
const DEFAULT_TTL: Duration = Duration::from_secs(300);
const MAX_TTL: Duration = Duration::from_secs(3600);
const FAILED_TTL: Duration = Duration::from_secs(60);

/// Whether `url`'s origin publishes a document whose prefixes cover its path (the
/// documents read are kept in [`Hooks::receivers`], by origin, with when they expire).
pub(super) async fn cover(hooks: &Hooks, url: &reqwest::Url) -> bool {
    let origin = url.origin().ascii_serialization();
    let cached = {
        let now = Instant::now();
        let by_origin = hooks.receivers.lock().expect("receivers");
        by_origin
            .get(&origin)
            .filter(|(until, _)| *until > now)
            .map(|(_, prefixes)| prefixes.clone())
    };
    let prefixes = match cached {
        Some(prefixes) => prefixes,
        None => {
            let (prefixes, ttl) = fetch(hooks, &origin).await;
            let mut by_origin = hooks.receivers.lock().expect("receivers");
            let now = Instant::now();
            if by_origin.len() >= MAX_ORIGINS {
                by_origin.retain(|_, (until, _)| *until > now);
            }
            if by_origin.len() < MAX_ORIGINS && !ttl.is_zero() {
                by_origin.insert(origin, (now + ttl, prefixes.clone()));
            }
            prefixes
        }
    };
    covered(&prefixes, url.path())
}

/// Whether one of `prefixes` (each a path starting with `/`) begins `path`.
fn covered(prefixes: &[String], path: &str) -> bool {
    prefixes
        .iter()
        .any(|p| p.starts_with('/') && path.starts_with(p.as_str()))
}

/// The origin's document: its prefixes and how long to keep them (none, for a minute,
/// when it cannot be read).
async fn fetch(hooks: &Hooks, origin: &str) -> (Vec<String>, Duration) {
    let failed = (Vec::new(), FAILED_TTL);
    let Ok(url) = reqwest::Url::parse(&format!("{origin}{PATH}")) else {
        return failed;
    };
    // Not counted against the host's verification POSTs: the cache already keeps this
    // to one GET per origin a minute (unless the origin itself says `no-store`).
    if check_address(&hooks.config, &url).await.is_err() {
        return failed;
    }
    let Ok(mut response) = hooks.http.get(url).send().await else {
        return failed;
    };
    if !response.status().is_success() {
        return failed;
    }
    let ttl = cache_ttl(response.headers().get("cache-control"));
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BYTES {
            return failed;
        }
    }
    #[derive(serde::Deserialize)]
    struct Document {
        receivers: Vec<String>,
    }
    match serde_json::from_slice::<Document>(&body) {
        Ok(doc) => (doc.receivers, ttl),
        Err(_) => failed,
    }
}

/// How long `Cache-Control` lets the document be kept: `no-store`/`no-cache` not at all,
/// `max-age` up to an hour, five minutes without either.
fn cache_ttl(header: Option<&reqwest::header::HeaderValue>) -> Duration {
    let Some(value) = header.and_then(|h| h.to_str().ok()) else {
        return DEFAULT_TTL;
    };
    let mut ttl = DEFAULT_TTL;
    for directive in value.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-store" || lower == "no-cache" {
            return Duration::ZERO;
        }
        if let Some(secs) = lower.strip_prefix("max-age=") {
            ttl = secs
                .trim_matches('"')
                .parse()
                .map_or(DEFAULT_TTL, Duration::from_secs);
        }
    }
    ttl.min(MAX_TTL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_cover_paths_below_them() {
        let prefixes = vec!["/hooks/".to_owned(), "relative/".to_owned()];
        assert!(covered(&prefixes, "/hooks/a"));
        assert!(!covered(&prefixes, "/hooksx"));
        assert!(!covered(&prefixes, "relative/a"), "a prefix is a path");
        assert!(!covered(&[], "/"));
    }

    #[test]
    fn cache_control_bounds_how_long_a_document_is_kept() {
        let h = |s: &'static str| reqwest::header::HeaderValue::from_static(s);
        assert_eq!(cache_ttl(None), DEFAULT_TTL);
        assert_eq!(cache_ttl(Some(&h("max-age=60"))), Duration::from_secs(60));
        assert_eq!(cache_ttl(Some(&h("public, max-age=999999"))), MAX_TTL);
        assert_eq!(cache_ttl(Some(&h("no-store"))), Duration::ZERO);
    }
}
