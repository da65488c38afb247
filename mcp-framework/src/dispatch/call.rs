//! The three methods that run a handler: `tools/call`, `prompts/get` and `resources/read`.
//! Each finds its entry in the catalog, checks and converts the arguments, runs the handler
//! (through the middleware stacks when there are layers, see [`middleware`]; a tool in
//! [`tool`](super::tool), inline or as a task) and renders its outcome for the request's
//! era.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::Either;

use serde_json::{Map, Value};

use super::access;
use super::carrier::Carrier;
use super::era::Era;
use super::item::{check_prompt_arguments, invalid_tool_arguments, resource_request};
use super::reply::Reply;
use super::run::{Invocation, as_handler, execute, prepare, read};
use super::task;
use super::tool::{ToolRun, run_tool};
use super::views::{CallView, GetPromptView, ReadView, parse};
use crate::catalog::FoundResource;
use crate::middleware::{self, Call, CallOutput, Item, Method};
use crate::outcome::coerce_strings;
use crate::principal::Requirement;
use crate::protocol::jsonrpc::Request;
use crate::protocol::{
    CacheScope, ErrorObject, GetPromptResult, ProtocolVersion, ResourceContents, codes,
};
use crate::registry::entry::{ResourceEntry, TemplateEntry};
use crate::render;
use crate::runtime::state::ServerInner;
use crate::tasks::TaskSupport;

/// A `tools/call`, checked before anything runs (the name, the caller's access, the
/// headers, the arguments): the answer at once, or the run that answers it. Not an
/// `async fn`: the checks keep no state in the run's future, which is the only future of a
/// tool call ([`route`](super::route) awaits it directly), so it is moved and copied as
/// little as possible on the hot path.
pub(super) fn call_tool(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Result<impl Future<Output = Reply> + Send + '_, Reply> {
    let view: CallView = parse(request.params.as_deref()).map_err(Reply::bad)?;
    let catalog = server.catalog.load();
    let unknown = |name: &str| {
        Reply::error(
            ErrorObject::invalid_params(format!("Unknown tool: {name}"))
                .with_data(serde_json::json!({"name": name})),
        )
    };
    let Some(entry) = catalog.tool(&view.name).cloned() else {
        return Err(unknown(&view.name));
    };
    drop(catalog);
    // A view-only tool (MCP Apps) is not there for a client that renders no views.
    if !entry.model_visible && !crate::apps::client_renders(&era.caps) {
        return Err(unknown(&view.name));
    }
    access::admit(server, &carrier, &entry.requirement, || unknown(&view.name))?;
    let version = era.version;
    let arguments = view.arguments.unwrap_or_else(|| Value::Object(Map::new()));
    #[cfg(feature = "http")]
    if version.is_modern()
        && let Some(http) = &carrier.http
        && let Err(e) =
            crate::headers::check_param_headers(&http.headers, &entry.headers, &arguments)
    {
        return Err(Reply::bad(e));
    }
    // Under middleware the arguments are checked inside the stack, so that layers see
    // every call.
    let layered = server.middleware.is_some() || entry.layers.is_some();
    if !layered && let Some(result) = invalid_tool_arguments(&entry, &arguments) {
        return Err(Reply::Result(render::tool_result(
            server, version, &entry, result,
        )));
    }
    let run = ToolRun {
        name: view.name,
        arguments,
        request_state: view.request_state,
        input_responses: view.input_responses,
        layered,
    };
    let id = request.id;
    Ok(if entry.task.support != TaskSupport::Forbidden {
        // Boxed: the task path's state stays out of every other call's future.
        Either::Left(Box::pin(task::call_tool(
            server, entry, id, era, carrier, run,
        )))
    } else {
        Either::Right(run_tool(server, entry, id, era, carrier, run, None))
    })
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
    let unknown = |name: &str| {
        Reply::error(ErrorObject::invalid_params(format!(
            "Unknown prompt: {name}"
        )))
    };
    let Some(entry) = catalog.prompt(&view.name).cloned() else {
        return unknown(&view.name);
    };
    drop(catalog);
    if let Err(refused) =
        access::admit(server, &carrier, &entry.requirement, || unknown(&view.name))
    {
        return refused;
    }
    let version = era.version;
    let raw_args = view.arguments.unwrap_or_default();
    let arguments = Value::Object(coerce_strings(&entry.arguments_schema, stringify(raw_args)));
    let layered = server.middleware.is_some() || entry.layers.is_some();
    if !layered && let Err(e) = check_prompt_arguments(&entry, &arguments) {
        return Reply::error(e);
    }
    let invocation = Invocation {
        method: Method::PromptsGet,
        name: Cow::Borrowed(&entry.prompt.name),
        arguments: &arguments,
        request_state: view.request_state,
        input_responses: view.input_responses,
    };
    let prepared = match prepare(server, request.id, era, carrier, invocation, layered, None) {
        Ok(p) => p,
        Err(e) => return Reply::error(e),
    };
    let done = |outcome: Result<GetPromptResult, ErrorObject>| match outcome {
        Ok(mut result) => {
            if result.description.is_none() {
                result.description.clone_from(&entry.prompt.description);
            }
            Reply::Result(render::prompt_result(server, version, result))
        }
        Err(e) => Reply::error(e),
    };
    if layered {
        let call = Call::new(
            Method::PromptsGet,
            view.name,
            arguments,
            prepared.cx.clone(),
            entry.clone(),
        );
        let stack = middleware::serve(server.middleware.as_ref(), call);
        execute(server, &prepared, stack, |answer| {
            read(server, &prepared, answer, CallOutput::into_prompt).map_or_else(|r| r, done)
        })
        .await
    } else {
        let fut = (entry.get)(arguments, prepared.cx.clone());
        let fut = as_handler(&prepared.cx, Method::PromptsGet, &entry.prompt.name, fut);
        execute(server, &prepared, fut, done).await
    }
}

