//! [`Server`], its [`ServerBuilder`], the [`ServerHandle`] for run-time changes, and
//! [`Server::run`], which picks the transport from the command line.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use arc_swap::ArcSwap;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use crate::cache::{CacheConfig, CachePolicy, Cacheable};
use crate::catalog::Catalog;
use crate::error::Error;
use crate::events::{ChangeEvent, EventBus, LocalBus};
use crate::mrtr::{Sealer, StateKey};
use crate::protocol::{
    Icon, Implementation, JsonObject, ListChangedCapability, ResourcesCapability,
    ServerCapabilities, keys,
};
use crate::registry::{PromptSet, ResourceSet, ToolSet, collected};

/// Limits and settings that are not part of what the server serves.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) page_size: usize,
    pub(crate) cache: CacheConfig,
    /// How long a legacy server-to-client request waits for its answer.
    pub(crate) client_request_timeout: Duration,
    /// The largest message accepted (HTTP body, stdio line).
    pub(crate) max_message_bytes: usize,
    /// On stdio EOF, how long in-flight requests may still finish.
    pub(crate) drain_timeout: Duration,
    #[cfg(feature = "http")]
    pub(crate) http: crate::transport::http::HttpConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            page_size: 1000,
            cache: CacheConfig::default(),
            client_request_timeout: Duration::from_secs(300),
            max_message_bytes: 4 * 1024 * 1024,
            drain_timeout: Duration::from_secs(5),
            #[cfg(feature = "http")]
            http: crate::transport::http::HttpConfig::default(),
        }
    }
}

/// Shared state of a server.
pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) capabilities: ServerCapabilities,
    pub(crate) catalog: ArcSwap<Catalog>,
    change_lock: Mutex<()>,
    pub(crate) config: Config,
    pub(crate) bus: Arc<dyn EventBus>,
    pub(crate) sealer: Sealer,
    /// `{"io.modelcontextprotocol/serverInfo": …}`, merged into every modern result.
    pub(crate) server_info_meta: JsonObject,
    pub(crate) discover_bytes: OnceLock<Bytes>,
    /// Cancelled on graceful shutdown: subscriptions end with their final result.
    pub(crate) shutdown: CancellationToken,
    #[cfg(feature = "http")]
    pub(crate) sessions: crate::transport::http::Sessions,
    /// Application state, by type (see [`ServerBuilder::state`]).
    pub(crate) state: StateMap,
}

/// Values registered with [`ServerBuilder::state`], by type.
pub(crate) type StateMap =
    std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>;

impl fmt::Debug for ServerInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.info.name)
            .field("version", &self.info.version)
            .finish_non_exhaustive()
    }
}

