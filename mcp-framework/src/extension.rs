//! Extensions (SEP-2133) as packages (SEP-3371's extension points): an [`Extension`] has
//! an identifier, the settings it declares under `capabilities.extensions`, the other
//! extensions it needs, and what it contributes at setup — custom requests and
//! notifications with typed params, tools hidden from some clients, and (HTTP) routes
//! beside the endpoint. The builder checks them all at `build()` (identifiers unique and
//! namespaced, dependencies present in any order, method names neither core nor taken)
//! and nothing is served partly installed; dispatch then finds a custom method here after
//! the core ones.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::Context;
use crate::future::BoxFuture;
use crate::protocol::{ErrorObject, JsonObject};

/// A protocol extension packaged for this framework: applications enable it with
/// [`ServerBuilder::extension`](crate::ServerBuilder::extension).
///
/// ```
/// use mcp_framework::extension::{Extension, Setup};
/// use mcp_framework::protocol::ErrorObject;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize)]
/// struct Query { query: String }
/// #[derive(Serialize)]
/// struct Matches { matches: Vec<String> }
///
/// /// `com.example/search`: a catalog search method.
/// struct Search;
///
/// impl Extension for Search {
///     fn id(&self) -> &str { "com.example/search" }
///     fn setup(&self, setup: &mut Setup) {
///         setup.request("com.example/search", |q: Query, _cx| async move {
///             Ok::<_, ErrorObject>(Matches { matches: vec![format!("{}-2026", q.query)] })
///         });
///     }
/// }
/// ```
pub trait Extension: Send + Sync + 'static {
    /// The identifier: namespaced, `vendor-prefix/name` (`com.example/search`).
    fn id(&self) -> &str;

    /// The settings declared for it under `capabilities.extensions` (`{}` by default).
    fn settings(&self) -> JsonObject {
        JsonObject::new()
    }

    /// The identifiers of the extensions it needs (registered in any order).
    fn requires(&self) -> Vec<String> {
        Vec::new()
    }

    /// Whether it is offered only to clients of 2026-07-28 and later (`false` by default):
    /// then a legacy client's `initialize` result does not declare it, and its methods
    /// answer such a client `-32601` (method not found), as a server without it would.
    fn modern_only(&self) -> bool {
        false
    }

    /// Whether its requests are answered only to clients that declare it under
    /// `capabilities.extensions` (`false` by default): a request from a client that did
    /// not (in its `_meta` on 2026-07-28, at `initialize` before) is answered `-32021`
    /// (missing capability, naming this extension) with HTTP 400, before its handler runs.
    fn client_must_declare(&self) -> bool {
        false
    }

    /// Contributes its methods (and routes); called once, at `build()`.
    fn setup(&self, setup: &mut Setup) {
        let _ = setup;
    }
}

/// A custom request's handler: params in, result out.
pub(crate) type RequestFn =
    Arc<dyn Fn(Value, Context) -> BoxFuture<Result<Value, Refused>> + Send + Sync>;

/// Why a custom request has no result: its params do not read as the handler's type (a
/// malformed request, answered as the core methods answer one: HTTP 400), or the handler
/// answered with an error.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The params did not read as the handler's type (`-32602`).
    Params(ErrorObject),
    /// The handler's error, or its result did not serialize.
    Handler(ErrorObject),
}

/// A custom notification's handler.
pub(crate) type NotificationFn = Arc<dyn Fn(Value) -> BoxFuture<()> + Send + Sync>;

/// What the server tells its extensions about itself at setup.
pub(crate) struct Environment {
    pub(crate) profile: crate::schema_profile::SchemaProfile,
    /// The server's change bus (what [`ListenNotifier`]s publish on).
    pub(crate) bus: Arc<dyn crate::bus::EventBus>,
    #[cfg(feature = "redis")]
    pub(crate) redis_url: Option<String>,
}

