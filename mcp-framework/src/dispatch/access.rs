//! Scope checks: what the caller of a request may do with the item it names (its
//! [`Requirement`] against the request's principal and the server's rules), and the reply
//! refusing a call that lacks scopes.

use crate::principal::{Access, Principal, Requirement};
use crate::protocol::jsonrpc::Request;
use crate::protocol::{ErrorObject, codes};
use crate::runtime::state::ServerInner;
use crate::telemetry::target;

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

/// The refusal, before it runs, of a `tools/call`, `prompts/get` or `resources/read` of a
/// concrete resource whose caller lacks the item's scopes: legacy HTTP answers it with a
/// `403` before the request's response stream starts. (Calls it lets through are checked
/// again, as every call is, when they run.)
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn refusal_before_running(
    server: &ServerInner,
    request: &Request,
    principal: Option<&Principal>,
) -> Option<ErrorObject> {
    let principal = principal?;
    let target = target::of(&request.method, request.params.as_deref())?;
    let catalog = server.catalog.load();
    let requirement = match request.method.as_str() {
        "tools/call" => catalog.tool(&target).map(|e| &e.requirement),
        "prompts/get" => catalog.prompt(&target).map(|e| &e.requirement),
        _ => catalog.resource(&target).map(|e| &e.requirement),
    }?;
    let rules = &server.config.scope_rules;
    match requirement.access(Some(principal), rules, server.config.scope_policy) {
        Access::Challenge(scopes) => match insufficient_scope(scopes) {
            Reply::Error(e, _) => Some(e),
            _ => None,
        },
        _ => None,
    }
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
