//! The handler side of a definition: the traits the macros implement ([`ToolHandler`],
//! [`PromptHandler`], [`ResourceHandler`]), what a handler returns, the [`ResourceRequest`]
//! a resource handler reads, and the erased handler functions entries and sets hold.
//!
//! A handler takes a [`Context`], which sits below the registry (it reaches the server that
//! holds the handler through a trait, not by name).

use std::sync::Arc;

use serde_json::Value;

use super::definition::{PromptDefinition, ResourceDefinition, ToolDefinition};
use crate::context::Context;
use crate::future::BoxFuture;
use crate::protocol::{CallToolResult, ErrorObject, GetPromptResult, ResourceContents};

/// What a tool call produces: a result (possibly `isError`) or a protocol error.
pub type ToolResult = Result<CallToolResult, ErrorObject>;

pub(crate) type ToolFn = Arc<dyn Fn(Value, Context) -> BoxFuture<ToolResult> + Send + Sync>;

/// Implemented by the type the `#[tool]` macro generates next to the function.
pub trait ToolHandler: 'static {
    /// The tool's definition (name, schemas, annotations…).
    fn definition() -> ToolDefinition;
    /// Calls the tool with its (already validated) arguments object.
    fn call(arguments: Value, cx: Context) -> BoxFuture<ToolResult>;
}

/// What getting a prompt produces.
pub type PromptResult = Result<GetPromptResult, ErrorObject>;

pub(crate) type PromptFn = Arc<dyn Fn(Value, Context) -> BoxFuture<PromptResult> + Send + Sync>;

/// Implemented by the type the `#[prompt]` macro generates next to the function.
pub trait PromptHandler: 'static {
    /// The prompt's definition.
    fn definition() -> PromptDefinition;
    /// Renders the prompt; `arguments` is an object whose values were coerced from strings
    /// to the types the argument schema asks for.
    fn get(arguments: Value, cx: Context) -> BoxFuture<PromptResult>;
}

/// What reading a resource produces.
pub type ReadResult = Result<Vec<ResourceContents>, ErrorObject>;

pub(crate) type ReadFn =
    Arc<dyn Fn(ResourceRequest, Context) -> BoxFuture<ReadResult> + Send + Sync>;

/// Implemented by the type the `#[resource]` macro generates next to the function.
pub trait ResourceHandler: 'static {
    /// The resource's (or template's) definition.
    fn definition() -> ResourceDefinition;
    /// Reads it.
    fn read(request: ResourceRequest, cx: Context) -> BoxFuture<ReadResult>;
}

/// The resource being read: its URI, and for templates the variables matched in it.
#[derive(Debug, Clone)]
pub struct ResourceRequest {
    pub(crate) uri: String,
    pub(crate) mime_type: Option<Arc<str>>,
    pub(crate) variables: serde_json::Map<String, Value>,
}

impl ResourceRequest {
    /// The URI the client asked for.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The MIME type declared on the definition.
    pub fn mime_type(&self) -> Option<&str> {
        self.mime_type.as_deref()
    }

    /// The template variables matched in the URI (empty for static resources), with
    /// values coerced to the types the handler's parameters ask for.
    pub fn variables(&self) -> &serde_json::Map<String, Value> {
        &self.variables
    }
}
