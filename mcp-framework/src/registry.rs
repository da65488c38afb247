//! What a server serves: tool, prompt and resource definitions, the sets they are collected
//! in (explicitly with `tools![…]` or automatically through `inventory`), and the compiled
//! entries the dispatcher calls.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::cache::CachePolicy;
use crate::completion::ErasedCompleter;
use crate::context::Context;
use crate::error::Error;
use crate::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, Icon, JsonObject, Prompt, PromptArgument,
    Resource, ResourceContents, ResourceTemplate, Tool, ToolAnnotations,
};
use crate::schema::{self, Validator};
use crate::template::UriTemplate;

/// A boxed, `Send` future, as the generated handlers return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Where a definition is in the source (reported for duplicates and invalid definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Source file.
    pub file: &'static str,
    /// Line.
    pub line: u32,
}

impl Location {
    /// A location (`file!()`, `line!()`).
    pub const fn new(file: &'static str, line: u32) -> Self {
        Self { file, line }
    }

    /// The location of a definition made at run time (no source position).
    pub const RUNTIME: Self = Self::new("<runtime>", 0);
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// The builder methods every kind of definition has.
macro_rules! shared_builders {
    () => {
        /// Human-readable title.
        #[must_use]
        pub fn title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
            self.title = Some(title.into());
            self
        }

        /// Description (an empty one is ignored).
        #[must_use]
        pub fn description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
            let d = description.into();
            if !d.is_empty() {
                self.description = Some(d);
            }
            self
        }

        /// Adds an icon.
        #[must_use]
        pub fn icon(mut self, icon: Icon) -> Self {
            self.icons.push(icon);
            self
        }

        /// `_meta` for the definition, as a JSON object literal (checked by `build()`).
        #[must_use]
        pub fn meta_json(mut self, json: impl Into<Cow<'static, str>>) -> Self {
            self.meta = Some(json.into());
            self
        }

