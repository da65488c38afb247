//! The principal of validated claims (a JWT's, or an introspection answer's).

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::verifier::Verified;
use crate::principal::Principal;
use crate::protocol::JsonObject;

/// The principal of validated claims: `sub` (else the client), `client_id` (else `azp`),
/// scopes from `scope` (space-separated) or `scp` (a list or a string), expiry from `exp`.
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
        .map(|exp| SystemTime::UNIX_EPOCH + Duration::from_secs(exp));
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