/// What an extension contributes, collected at `build()`.
pub struct Setup {
    id: String,
    /// The server's schema profile.
    profile: crate::schema_profile::SchemaProfile,
    /// The Redis the replicas share, if the command line named one.
    #[cfg(feature = "redis")]
    redis_url: Option<String>,
    bus: Arc<dyn crate::bus::EventBus>,
    /// The `subscriptions/listen` filter fields it honors, with their notifications.
    listen: Vec<(String, String)>,
    /// The members it adds to the Server Card.
    card: Vec<(String, Value)>,
    requests: Vec<(String, RequestFn)>,
    /// The requests that stream (see [`Setup::stream`]).
    streams: Vec<String>,
    /// Why the extension cannot be installed, if it cannot.
    refusals: Vec<String>,
    /// Its JSON-RPC middleware, in order.
    rpc: Vec<std::sync::Arc<dyn crate::middleware::RpcMiddleware>>,
    /// The identity it gives stdio sessions.
    stdio_principal: Option<crate::principal::Principal>,
    /// The tools it hides from some requests.
    screens: Vec<ToolScreen>,
    notifications: Vec<(String, NotificationFn)>,
    #[cfg(feature = "http")]
    routes: Vec<(String, axum::routing::MethodRouter)>,
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Setup {
    /// Handles the request `method`: its params read as `P` (a `-32602` names what does
    /// not fit), the handler given the request's [`Context`], its `R` the result.
    pub fn request<P, R, F, Fut>(&mut self, method: &str, handler: F) -> &mut Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(P, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ErrorObject>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let f: RequestFn = Arc::new(move |params: Value, cx: Context| {
            let handler = handler.clone();
            Box::pin(async move {
                let params = if params.is_null() {
                    Value::Object(JsonObject::new())
                } else {
                    params
                };
                let params: P = serde_json::from_value(params).map_err(|e| {
                    Refused::Params(ErrorObject::invalid_params(format!("Invalid params: {e}")))
                })?;
                let result = handler(params, cx).await.map_err(Refused::Handler)?;
                serde_json::to_value(result).map_err(|e| {
                    Refused::Handler(ErrorObject::internal(format!(
                        "the result does not serialize: {e}"
                    )))
                })
            })
        });
        self.requests.push((method.to_owned(), f));
        self
    }

    /// Handles the request `method` as a stream: like [`request`](Self::request), but the
    /// handler is expected to run long and send notifications on the request's own stream
    /// ([`Context::notify`]) until its result ends it. Over HTTP the answer is an SSE stream
    /// from the start; on any transport the request does not count against the connection's
    /// `max_concurrent_requests` (bound what the handler holds yourself). The handler ends
    /// when the client cancels (its future is dropped: nothing more is sent) or, with a
    /// result of its choosing, when [`Context::shutting_down`] resolves.
    pub fn stream<P, R, F, Fut>(&mut self, method: &str, handler: F) -> &mut Self
    where
        P: DeserializeOwned + Send + 'static,
        R: Serialize + Send + 'static,
        F: Fn(P, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ErrorObject>> + Send + 'static,
    {
        self.request(method, handler);
        self.streams.push(method.to_owned());
        self
    }

    /// Handles the notification `method` (params that do not read as `P` are dropped
    /// with a log line: a notification has no answer).
    pub fn notification<P, F, Fut>(&mut self, method: &str, handler: F) -> &mut Self
    where
        P: DeserializeOwned + Send + 'static,
        F: Fn(P) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let name = method.to_owned();
        let f: NotificationFn = Arc::new(move |params: Value| {
            let (handler, name) = (handler.clone(), name.clone());
            Box::pin(async move {
                let params = if params.is_null() {
                    Value::Object(JsonObject::new())
                } else {
                    params
                };
                match serde_json::from_value::<P>(params) {
                    Ok(params) => handler(params).await,
                    Err(e) => tracing::debug!(method = %name, "notification dropped: {e}"),
                }
            })
        });
        self.notifications.push((method.to_owned(), f));
        self
    }

    /// Adds JSON-RPC middleware around every message of the server (see
    /// [`RpcMiddleware`](crate::middleware::RpcMiddleware)): after the application's own,
    /// and after those of the extensions registered before this one.
    pub fn rpc_middleware(
        &mut self,
        middleware: impl crate::middleware::RpcMiddleware,
    ) -> &mut Self {
        self.rpc.push(std::sync::Arc::new(middleware));
        self
    }

    /// Gives every stdio session this identity (SEP-3371's local context for a stdio
    /// session: an identity the extension derived from the environment, say a credential
    /// the client's launch configuration set). Handlers see it as
    /// [`Context::principal`](crate::Context::principal), and scopes are checked against
    /// it, as for an HTTP caller. Only one party may set it: a second one fails `build()`.
    pub fn stdio_principal(&mut self, principal: crate::principal::Principal) -> &mut Self {
        self.stdio_principal = Some(principal);
        self
    }

    /// Hides the tools `hidden` picks from the requests `from` picks (by the client
    /// capabilities they carry): such a request neither lists them nor calls them (its
    /// call is answered as an unknown tool's), as if the server did not serve them. MCP
    /// Apps hides its view-only tools this way from clients that render no views:
    ///
    /// ```
    /// # use mcp_framework::extension::{Extension, Setup};
    /// # struct Previews;
    /// # impl Extension for Previews {
    /// #     fn id(&self) -> &str { "com.example/previews" }
    /// fn setup(&self, setup: &mut Setup) {
    ///     // Tools marked `_meta["com.example/preview"]` only for clients that declared
    ///     // this extension.
    ///     setup.hide_tools(
    ///         |tool| tool.meta.as_ref().is_some_and(|m| m.contains_key("com.example/preview")),
    ///         |caps| !caps.extensions.as_ref().is_some_and(|e| e.contains_key("com.example/previews")),
    ///     );
    /// }
    /// # }
    /// ```
    ///
    /// `hidden` is asked once per tool while the server's tools stay the same; `from`
    /// once per `tools/list`, and per `tools/call` of a tool it hides. At most
    /// [`MAX_TOOL_SCREENS`] screens per server (more fail `build()`).
    pub fn hide_tools(
        &mut self,
        hidden: impl Fn(&crate::protocol::Tool) -> bool + Send + Sync + 'static,
        from: impl Fn(&crate::protocol::ClientCapabilities) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        self.screens.push(ToolScreen {
            hidden: Arc::new(hidden),
            from: Arc::new(from),
        });
        self
    }

    /// The schema profile the server shapes its tools' schemas for
    /// ([`ServerBuilder::schema_profile`](crate::ServerBuilder::schema_profile)): schemas
    /// the extension lists to clients are shaped alike with
    /// [`SchemaProfile::shape_input`](crate::SchemaProfile::shape_input).
    pub fn schema_profile(&self) -> crate::schema_profile::SchemaProfile {
        self.profile
    }

    /// The Redis the server's replicas share, when the command line names one
    /// (`--redis-url`, `MCP_REDIS_URL`; feature `redis`): an extension keeps there what
    /// every replica must see (the Events extension, its occurrences).
    #[cfg(feature = "redis")]
    pub fn redis_url(&self) -> Option<&str> {
        self.redis_url.as_deref()
    }

    /// Adds `field` to the filter of `subscriptions/listen`: a listener that sets it to
    /// `true` is told so in its acknowledgement and is sent `method` (a
    /// `notifications/…` with no params but the subscription's `_meta`) each time the
    /// returned [`ListenNotifier`] fires, on this replica and, with a shared bus, on every
    /// other. The Events extension's `eventsListChanged` is one:
    ///
    /// ```
    /// # use mcp_framework::extension::{Extension, Setup};
    /// # struct Plugins;
    /// # impl Extension for Plugins {
    /// #     fn id(&self) -> &str { "com.example/plugins" }
    /// fn setup(&self, setup: &mut Setup) {
    ///     let changed = setup.listen_notification(
    ///         "pluginsListChanged",
    ///         "notifications/com.example/plugins/list_changed",
    ///     );
    ///     // …kept where plugins are loaded: `changed.notify()` after each.
    ///     # drop(changed);
    /// }
    /// # }
    /// ```
    ///
    /// A field of the protocol's own filter, or one another extension took, fails
    /// `build()`; so does a `method` outside `notifications/`.
    pub fn listen_notification(&mut self, field: &str, method: &str) -> ListenNotifier {
        self.listen.push((field.to_owned(), method.to_owned()));
        ListenNotifier {
            bus: self.bus.clone(),
            field: Arc::from(field),
        }
    }

    /// Adds the member `name` to the server's Server Card (when it serves one:
    /// [`ServerBuilder::server_card`](crate::ServerBuilder::server_card)), for what the
    /// extension publishes before anyone connects — the Events extension, its webhook
    /// signing keys (`webhooks`). A member the card defines itself (`name`, `remotes`,
    /// `_meta`…) or one another extension added fails `build()`.
    pub fn server_card_member(&mut self, name: &str, value: Value) -> &mut Self {
        self.card.push((name.to_owned(), value));
        self
    }

    /// Fails the server's `build()` with `problem` (its configuration cannot be served: a
    /// name defined twice, a schema that does not compile…), named with the extension's
    /// identifier among every other problem found.
    pub fn refuse(&mut self, problem: impl Into<String>) -> &mut Self {
        self.refusals.push(problem.into());
        self
    }

    /// Serves `route` at `path` beside the MCP endpoint (an absolute path, e.g.
    /// `/.well-known/example`), on every HTTP router of the server.
    #[cfg(feature = "http")]
    pub fn route(&mut self, path: &str, route: axum::routing::MethodRouter) -> &mut Self {
        self.routes.push((path.to_owned(), route));
        self
    }
}

/// Sends an extension's notification on the `subscriptions/listen` streams that asked for
/// it (see [`Setup::listen_notification`]). Cheap to clone; keep it where the change
/// happens.
#[derive(Clone)]
pub struct ListenNotifier {
    bus: Arc<dyn crate::bus::EventBus>,
    field: Arc<str>,
}

impl std::fmt::Debug for ListenNotifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListenNotifier")
            .field("field", &self.field)
            .finish_non_exhaustive()
    }
}

