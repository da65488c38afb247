//! [`ServerBuilder`]: what the server serves and how, validated in [`build`](ServerBuilder::build).
//! What `build()` makes is fixed: the command line of [`run`](ServerBuilder::run) is applied
//! to the builder before it.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tower::{Layer, Service};

use super::Server;
use crate::bus::EventBus;
use crate::cache::{CachePolicy, Cacheable};
use crate::error::Error;
use crate::middleware::{BoxError, Call, CallOutput, CallService, Layers};
use crate::mrtr::StateKey;
use crate::principal::{Principal, ScopePolicy, ScopeRules};
use crate::protocol::{Icon, Implementation};
use crate::registry::set::{PromptSet, ResourceSet, ToolSet};
use crate::runtime::config::{Config, ListenConfig, OutputValidation};
use crate::runtime::state::StateMap;
use crate::schema_profile::SchemaProfile;
use crate::skills::Skill;
use crate::tasks::{TaskConfig, TaskStore};
#[cfg(feature = "http")]
use crate::transport::http::HttpConfig;

/// Makes the task store of a server that keeps tasks, from its task settings (the store
/// `run()`'s `--redis-url` names).
pub(crate) type MakeTaskStore =
    Box<dyn FnOnce(&TaskConfig) -> Result<Box<dyn TaskStore>, Error> + Send + Sync>;

/// Builds a [`Server`].
#[must_use]
pub struct ServerBuilder {
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    pub(super) tools: Option<ToolSet>,
    pub(super) prompts: Option<PromptSet>,
    pub(super) resources: Option<ResourceSet>,
    pub(super) extra_tools: ToolSet,
    pub(super) extra_prompts: PromptSet,
    pub(super) extra_resources: ResourceSet,
    pub(super) config: Config,
    #[cfg(feature = "http")]
    pub(super) http: HttpConfig,
    /// The Server Card served beside the HTTP endpoint.
    #[cfg(feature = "http")]
    pub(super) card: Option<crate::card::ServerCard>,
    pub(super) state_key: Option<StateKey>,
    pub(super) previous_state_keys: Vec<StateKey>,
    pub(super) state_ttl: Duration,
    pub(super) bus: Option<Box<dyn EventBus>>,
    pub(super) app_state: StateMap,
    pub(super) layers: Layers,
    pub(super) tasks: Option<TaskConfig>,
    pub(super) task_store: Option<Box<dyn TaskStore>>,
    /// Replaces `task_store`, and does not make the server keep tasks (the command line's).
    pub(super) make_task_store: Option<MakeTaskStore>,
    /// The Redis the replicas share (the command line's `--redis-url`), for extensions.
    #[cfg(feature = "redis")]
    pub(super) redis_url: Option<String>,
    pub(super) skills: Vec<Skill>,
    pub(super) skill_dirs: Vec<PathBuf>,
    /// The extensions enabled (SEP-3371's registration point).
    pub(super) extensions: Vec<Box<dyn crate::extension::Extension>>,
    /// The application's JSON-RPC middleware, in order.
    pub(super) rpc: Vec<Arc<dyn crate::middleware::RpcMiddleware>>,
    /// The identity of every stdio session.
    pub(super) stdio_principal: Option<Principal>,
    /// Given the built server's handle, once (what follows the catalog of another server,
    /// a proxy's upstream, starts there).
    pub(super) on_build: Vec<OnBuild>,
}

