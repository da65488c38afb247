//! The catalog's entries as a middleware stack reaches them ([`Item`]): their own stack, and
//! their handler's run, after the same checks of the arguments as without middleware
//! (which [`call`](super::call) uses too).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::run::in_stack;
use crate::context::Context;
use crate::future::BoxFuture;
use crate::middleware::{BoxError, CallOutput, CallService, Item, Method};
use crate::outcome::error_result;
use crate::protocol::{CallToolResult, ErrorObject};
use crate::registry::entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::registry::handler::ResourceRequest;

/// Checks a tool's arguments against its input schema: the result of a failure, a tool
/// execution error (the model can correct its arguments).
pub(super) fn invalid_tool_arguments(
    entry: &ToolEntry,
    arguments: &Value,
) -> Option<CallToolResult> {
    entry.validator.check(arguments).err().map(|problems| {
        error_result(format!(
            "Invalid arguments for tool `{}`: {problems}",
            entry.tool.name
        ))
    })
}

/// Checks a prompt's (coerced) arguments against its schema.
pub(super) fn check_prompt_arguments(
    entry: &PromptEntry,
    arguments: &Value,
) -> Result<(), ErrorObject> {
    entry.validator.check(arguments).map_err(|problems| {
        ErrorObject::invalid_params(format!(
            "Invalid arguments for prompt `{}`: {problems}",
            entry.prompt.name
        ))
    })
}

/// What a resource handler is given.
pub(super) fn resource_request(
    uri: String,
    mime_type: Option<&str>,
    variables: Map<String, Value>,
) -> ResourceRequest {
    ResourceRequest {
        uri,
        mime_type: mime_type.map(Arc::from),
        variables,
    }
}

fn ready(output: CallOutput) -> BoxFuture<Result<CallOutput, BoxError>> {
    Box::pin(std::future::ready(Ok(output)))
}

impl Item for ToolEntry {
    fn layers(&self) -> Option<&CallService> {
        self.layers.as_ref()
    }

    fn run(
        &self,
        cx: Context,
        name: String,
        arguments: Value,
    ) -> BoxFuture<Result<CallOutput, BoxError>> {
        if let Some(result) = invalid_tool_arguments(self, &arguments) {
            return ready(CallOutput::Tool(result));
        }
        let fut = (self.call)(arguments, cx.clone());
        in_stack(cx, Method::ToolsCall, name, fut, CallOutput::Tool)
    }
}

impl Item for PromptEntry {
    fn layers(&self) -> Option<&CallService> {
        self.layers.as_ref()
    }

    fn run(
        &self,
        cx: Context,
        name: String,
        arguments: Value,
    ) -> BoxFuture<Result<CallOutput, BoxError>> {
        if let Err(e) = check_prompt_arguments(self, &arguments) {
            return Box::pin(std::future::ready(Err(e.into())));
        }
        let fut = (self.get)(arguments, cx.clone());
        in_stack(cx, Method::PromptsGet, name, fut, CallOutput::Prompt)
    }
}

/// The variables of a resource call (its arguments object).
fn variables(arguments: Value) -> Map<String, Value> {
    match arguments {
        Value::Object(variables) => variables,
        _ => Map::new(),
    }
}

impl Item for ResourceEntry {
    fn layers(&self) -> Option<&CallService> {
        self.layers.as_ref()
    }

    fn run(
        &self,
        cx: Context,
        name: String,
        arguments: Value,
    ) -> BoxFuture<Result<CallOutput, BoxError>> {
        let request = resource_request(
            name.clone(),
            self.resource.mime_type.as_deref(),
            variables(arguments),
        );
        let fut = (self.read)(request, cx.clone());
        in_stack(cx, Method::ResourcesRead, name, fut, CallOutput::Resource)
    }
}

impl Item for TemplateEntry {
    fn layers(&self) -> Option<&CallService> {
        self.layers.as_ref()
    }

    fn run(
        &self,
        cx: Context,
        name: String,
        arguments: Value,
    ) -> BoxFuture<Result<CallOutput, BoxError>> {
        let request = resource_request(
            name.clone(),
            self.template.mime_type.as_deref(),
            variables(arguments),
        );
        let fut = (self.read)(request, cx.clone());
        in_stack(cx, Method::ResourcesRead, name, fut, CallOutput::Resource)
    }
}