impl ListenNotifier {
    /// Tells every listener that asked for this notification (now: a listener that opens
    /// later is not told of changes before it).
    pub fn notify(&self) {
        self.bus
            .publish(crate::bus::ChangeEvent::Extension(self.field.clone()));
    }
}

/// The most tool screens ([`Setup::hide_tools`]) a server takes.
pub const MAX_TOOL_SCREENS: usize = 8;

/// Which tools some requests do not see ([`Setup::hide_tools`]).
#[derive(Clone)]
pub(crate) struct ToolScreen {
    /// Whether it hides this tool.
    pub(crate) hidden: Arc<dyn Fn(&crate::protocol::Tool) -> bool + Send + Sync>,
    /// Whether it applies to a request with these client capabilities.
    pub(crate) from: Arc<dyn Fn(&crate::protocol::ClientCapabilities) -> bool + Send + Sync>,
}

/// The filter fields of `subscriptions/listen` the protocol defines itself.
const CORE_LISTEN_FIELDS: &[&str] = &[
    "toolsListChanged",
    "promptsListChanged",
    "resourcesListChanged",
    "resourceSubscriptions",
    "taskIds",
];

/// The methods this server answers itself: no extension may take them.
const CORE_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "elicitation/create",
    "sampling/createMessage",
    "roots/list",
];

