//! [`ServerInner`]: the state every layer below the facade reads: identity, capabilities, the
//! current catalog, configuration, the event bus, the state sealer, the shutdown token, the
//! application state and the server-wide middleware stack.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use arc_swap::ArcSwap;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;

use super::config::Config;
use crate::admission::Admission;
use crate::bus::EventBus;
use crate::catalog::Catalog;
use crate::middleware::CallService;
use crate::mrtr::Sealer;
use crate::principal::{Access, Principal, Requirement};
use crate::protocol::{ErrorObject, Implementation, JsonObject, ServerCapabilities};
use crate::registry::entry::ToolRules;
use crate::skills::index::SkillIndex;
use crate::tasks::live::Tasks;

/// Shared state of a server.
pub(crate) struct ServerInner {
    pub(crate) info: Implementation,
    pub(crate) instructions: Option<String>,
    pub(crate) capabilities: ServerCapabilities,
    /// What a legacy client's `initialize` result declares, when it differs (extensions
    /// offered to modern clients only are left out).
    pub(crate) legacy_capabilities: Option<ServerCapabilities>,
    pub(crate) catalog: ArcSwap<Catalog>,
    /// Serializes catalog changes (see [`ServerHandle`](super::handle::ServerHandle)).
    pub(crate) change_lock: Mutex<()>,
    pub(crate) config: Config,
    pub(crate) bus: Arc<dyn EventBus>,
    /// Seals and opens MRTR `requestState`.
    pub(crate) sealer: Sealer,
    /// `{"io.modelcontextprotocol/serverInfo": …}`, merged into every modern result.
    pub(crate) server_info_meta: JsonObject,
    /// The same, encoded (`render` writes it after results with no `_meta` of their own).
    pub(crate) server_info_meta_json: Box<str>,
    pub(crate) discover_bytes: OnceLock<Bytes>,
    /// Cancelled on graceful shutdown: subscriptions end with their final result.
    pub(crate) shutdown: CancellationToken,
    /// Cancelled once the grace period after a shutdown is over: the requests still running
    /// are cancelled, and answered with the shutdown's error (`dispatch::cut_at_cutoff`).
    pub(crate) cutoff: CancellationToken,
    /// Application state, by type (see [`ServerBuilder::state`](crate::ServerBuilder::state)).
    pub(crate) state: StateMap,
    /// Open `subscriptions/listen` streams, in all and per client.
    pub(crate) listen_slots: Arc<Admission>,
    /// The server-wide middleware layers over [`Route`](crate::middleware::Route), if any.
    pub(crate) middleware: Option<CallService>,
    /// The tasks (the Tasks extension), when any tool may run as one.
    pub(crate) tasks: Option<Arc<Tasks>>,
    /// The skills (the Skills extension), when the server was built with any; swapped
    /// whole when they change at run time.
    pub(crate) skills: Option<Arc<ArcSwap<SkillIndex>>>,
    /// The extensions registered with the builder, and their methods.
    pub(crate) extensions: crate::extension::Extensions,
    /// The identity of every stdio session (taken from the environment at start-up).
    pub(crate) stdio_principal: Option<Principal>,
    /// The JSON-RPC middleware, in order (`None`: none, and no message pays for it).
    pub(crate) rpc: Option<Arc<crate::middleware::rpc::RpcChain>>,
}

/// Values registered with [`ServerBuilder::state`](crate::ServerBuilder::state), by type.
pub(crate) type StateMap =
    std::collections::HashMap<std::any::TypeId, Arc<dyn std::any::Any + Send + Sync>>;

impl crate::context::Host for ServerInner {
    fn state(&self, ty: std::any::TypeId) -> Option<Arc<dyn std::any::Any + Send + Sync>> {
        self.state.get(&ty).cloned()
    }

    fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    fn grants(
        &self,
        principal: Option<&Principal>,
        scopes: &mut dyn Iterator<Item = &str>,
    ) -> bool {
        let config = &self.config;
        match config.unauthenticated.scopes_of(principal) {
            None => true,
            Some(granted) => {
                let mut scopes = scopes;
                (&mut scopes).all(|scope| config.scope_rules.grants(granted, scope))
            }
        }
    }
}

impl ServerInner {
    /// Starts the graceful shutdown (once): `shutdown` now (the transports stop taking
    /// requests, listen streams end with their final result), `cutoff` when the grace period
    /// (`Config::drain_timeout`) is over, cutting the requests still running.
    pub(crate) fn begin_shutdown(&self) {
        if self.shutdown.is_cancelled() {
            return;
        }
        self.shutdown.cancel();
        let (cutoff, grace) = (self.cutoff.clone(), self.config.drain_timeout);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(async move {
                tokio::time::sleep(grace).await;
                cutoff.cancel();
            })),
            // No runtime, so nothing running to wait for.
            Err(_) => cutoff.cancel(),
        }
    }

    /// What the caller `principal` (none: an unauthenticated request) may do with an item
    /// that requires `requirement`: the one access rule every request naming an item
    /// passes (calls, gets, reads, completions, subscriptions, lists).
    pub(crate) fn access(
        &self,
        principal: Option<&Principal>,
        requirement: &Requirement,
    ) -> Access {
        if requirement.is_open() {
            return Access::Granted;
        }
        let config = &self.config;
        requirement.access(
            config.unauthenticated.scopes_of(principal),
            &config.scope_rules,
            config.scope_policy,
        )
    }

    /// Refuses a resource URI longer than the server accepts (`-32602`), before anything
    /// matches or stores it: the check every resource URI a request names passes first.
    pub(crate) fn check_uri(&self, uri: &str) -> Result<(), ErrorObject> {
        let max = self.config.max_uri_bytes;
        if uri.len() > max {
            return Err(ErrorObject::invalid_params(format!(
                "The resource URI is {} bytes; this server accepts at most {max}",
                uri.len()
            ))
            .with_data(serde_json::json!({ "maxUriBytes": max })));
        }
        Ok(())
    }

    /// What tools added at run time are checked and shaped against.
    pub(crate) fn tool_rules(&self) -> ToolRules<'_> {
        ToolRules {
            profile: self.config.schema_profile,
            server_name: &self.info.name,
        }
    }
}

impl fmt::Debug for ServerInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.info.name)
            .field("version", &self.info.version)
            .finish_non_exhaustive()
    }
}