/// An MCP server: what it serves and how. Cheap to clone. Serve it with
/// [`run`](Self::run) (transport chosen on the command line), [`serve_stdio`](Self::serve_stdio),
/// [`serve_http`](Self::serve_http) or mount [`router`](Self::router) in an axum app.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<ServerInner>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// Builds a [`Server`].
#[must_use]
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Option<ToolSet>,
    prompts: Option<PromptSet>,
    resources: Option<ResourceSet>,
    extra_tools: ToolSet,
    extra_prompts: PromptSet,
    extra_resources: ResourceSet,
    config: Config,
    state_key: Option<StateKey>,
    previous_state_keys: Vec<StateKey>,
    state_ttl: Duration,
    bus: Option<Arc<dyn EventBus>>,
    app_state: StateMap,
}

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
            state_key: None,
            previous_state_keys: Vec::new(),
            state_ttl: Duration::from_secs(600),
            bus: None,
            app_state: StateMap::new(),
        }
    }

    /// A handle for run-time changes (add/remove tools, announce resource updates).
    pub fn handle(&self) -> ServerHandle {
        ServerHandle::from_inner(self.inner.clone())
    }

    /// The server's identity.
    pub fn info(&self) -> &Implementation {
        &self.inner.info
    }

    /// Serves newline-delimited JSON-RPC on stdin/stdout until stdin closes.
    pub async fn serve_stdio(&self) -> Result<(), Error> {
        crate::transport::stdio::serve_stdio(self.inner.clone()).await
    }

    /// Serves newline-delimited JSON-RPC over any byte stream (a Unix or TCP socket, an
    /// in-memory pipe) until `reader` ends.
    pub async fn serve_stream<R, W>(&self, reader: R, writer: W) -> Result<(), Error>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        crate::transport::stdio::serve(self.inner.clone(), reader, writer).await
    }

    /// Serves one JSON-RPC message outside any transport (a custom transport, a serverless
    /// function, a benchmark): the encoded response of a request, `None` for anything else.
    /// There is no session and no stream, so request-scoped notifications are dropped and
    /// `subscriptions/listen` is refused.
    pub async fn handle_message(&self, message: &[u8]) -> Option<Bytes> {
        use crate::dispatch::{Carrier, Reply, dispatch};
        use crate::protocol::jsonrpc::{Incoming, parse_message};
        match parse_message(message) {
            Err(rejected) => Some(Reply::error_message(rejected.id.as_ref(), &rejected.error)),
            Ok(Incoming::Request(request)) => {
                let id = request.id.clone();
                match dispatch(&self.inner, request, Carrier::default()).await {
                    Reply::Listen(_) => Some(Reply::error_message(
                        Some(&id),
                        &crate::protocol::ErrorObject::invalid_request(
                            "subscriptions/listen needs a streaming transport",
                        ),
                    )),
                    reply => reply.into_message(&id),
                }
            }
            Ok(_) => None,
        }
    }

    /// Starts a graceful shutdown: open subscriptions end with their final result and
    /// the transports stop.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Runs the server with the transport named on the command line:
    ///
    /// ```text
    /// <bin> stdio
    /// <bin> http [--bind 127.0.0.1:8080] [--path /mcp]
    /// ```
    ///
    /// Without arguments it serves stdio. Logs go to stderr (`RUST_LOG` filters them).
    /// SIGINT/SIGTERM shut down gracefully.
    pub async fn run(self) -> Result<(), Error> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        self.run_with_args(&args).await
    }

    /// [`run`](Self::run) with explicit arguments (without the program name).
    pub async fn run_with_args(self, args: &[String]) -> Result<(), Error> {
        init_logging();
        let command = crate::cli::parse(args)?;
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            crate::cli::shutdown_signal().await;
            shutdown.cancel();
        });
        match command {
            crate::cli::Command::Help(text) => {
                eprintln!("{text}");
                Ok(())
            }
            crate::cli::Command::Stdio => {
                tracing::info!(name = %self.inner.info.name, version = %self.inner.info.version, "serving stdio");
                self.serve_stdio().await
            }
            #[cfg(feature = "http")]
            crate::cli::Command::Http { bind, path } => {
                let listener = tokio::net::TcpListener::bind(bind).await?;
                tracing::info!(addr = %listener.local_addr()?, %path, "serving Streamable HTTP");
                self.serve_http_listener(listener, &path).await
            }
        }
    }
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
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
    /// random key per process.
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

    /// The largest message accepted, in bytes (default 4 MiB): larger HTTP bodies get
    /// 413, larger stdio lines a JSON-RPC error.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.config.max_message_bytes = bytes;
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

    /// Plugs in a change-event bus (default: in-process).
    pub fn event_bus(mut self, bus: impl EventBus) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }

    /// HTTP transport settings.
    #[cfg(feature = "http")]
    pub fn http(mut self, http: crate::transport::http::HttpConfig) -> Self {
        self.config.http = http;
        self
    }

    /// Validates every definition (schemas, names, templates, duplicates) and builds the
    /// server. Without explicit sets, every `#[tool]`, `#[prompt]` and `#[resource]` of the
    /// binary is served.
    pub fn build(self) -> Result<Server, Error> {
        let needs_collection =
            self.tools.is_none() || self.prompts.is_none() || self.resources.is_none();
        let (c_tools, c_prompts, c_resources) = if needs_collection {
            collected()
        } else {
            Default::default()
        };
        let mut tools = self.tools.unwrap_or(c_tools);
        tools.items.extend(self.extra_tools.items);
        let mut prompts = self.prompts.unwrap_or(c_prompts);
        prompts.items.extend(self.extra_prompts.items);
        let mut resources = self.resources.unwrap_or(c_resources);
        resources.items.extend(self.extra_resources.items);
        let catalog = Catalog::from_sets(tools, prompts, resources, self.config.page_size)?;
        let capabilities = ServerCapabilities {
            tools: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            prompts: Some(ListChangedCapability {
                list_changed: Some(true),
            }),
            resources: Some(ResourcesCapability {
                subscribe: Some(true),
                list_changed: Some(true),
            }),
            completions: Some(JsonObject::new()),
            logging: Some(JsonObject::new()),
            experimental: None,
            extensions: None,
        };
        let mut server_info_meta = JsonObject::new();
        server_info_meta.insert(
            keys::SERVER_INFO.into(),
            serde_json::json!({"name": self.info.name, "version": self.info.version}),
        );
        let sealer = Sealer::new(
            self.state_key.unwrap_or_else(StateKey::random),
            self.previous_state_keys,
            self.state_ttl,
        );
        let inner = ServerInner {
            info: self.info,
            instructions: self.instructions,
            capabilities,
            catalog: ArcSwap::from_pointee(catalog),
            change_lock: Mutex::new(()),
            bus: self.bus.unwrap_or_else(|| Arc::new(LocalBus::default())),
            sealer,
            server_info_meta,
            discover_bytes: OnceLock::new(),
            shutdown: CancellationToken::new(),
            #[cfg(feature = "http")]
            sessions: crate::transport::http::Sessions::new(&self.config.http),
            state: self.app_state,
            config: self.config,
        };
        Ok(Server {
            inner: Arc::new(inner),
        })
    }
}