/// Every extension of a server, checked, with what they contribute.
#[derive(Default)]
pub(crate) struct Extensions {
    /// Identifier → the settings declared for it.
    pub(crate) declared: BTreeMap<String, JsonObject>,
    requests: HashMap<String, RequestFn>,
    notifications: HashMap<String, NotificationFn>,
    /// The requests that stream.
    streams: HashSet<String>,
    /// The identity an extension gives stdio sessions, and which extension.
    pub(crate) stdio_principal: Option<(String, crate::principal::Principal)>,
    /// The extensions' JSON-RPC middleware, in the order of registration.
    pub(crate) rpc: Vec<std::sync::Arc<dyn crate::middleware::RpcMiddleware>>,
    /// The tools they hide from some requests (at most [`MAX_TOOL_SCREENS`]).
    pub(crate) screens: Vec<ToolScreen>,
    /// The identifiers of the extensions offered to 2026-07-28 clients only.
    pub(crate) modern_only: HashSet<String>,
    /// The methods of those extensions.
    modern_only_methods: HashSet<String>,
    /// The methods answered only to clients that declare their extension, and which.
    declared_only: HashMap<String, String>,
    /// The `subscriptions/listen` filter fields extensions added, with their
    /// notifications.
    pub(crate) listen: Vec<(Arc<str>, Arc<str>)>,
    /// The members extensions add to the Server Card: which extension, the member's name,
    /// its value (the card checks that it defines no such member itself).
    pub(crate) card: Vec<(String, String, Value)>,
    #[cfg(feature = "http")]
    pub(crate) routes: Vec<(String, axum::routing::MethodRouter)>,
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.declared.keys()).finish()
    }
}

