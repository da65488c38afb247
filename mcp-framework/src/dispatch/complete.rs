//! `completion/complete`: the completer attached to a prompt argument or template variable,
//! or else the values of the argument's enum.

use std::future::Future;
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
/// caller without its scopes is challenged) before anything runs: the checks are made
/// now (`Err`: the reply), the completer runs in the returned future with the request's
/// [`Context`](crate::Context).
pub(super) fn complete(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Result<impl Future<Output = Reply> + Send + '_, Reply> {
    let view: CompleteView = parse(request.params.as_deref()).map_err(Reply::bad)?;
    if let RefView::Resource { uri } = &view.reference {
        server.check_uri(uri).map_err(Reply::bad)?;
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
        return Err(unknown());
    };
    access::admit(server, &carrier, target.requirement(), unknown)?;
    let argument = view.argument.name;
    let (completer, schema) = match target {
        CompletionTarget::Prompt(p) => (
            p.completers.get(&argument).cloned(),
            p.arguments_schema.clone(),
        ),
        CompletionTarget::Template(t) => (
            t.completers.get(&argument).cloned(),
            t.variables_schema.clone(),
        ),
        CompletionTarget::Resource(_) => (None, JsonObject::default()),
    };
    drop(catalog);
    let version = era.version;
    let typed = CompletionRequest {
        argument: argument.clone(),
        value: view.argument.value,
        context: view.context.unwrap_or_default().arguments,
    };
    let cx = completer
        .as_ref()
        .map(|_| context(server, request.id, era, carrier, Asker::None, None));
    Ok(async move {
        let completion = match (completer, cx) {
            (Some(c), Some(cx)) => {
                match AssertUnwindSafe(c.complete(typed, cx)).catch_unwind().await {
                    Ok(c) => c,
                    Err(p) => {
                        return Reply::error(handler_panicked(
                            "completer",
                            &argument,
                            &panic_message(&*p),
                        ));
                    }
                }
            }
            _ => Completion {
                values: typed.matching(enum_values(&schema, &argument)),
                total: None,
                has_more: None,
            },
        };
        Reply::Result(render::completion_result(server, version, cap(completion)))
    })
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
