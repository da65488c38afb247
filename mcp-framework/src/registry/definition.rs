//! Definitions under construction: [`ToolDefinition`], [`PromptDefinition`] and
//! [`ResourceDefinition`], the builder methods they share, and per-resource caching
//! overrides and middleware layers. Nothing is checked here; [`entry`](super::entry) checks
//! and compiles them.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::apps::{UiResourceMeta, UiToolMeta, Visibility};
use crate::cache::CachePolicy;
use crate::completion::ErasedCompleter;
use tower::{Layer, Service};

use crate::location::Location;
use crate::middleware::{BoxError, Call, CallOutput, CallService, Layers};
use crate::principal::Requirement;
use crate::protocol::{CacheScope, Icon, JsonObject, ToolAnnotations};
use crate::schema_profile::{SchemaProfile, SchemaRule};
use crate::tasks::{TaskStart, TaskSupport};

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

        /// Records what one of the handler's injected parameters needs of the server (the
        /// macros call it for each): `build()` checks that its state is registered.
        #[doc(hidden)]
        #[must_use]
        pub fn injects(mut self, need: Option<crate::context::StateNeed>) -> Self {
            if let Some(need) = need {
                self.states.push(need);
            }
            self
        }

        /// Where the definition is in the source.
        #[must_use]
        pub fn location(mut self, location: Location) -> Self {
            self.location = location;
            self
        }

        /// Requires callers' tokens to grant these scopes (all of them; a broader scope
        /// implies narrower ones, see [`ScopeRules`](crate::ScopeRules)). Checked when a
        /// request carries a [`Principal`](crate::Principal): over HTTP with authorization
        /// configured, every request does. `#[tool(scopes = […])]` (and `#[prompt]`,
        /// `#[resource]`) calls it; `build()` refuses a scope that is not an RFC 6749 scope
        /// token.
        #[must_use]
        pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
            let mut all: Vec<Arc<str>> = self.requirement.scopes.to_vec();
            for scope in scopes {
                let scope: Arc<str> = scope.into().into();
                if !all.contains(&scope) {
                    all.push(scope);
                }
            }
            self.requirement.scopes = all.into();
            self
        }

        /// What callers without the [`scopes`](Self::scopes) see of this item, instead of
        /// the server's [`ScopePolicy`](crate::ScopePolicy).
        #[must_use]
        pub fn scope_policy(mut self, policy: crate::principal::ScopePolicy) -> Self {
            self.requirement.policy = Some(policy);
            self
        }

        /// Adds a [middleware](crate::middleware) layer around this item's calls, inside the
        /// server-wide layers and inside the item's layers added before (the first one added
        /// is the outermost). `#[tool(layer = …)]` (and `#[prompt]`, `#[resource]`) calls it.
        #[must_use]
        pub fn layer<L>(mut self, layer: L) -> Self
        where
            L: Layer<CallService> + Send + Sync + 'static,
            L::Service: Service<Call, Response = CallOutput> + Clone + Send + Sync + 'static,
            <L::Service as Service<Call>>::Error: Into<BoxError>,
            <L::Service as Service<Call>>::Future: Send + 'static,
        {
            self.layers.push(layer);
            self
        }
    };
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
    pub(crate) layers: Layers,
    pub(crate) requirement: Requirement,
    /// `None`: the server's profile.
    pub(crate) schema_profile: Option<SchemaProfile>,
    /// Rules of the profile this tool breaks knowingly.
    pub(crate) allowed: Vec<SchemaRule>,
    pub(crate) task: TaskMode,
    /// `_meta.ui` options (MCP Apps), laid over `meta`'s.
    pub(crate) ui: UiToolMeta,
    pub(crate) location: Location,
    /// The application state its injected parameters need.
    pub(crate) states: Vec<crate::context::StateNeed>,
    /// Builds this definition again (a `#[tool]`'s `definition()`): its validators then
    /// rebuild their schemas when they compile instead of keeping copies from start-up.
    pub(crate) rebuild: Option<fn() -> Self>,
}

