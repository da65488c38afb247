//! `completion/complete`: the completer attached to a prompt argument or template variable,
//! or else the values of the argument's enum.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::Value;

use super::access::{self, CompletionTarget, completion_target};
use super::carrier::Carrier;
use super::era::Era;
use super::reply::Reply;
use super::run::{context, handler_panicked, panic_message};
use super::views::{CompleteView, RefView, parse};
use crate::completion::{CompletionRequest, cap};
use crate::context::Asker;
use crate::principal::Requirement;
use crate::protocol::jsonrpc::Request;
use crate::protocol::{Completion, ErrorObject, JsonObject};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::schema;

/// Answers `completion/complete`. The prompt or template its reference names passes the
/// same access check as `prompts/get` and `resources/read` (a hidden one is unknown, a
/// caller without its scopes is challenged) before its completer runs, with the request's
/// [`Context`](crate::Context).
pub(super) async fn complete(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Reply {
    let view: CompleteView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let request_values = CompletionRequest {
        argument: view.argument.name.clone(),
        value: view.argument.value,
        context: view.context.unwrap_or_default().arguments,
    };
    if let RefView::Resource { uri } = &view.reference
        && let Err(e) = server.check_uri(uri)
    {
        return Reply::bad(e);
    }
    let unknown = || {
        Reply::error(ErrorObject::invalid_params(match &view.reference {
            RefView::Prompt { name } => format!("Unknown prompt: {name}"),
            RefView::Resource { uri } => format!("Unknown resource template: {uri}"),
        }))
    };
    let catalog = server.catalog.load();
    let visible = |r: &Requirement| access::visible(server, &carrier, r);
    let Some(target) = completion_target(&catalog, &view.reference, visible) else {
        return unknown();
    };
    if let Err(refused) = access::admit(server, &carrier, target.requirement(), unknown) {
        return refused;
    }
    let argument = &view.argument.name;
    let (completer, schema) = match target {
        CompletionTarget::Prompt(p) => (
            p.completers.get(argument).cloned(),
            p.arguments_schema.clone(),
        ),
        CompletionTarget::Template(t) => (
            t.completers.get(argument).cloned(),
            t.variables_schema.clone(),
        ),
        CompletionTarget::Resource(_) => (None, JsonObject::default()),
    };
    drop(catalog);
    let version = era.version;
    let completion = match completer {
        Some(c) => {
            let cancel = carrier.cancel.clone();
            let cx = context(server, request.id, era, carrier, Asker::None, cancel, None);
            match AssertUnwindSafe(c.complete(request_values, cx))
                .catch_unwind()
                .await
            {
                Ok(c) => c,
                Err(p) => {
                    return Reply::error(handler_panicked(
                        "completer",
                        argument,
                        &panic_message(&*p),
                    ));
                }
            }
        }
        None => Completion {
            values: request_values.matching(enum_values(&schema, argument)),
            total: None,
            has_more: None,
        },
    };
    Reply::Result(render::completion_result(server, version, cap(completion)))
}

/// Values of a schema property's `enum` (or `oneOf` consts), for completion without a
/// completer.
fn enum_values(schema: &JsonObject, property: &str) -> Vec<String> {
    let Some(mut prop) = schema.get("properties").and_then(|p| p.get(property)) else {
        return Vec::new();
    };
    // `Option<Enum>`: `anyOf: [{$ref}, {type: null}]`.
    if let Some(first) = prop
        .get("anyOf")
        .and_then(Value::as_array)
        .and_then(|alts| {
            alts.iter()
                .find(|a| a.get("type") != Some(&Value::from("null")))
        })
    {
        prop = first;
    }
    let prop = schema::local_ref(schema.get("$defs"), prop.get("$ref")).unwrap_or(prop);
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    prop.get("oneOf")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| v.get("const").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}