        /// Where the definition is in the source.
        #[must_use]
        pub fn location(mut self, location: Location) -> Self {
            self.location = location;
            self
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Tools

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

/// A tool definition under construction: what `tools/list` shows, plus where it was defined.
#[derive(Debug, Clone)]
pub struct ToolDefinition {
    pub(crate) name: Cow<'static, str>,
    pub(crate) title: Option<Cow<'static, str>>,
    pub(crate) description: Option<Cow<'static, str>>,
    pub(crate) input_schema: JsonObject,
    pub(crate) output_schema: Option<JsonObject>,
    pub(crate) annotations: Option<ToolAnnotations>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<Cow<'static, str>>,
    pub(crate) location: Location,
}

impl ToolDefinition {
    shared_builders!();

    /// A tool named `name` taking arguments described by `input_schema` (a JSON Schema
    /// object whose root is `type: "object"`).
    pub fn new(name: impl Into<Cow<'static, str>>, input_schema: JsonObject) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: Vec::new(),
            meta: None,
            location: Location::RUNTIME,
        }
    }

    /// JSON Schema of `structuredContent`.
    #[must_use]
    pub fn output_schema(mut self, schema: Option<JsonObject>) -> Self {
        self.output_schema = schema;
        self
    }

    /// Behaviour hints.
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// A tool ready to serve: definition, compiled validator and handler.
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    /// `outputSchema` root is not an object: legacy revisions see it wrapped in `{result}`.
    pub(crate) wraps_output: bool,
    pub(crate) validator: Validator,
    pub(crate) headers: Vec<HeaderParam>,
    pub(crate) call: ToolFn,
    pub(crate) location: Location,
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.tool.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A tool parameter mirrored into an `Mcp-Param-{header}` HTTP header (`x-mcp-header`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeaderParam {
    /// The chain of `properties` keys from the schema root.
    pub(crate) path: Vec<String>,
    /// The `{name}` part of `Mcp-Param-{name}`.
    pub(crate) header: String,
    pub(crate) kind: HeaderKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderKind {
    String,
    Integer,
    Boolean,
}

fn definition_error(kind: &'static str, name: &str, location: Location, reason: String) -> Error {
    Error::Definition {
        kind,
        name: name.to_owned(),
        location,
        reason,
    }
}

fn parse_meta(
    kind: &'static str,
    name: &str,
    location: Location,
    meta: Option<&str>,
) -> Result<Option<JsonObject>, Error> {
    meta.map(|json| match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(obj)) => Ok(obj),
        Ok(_) => Err(definition_error(
            kind,
            name,
            location,
            "meta must be a JSON object".into(),
        )),
        Err(e) => Err(definition_error(
            kind,
            name,
            location,
            format!("meta is not valid JSON: {e}"),
        )),
    })
    .transpose()
}

impl ToolEntry {
    fn new(mut def: ToolDefinition, call: ToolFn) -> Result<Self, Error> {
        let kind = "tool";
        crate::headers::normalize_header_properties(&mut def.input_schema);
        let err = |reason: String| definition_error(kind, &def.name, def.location, reason);
        if def.name.is_empty() || def.name.len() > 128 {
            return Err(err("tool names must be 1 to 128 characters long".into()));
        }
        if let Some(bad) = def
            .name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            return Err(err(format!(
                "tool names may contain only ASCII letters, digits, `_`, `-` and `.`, not {bad:?}"
            )));
        }
        if !schema::is_object_schema(&def.input_schema) {
            return Err(err(
                "the input schema must have `type: \"object\"` at its root".into(),
            ));
        }
        let validator = Validator::compile(&def.input_schema)
            .map_err(|e| err(format!("the input schema does not compile: {e}")))?;
        if let Some(out) = &def.output_schema {
            Validator::compile(out)
                .map_err(|e| err(format!("the output schema does not compile: {e}")))?;
        }
        let headers = crate::headers::collect_header_params(&def.input_schema).map_err(err)?;
        let meta = parse_meta(kind, &def.name, def.location, def.meta.as_deref())?;
        let wraps_output = def
            .output_schema
            .as_ref()
            .is_some_and(|s| !schema::is_object_schema(s));
        let tool = Tool {
            name: def.name.into_owned(),
            title: def.title.map(Cow::into_owned),
            description: def.description.map(Cow::into_owned),
            input_schema: def.input_schema,
            output_schema: def.output_schema,
            annotations: def.annotations,
            icons: (!def.icons.is_empty()).then_some(def.icons),
            meta,
        };
        Ok(Self {
            tool,
            wraps_output,
            validator,
            headers,
            call,
            location: def.location,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Prompts

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

/// A prompt definition under construction.
#[derive(Clone)]
pub struct PromptDefinition {
    pub(crate) name: Cow<'static, str>,
    pub(crate) title: Option<Cow<'static, str>>,
    pub(crate) description: Option<Cow<'static, str>>,
    pub(crate) arguments_schema: JsonObject,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<Cow<'static, str>>,
    pub(crate) completers: BTreeMap<String, Arc<dyn ErasedCompleter>>,
    pub(crate) location: Location,
}

impl fmt::Debug for PromptDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptDefinition")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl PromptDefinition {
    shared_builders!();

    /// A prompt whose arguments are the properties of `arguments_schema` (an object schema;
    /// `required` marks required arguments, `description`s become argument descriptions).
    pub fn new(name: impl Into<Cow<'static, str>>, arguments_schema: JsonObject) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments_schema,
            icons: Vec::new(),
            meta: None,
            completers: BTreeMap::new(),
            location: Location::RUNTIME,
        }
    }

    /// Attaches a completer to an argument (see [`Completer`](crate::Completer)).
    #[must_use]
    pub fn complete(mut self, argument: &str, completer: Arc<dyn ErasedCompleter>) -> Self {
        self.completers.insert(argument.to_owned(), completer);
        self
    }
}

/// A prompt ready to serve.
pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) arguments_schema: JsonObject,
    pub(crate) validator: Validator,
    pub(crate) completers: BTreeMap<String, Arc<dyn ErasedCompleter>>,
    pub(crate) get: PromptFn,
    pub(crate) location: Location,
}

impl fmt::Debug for PromptEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptEntry")
            .field("name", &self.prompt.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// The properties of an object schema as `(name, description, required)`.
pub(crate) fn schema_arguments(schema: &JsonObject) -> Vec<(String, Option<String>, bool)> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| {
                    let description = prop
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    (name.clone(), description, required.contains(&name.as_str()))
                })
                .collect()
        })
        .unwrap_or_default()
}