/// Changes what a running server serves, from anywhere (handlers, background tasks,
/// other threads). Every change is visible to the next request, invalidates the cached
/// list pages and notifies listeners (`subscriptions/listen`, legacy sessions).
#[derive(Clone)]
pub struct ServerHandle {
    inner: Arc<ServerInner>,
}

impl fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerHandle").finish_non_exhaustive()
    }
}

impl ServerHandle {
    pub(crate) fn from_inner(inner: Arc<ServerInner>) -> Self {
        Self { inner }
    }

    fn change(
        &self,
        event: ChangeEvent,
        f: impl FnOnce(&Catalog) -> Result<Option<Catalog>, Error>,
    ) -> Result<bool, Error> {
        let _guard = self.inner.change_lock.lock().expect("change lock");
        let current = self.inner.catalog.load();
        let Some(next) = f(&current)? else {
            return Ok(false);
        };
        self.inner.catalog.store(Arc::new(next));
        drop(_guard);
        self.inner.bus.publish(event);
        Ok(true)
    }

    /// Adds tools; fails (changing nothing) if a name is already served.
    pub fn add_tools(&self, tools: ToolSet) -> Result<(), Error> {
        let entries = tools.into_entries()?;
        if entries.is_empty() {
            return Ok(());
        }
        self.change(ChangeEvent::ToolsChanged, |c| {
            let mut all = c.tools.clone();
            all.extend(entries);
            c.with(Some(all), None, None, None).map(Some)
        })
        .map(drop)
    }

    /// Removes a tool; `false` if there was none of that name.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.change(ChangeEvent::ToolsChanged, |c| {
            if c.tool(name).is_none() {
                return Ok(None);
            }
            let rest = c
                .tools
                .iter()
                .filter(|t| t.tool.name != name)
                .cloned()
                .collect();
            c.with(Some(rest), None, None, None).map(Some)
        })
        .unwrap_or(false)
    }

    /// Whether a tool of that name is served.
    pub fn has_tool(&self, name: &str) -> bool {
        self.inner.catalog.load().tool(name).is_some()
    }

    /// Adds prompts; fails if a name is already served.
    pub fn add_prompts(&self, prompts: PromptSet) -> Result<(), Error> {
        let entries = prompts.into_entries()?;
        if entries.is_empty() {
            return Ok(());
        }
        self.change(ChangeEvent::PromptsChanged, |c| {
            let mut all = c.prompts.clone();
            all.extend(entries);
            c.with(None, Some(all), None, None).map(Some)
        })
        .map(drop)
    }

    /// Removes a prompt; `false` if there was none of that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change(ChangeEvent::PromptsChanged, |c| {
            if c.prompt(name).is_none() {
                return Ok(None);
            }
            let rest = c
                .prompts
                .iter()
                .filter(|p| p.prompt.name != name)
                .cloned()
                .collect();
            c.with(None, Some(rest), None, None).map(Some)
        })
        .unwrap_or(false)
    }

    /// Adds resources and templates; fails if a URI (or template) is already served.
    pub fn add_resources(&self, resources: ResourceSet) -> Result<(), Error> {
        let (fixed, templates) = resources.into_entries()?;
        if fixed.is_empty() && templates.is_empty() {
            return Ok(());
        }
        self.change(ChangeEvent::ResourcesChanged, |c| {
            let mut all = c.resources.clone();
            all.extend(fixed);
            let mut all_templates = c.templates.clone();
            all_templates.extend(templates);
            c.with(None, None, Some(all), Some(all_templates)).map(Some)
        })
        .map(drop)
    }

    /// Removes a resource (by URI) or a template (by URI template); `false` if none matched.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.change(ChangeEvent::ResourcesChanged, |c| {
            if c.resource(uri).is_none() && c.template(uri).is_none() {
                return Ok(None);
            }
            let rest = c
                .resources
                .iter()
                .filter(|r| r.resource.uri != uri)
                .cloned()
                .collect();
            let rest_t = c
                .templates
                .iter()
                .filter(|t| t.template.uri_template != uri)
                .cloned()
                .collect();
            c.with(None, None, Some(rest), Some(rest_t)).map(Some)
        })
        .unwrap_or(false)
    }

    /// Announces that a resource's contents changed: subscribers of that URI (or of a
    /// parent URI) get `notifications/resources/updated`.
    pub fn resource_updated(&self, uri: &str) {
        self.inner
            .bus
            .publish(ChangeEvent::ResourceUpdated(Arc::from(uri)));
    }

    /// Starts a graceful shutdown.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Completes when a shutdown has started.
    pub async fn shutdown_started(&self) {
        self.inner.shutdown.cancelled().await;
    }
}
