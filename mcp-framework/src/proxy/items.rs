//! An upstream's lists as this server's items: each tool and prompt under
//! `<prefix>_<name>` (`_` is allowed in every client's tool names, where `/`, `.` and `:`
//! are not; an empty prefix serves the names as they are), each resource and template under its own URI (a URI is an address, not a
//! name: renaming it would break the links in the upstream's content), with handlers that
//! forward to the upstream. An item whose definition this server refuses (a URI already
//! served: the catalog leaves the upstream's out; a template it cannot parse) is left out
//! with a warning, not the whole upstream. Every item requires the upstream's scopes; the
//! arguments of its prompts and the variables of its templates complete upstream
//! (`complete.rs`).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::adopted;
use super::callers::as_caller;
use super::complete::Forward;
use super::forward::{Forwarded, drive, park_key, resume};
use super::link::Link;
use super::lists::{Listed, Snapshot};
use super::meta::drop_meta;
use super::tasks;
use crate::client::{ClientError, RequestOptions};
use crate::context::Context;
use crate::protocol::{CallToolResult, ErrorObject, InputRequest, JsonObject, Prompt, Tool, keys};
use crate::registry::definition::{PromptDefinition, ResourceDefinition, ToolDefinition};
use crate::registry::handler::ResourceRequest;
use crate::registry::set::{PromptSet, ResourceSet, ToolSet};
use crate::runtime::handle::ItemNames;
use crate::schema_profile::SchemaProfile;
use crate::tasks::{TaskStart, TaskSupport};
use crate::template::UriTemplate;

/// This server's items for `snapshot`, and their names.
pub(super) fn items(
    link: &Arc<Link>,
    snapshot: Snapshot,
) -> (ToolSet, PromptSet, ResourceSet, ItemNames) {
    let access = link.upstream.access();
    // Every item requires the upstream's scopes (each definition type has the same two
    // setters).
    macro_rules! guarded {
        ($definition:expr) => {{
            let definition = $definition
                .location(crate::location::Location::UPSTREAM)
                .scopes(access.scopes.iter().cloned());
            match access.policy {
                Some(policy) => definition.scope_policy(policy),
                None => definition,
            }
        }};
    }
    let mut names = ItemNames::default();
    let mut tools = ToolSet::new();
    for Listed { tool, task_only } in snapshot.tools {
        let name = link.served(&tool.name);
        names.tools.push(name.clone());
        let mut definition = guarded!(tool_definition(name, &tool));
        if link.tasks || task_only {
            // A modern upstream decides which calls become tasks, and this server adopts
            // them; a legacy upstream's task-only tool is made this server's task first.
            definition = definition
                .task(TaskSupport::Optional)
                .task_start(TaskStart::Handler);
        }
        tools = tools.with_fn(definition, forward_call(link, tool.name, task_only));
    }
    let mut prompts = PromptSet::new();
    for prompt in snapshot.prompts {
        let name = link.served(&prompt.name);
        names.prompts.push(name.clone());
        let mut definition = guarded!(prompt_definition(name, &prompt));
        for argument in prompt.arguments.iter().flatten() {
            definition = definition.complete(&argument.name, Forward::prompt(link, &prompt.name));
        }
        let (link, original) = (link.clone(), prompt.name);
        prompts = prompts.with_fn(definition, move |arguments, cx: Context| {
            let (link, original) = (link.clone(), original.clone());
            async move {
                let params = json!({"name": original, "arguments": arguments});
                let result = forwarded(&link, &cx, "prompts/get", &original, params)
                    .await
                    .map_err(|e| link.error(e))?;
                serde_json::from_value(result)
                    .map_err(|e| link.error(ClientError::Decode(e.to_string())))
            }
        });
    }
    let mut resources = ResourceSet::new();
    for resource in snapshot.resources {
        names.resources.push(resource.uri.clone());
        let mut definition = ResourceDefinition::fixed(resource.uri.clone(), resource.name);
        if let Some(mime) = resource.mime_type {
            definition = definition.mime_type(mime);
        }
        if let Some(description) = resource.description {
            definition = definition.description(description);
        }
        if let Some(title) = resource.title {
            definition = definition.title(title);
        }
        resources = resources.with_fn(guarded!(definition), forward_read(link));
    }
    for template in snapshot.templates {
        let variables = match UriTemplate::parse(&template.uri_template) {
            Ok(parsed) => parsed
                .variables()
                .map(|v| (v.to_owned(), json!({"type": "string"})))
                .collect::<Map<String, Value>>(),
            Err(reason) => {
                tracing::warn!(
                    target: "mcp_framework::proxy",
                    upstream = %link.name,
                    "leaving out the template `{}`: {reason}",
                    template.uri_template
                );
                continue;
            }
        };
        names.resources.push(template.uri_template.clone());
        let completers: Vec<String> = variables.keys().cloned().collect();
        let schema = json!({"type": "object", "properties": variables});
        let mut definition = ResourceDefinition::template(
            template.uri_template.clone(),
            template.name,
            object(schema),
        );
        for variable in &completers {
            definition =
                definition.complete(variable, Forward::template(link, &template.uri_template));
        }
        if let Some(mime) = template.mime_type {
            definition = definition.mime_type(mime);
        }
        if let Some(description) = template.description {
            definition = definition.description(description);
        }
        resources = resources.with_fn(guarded!(definition), forward_read(link));
    }
    (tools, prompts, resources, names)
}

