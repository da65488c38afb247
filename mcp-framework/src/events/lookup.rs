//! The one way every method finds the event type a request names: unknown, or hidden from
//! this caller, is `-32023`; lacking its scopes `-32024`; not offered in this delivery mode
//! `-32026`. And a subscription's filter, from its arguments checked against the type's
//! `inputSchema`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::kind::Matcher;
use super::served::{Served, Shared};
use crate::context::Context;
use crate::principal::ScopePolicy;
use crate::protocol::events::{Delivery, codes};
use crate::protocol::{ErrorObject, JsonObject};

/// Whether the caller may see the type, and use it.
pub(super) enum Access {
    Granted,
    Hidden,
    Refused,
}

pub(super) fn access(served: &Served, cx: &Context) -> Access {
    if cx.grants(&served.kind.scopes) {
        Access::Granted
    } else if served.kind.policy == ScopePolicy::Hide {
        Access::Hidden
    } else {
        Access::Refused
    }
}

/// The event type `name` for a subscription delivered by `mode`, if this caller may have it.
pub(super) fn find(
    shared: &Shared,
    cx: &Context,
    name: &str,
    mode: Delivery,
) -> Result<Arc<Served>, ErrorObject> {
    let not_found = || {
        ErrorObject::new(codes::NOT_FOUND, format!("Unknown event type: {name}"))
            .with_data(json!({"kind": "event"}))
    };
    let served = shared
        .catalog()
        .named(name)
        .cloned()
        .ok_or_else(not_found)?;
    match access(&served, cx) {
        Access::Granted => {}
        Access::Hidden => return Err(not_found()),
        Access::Refused => {
            return Err(ErrorObject::new(
                codes::FORBIDDEN,
                format!(
                    "Forbidden: `{name}` needs the scopes {}",
                    served.kind.scopes.join(" ")
                ),
            )
            .with_data(json!({"requiredScopes": served.kind.scopes})));
        }
    }
    if !served.kind.delivery.contains(&mode) {
        return Err(ErrorObject::new(
            codes::UNSUPPORTED,
            format!("`{name}` is not delivered by {}", mode.as_str()),
        )
        .with_data(json!({"feature": "deliveryMode", "value": mode.as_str()})));
    }
    Ok(served)
}

/// The error that ends a removed type's subscriptions (`notifications/events/terminated`,
/// a webhook's `terminated` envelope): not found, as a request naming it would now be.
pub(super) fn removed(name: &str) -> ErrorObject {
    ErrorObject::new(
        codes::NOT_FOUND,
        format!("The event type `{name}` is no longer served"),
    )
    .with_data(json!({"kind": "event"}))
}

/// The subscription's filter, from its arguments (checked against the `inputSchema`).
pub(super) fn filter(
    served: &Served,
    arguments: Option<&JsonObject>,
) -> Result<Matcher, ErrorObject> {
    let arguments = Value::Object(arguments.cloned().unwrap_or_default());
    served
        .validator
        .check(&arguments)
        .and_then(|()| (served.kind.filter)(arguments))
        .map_err(|e| {
            ErrorObject::invalid_params(format!(
                "Invalid arguments for `{}`: {e}",
                served.kind.name
            ))
        })
}
