#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// Library code takes what it consumes. (Not a workspace lint: handlers written for the
// framework take context parameters and completion requests by value, like extractors.)
#![warn(clippy::needless_pass_by_value)]

// The modules from the top down (ARCHITECTURE.md; `scripts/check-layers` keeps imports
// pointing down): the facade, the transports, dispatch, what a request uses (context,
// sessions, subscriptions, rendering), the runtime state and registry, the leaves, protocol.
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "events")]
pub mod events;
#[cfg(feature = "proxy")]
pub mod proxy;
mod server;
mod transport;

mod dispatch;

mod context;
pub mod logging;
mod render;
mod session;
mod subscriptions;
mod telemetry;
mod watch;

mod catalog;
pub mod middleware;
mod outcome;
mod registry;
mod runtime;

mod admission;
pub mod apps;
#[cfg(feature = "auth")]
pub mod auth;
pub mod bus;
mod cache;
#[cfg(feature = "http")]
mod card;
mod completion;
mod error;
pub mod extension;
mod future;
mod headers;
mod inflight;
mod location;
mod mrtr;
mod peer;
mod principal;
#[cfg(feature = "redis")]
pub mod scale;
mod schema;
mod schema_profile;
pub mod skills;
pub mod tasks;
mod template;
mod unguessable;

pub mod protocol;

pub use cache::{CachePolicy, Cacheable};
#[cfg(feature = "http")]
pub use card::ServerCard;
/// The clap this crate parses the command line with (feature `cli`): derive your own flags
/// for [`ServerBuilder::run_with`] with `#[derive(clap::Args)]` after `use mcp_framework::clap;`.
#[cfg(feature = "cli")]
pub use clap;
pub use completion::{Completer, CompletionRequest, IntoCompletion, completer};
pub use context::ask::{Ask, Elicitation};
pub use context::form::{Form, FormChoice, FormField};
pub use context::{Context, FromContext, State};
pub use error::{ContextError, Error, ToolError};
pub use future::BoxFuture;
pub use location::Location;
pub use mcp_framework_macros::{Form, prompt, resource, skills, tool, tool_impl};
pub use mrtr::StateKey;
pub use outcome::{
    Blob, IntoPromptResult, IntoResourceContents, IntoToolResult, Json, StructuredOutput,
};
pub use peer::Transport;
pub use principal::{Principal, ScopePolicy, ScopeRules, Scopes};
pub use protocol::{
    CacheScope, CallToolResult, Completion, Content, ErrorObject, GetPromptResult, Icon,
    LoggingLevel, PromptMessage, ProtocolVersion, ResourceContents, Role, ToolAnnotations,
};
pub use registry::definition::{PromptDefinition, ResourceDefinition, ToolDefinition};
pub use registry::handler::{
    PromptHandler, PromptResult, ReadResult, ResourceHandler, ResourceRequest, ToolHandler,
    ToolResult,
};
pub use registry::set::{PromptSet, ResourceSet, ToolSet};
#[cfg(feature = "http")]
pub use runtime::config::ListenConfig;
pub use runtime::config::OutputValidation;
pub use runtime::handle::ServerHandle;
pub use schema_profile::{SchemaProfile, SchemaRule, SchemaViolation};
pub use server::Server;
pub use server::builder::ServerBuilder;
pub use tasks::{TaskConfig, TaskStart, TaskSupport};
#[cfg(feature = "http")]
pub use transport::http::config::HttpConfig;

/// What the macros expand to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::apps::{UiResourceMeta, UiView, Visibility};
    pub use crate::completion::completer;
    pub use crate::context::form::{Form, FormChoice, FormField};
    pub use crate::context::{Context, FromContext, Injected, State, ViaFromContext, ViaNothing};
    pub use crate::future::BoxFuture;
    pub use crate::location::Location;
    pub use crate::outcome::{
        Argument, Arguments, IntoPromptResult, IntoResourceContents, IntoToolResult, Probe,
        ToolOutput, ViaContent, ViaResultContent, ViaResultStructured, ViaStructured,
        decode_arguments, decode_prompt_arguments, decode_variables,
    };
    pub use crate::principal::ScopePolicy;
    pub use crate::protocol::JsonObject;
    pub use crate::protocol::{CacheScope, Icon, ToolAnnotations};
    pub use crate::registry::definition::{PromptDefinition, ResourceDefinition, ToolDefinition};
    pub use crate::registry::handler::{
        PromptHandler, PromptResult, ReadResult, ResourceHandler, ResourceRequest, ToolHandler,
        ToolResult,
    };
    pub use crate::registry::set::{
        PromptRegistration, ResourceRegistration, ToolRegistration, ToolSet,
    };
    pub use crate::schema::{default_value, input_schema_for, schema_for, with_defaults};
    pub use crate::schema_profile::{SchemaProfile, SchemaRule};
    pub use crate::skills::Skill;
    pub use crate::tasks::{TaskStart, TaskSupport};
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
