//! `completion/complete`: the completer attached to a prompt argument or template variable,
//! or else the values of the argument's enum.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::Value;
use serde_json::value::RawValue;

use super::era::Era;
use super::reply::Reply;
use super::run::{handler_panicked, panic_message};
use super::views::{CompleteView, RefView, check_uri, parse};
use crate::completion::{CompletionRequest, cap};
use crate::protocol::{Completion, ErrorObject, JsonObject};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::schema;

pub(super) async fn complete(
    server: &Arc<ServerInner>,
    era: &Era,
    params: Option<&RawValue>,
) -> Reply {
    let view: CompleteView = match parse(params) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let request = CompletionRequest {
        argument: view.argument.name.clone(),
        value: view.argument.value,
        context: view.context.unwrap_or_default().arguments,
    };
    if let RefView::Resource { uri } = &view.reference
        && let Err(e) = check_uri(server, uri)
    {
        return Reply::bad(e);
    }
    let catalog = server.catalog.load();
    let (completer, schema) = match &view.reference {
        RefView::Prompt { name } => match catalog.prompt(name) {
            Some(p) => (
                p.completers.get(&view.argument.name).cloned(),
                p.arguments_schema.clone(),
            ),
            None => {
                return Reply::error(ErrorObject::invalid_params(format!(
                    "Unknown prompt: {name}"
                )));
            }
        },
        RefView::Resource { uri } => match catalog.template(uri) {
            Some(t) => (
                t.completers.get(&view.argument.name).cloned(),
                t.variables_schema.clone(),
            ),
            None if catalog.resource(uri).is_some() => (None, Default::default()),
            None => {
                return Reply::error(ErrorObject::invalid_params(format!(
                    "Unknown resource template: {uri}"
                )));
            }
        },
    };
    drop(catalog);
    let completion = match completer {
        Some(c) => match AssertUnwindSafe(c.complete(request)).catch_unwind().await {
            Ok(c) => c,
            Err(p) => {
                return handler_panicked("completer", &view.argument.name, &panic_message(&*p));
            }
        },
        None => Completion {
            values: request.matching(enum_values(&schema, &view.argument.name)),
            total: None,
            has_more: None,
        },
    };
    Reply::Result(render::completion_result(
        server,
        era.version,
        cap(completion),
    ))
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
