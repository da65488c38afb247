//! The principal of validated claims (a JWT's, or an introspection answer's).

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::verifier::Verified;
use crate::principal::Principal;
use crate::protocol::JsonObject;

/// The principal of validated claims: `sub` (else the client), `client_id` (else `azp`),
/// scopes from `scope` (space-separated) or `scp` (a list or a string), expiry from `exp`
/// (an `exp` too far away for the clock to represent is taken as no expiry: the answer is
/// then not kept, and the token is checked again on its next use).
pub(crate) fn principal_of(claims: JsonObject) -> Verified {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let subject = text("sub")
        .or_else(|| client_id.clone())
        .unwrap_or_default();
    let scopes: Vec<String> = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(s)) => s
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let expires_at = claims
        .get("exp")
        .and_then(Value::as_u64)
        .and_then(|exp| SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(exp)));
    let mut principal = Principal::new(subject).with_scopes(scopes);
    if let Some(client) = client_id {
        principal = principal.with_client_id(client);
    }
    let verified = Verified::new(principal.with_claims(claims));
    match expires_at {
        Some(at) => verified.until(at),
        None => verified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> JsonObject {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn an_expiry_beyond_the_clock_does_not_panic() {
        for exp in [u64::MAX, u64::MAX - 1, i64::MAX as u64, 1 << 62] {
            let v = principal_of(claims(
                json!({"sub": "ada", "exp": exp, "nbf": exp, "iat": exp}),
            ));
            assert_eq!(v.principal().subject(), "ada");
        }
        let v = principal_of(claims(json!({"sub": "ada", "exp": u64::MAX})));
        assert!(v.expires_at.is_none());
        let v = principal_of(claims(json!({"sub": "ada", "exp": 4_102_444_800u64})));
        assert!(v.expires_at.is_some());
    }
}