/// Whether, and from when, a tool runs as a task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TaskMode {
    pub(crate) support: TaskSupport,
    pub(crate) start: TaskStart,
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
            layers: Layers::default(),
            requirement: Requirement::default(),
            schema_profile: None,
            allowed: Vec::new(),
            task: TaskMode::default(),
            ui: UiToolMeta::default(),
            location: Location::RUNTIME,
            states: Vec::new(),
            rebuild: None,
        }
    }

    /// Says that `definition` returns this same definition whenever it is called (the
    /// `#[tool]` macro's `definition()` does): the server then rebuilds the tool's schemas
    /// for its validators when they compile, at the first call, instead of keeping a copy
    /// of each from start-up.
    #[doc(hidden)]
    #[must_use]
    pub fn rebuilt_by(mut self, definition: fn() -> Self) -> Self {
        self.rebuild = Some(definition);
        self
    }

    /// Lets calls run as tasks (the Tasks extension): with [`TaskSupport::Optional`] a
    /// call from a client that declared the extension becomes a task, with
    /// [`TaskSupport::Required`] a call from one that did not is refused (`-32021`).
    /// `#[tool(task)]` and `#[tool(task = "required")]` call it. A server with such a tool
    /// keeps tasks ([`ServerBuilder::tasks`](crate::ServerBuilder::tasks)) and declares the
    /// extension.
    #[must_use]
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task.support = support;
        self
    }

    /// When a call that becomes a task does: before the handler runs (the default), or
    /// when it awaits [`Context::run_as_task`](crate::Context::run_as_task)
    /// (`#[tool(task_start = "handler")]`).
    #[must_use]
    pub fn task_start(mut self, start: TaskStart) -> Self {
        self.task.start = start;
        self
    }

    /// Names the view (an MCP Apps `ui://` resource) that hosts render this tool's results
    /// in: `_meta.ui.resourceUri`. `build()` fails unless the server serves that view.
    /// `#[tool(ui = ViewType)]` or `#[tool(ui = "ui://…")]` calls it.
    #[must_use]
    pub fn ui(mut self, resource_uri: impl Into<String>) -> Self {
        self.ui.resource_uri = Some(resource_uri.into());
        self
    }

    /// Who may call the tool (`_meta.ui.visibility`; by default the model and the views).
    /// A tool without [`Visibility::Model`] is for views only: clients that do not render
    /// views (no `io.modelcontextprotocol/ui` declared) neither list nor call it.
    #[must_use]
    pub fn visibility(mut self, who: impl IntoIterator<Item = Visibility>) -> Self {
        let mut all: Vec<Visibility> = Vec::new();
        for w in who {
            if !all.contains(&w) {
                all.push(w);
            }
        }
        self.ui.visibility = Some(all);
        self
    }

    /// JSON Schema of `structuredContent`.
    #[must_use]
    pub fn output_schema(mut self, schema: Option<JsonObject>) -> Self {
        self.output_schema = schema;
        // Built again, the definition would have its old schema: the validators keep a
        // copy of this one instead.
        self.rebuild = None;
        self
    }

    /// Behaviour hints.
    #[must_use]
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Shapes this tool's schemas with `profile` instead of the server's
    /// ([`ServerBuilder::schema_profile`](crate::ServerBuilder::schema_profile)).
    #[must_use]
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.schema_profile = Some(profile);
        self
    }

    /// Accepts a construct that the tool's schema profile refuses: `build()` serves it as
    /// it is instead of failing.
    #[must_use]
    pub fn allow(mut self, rule: SchemaRule) -> Self {
        if !self.allowed.contains(&rule) {
            self.allowed.push(rule);
        }
        self
    }
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
    pub(crate) layers: Layers,
    pub(crate) requirement: Requirement,
    pub(crate) location: Location,
    /// The application state its injected parameters need.
    pub(crate) states: Vec<crate::context::StateNeed>,
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
            layers: Layers::default(),
            requirement: Requirement::default(),
            location: Location::RUNTIME,
            states: Vec::new(),
        }
    }

    /// Attaches a completer to an argument (see [`Completer`](crate::Completer)).
    #[must_use]
    pub fn complete(mut self, argument: &str, completer: Arc<dyn ErasedCompleter>) -> Self {
        self.completers.insert(argument.to_owned(), completer);
        self
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
    pub(crate) layers: Layers,
    pub(crate) requirement: Requirement,
    /// `_meta.ui` of a view (MCP Apps), laid over `meta`'s.
    pub(crate) ui: Option<UiResourceMeta>,
    pub(crate) location: Location,
    /// The application state its injected parameters need.
    pub(crate) states: Vec<crate::context::StateNeed>,
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
    pub(crate) scope: Option<CacheScope>,
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
            layers: Layers::default(),
            requirement: Requirement::default(),
            ui: None,
            location: Location::RUNTIME,
            states: Vec::new(),
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

    /// Makes this `ui://` resource an MCP Apps view with these CSP origins, permissions and
    /// preferences (`_meta.ui`, on the listing and on every read). A `ui://` resource is a
    /// view without it too: its type is `text/html;profile=mcp-app` unless it says so
    /// itself. `#[resource(uri = "ui://…", ui(…))]` calls it.
    #[must_use]
    pub fn ui(mut self, meta: UiResourceMeta) -> Self {
        self.ui = Some(meta);
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
    pub fn cache_scope(mut self, scope: CacheScope) -> Self {
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