fn resource_not_found(version: ProtocolVersion, uri: &str) -> Reply {
    Reply::error(ErrorObject::resource_not_found_in(version, uri))
}

/// The concrete resource, or the template and the variables it matched (coerced to its
/// schema's types), a URI names.
enum Found {
    Fixed(Arc<ResourceEntry>),
    Template(Arc<TemplateEntry>, Map<String, Value>),
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
    if let Err(e) = server.check_uri(&view.uri) {
        return Reply::bad(e);
    }
    let version = era.version;
    let visible = |r: &Requirement| access::visible(server, &carrier, r);
    let Some(found) = server.catalog.load().find_resource(&view.uri, visible) else {
        return resource_not_found(version, &view.uri);
    };
    let found = match found {
        FoundResource::Fixed(e) => Found::Fixed(e),
        FoundResource::Template(e, vars) => {
            let variables = coerce_strings(&e.variables_schema, vars);
            Found::Template(e, variables)
        }
    };
    let (cache, layers, requirement) = match &found {
        Found::Fixed(e) => (e.cache, &e.layers, &e.requirement),
        Found::Template(e, _) => (e.cache, &e.layers, &e.requirement),
    };
    if let Err(refused) = access::admit(server, &carrier, requirement, || {
        resource_not_found(version, &view.uri)
    }) {
        return refused;
    }
    let mut cache = cache.apply(server.config.cache.read);
    if !requirement.is_open() {
        // Contents not everyone may read are not for shared caches.
        cache.scope = CacheScope::Private;
    }
    let layered = server.middleware.is_some() || layers.is_some();
    let arguments = Value::String(view.uri.clone());
    let invocation = Invocation {
        method: Method::ResourcesRead,
        name: Cow::Borrowed(&view.uri),
        arguments: &arguments,
        request_state: view.request_state,
        input_responses: view.input_responses,
    };
    let prepared = match prepare(server, request.id, era, carrier, invocation, layered, None) {
        Ok(p) => p,
        Err(e) => return Reply::error(e),
    };
    let done = |outcome: Result<Vec<ResourceContents>, ErrorObject>| match outcome {
        Ok(contents) => Reply::Result(render::read_result(server, version, contents, cache)),
        Err(e)
            if e.code == codes::INVALID_PARAMS
                && e.data.as_ref().is_some_and(|d| d.get("uri").is_some()) =>
        {
            resource_not_found(version, &view.uri)
        }
        Err(e) => Reply::error(e),
    };
    if layered {
        let (item, variables): (Arc<dyn Item>, _) = match found {
            Found::Fixed(e) => (e, Map::new()),
            Found::Template(e, variables) => (e, variables),
        };
        let call = Call::new(
            Method::ResourcesRead,
            view.uri.clone(),
            Value::Object(variables),
            prepared.cx.clone(),
            item,
        );
        let stack = middleware::serve(server.middleware.as_ref(), call);
        execute(server, &prepared, stack, |answer| {
            read(server, &prepared, answer, CallOutput::into_resource).map_or_else(|r| r, done)
        })
        .await
    } else {
        let fut = match found {
            Found::Fixed(e) => {
                let request = resource_request(
                    view.uri.clone(),
                    e.resource.mime_type.as_deref(),
                    Map::new(),
                );
                (e.read)(request, prepared.cx.clone())
            }
            Found::Template(e, variables) => {
                let request =
                    resource_request(view.uri.clone(), e.template.mime_type.as_deref(), variables);
                (e.read)(request, prepared.cx.clone())
            }
        };
        let fut = as_handler(&prepared.cx, Method::ResourcesRead, &view.uri, fut);
        execute(server, &prepared, fut, done).await
    }
}