/// Something started with the handle of the server `build()` made.
pub(crate) type OnBuild = Box<dyn FnOnce(&crate::runtime::handle::ServerHandle) + Send>;

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server. Set its `name` and `version` (they default to
    /// `"mcp-server"` and `"0.0.0"`); `.version(env!("CARGO_PKG_VERSION"))` is typical.
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            info: Implementation {
                name: "mcp-server".into(),
                version: "0.0.0".into(),
                ..Implementation::default()
            },
            instructions: None,
            tools: None,
            prompts: None,
            resources: None,
            extra_tools: ToolSet::new(),
            extra_prompts: PromptSet::new(),
            extra_resources: ResourceSet::new(),
            config: Config::default(),
            #[cfg(feature = "http")]
            http: HttpConfig::default(),
            #[cfg(feature = "http")]
            card: None,
            state_key: None,
            previous_state_keys: Vec::new(),
            state_ttl: Duration::from_secs(600),
            bus: None,
            app_state: StateMap::new(),
            layers: Layers::default(),
            tasks: None,
            task_store: None,
            make_task_store: None,
            #[cfg(feature = "redis")]
            redis_url: None,
            skills: Vec::new(),
            skill_dirs: Vec::new(),
            on_build: Vec::new(),
            extensions: Vec::new(),
            rpc: Vec::new(),
            stdio_principal: None,
        }
    }
}