impl Extensions {
    /// Checks and sets up `extensions`: every problem is named, and none is installed
    /// unless all are.
    pub(crate) fn build(
        extensions: &[Box<dyn Extension>],
        environment: &Environment,
    ) -> Result<Self, String> {
        let mut problems = Vec::new();
        let mut out = Self::default();
        for ext in extensions {
            let id = ext.id();
            if !is_namespaced(id) {
                problems.push(format!(
                    "`{id}`: an extension identifier is `vendor-prefix/name` (`com.example/search`)"
                ));
            }
            if out.declared.insert(id.to_owned(), ext.settings()).is_some() {
                problems.push(format!("`{id}` is registered twice"));
            }
        }
        for ext in extensions {
            for needed in ext.requires() {
                if !out.declared.contains_key(&needed) {
                    problems.push(format!(
                        "`{}` requires the extension `{needed}`, which is not registered",
                        ext.id()
                    ));
                }
            }
        }
        let mut owners: HashMap<String, String> = HashMap::new();
        for ext in extensions {
            let mut setup = Setup {
                id: ext.id().to_owned(),
                profile: environment.profile,
                #[cfg(feature = "redis")]
                redis_url: environment.redis_url.clone(),
                bus: environment.bus.clone(),
                listen: Vec::new(),
                card: Vec::new(),
                requests: Vec::new(),
                streams: Vec::new(),
                refusals: Vec::new(),
                rpc: Vec::new(),
                stdio_principal: None,
                screens: Vec::new(),
                notifications: Vec::new(),
                #[cfg(feature = "http")]
                routes: Vec::new(),
            };
            ext.setup(&mut setup);
            for refusal in setup.refusals.drain(..) {
                problems.push(format!("`{}`: {refusal}", setup.id));
            }
            let names = setup
                .requests
                .iter()
                .map(|(m, _)| m)
                .chain(setup.notifications.iter().map(|(m, _)| m));
            for method in names {
                if CORE_METHODS.contains(&method.as_str()) || method.starts_with("notifications/") {
                    problems.push(format!(
                        "`{}` registers `{method}`, a method of the protocol itself",
                        setup.id
                    ));
                } else if let Some(owner) = owners.insert(method.clone(), setup.id.clone()) {
                    problems.push(format!(
                        "`{}` registers `{method}`, which `{owner}` already registered",
                        setup.id
                    ));
                }
            }
            if ext.modern_only() {
                out.modern_only.insert(setup.id.clone());
                out.modern_only_methods
                    .extend(setup.requests.iter().map(|(m, _)| m.clone()));
            }
            if ext.client_must_declare() {
                out.declared_only.extend(
                    setup
                        .requests
                        .iter()
                        .map(|(m, _)| (m.clone(), setup.id.clone())),
                );
            }
            for (field, method) in setup.listen.drain(..) {
                if CORE_LISTEN_FIELDS.contains(&field.as_str()) {
                    problems.push(format!(
                        "`{}` adds `{field}` to the listen filter, a field of the protocol itself",
                        setup.id
                    ));
                } else if !method.starts_with("notifications/") {
                    problems.push(format!(
                        "`{}`: `{method}` is not a notification (`notifications/…`)",
                        setup.id
                    ));
                } else if out.listen.iter().any(|(f, _)| **f == *field) {
                    problems.push(format!(
                        "`{}` adds `{field}` to the listen filter, which another extension added",
                        setup.id
                    ));
                } else {
                    out.listen.push((field.into(), method.into()));
                }
            }
            for (name, value) in setup.card.drain(..) {
                if out.card.iter().any(|(_, n, _)| *n == name) {
                    problems.push(format!(
                        "`{}` adds `{name}` to the Server Card, which another extension added",
                        setup.id
                    ));
                } else {
                    out.card.push((setup.id.clone(), name, value));
                }
            }
            out.streams.extend(setup.streams);
            out.rpc.extend(setup.rpc);
            out.screens.extend(setup.screens);
            if let Some(principal) = setup.stdio_principal {
                match &out.stdio_principal {
                    Some((other, _)) => problems.push(format!(
                        "`{}` and `{other}` both give stdio sessions an identity",
                        setup.id
                    )),
                    None => out.stdio_principal = Some((setup.id.clone(), principal)),
                }
            }
            out.requests.extend(setup.requests);
            out.notifications.extend(setup.notifications);
            #[cfg(feature = "http")]
            out.routes.extend(setup.routes);
        }
        if out.screens.len() > MAX_TOOL_SCREENS {
            problems.push(format!(
                "{} tool screens (`Setup::hide_tools`): a server takes at most {MAX_TOOL_SCREENS}",
                out.screens.len()
            ));
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(problems.join("; "))
        }
    }

