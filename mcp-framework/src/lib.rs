#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// Library code takes what it consumes. (Not a workspace lint: handlers written for the
// framework take context parameters and completion requests by value, like extractors.)
#![warn(clippy::needless_pass_by_value)]

mod cache;
mod catalog;
mod cli;
#[cfg(feature = "client")]
pub mod client;
mod completion;
mod context;
mod dispatch;
mod error;
mod events;
mod headers;
pub mod logging;
mod mrtr;
mod outcome;
pub mod protocol;
mod registry;
mod render;
mod schema;
mod server;
mod session;
mod subscriptions;
mod template;
mod transport;

pub use cache::{CachePolicy, Cacheable};
pub use completion::{Completer, CompletionRequest, IntoCompletion, completer};
pub use context::{Ask, Context, ContextError, Elicitation, FromContext, Principal, State};
pub use error::{Error, ToolError};
pub use events::{ChangeEvent, EventBus, LocalBus};
pub use mcp_macros::{prompt, resource, tool};
pub use mrtr::StateKey;
pub use outcome::{
    Blob, IntoPromptResult, IntoResourceContents, IntoToolResult, Json, StructuredOutput,
};
pub use protocol::{
    CacheScope, CallToolResult, Completion, Content, ErrorObject, GetPromptResult, Icon,
    LoggingLevel, PromptMessage, ProtocolVersion, ResourceContents, Role, ToolAnnotations,
};
pub use registry::{
    BoxFuture, Location, PromptDefinition, PromptHandler, PromptResult, PromptSet, ReadResult,
    ResourceDefinition, ResourceHandler, ResourceRequest, ResourceSet, ToolDefinition, ToolHandler,
    ToolResult, ToolSet,
};
pub use server::{Server, ServerBuilder, ServerHandle};
#[cfg(feature = "http")]
pub use transport::http::HttpConfig;

/// What the macros expand to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::completion::completer;
    pub use crate::context::{Context, FromContext};
    pub use crate::outcome::{
        IntoPromptResult, IntoResourceContents, IntoToolResult, Probe, ToolOutput, ViaContent,
        ViaResultContent, ViaResultStructured, ViaStructured, decode_arguments,
        decode_prompt_arguments, decode_variables,
    };
    pub use crate::protocol::{CacheScope, Icon, ToolAnnotations};
    pub use crate::registry::{
        BoxFuture, Location, PromptDefinition, PromptHandler, PromptRegistration, PromptResult,
        ReadResult, ResourceDefinition, ResourceHandler, ResourceRegistration, ResourceRequest,
        ToolDefinition, ToolHandler, ToolRegistration, ToolResult,
    };
    pub use crate::schema::{input_schema_for, schema_for};
    #[cfg(feature = "inventory")]
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use serde_json::Value;

    /// Registers a `#[tool]` for automatic collection (no-op without the `inventory` feature).
    #[cfg(feature = "inventory")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __submit_tool {
        ($ty:ty) => {
            $crate::__private::inventory::submit! { $crate::__private::ToolRegistration::of::<$ty>() }
        };
    }
    #[cfg(not(feature = "inventory"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __submit_tool {
        ($ty:ty) => {};
    }

    /// Registers a `#[prompt]`.
    #[cfg(feature = "inventory")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __submit_prompt {
        ($ty:ty) => {
            $crate::__private::inventory::submit! { $crate::__private::PromptRegistration::of::<$ty>() }
        };
    }
    #[cfg(not(feature = "inventory"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __submit_prompt {
        ($ty:ty) => {};
    }

    /// Registers a `#[resource]`.
    #[cfg(feature = "inventory")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __submit_resource {
        ($ty:ty) => {
            $crate::__private::inventory::submit! { $crate::__private::ResourceRegistration::of::<$ty>() }
        };
    }
    #[cfg(not(feature = "inventory"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __submit_resource {
        ($ty:ty) => {};
    }

    pub use crate::{
        __submit_prompt as submit_prompt, __submit_resource as submit_resource,
        __submit_tool as submit_tool,
    };
}