impl PromptEntry {
    fn new(def: PromptDefinition, get: PromptFn) -> Result<Self, Error> {
        let kind = "prompt";
        if def.name.is_empty() {
            return Err(definition_error(
                kind,
                &def.name,
                def.location,
                "empty name".into(),
            ));
        }
        let meta = parse_meta(kind, &def.name, def.location, def.meta.as_deref())?;
        let validator = Validator::compile(&def.arguments_schema).map_err(|e| {
            definition_error(
                kind,
                &def.name,
                def.location,
                format!("the arguments schema does not compile: {e}"),
            )
        })?;
        let declared = schema_arguments(&def.arguments_schema);
        for arg in def.completers.keys() {
            if !declared.iter().any(|(n, ..)| n == arg) {
                return Err(definition_error(
                    kind,
                    &def.name,
                    def.location,
                    format!("completer for unknown argument `{arg}`"),
                ));
            }
        }
        let arguments: Vec<PromptArgument> = declared
            .into_iter()
            .map(|(name, description, required)| PromptArgument {
                name,
                title: None,
                description,
                required: Some(required),
            })
            .collect();
        let prompt = Prompt {
            name: def.name.into_owned(),
            title: def.title.map(Cow::into_owned),
            description: def.description.map(Cow::into_owned),
            arguments: (!arguments.is_empty()).then_some(arguments),
            icons: (!def.icons.is_empty()).then_some(def.icons),
            meta,
        };
        Ok(Self {
            prompt,
            arguments_schema: def.arguments_schema,
            validator,
            completers: def.completers,
            get,
            location: def.location,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Resources

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

/// Whether a definition is one concrete resource or a URI template.
#[derive(Debug, Clone)]
pub(crate) enum ResourceShape {
    Static {
        uri: Cow<'static, str>,
    },
    Template {
        template: Cow<'static, str>,
        /// Schema of the handler's parameters (for coercing matched variables).
        variables_schema: JsonObject,
    },
}

/// A resource or resource template definition under construction.
#[derive(Clone)]
pub struct ResourceDefinition {
    pub(crate) shape: ResourceShape,
    pub(crate) name: Cow<'static, str>,
    pub(crate) title: Option<Cow<'static, str>>,
    pub(crate) description: Option<Cow<'static, str>>,
    pub(crate) mime_type: Option<Cow<'static, str>>,
    pub(crate) size: Option<u64>,
    pub(crate) icons: Vec<Icon>,
    pub(crate) meta: Option<Cow<'static, str>>,
    pub(crate) cache: CacheOverride,
    pub(crate) completers: BTreeMap<String, Arc<dyn ErasedCompleter>>,
    pub(crate) location: Location,
}

impl fmt::Debug for ResourceDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceDefinition")
            .field("shape", &self.shape)
            .field("name", &self.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Per-resource overrides of the caching hints.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CacheOverride {
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) scope: Option<crate::protocol::CacheScope>,
}

impl CacheOverride {
    pub(crate) fn apply(self, base: CachePolicy) -> CachePolicy {
        CachePolicy {
            ttl_ms: self.ttl_ms.unwrap_or(base.ttl_ms),
            scope: self.scope.unwrap_or(base.scope),
        }
    }
}

impl ResourceDefinition {
    shared_builders!();

    fn with_shape(shape: ResourceShape, name: Cow<'static, str>) -> Self {
        Self {
            shape,
            name,
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: Vec::new(),
            meta: None,
            cache: CacheOverride::default(),
            completers: BTreeMap::new(),
            location: Location::RUNTIME,
        }
    }

    /// One concrete resource at `uri`.
    pub fn fixed(uri: impl Into<Cow<'static, str>>, name: impl Into<Cow<'static, str>>) -> Self {
        Self::with_shape(ResourceShape::Static { uri: uri.into() }, name.into())
    }

    /// A family of resources matching an RFC 6570 URI template. `variables_schema` is an
    /// object schema whose properties are the template's variables.
    pub fn template(
        template: impl Into<Cow<'static, str>>,
        name: impl Into<Cow<'static, str>>,
        variables_schema: JsonObject,
    ) -> Self {
        Self::with_shape(
            ResourceShape::Template {
                template: template.into(),
                variables_schema,
            },
            name.into(),
        )
    }

    /// MIME type of the contents.
    #[must_use]
    pub fn mime_type(mut self, mime: impl Into<Cow<'static, str>>) -> Self {
        self.mime_type = Some(mime.into());
        self
    }

    /// Size in bytes, if known.
    #[must_use]
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// Overrides the `ttlMs` of `resources/read` results for this resource.
    #[must_use]
    pub fn ttl_ms(mut self, ttl_ms: u64) -> Self {
        self.cache.ttl_ms = Some(ttl_ms);
        self
    }

    /// Overrides the `cacheScope` of `resources/read` results for this resource.
    #[must_use]
    pub fn cache_scope(mut self, scope: crate::protocol::CacheScope) -> Self {
        self.cache.scope = Some(scope);
        self
    }

    /// Attaches a completer to a template variable.
    #[must_use]
    pub fn complete(mut self, variable: &str, completer: Arc<dyn ErasedCompleter>) -> Self {
        self.completers.insert(variable.to_owned(), completer);
        self
    }
}

/// A concrete resource ready to serve.
pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) cache: CacheOverride,
    pub(crate) read: ReadFn,
    pub(crate) location: Location,
}

impl fmt::Debug for ResourceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceEntry")
            .field("uri", &self.resource.uri)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A resource template ready to serve.
pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
    pub(crate) variables_schema: JsonObject,
    pub(crate) cache: CacheOverride,
    pub(crate) completers: BTreeMap<String, Arc<dyn ErasedCompleter>>,
    pub(crate) read: ReadFn,
    pub(crate) location: Location,
}

impl fmt::Debug for TemplateEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TemplateEntry")
            .field("uriTemplate", &self.template.uri_template)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

enum ResourceOrTemplate {
    Resource(ResourceEntry),
    Template(TemplateEntry),
}

fn build_resource(def: ResourceDefinition, read: ReadFn) -> Result<ResourceOrTemplate, Error> {
    let meta = parse_meta("resource", &def.name, def.location, def.meta.as_deref())?;
    let icons = (!def.icons.is_empty()).then_some(def.icons);
    match def.shape {
        ResourceShape::Static { uri } => {
            if uri.is_empty() || !uri.contains(':') {
                return Err(definition_error(
                    "resource",
                    &def.name,
                    def.location,
                    format!("`{uri}` is not an absolute URI"),
                ));
            }
            Ok(ResourceOrTemplate::Resource(ResourceEntry {
                resource: Resource {
                    uri: uri.into_owned(),
                    name: def.name.into_owned(),
                    title: def.title.map(Cow::into_owned),
                    description: def.description.map(Cow::into_owned),
                    mime_type: def.mime_type.map(Cow::into_owned),
                    size: def.size,
                    annotations: None,
                    icons,
                    meta,
                },
                cache: def.cache,
                read,
                location: def.location,
            }))
        }
        ResourceShape::Template {
            template,
            variables_schema,
        } => {
            let err = |reason: String| {
                definition_error("resource template", &def.name, def.location, reason)
            };
            let matcher = UriTemplate::parse(&template).map_err(&err)?;
            let declared: Vec<String> = schema_arguments(&variables_schema)
                .into_iter()
                .map(|(n, ..)| n)
                .collect();
            for var in matcher.variables() {
                if !declared.iter().any(|d| d == var) {
                    return Err(err(format!(
                        "template variable `{var}` has no matching parameter"
                    )));
                }
            }
            for name in def.completers.keys() {
                if !matcher.variables().any(|v| v == name) {
                    return Err(err(format!("completer for unknown variable `{name}`")));
                }
            }
            Ok(ResourceOrTemplate::Template(TemplateEntry {
                template: ResourceTemplate {
                    uri_template: template.into_owned(),
                    name: def.name.into_owned(),
                    title: def.title.map(Cow::into_owned),
                    description: def.description.map(Cow::into_owned),
                    mime_type: def.mime_type.map(Cow::into_owned),
                    annotations: None,
                    icons,
                    meta,
                },
                matcher,
                variables_schema,
                cache: def.cache,
                completers: def.completers,
                read,
                location: def.location,
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sets and automatic collection

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

impl ToolSet {
    /// Checks and compiles every tool of the set.
    pub(crate) fn into_entries(self) -> Result<Vec<Arc<ToolEntry>>, Error> {
        self.items
            .into_iter()
            .map(|t| ToolEntry::new(t.definition, t.call).map(Arc::new))
            .collect()
    }
}

impl PromptSet {
    /// Checks and compiles every prompt of the set.
    pub(crate) fn into_entries(self) -> Result<Vec<Arc<PromptEntry>>, Error> {
        self.items
            .into_iter()
            .map(|p| PromptEntry::new(p.definition, p.get).map(Arc::new))
            .collect()
    }
}

/// The concrete resources and the templates of a set.
pub(crate) type ResourceEntries = (Vec<Arc<ResourceEntry>>, Vec<Arc<TemplateEntry>>);

impl ResourceSet {
    /// Checks and compiles every resource and template of the set.
    pub(crate) fn into_entries(self) -> Result<ResourceEntries, Error> {
        let (mut fixed, mut templates) = (Vec::new(), Vec::new());
        for r in self.items {
            match build_resource(r.definition, r.read)? {
                ResourceOrTemplate::Resource(e) => fixed.push(Arc::new(e)),
                ResourceOrTemplate::Template(e) => templates.push(Arc::new(e)),
            }
        }
        Ok((fixed, templates))
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
