//! Opaque access tokens checked by the authorization server (RFC 7662 token introspection):
//! the answer must say `active`, name this server in `aud` and, when it states one, the
//! expected issuer.

use serde_json::Value;

use super::canonical::same_resource;
use super::claims::principal_of;
use super::fetch::Fetcher;
use super::verifier::{TokenError, Verified};

/// The client credentials the server introspects with.
#[derive(Clone)]
pub(crate) struct Client {
    pub(crate) id: String,
    pub(crate) secret: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Asks `endpoint` about `token`.
pub(crate) async fn introspect(
    fetcher: &Fetcher,
    endpoint: &str,
    client: &Client,
    token: &str,
    issuer: &str,
    audience: &str,
) -> Result<Verified, TokenError> {
    let answer = fetcher
        .post_form(
            endpoint,
            (&client.id, &client.secret),
            &[("token", token), ("token_type_hint", "access_token")],
        )
        .await?;
    read(answer, issuer, audience)
}

fn read(answer: Value, issuer: &str, audience: &str) -> Result<Verified, TokenError> {
    let Value::Object(claims) = answer else {
        return Err(TokenError::unavailable(
            "the introspection answer is not an object",
        ));
    };
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err(TokenError::invalid("the token is not active"));
    }
    if let Some(iss) = claims.get("iss").and_then(Value::as_str)
        && iss != issuer
    {
        return Err(TokenError::invalid("the token is from another issuer"));
    }
    let for_us = match claims.get("aud") {
        Some(Value::String(a)) => same_resource(audience, a),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .any(|a| same_resource(audience, a)),
        _ => false,
    };
    if !for_us {
        return Err(TokenError::invalid(format!(
            "the token is not for this resource ({audience})"
        )));
    }
    Ok(principal_of(claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers() {
        let (iss, aud) = ("https://as", "https://rs/mcp");
        let ok = read(
            json!({"active": true, "aud": aud, "sub": "ada", "scope": "a b", "exp": 4102444800u64}),
            iss,
            aud,
        )
        .unwrap();
        assert_eq!(ok.principal().subject(), "ada");
        assert!(ok.principal().scopes().contains("b"));
        assert!(ok.expires_at.is_some());
        assert!(matches!(
            read(json!({"active": false}), iss, aud),
            Err(TokenError::Invalid(_))
        ));
        assert!(matches!(
            read(json!({"active": true, "aud": "https://other"}), iss, aud),
            Err(TokenError::Invalid(_))
        ));
        assert!(matches!(
            read(json!({"active": true}), iss, aud),
            Err(TokenError::Invalid(_))
        ));
        assert!(matches!(
            read(
                json!({"active": true, "aud": aud, "iss": "https://evil"}),
                iss,
                aud
            ),
            Err(TokenError::Invalid(_))
        ));
    }
}
