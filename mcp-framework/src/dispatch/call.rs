//! The three methods that run a handler: `tools/call`, `prompts/get` and `resources/read`.
//! Each finds its entry in the catalog, checks and converts the arguments, runs the handler
//! and renders its outcome for the request's era.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::carrier::Carrier;
use super::era::Era;
use super::reply::Reply;
use super::run::{Invocation, execute, prepare};
use super::views::{CallView, GetPromptView, ReadView, check_uri, parse};
use crate::outcome::{coerce_strings, error_result};
use crate::protocol::jsonrpc::Request;
use crate::protocol::{CallToolResult, ErrorObject, ProtocolVersion, codes};
use crate::registry::entry::ToolEntry;
use crate::registry::handler::ResourceRequest;
use crate::render;
use crate::runtime::config::OutputValidation;
use crate::runtime::state::ServerInner;
use crate::telemetry::span;

pub(super) async fn call_tool(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Reply {
    let view: CallView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let catalog = server.catalog.load();
    let Some(entry) = catalog.tool(&view.name).cloned() else {
        return Reply::error(
            ErrorObject::invalid_params(format!("Unknown tool: {}", view.name))
                .with_data(serde_json::json!({"name": view.name})),
        );
    };
    drop(catalog);
    let version = era.version;
    let arguments = view.arguments.unwrap_or_else(|| Value::Object(Map::new()));
    #[cfg(feature = "http")]
    if version.is_modern()
        && let Some(http) = &carrier.http
        && let Err(e) =
            crate::headers::check_param_headers(&http.headers, &entry.headers, &arguments)
    {
        return Reply::bad(e);
    }
    if let Err(problems) = entry.validator.check(&arguments) {
        let result = error_result(format!(
            "Invalid arguments for tool `{}`: {problems}",
            view.name
        ));
        return Reply::Result(render::tool_result(server, version, &entry, result));
    }
    let invocation = Invocation {
        method: "tools/call",
        kind: "tool",
        name: &view.name,
        arguments: &arguments,
        request_state: view.request_state,
        input_responses: view.input_responses,
    };
    let prepared = match prepare(server, request.id, era, carrier, invocation) {
        Ok(p) => p,
        Err(e) => return Reply::error(e),
    };
    let fut = (entry.call)(arguments, prepared.cx.clone());
    execute(server, &prepared, fut, |outcome| match outcome {
        Ok(result) => match honest(server, &entry, result) {
            Ok(result) => {
                if result.is_error == Some(true) {
                    span::record_error(&tracing::Span::current(), "tool_error");
                }
                Reply::Result(render::tool_result(server, version, &entry, result))
            }
            Err(e) => Reply::error(e),
        },
        Err(e) => Reply::error(e),
    })
    .await
}

/// A result whose `structuredContent` does not match the tool's output schema, as the
/// server's [`OutputValidation`] says: sent anyway, or logged and replaced by a tool error
/// or a protocol error.
fn honest(
    server: &ServerInner,
    entry: &ToolEntry,
    result: CallToolResult,
) -> Result<CallToolResult, ErrorObject> {
    let validation = server.config.output_validation;
    if validation == OutputValidation::Off {
        return Ok(result);
    }
    let Err(problems) = entry.check_output(&result) else {
        return Ok(result);
    };
    let name = &entry.tool.name;
    tracing::error!(tool = %name, %problems, "the tool's result does not match its outputSchema");
    let message =
        format!("the result of tool `{name}` does not match its outputSchema: {problems}");
    match validation {
        OutputValidation::InternalError => Err(ErrorObject::internal(message)),
        _ => Ok(error_result(message)),
    }
}

/// Prompt arguments arrive as strings (other JSON values are taken as their text).
fn stringify(values: Map<String, Value>) -> Vec<(String, String)> {
    values
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| match v {
            Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect()
}

pub(super) async fn get_prompt(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Reply {
    let view: GetPromptView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    let catalog = server.catalog.load();
    let Some(entry) = catalog.prompt(&view.name).cloned() else {
        return Reply::error(ErrorObject::invalid_params(format!(
            "Unknown prompt: {}",
            view.name
        )));
    };
    drop(catalog);
    let version = era.version;
    let raw_args = view.arguments.unwrap_or_default();
    let arguments = Value::Object(coerce_strings(&entry.arguments_schema, stringify(raw_args)));
    if let Err(problems) = entry.validator.check(&arguments) {
        return Reply::error(ErrorObject::invalid_params(format!(
            "Invalid arguments for prompt `{}`: {problems}",
            view.name
        )));
    }
    let invocation = Invocation {
        method: "prompts/get",
        kind: "prompt",
        name: &view.name,
        arguments: &arguments,
        request_state: view.request_state,
        input_responses: view.input_responses,
    };
    let prepared = match prepare(server, request.id, era, carrier, invocation) {
        Ok(p) => p,
        Err(e) => return Reply::error(e),
    };
    let fut = (entry.get)(arguments, prepared.cx.clone());
    execute(server, &prepared, fut, |outcome| match outcome {
        Ok(mut result) => {
            if result.description.is_none() {
                result.description.clone_from(&entry.prompt.description);
            }
            Reply::Result(render::prompt_result(server, version, result))
        }
        Err(e) => Reply::error(e),
    })
    .await
}

fn resource_not_found(version: ProtocolVersion, uri: &str) -> Reply {
    let code = if version.is_modern() {
        codes::INVALID_PARAMS
    } else {
        codes::LEGACY_RESOURCE_NOT_FOUND
    };
    Reply::error(
        ErrorObject::new(code, format!("Resource not found: {uri}"))
            .with_data(serde_json::json!({"uri": uri})),
    )
}

pub(super) async fn read_resource(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Reply {
    let view: ReadView = match parse(request.params.as_deref()) {
        Ok(v) => v,
        Err(e) => return Reply::bad(e),
    };
    if let Err(e) = check_uri(server, &view.uri) {
        return Reply::bad(e);
    }
    let version = era.version;
    let catalog = server.catalog.load();
    let (read, resource_request, cache) = if let Some(entry) = catalog.resource(&view.uri) {
        (
            entry.read.clone(),
            ResourceRequest {
                uri: view.uri.clone(),
                mime_type: entry.resource.mime_type.as_deref().map(Arc::from),
                variables: Map::new(),
            },
            entry.cache.apply(server.config.cache.read),
        )
    } else if let Some((entry, vars)) = catalog
        .templates
        .iter()
        .find_map(|t| t.matcher.match_uri(&view.uri).map(|vars| (t, vars)))
    {
        (
            entry.read.clone(),
            ResourceRequest {
                uri: view.uri.clone(),
                mime_type: entry.template.mime_type.as_deref().map(Arc::from),
                variables: coerce_strings(&entry.variables_schema, vars),
            },
            entry.cache.apply(server.config.cache.read),
        )
    } else {
        return resource_not_found(version, &view.uri);
    };
    drop(catalog);
    let arguments = Value::String(view.uri.clone());
    let invocation = Invocation {
        method: "resources/read",
        kind: "resource",
        name: &view.uri,
        arguments: &arguments,
        request_state: view.request_state,
        input_responses: view.input_responses,
    };
    let prepared = match prepare(server, request.id, era, carrier, invocation) {
        Ok(p) => p,
        Err(e) => return Reply::error(e),
    };
    let fut = read(resource_request, prepared.cx.clone());
    execute(server, &prepared, fut, |outcome| match outcome {
        Ok(contents) => Reply::Result(render::read_result(server, version, contents, cache)),
        Err(e)
            if e.code == codes::INVALID_PARAMS
                && e.data.as_ref().is_some_and(|d| d.get("uri").is_some()) =>
        {
            resource_not_found(version, &view.uri)
        }
        Err(e) => Reply::error(e),
    })
    .await
}