/// The definition of an upstream tool served as `name`, its schemas as the upstream
/// wrote them (the `standard` profile: nothing rewritten, nothing refused that JSON Schema
/// allows).
fn tool_definition(name: String, tool: &Tool) -> ToolDefinition {
    let mut definition = ToolDefinition::new(name, tool.input_schema.clone())
        .output_schema(tool.output_schema.clone())
        .schema_profile(SchemaProfile::Standard);
    if let Some(description) = &tool.description {
        definition = definition.description(description.clone());
    }
    if let Some(title) = &tool.title {
        definition = definition.title(title.clone());
    }
    if let Some(annotations) = &tool.annotations {
        definition = definition.annotations(annotations.clone());
    }
    definition
}

/// The definition of an upstream prompt served as `name`: its arguments as the string
/// properties of an object schema.
fn prompt_definition(name: String, prompt: &Prompt) -> PromptDefinition {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for argument in prompt.arguments.iter().flatten() {
        let mut property = json!({"type": "string"});
        if let Some(description) = &argument.description {
            property["description"] = Value::String(description.clone());
        }
        properties.insert(argument.name.clone(), property);
        if argument.required == Some(true) {
            required.push(Value::String(argument.name.clone()));
        }
    }
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let mut definition = PromptDefinition::new(name, object(schema));
    if let Some(description) = &prompt.description {
        definition = definition.description(description.clone());
    }
    if let Some(title) = &prompt.title {
        definition = definition.title(title.clone());
    }
    definition
}

/// The handler of a proxied tool: the call forwarded as `original` (`forward.rs`: the
/// upstream's progress forwarded to this request's client, its questions asked of it, a
/// cancelled request cancelled upstream).
fn forward_call(
    link: &Arc<Link>,
    original: String,
    task_only: bool,
) -> impl Fn(Value, Context) -> crate::future::BoxFuture<Result<CallToolResult, ErrorObject>>
+ Send
+ Sync
+ 'static {
    let link = link.clone();
    move |arguments, cx| {
        let (link, original) = (link.clone(), original.clone());
        Box::pin(async move {
            let client = link.client()?;
            let key = park_key(&client, &cx, "tools/call", &original, &arguments);
            let notifications = follows(&cx).then(|| client.notifications());
            let forwarded = match resume(&link.traffic, &cx, key.as_ref()) {
                Some(forwarded) => forwarded,
                None => {
                    let mut options = as_caller(&cx);
                    if let Some(level) = cx.log_level() {
                        options = options.log_level(level);
                    }
                    let token = cx.wants_progress().then(|| {
                        let token = format!("proxy-{}", crate::unguessable::hex_id());
                        options = options.clone().progress(token.clone());
                        token
                    });
                    let cx = cx.clone();
                    Forwarded::start(&link.traffic, token, async move {
                        if task_only {
                            // A caller that declared the extension gets this server's task
                            // at once; the upstream's task runs as its body.
                            cx.run_as_task().await;
                            tasks::call(&client, &original, arguments, &options).await
                        } else {
                            let params = json!({"name": original, "arguments": arguments});
                            let result =
                                relaying(&client, "tools/call", params, &options, &cx).await?;
                            if adopted::is_task(&result) {
                                adopted::follow(&client, &result, &options, &cx).await
                            } else {
                                Ok(result)
                            }
                        }
                    })
                }
            };
            let result = drive(&link.traffic, &cx, key, forwarded, notifications)
                .await
                .map_err(|e| link.error(e))?;
            serde_json::from_value(result)
                .map_err(|e| link.error(ClientError::Decode(e.to_string())))
        })
    }
}

