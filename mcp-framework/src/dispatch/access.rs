//! Scope checks: what the caller of a request may do with the item it names (its
//! [`Requirement`] against the request's principal and the server's rules), and the reply
//! refusing a call that lacks scopes.

use crate::principal::{Access, Requirement};
use crate::protocol::{ErrorObject, codes};
use crate::runtime::state::ServerInner;

use super::carrier::Carrier;
use super::reply::{Failure, Reply};

/// What the caller behind `carrier` may do with an item requiring `requirement`.
pub(super) fn check(server: &ServerInner, carrier: &Carrier, requirement: &Requirement) -> Access {
    if requirement.is_open() {
        return Access::Granted;
    }
    requirement.access(
        carrier.principal(),
        &server.config.scope_rules,
        server.config.scope_policy,
    )
}

/// Whether the caller may see the item (a hidden one is not listed, and not found).
pub(super) fn visible(server: &ServerInner, carrier: &Carrier, requirement: &Requirement) -> bool {
    check(server, carrier, requirement) != Access::Hidden
}

/// The refusal of a call whose token lacks `scopes` (HTTP: `403` with a step-up challenge).
pub(super) fn insufficient_scope(scopes: Vec<String>) -> Reply {
    let message = format!(
        "Forbidden: this needs the scope{} {}",
        if scopes.len() == 1 { "" } else { "s" },
        scopes.join(" ")
    );
    let mut data = serde_json::Map::new();
    data.insert("requiredScopes".to_owned(), serde_json::Value::from(scopes));
    Reply::Error(
        ErrorObject::new(codes::INSUFFICIENT_SCOPE, message)
            .with_data(serde_json::Value::Object(data)),
        Failure::Forbidden,
    )
}
