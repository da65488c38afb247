//! The authorization server's metadata (RFC 8414, or OpenID Connect Discovery), found at the
//! well-known URLs of its issuer in the order the MCP specification gives, and kept only
//! when its `issuer` is exactly the one asked for.

use serde_json::Value;

use super::fetch::Fetcher;
use super::verifier::TokenError;

/// What the verifier needs of the authorization server's metadata.
#[derive(Debug, Clone)]
pub(crate) struct IssuerMetadata {
    pub(crate) jwks_uri: String,
    pub(crate) introspection_endpoint: Option<String>,
}

/// The metadata URLs of `issuer`, in the order they are tried: with a path
/// (`https://a/tenant`), OAuth then OpenID with the well-known part inserted, then OpenID
/// appended; without one, OAuth then OpenID.
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let (origin, path) = match issuer.find("://").map(|i| i + 3) {
        Some(start) => match issuer[start..].find('/') {
            Some(p) => issuer.split_at(start + p),
            None => (issuer, ""),
        },
        None => (issuer, ""),
    };
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{issuer}/.well-known/openid-configuration"),
        ]
    }
}

/// Fetches and checks the metadata of `issuer`.
pub(crate) async fn discover(
    fetcher: &Fetcher,
    issuer: &str,
) -> Result<IssuerMetadata, TokenError> {
    let mut failures = Vec::new();
    for url in metadata_urls(issuer) {
        match fetcher.get_json(&url).await {
            Ok(doc) => return read(issuer, &url, &doc).map_err(TokenError::Unavailable),
            Err(e) => failures.push(e.to_string()),
        }
    }
    Err(TokenError::unavailable(format!(
        "no metadata for issuer {issuer}: {}",
        failures.join("; ")
    )))
}

fn read(issuer: &str, url: &str, doc: &Value) -> Result<IssuerMetadata, String> {
    let stated = doc
        .get("issuer")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if stated != issuer {
        return Err(format!(
            "{url} is the metadata of issuer `{stated}`, not `{issuer}`: not used"
        ));
    }
    let jwks_uri = doc
        .get("jwks_uri")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{url} has no jwks_uri"))?
        .to_owned();
    let introspection_endpoint = doc
        .get("introspection_endpoint")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Ok(IssuerMetadata {
        jwks_uri,
        introspection_endpoint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_in_the_specified_order() {
        assert_eq!(
            metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn metadata_of_another_issuer_is_refused() {
        let doc = serde_json::json!({"issuer": "https://honest.example", "jwks_uri": "https://honest.example/jwks"});
        assert!(read("https://attacker.example", "u", &doc).is_err());
        assert!(read("https://honest.example", "u", &doc).is_ok());
    }
}