    /// The handler of the custom request `method` for a client of this era (`legacy`: one
    /// that sent `initialize`).
    pub(crate) fn request(&self, method: &str, legacy: bool) -> Option<&RequestFn> {
        if legacy && self.modern_only_methods.contains(method) {
            return None;
        }
        self.requests.get(method)
    }

    /// The extension a client must declare to call `method`, when `declared` (what the
    /// client declares under `capabilities.extensions`) leaves it out.
    pub(crate) fn undeclared(&self, method: &str, declared: Option<&JsonObject>) -> Option<&str> {
        if self.declared_only.is_empty() {
            return None;
        }
        let id = self.declared_only.get(method)?;
        (!declared.is_some_and(|d| d.contains_key(id))).then_some(id.as_str())
    }

    /// The handler of the custom notification `method` (a notification names no era: a
    /// modern-only extension's is taken from any client).
    pub(crate) fn notification(&self, method: &str) -> Option<&NotificationFn> {
        self.notifications.get(method)
    }

    /// The screens that apply to a request with the capabilities `caps`, as a bit set
    /// (bit `i`: `screens[i]`).
    pub(crate) fn screening(&self, caps: &crate::protocol::ClientCapabilities) -> u8 {
        self.screens
            .iter()
            .enumerate()
            .filter(|(_, s)| (s.from)(caps))
            .fold(0, |set, (i, _)| set | (1 << i))
    }

    /// Whether the custom request `method` streams ([`Setup::stream`]).
    pub(crate) fn streams(&self, method: &str) -> bool {
        !self.streams.is_empty() && self.streams.contains(method)
    }
}

/// `prefix/name`: a non-empty prefix, one `/`, a non-empty name, no spaces.
fn is_namespaced(id: &str) -> bool {
    matches!(id.split_once('/'), Some((prefix, name))
        if !prefix.is_empty() && !name.is_empty() && !id.chars().any(char::is_whitespace))
}
