//! Sets of definitions with their handlers: [`ToolSet`], [`PromptSet`] and [`ResourceSet`]
//! (explicit, with `tools![…]`), and the automatic collection of every `#[tool]`, `#[prompt]`
//! and `#[resource]` of the binary (`inventory`).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::definition::{PromptDefinition, ResourceDefinition, ToolDefinition};
use super::handler::{
    PromptFn, PromptHandler, PromptResult, ReadFn, ReadResult, ResourceHandler, ResourceRequest,
    ToolFn, ToolHandler, ToolResult,
};
use crate::context::Context;
use crate::future::BoxFuture;

/// Defines a set of one kind of definition: the source it holds (a definition and its
/// handler), the public set type and its builder methods.
macro_rules! define_set {
    (
        $(#[$set_doc:meta])*
        $set:ident of $source:ident {
            definition: $definition:ty,
            handler: $handler:ident::$handler_fn:ident => $field:ident: $fn_type:ty,
            input: $input:ty,
            output: $output:ty,
            with_doc: $with_doc:literal,
            with_fn_doc: $with_fn_doc:literal,
            len_doc: $len_doc:literal $(,)?
        }
    ) => {
        /// A definition as a set holds it, with its handler.
        #[derive(Clone)]
        pub(crate) struct $source {
            pub(crate) definition: $definition,
            pub(crate) $field: $fn_type,
        }

        $(#[$set_doc])*
        #[derive(Clone, Default)]
        pub struct $set {
            pub(crate) items: Vec<$source>,
        }

        impl fmt::Debug for $set {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list()
                    .entries(self.items.iter().map(|t| &t.definition.name))
                    .finish()
            }
        }

        impl $set {
            /// An empty set.
            pub fn new() -> Self {
                Self::default()
            }

            #[doc = $with_doc]
            #[must_use]
            pub fn with<H: $handler>(mut self) -> Self {
                self.items.push($source {
                    definition: H::definition(),
                    $field: Arc::new(H::$handler_fn),
                });
                self
            }

            #[doc = $with_fn_doc]
            #[must_use]
            pub fn with_fn<F, Fut>(mut self, definition: $definition, f: F) -> Self
            where
                F: Fn($input, Context) -> Fut + Send + Sync + 'static,
                Fut: Future<Output = $output> + Send + 'static,
            {
                self.items.push($source {
                    definition,
                    $field: Arc::new(move |input, cx| Box::pin(f(input, cx))),
                });
                self
            }

            /// Adds everything of another set.
            #[must_use]
            pub fn extend(mut self, other: Self) -> Self {
                self.items.extend(other.items);
                self
            }

            #[doc = $len_doc]
            pub fn len(&self) -> usize {
                self.items.len()
            }

            /// Whether the set is empty.
            pub fn is_empty(&self) -> bool {
                self.items.is_empty()
            }
        }
    };
}

define_set! {
    /// An explicit set of tools (`tools![a, b]`). Given to
    /// [`ServerBuilder::tools`](crate::ServerBuilder::tools) it replaces automatic collection.
    ToolSet of ToolSource {
        definition: ToolDefinition,
        handler: ToolHandler::call => call: ToolFn,
        input: Value,
        output: ToolResult,
        with_doc: "Adds a `#[tool]` function (by the name of the function).",
        with_fn_doc: "Adds a tool defined at run time from a definition and an async closure.",
        len_doc: "The number of tools.",
    }
}

define_set! {
    /// An explicit set of prompts (`prompts![a, b]`).
    PromptSet of PromptSource {
        definition: PromptDefinition,
        handler: PromptHandler::get => get: PromptFn,
        input: Value,
        output: PromptResult,
        with_doc: "Adds a `#[prompt]` function.",
        with_fn_doc: "Adds a prompt defined at run time.",
        len_doc: "The number of prompts.",
    }
}

define_set! {
    /// An explicit set of resources and resource templates (`resources![a, b]`).
    ResourceSet of ResourceSource {
        definition: ResourceDefinition,
        handler: ResourceHandler::read => read: ReadFn,
        input: ResourceRequest,
        output: ReadResult,
        with_doc: "Adds a `#[resource]` function.",
        with_fn_doc: "Adds a resource or template defined at run time.",
        len_doc: "The number of resources and templates.",
    }
}

/// An automatically collected `#[tool]` (one per annotated function; see `inventory`).
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolRegistration {
    definition: fn() -> ToolDefinition,
    call: fn(Value, Context) -> BoxFuture<ToolResult>,
}

impl ToolRegistration {
    #[doc(hidden)]
    pub const fn of<H: ToolHandler>() -> Self {
        Self {
            definition: H::definition,
            call: H::call,
        }
    }
}

/// An automatically collected `#[prompt]`.
#[doc(hidden)]
#[derive(Debug)]
pub struct PromptRegistration {
    definition: fn() -> PromptDefinition,
    get: fn(Value, Context) -> BoxFuture<PromptResult>,
}

impl PromptRegistration {
    #[doc(hidden)]
    pub const fn of<H: PromptHandler>() -> Self {
        Self {
            definition: H::definition,
            get: H::get,
        }
    }
}

/// An automatically collected `#[resource]`.
#[doc(hidden)]
#[derive(Debug)]
pub struct ResourceRegistration {
    definition: fn() -> ResourceDefinition,
    read: fn(ResourceRequest, Context) -> BoxFuture<ReadResult>,
}

impl ResourceRegistration {
    #[doc(hidden)]
    pub const fn of<H: ResourceHandler>() -> Self {
        Self {
            definition: H::definition,
            read: H::read,
        }
    }
}

#[cfg(feature = "inventory")]
inventory::collect!(ToolRegistration);
#[cfg(feature = "inventory")]
inventory::collect!(PromptRegistration);
#[cfg(feature = "inventory")]
inventory::collect!(ResourceRegistration);

/// Everything the `#[tool]`/`#[prompt]`/`#[resource]` macros registered in this binary.
pub(crate) fn collected() -> (ToolSet, PromptSet, ResourceSet) {
    #[allow(unused_mut)]
    let (mut tools, mut prompts, mut resources) =
        (ToolSet::new(), PromptSet::new(), ResourceSet::new());
    #[cfg(feature = "inventory")]
    {
        // A ToolSource is a few hundred bytes; a vector doubling its way to a hundred tools
        // copies them seven times over.
        tools
            .items
            .reserve(inventory::iter::<ToolRegistration>.into_iter().count());
        for r in inventory::iter::<ToolRegistration> {
            tools.items.push(ToolSource {
                definition: (r.definition)(),
                call: Arc::new(r.call),
            });
        }
        for r in inventory::iter::<PromptRegistration> {
            prompts.items.push(PromptSource {
                definition: (r.definition)(),
                get: Arc::new(r.get),
            });
        }
        for r in inventory::iter::<ResourceRegistration> {
            resources.items.push(ResourceSource {
                definition: (r.definition)(),
                read: Arc::new(r.read),
            });
        }
    }
    (tools, prompts, resources)
}

/// Creates a [`ToolSet`] from `#[tool]` functions: `tools![add, math::sub]`.
#[macro_export]
macro_rules! tools {
    ($($tool:path),* $(,)?) => {
        $crate::ToolSet::new()$(.with::<$tool>())*
    };
}

/// Creates a [`PromptSet`] from `#[prompt]` functions: `prompts![greet]`.
#[macro_export]
macro_rules! prompts {
    ($($prompt:path),* $(,)?) => {
        $crate::PromptSet::new()$(.with::<$prompt>())*
    };
}

/// Creates a [`ResourceSet`] from `#[resource]` functions: `resources![readme, files]`.
#[macro_export]
macro_rules! resources {
    ($($resource:path),* $(,)?) => {
        $crate::ResourceSet::new()$(.with::<$resource>())*
    };
}