impl ServerBuilder {
    /// The server's programmatic name (`serverInfo.name`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.info.name = name.into();
        self
    }

    /// The server's version (`serverInfo.version`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }

    /// A human-readable name.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// A human-readable description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Guidance for the model on how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Adds an icon.
    pub fn icon(mut self, icon: Icon) -> Self {
        self.info.icons.get_or_insert_with(Vec::new).push(icon);
        self
    }

    /// The server's website.
    pub fn website_url(mut self, url: impl Into<String>) -> Self {
        self.info.website_url = Some(url.into());
        self
    }

    /// Serves exactly these tools instead of every collected `#[tool]`.
    pub fn tools(mut self, tools: ToolSet) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Serves exactly these prompts instead of every collected `#[prompt]`.
    pub fn prompts(mut self, prompts: PromptSet) -> Self {
        self.prompts = Some(prompts);
        self
    }

    /// Serves exactly these resources instead of every collected `#[resource]`.
    pub fn resources(mut self, resources: ResourceSet) -> Self {
        self.resources = Some(resources);
        self
    }

    /// Serves these tools too (on top of the collected ones, or of [`tools`](Self::tools)).
    pub fn add_tools(mut self, tools: ToolSet) -> Self {
        self.extra_tools.items.extend(tools.items);
        self
    }

    /// Serves these prompts too.
    pub fn add_prompts(mut self, prompts: PromptSet) -> Self {
        self.extra_prompts.items.extend(prompts.items);
        self
    }

    /// Serves these resources and templates too.
    pub fn add_resources(mut self, resources: ResourceSet) -> Self {
        self.extra_resources.items.extend(resources.items);
        self
    }

    /// Items per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (default 1000).
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.config.page_size = page_size.max(1);
        self
    }

    /// How the tools' `inputSchema` and `outputSchema` are shaped for clients (default
    /// [`SchemaProfile::Portable`]); a tool can choose its own (`#[tool(schema = "…")]`,
    /// [`ToolDefinition::schema_profile`](crate::ToolDefinition::schema_profile)).
    /// Schemas are shaped once, in `build()` (and when tools are added at run time), and a
    /// tool that breaks a rule of its profile makes `build()` fail (see
    /// [`SchemaRule`](crate::SchemaRule)).
    pub fn schema_profile(mut self, profile: SchemaProfile) -> Self {
        self.config.schema_profile = profile;
        self
    }

    /// What happens to tool results whose `structuredContent` does not match the tool's
    /// `outputSchema` (default: an internal error in debug builds, a logged error and an
    /// `isError` result in release builds).
    pub fn output_validation(mut self, validation: OutputValidation) -> Self {
        self.config.output_validation = validation;
        self
    }

    /// Which scopes imply which, beyond the built-in rule that a scope implies the scopes
    /// it prefixes up to a `:` (see [`ScopeRules`]).
    pub fn scope_rules(mut self, rules: ScopeRules) -> Self {
        self.config.scope_rules = rules;
        self
    }

    /// What callers whose token lacks an item's scopes see of it (default
    /// [`ScopePolicy::Challenge`]); an item can choose its own
    /// (`#[tool(scopes = […], hidden)]`, `ToolDefinition::scope_policy`).
    pub fn scope_policy(mut self, policy: ScopePolicy) -> Self {
        self.config.scope_policy = policy;
        self
    }

    /// Lets requests that carry no [`Principal`](crate::Principal) use every item, whatever
    /// scopes it requires. By default such a request (stdio; HTTP without authorization;
    /// HTTP behind an application's own login layer that lets anonymous callers through)
    /// holds no scopes: items with scopes are challenged or hidden from it like from a
    /// token that lacks them. Opt out only where every such caller is trusted, say a server
    /// that only ever runs over stdio for its local user.
    pub fn unauthenticated_callers_have_every_scope(mut self) -> Self {
        self.config.unauthenticated = crate::principal::Unauthenticated::EveryScope;
        self
    }

    /// Requires a bearer token on every HTTP request, checked as `authorization` says (the
    /// server as an OAuth 2.1 resource server; see [`auth`](crate::auth)). Stdio is not
    /// affected. [`run`](Self::run) sets it from `--auth-issuer` and `--auth-audience` too.
    #[cfg(feature = "auth")]
    pub fn authorization(mut self, authorization: crate::auth::Authorization) -> Self {
        self.http.authorization = Some(Arc::new(authorization));
        self
    }

    /// Caching hints for one kind of result.
    pub fn cache(mut self, kind: Cacheable, policy: CachePolicy) -> Self {
        self.config.cache.set(kind, policy);
        self
    }

    /// Caching hints for every cacheable result (then override kinds with [`cache`](Self::cache)).
    pub fn cache_all(mut self, policy: CachePolicy) -> Self {
        self.config.cache.set_all(policy);
        self
    }

    /// The key that seals MRTR `requestState` (share it between replicas). Default: a
    /// random key per process. `build()` refuses a key whose id is longer than 255 bytes.
    pub fn state_key(mut self, key: StateKey) -> Self {
        self.state_key = Some(key);
        self
    }

    /// An older key still accepted when opening state (key rotation).
    pub fn previous_state_key(mut self, key: StateKey) -> Self {
        self.previous_state_keys.push(key);
        self
    }

    /// How long a sealed `requestState` stays valid (default 10 minutes).
    pub fn state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// How long a legacy server-to-client request (sampling, elicitation, roots) waits
    /// for the client (default 5 minutes).
    pub fn client_request_timeout(mut self, timeout: Duration) -> Self {
        self.config.client_request_timeout = timeout;
        self
    }

    /// How long running requests may still finish once the server shuts down (SIGINT or
    /// SIGTERM under [`run`](Self::run), [`Server::shutdown`](crate::Server::shutdown)) or
    /// stdin closes (default 10 s; `--shutdown-grace` on the command line). Then they are
    /// cancelled (handlers see [`Context::cancelled`](crate::Context::cancelled)); after a
    /// shutdown their clients get the error `-32603` "the server shut down" (HTTP 503).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.config.drain_timeout = grace;
        self
    }

    /// The largest message accepted, in bytes (default 4 MiB): larger HTTP bodies get
    /// 413, larger stdio lines a JSON-RPC error.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.config.max_message_bytes = bytes;
        self
    }

    /// Enables a protocol extension packaged as an
    /// [`Extension`](crate::extension::Extension): its settings are declared under
    /// `capabilities.extensions`, its custom methods answered, its routes served. Checked
    /// at `build()` with every other extension (identifiers unique, dependencies present,
    /// no core or duplicate method): on any problem nothing is served.
    pub fn extension(mut self, extension: impl crate::extension::Extension) -> Self {
        self.extensions.push(Box::new(extension));
        self
    }

    /// Whether an extension with the identifier `id` is registered (a proxy serves an
    /// upstream's skills only when none is).
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn has_extension(&self, id: &str) -> bool {
        self.extensions.iter().any(|e| e.id() == id)
    }

    /// Adds JSON-RPC middleware around every message of the server — each request before
    /// it is dispatched, each message sent for it, each notification from the client — on
    /// every transport and in both eras (SEP-3371; see
    /// [`RpcMiddleware`](crate::middleware::RpcMiddleware)). The application's run in the
    /// order added, outermost first, then the extensions'.
    pub fn rpc_middleware(mut self, middleware: impl crate::middleware::RpcMiddleware) -> Self {
        self.rpc.push(Arc::new(middleware));
        self
    }

    /// Gives every stdio session this identity: over stdio there is no HTTP
    /// authentication, and the specification has a stdio server take its credentials from
    /// its environment. Handlers see it as [`Context::principal`](crate::Context::principal),
    /// and items' scopes are checked against its scopes (without one, a stdio caller holds
    /// no scopes unless [`unauthenticated_callers_have_every_scope`](Self::unauthenticated_callers_have_every_scope)).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), mcp_framework::Error> {
    /// use mcp_framework::{Principal, Server};
    /// let token = std::env::var("NOTES_TOKEN").unwrap_or_default();
    /// let who = if token.is_empty() { "anonymous" } else { "local-user" };
    /// Server::builder()
    ///     .name("notes")
    ///     .stdio_principal(Principal::new(who).with_scopes(["notes:read"]))
    ///     .run()
    ///     .await
    /// # }
    /// ```
    pub fn stdio_principal(mut self, principal: Principal) -> Self {
        self.stdio_principal = Some(principal);
        self
    }

    /// Shares a value with every handler: take it as a `#[ctx] x: State<T>` parameter (or
    /// call [`Context::state`](crate::Context::state)). One value per type; a database pool,
    /// a configuration, an `Arc<Mutex<…>>` of application data.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_state
            .insert(std::any::TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// Keeps tasks (the Tasks extension) with these bounds and timings. A server with a
    /// tool that allows tasks ([`ToolDefinition::task`](crate::ToolDefinition::task),
    /// `#[tool(task)]`) keeps them with [`TaskConfig::default`] without this; either way
    /// it declares `io.modelcontextprotocol/tasks` and answers `tasks/get`,
    /// `tasks/update` and `tasks/cancel`. Tools added at run time can run as tasks only
    /// on a server that keeps them.
    pub fn tasks(mut self, config: TaskConfig) -> Self {
        self.tasks = Some(config);
        self
    }

    /// Keeps tasks in `store` instead of the bounded in-memory default
    /// ([`MemoryTaskStore`](crate::tasks::MemoryTaskStore) of
    /// [`TaskConfig::max_tasks`] and [`TaskConfig::max_total_bytes`]); implies
    /// [`tasks`](Self::tasks). The store's own bounds replace those two;
    /// [`TaskConfig::max_tasks_per_owner`] holds for any store. A store shared between
    /// replicas lets any of them answer for a task.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Box::new(store));
        self
    }

    /// Serves a skill (the Skills extension): its files become `skill://` resources, and
    /// the server declares `io.modelcontextprotocol/skills` (with `directoryRead`) and
    /// answers `skills/list`, `skills/get` and `resources/directory/read`. `build()`
    /// checks it: every problem of every skill is reported at once
    /// ([`Error::Skills`](crate::Error::Skills)).
    pub fn skill(mut self, skill: Skill) -> Self {
        self.skills.push(skill);
        self
    }

    /// Serves these skills, as [`skill`](Self::skill) does each: typically
    /// `skills!("skills")`, a folder embedded in the binary and checked at compile time.
    pub fn skills(mut self, skills: impl IntoIterator<Item = Skill>) -> Self {
        self.skills.extend(skills);
        self
    }

    /// Serves every skill in the folder `dir`, read when the server is built: each
    /// directory below it holding a `SKILL.md` is a skill (nested ones too), its path in
    /// the skill namespace its path below `dir` (`dir/acme/refunds/SKILL.md` is
    /// `skill://acme/refunds/SKILL.md`), its files everything below it (hidden files left
    /// out). Checked like [`skill`](Self::skill).
    pub fn skills_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.skill_dirs.push(dir.into());
        self
    }

    /// Plugs in a change-event bus (default: in-process).
    pub fn event_bus(mut self, bus: impl EventBus) -> Self {
        self.bus = Some(Box::new(bus));
        self
    }

    /// Limits of `subscriptions/listen` streams (or [`ListenConfig::off`]).
    pub fn listen(mut self, listen: ListenConfig) -> Self {
        self.config.listen = listen;
        self
    }

    /// The longest resource URI accepted, in bytes (default 16 KiB): a longer one in
    /// `resources/read`, `resources/subscribe` or a completion reference gets `-32602`.
    pub fn max_uri_bytes(mut self, bytes: usize) -> Self {
        self.config.max_uri_bytes = bytes;
        self
    }

    /// The most requests one stdio connection or legacy HTTP session runs at once (default
    /// 1024); beyond it a request is answered with an error at once (HTTP 429), so the
    /// answers running requests wait for can still arrive.
    pub fn max_concurrent_requests(mut self, max: usize) -> Self {
        self.config.max_concurrent_requests = max.max(1);
        self
    }

    /// Adds a [middleware](crate::middleware) layer around every `tools/call`, `prompts/get`
    /// and `resources/read`, on every transport. Layers compose in the order they are
    /// added: the first one is the outermost (it sees a call first and its answer last),
    /// as in tower's `ServiceBuilder`; the layers of an item
    /// ([`ToolDefinition::layer`](crate::ToolDefinition::layer), `#[tool(layer = …)]`) run
    /// inside all of them. The stack is built once, by [`build`](Self::build).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_framework::{Server, middleware};
    ///
    /// let server = Server::builder()
    ///     .layer(middleware::AuditLayer::new()) // outermost: sees every call
    ///     .layer(middleware::timeout(Duration::from_secs(30)))
    ///     .layer(middleware::concurrency_limit(64))
    ///     .build()
    ///     .unwrap();
    /// # drop(server);
    /// ```
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

    /// HTTP transport settings (the command line of [`run`](Self::run) adds to them).
    #[cfg(feature = "http")]
    pub fn http(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }

    /// Serves a Server Card (SEP-2127) at `<endpoint>/server-card`: this server's name,
    /// version, title, description, icons and website, with `card`'s reverse-DNS name,
    /// public URLs and repository (and, if it asks, an AI Catalog at
    /// `/.well-known/ai-catalog.json`). Checked at `build()`: the card needs a description
    /// of at most 100 characters ([`description`](Self::description)).
    #[cfg(feature = "http")]
    pub fn server_card(mut self, card: crate::card::ServerCard) -> Self {
        self.card = Some(card);
        self
    }

    /// The HTTP settings so far, for the command line to add to.
    #[cfg(all(feature = "http", feature = "cli"))]
    pub(crate) fn http_mut(&mut self) -> &mut HttpConfig {
        &mut self.http
    }

    /// The name set so far (the command line's telemetry names its service after it).
    pub(crate) fn server_name(&self) -> &str {
        &self.info.name
    }

    /// The identity set so far (the command line's `--version` and `--help` show it).
    #[cfg(feature = "cli")]
    pub(crate) fn identity(&self) -> &Implementation {
        &self.info
    }

    /// Seals `requestState` with the first of `keys` and opens it with any (a key file's,
    /// newest first), instead of the keys set so far.
    pub(crate) fn state_keys(mut self, mut keys: Vec<StateKey>) -> Self {
        if !keys.is_empty() {
            self.state_key = Some(keys.remove(0));
            self.previous_state_keys = keys;
        }
        self
    }

    /// Keeps tasks, if the server keeps any, in the store `make` returns, instead of
    /// [`task_store`](Self::task_store)'s or the in-memory default; unlike `task_store`, it
    /// does not make the server keep tasks.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn make_task_store(mut self, make: MakeTaskStore) -> Self {
        self.make_task_store = Some(make);
        self
    }
    /// Names the Redis the replicas share to the extensions
    /// ([`Setup::redis_url`](crate::extension::Setup::redis_url)).
    #[cfg(feature = "redis")]
    pub(crate) fn shared_redis(mut self, url: &str) -> Self {
        self.redis_url = Some(url.to_owned());
        self
    }

    /// Runs `start` with the handle of the server `build()` makes, once it is built.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn on_build(mut self, start: OnBuild) -> Self {
        self.on_build.push(start);
        self
    }
}