/// Whether a forwarded request follows the upstream's notifications: its caller wants
/// progress or log messages.
fn follows(cx: &Context) -> bool {
    cx.wants_progress() || cx.log_level().is_some()
}

/// `method` of `name` with `params` forwarded for the caller of `cx` (a parked one taken
/// back when `cx` is its retry; `forward.rs`), with no progress token.
async fn forwarded(
    link: &Arc<Link>,
    cx: &Context,
    method: &'static str,
    name: &str,
    params: Value,
) -> Result<Value, ClientError> {
    let client = link.client().map_err(ClientError::Rpc)?;
    let arguments = params.get("arguments").unwrap_or(&Value::Null);
    let key = park_key(&client, cx, method, name, arguments);
    let notifications = cx.log_level().is_some().then(|| client.notifications());
    let forwarded = match resume(&link.traffic, cx, key.as_ref()) {
        Some(forwarded) => forwarded,
        None => {
            let options = as_caller(cx);
            let cx = cx.clone();
            Forwarded::start(&link.traffic, None, async move {
                relaying(&client, method, params, &options, &cx).await
            })
        }
    };
    drive(&link.traffic, cx, key, forwarded, notifications).await
}

/// `method` on the upstream, its `input_required` rounds relayed to this request's client.
async fn relaying(
    client: &crate::client::Client,
    method: &str,
    mut params: Value,
    options: &RequestOptions,
    cx: &Context,
) -> Result<Value, ClientError> {
    for _ in 0..MAX_ROUNDS {
        let mut result = client.request_with(method, params.clone(), options).await?;
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            drop_server_info(&mut result);
            return Ok(result);
        }
        let requests = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut asks = Vec::new();
        for (key, request) in requests {
            let request: InputRequest = serde_json::from_value(request)
                .map_err(|e| ClientError::Decode(format!("input request `{key}`: {e}")))?;
            asks.push(async move { (key.clone(), cx.relay(request).key(key).await) });
        }
        let mut responses = Map::new();
        for (key, answer) in futures_util::future::join_all(asks).await {
            let answer = answer.map_err(|e| {
                ClientError::Rpc(ErrorObject::internal(format!("input request `{key}`: {e}")))
            })?;
            responses.insert(key, answer);
        }
        params["inputResponses"] = Value::Object(responses);
        match result.get("requestState") {
            Some(state) => params["requestState"] = state.clone(),
            None => {
                if let Some(p) = params.as_object_mut() {
                    p.remove("requestState");
                }
            }
        }
    }
    Err(ClientError::Decode(format!(
        "the upstream asked for input more than {MAX_ROUNDS} times"
    )))
}

/// Removes the upstream's `serverInfo` from a result's `_meta` (and the `_meta` left
/// empty): the result is this server's answer, stamped with this server's identity.
fn drop_server_info(result: &mut Value) {
    drop_meta(result, &[keys::SERVER_INFO]);
}

/// The most `input_required` rounds a forwarded call goes through.
const MAX_ROUNDS: usize = 16;

/// The handler of a proxied resource or template: the read forwarded with its URI.
fn forward_read(
    link: &Arc<Link>,
) -> impl Fn(
    ResourceRequest,
    Context,
) -> crate::future::BoxFuture<Result<Vec<crate::protocol::ResourceContents>, ErrorObject>>
+ Send
+ Sync
+ 'static {
    let link = link.clone();
    move |request, cx| {
        let link = link.clone();
        Box::pin(async move {
            let uri = request.uri();
            let params = json!({"uri": uri});
            let result = forwarded(&link, &cx, "resources/read", uri, params)
                .await
                .map_err(|e| link.error(e))?;
            serde_json::from_value::<crate::protocol::ReadResourceResult>(result)
                .map(|read| read.contents)
                .map_err(|e| link.error(ClientError::Decode(e.to_string())))
        })
    }
}

/// A JSON object built with `json!`.
fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    }
}
