//! `Link`: the connection to one upstream and its supervision. The client in use sits
//! behind a swap: a forwarded request takes the current one, or fails at once with a
//! clear error while there is none. A task follows the upstream: its list changes
//! (`subscriptions/listen` of a modern upstream, the notifications of a legacy one)
//! replace its items in one catalog change; when it dies (a stdio process exited, or an
//! HTTP upstream no longer knows the legacy session it was spoken to in: it restarted)
//! its items stay and answer "unavailable" while it is connected again with backoff (0.1 s
//! doubling to 10 s), then relisted. A modern upstream's listen that breaks is opened
//! again each second until it can be, then the upstream relisted. The task holds the
//! server weakly and ends with it.

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwapOption;
use serde_json::{Value, json};

use super::callers::Callers;
use super::forward::Traffic;
use super::lists::{Snapshot, snapshot};
use super::upstream::Upstream;
use crate::client::handlers::Relay;
use crate::client::{Client, ClientError, Subscription};
use crate::error::Error;
use crate::protocol::ErrorObject;
use crate::registry::set::{PromptSet, ResourceSet, ToolSet};
use crate::runtime::handle::{ItemNames, ServerHandle, WeakServerHandle};

/// The longest wait between two restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// Turns an upstream's lists into this server's items (`items::items`).
pub(super) type Rebuild = fn(&Arc<Link>, Snapshot) -> (ToolSet, PromptSet, ResourceSet, ItemNames);

/// One upstream: its prefix, its name in messages, how to reach it, and the client in use.
pub(super) struct Link {
    /// Before its tools' and prompts' names (none when empty).
    prefix: String,
    /// The prefix, or for an unprefixed upstream its program or URL.
    pub(super) name: String,
    pub(super) upstream: Upstream,
    current: ArcSwapOption<Client>,
    /// Whether it serves the Tasks extension (2026-07-28): its tools may answer with a
    /// task, which this server adopts (`adopted.rs`).
    pub(super) tasks: bool,
    /// The forwarded requests in flight (whom a legacy upstream's questions go to) and
    /// parked (waiting for their callers' retries).
    pub(super) traffic: Traffic,
}

impl Link {
    /// Connects to `upstream` and lists what it serves.
    pub(super) async fn open(
        prefix: String,
        upstream: Upstream,
    ) -> Result<(Arc<Self>, Snapshot), Error> {
        let name = if prefix.is_empty() {
            upstream.label()
        } else {
            prefix.clone()
        };
        let traffic = Traffic::default();
        let client = upstream
            .connect(&name, relay(&traffic.callers))
            .await
            .map_err(|e| Error::Upstream {
                name: name.clone(),
                message: e.to_string(),
            })?;
        let snapshot = snapshot(&client).await.map_err(|e| Error::Upstream {
            name: name.clone(),
            message: format!("listing what it serves: {e}"),
        })?;
        let tasks = client.protocol_version() == crate::protocol::ProtocolVersion::LATEST
            && client
                .server_capabilities()
                .and_then(|c| c.extensions.as_ref())
                .is_some_and(|e| e.contains_key(crate::protocol::keys::TASKS_EXTENSION));
        let link = Arc::new(Self {
            prefix,
            name,
            upstream,
            tasks,
            current: ArcSwapOption::from_pointee(client),
            traffic,
        });
        Ok((link, snapshot))
    }

    /// The name an upstream tool or prompt is served under.
    pub(super) fn served(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}_{name}", self.prefix)
        }
    }

    /// The client in use, or the error a request gets while the upstream is down.
    pub(super) fn client(&self) -> Result<Client, ErrorObject> {
        self.current
            .load_full()
            .map(|c| (*c).clone())
            .ok_or_else(|| {
                ErrorObject::internal(format!(
                    "upstream `{}` is unavailable: it stopped and is being started again",
                    self.name
                ))
            })
    }

    /// A client error as the error this server answers with: the upstream's own JSON-RPC
    /// error as it is, anything else named for the upstream.
    pub(super) fn error(&self, e: ClientError) -> ErrorObject {
        match e {
            ClientError::Rpc(e) => e,
            other => ErrorObject::internal(format!("upstream `{}`: {other}", self.name)),
        }
    }

    /// Follows the upstream for the server `server`, whose items for it are `names`.
    pub(super) fn supervise(
        self: Arc<Self>,
        server: WeakServerHandle,
        names: ItemNames,
        rebuild: Rebuild,
    ) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!(
                target: "mcp_framework::proxy",
                upstream = %self.name,
                "built outside a Tokio runtime: its list changes and restarts are not followed"
            );
            return;
        };
        runtime.spawn(self.follow(server, names, rebuild));
    }

    /// The supervision loop.
    async fn follow(
        self: Arc<Self>,
        server: WeakServerHandle,
        mut names: ItemNames,
        rebuild: Rebuild,
    ) {
        let mut backoff = Duration::from_millis(100);
        let mut relist = false;
        loop {
            let Some(client) = self.current.load_full() else {
                // Down: start it again.
                tokio::time::sleep(backoff).await;
                if server.upgrade().is_none() {
                    return;
                }
                match self
                    .upstream
                    .connect(&self.name, relay(&self.traffic.callers))
                    .await
                {
                    Ok(client) => {
                        tracing::info!(target: "mcp_framework::proxy", upstream = %self.name, "upstream started again");
                        self.current.store(Some(Arc::new(client)));
                        backoff = Duration::from_millis(100);
                        self.resync(&server, &mut names, rebuild, Kinds::ALL).await;
                    }
                    Err(e) => {
                        tracing::warn!(target: "mcp_framework::proxy", upstream = %self.name, "cannot start the upstream again: {e}");
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                }
                continue;
            };
            let mut changes = Changes::open(&client, &self.name, &names).await;
            if std::mem::take(&mut relist) && changes.is_live() {
                // A listen opened again: what changed while it was closed was not heard.
                self.resync(&server, &mut names, rebuild, Kinds::ALL).await;
            }
            loop {
                tokio::select! {
                    () = client.closed() => {
                        tracing::warn!(target: "mcp_framework::proxy", upstream = %self.name, "the upstream stopped; starting it again");
                        self.current.store(None);
                        break;
                    }
                    changed = changes.next() => match changed {
                        // The listen ended (a modern upstream closed it, or it could
                        // not be reached): open it again.
                        None => {
                            relist = true;
                            break;
                        }
                        Some(Change::Lists(kinds)) => {
                            self.resync(&server, &mut names, rebuild, kinds).await;
                            if kinds.resources {
                                // Follow the updates of the resources it serves now.
                                changes = Changes::open(&client, &self.name, &names).await;
                            }
                        }
                        Some(Change::Updated(uri)) => {
                            // Served here under the same URI: this server's update.
                            if names.resources.contains(&uri) && let Some(handle) = server.upgrade() {
                                handle.resource_updated(&uri);
                            }
                        }
                    },
                    () = tokio::time::sleep(Duration::from_secs(1)) => {
                        if server.upgrade().is_none() {
                            self.current.store(None);
                            (*client).clone().close().await;
                            return;
                        }
                    }
                }
            }
        }
    }

    /// Lists the upstream again and replaces its items of the kinds that changed.
    async fn resync(
        self: &Arc<Self>,
        server: &WeakServerHandle,
        names: &mut ItemNames,
        rebuild: Rebuild,
        kinds: Kinds,
    ) {
        let Ok(client) = self.client() else { return };
        let Some(handle) = server.upgrade() else {
            return;
        };
        match snapshot(&client).await {
            Ok(snapshot) => replace(&handle, self, names, kinds, rebuild(self, snapshot)),
            Err(e) => {
                tracing::warn!(target: "mcp_framework::proxy", upstream = %self.name, "cannot list the upstream: {e}");
            }
        }
    }
}

/// The client's answer to an upstream's questions: asked of the caller whose call it is.
fn relay(callers: &Arc<Callers>) -> Relay {
    let callers = callers.clone();
    Arc::new(move |method, params| {
        let (callers, method) = (callers.clone(), method.to_owned());
        Box::pin(async move { callers.ask(&method, params).await })
    })
}

/// Which lists of an upstream changed.
#[derive(Debug, Clone, Copy)]
struct Kinds {
    tools: bool,
    prompts: bool,
    resources: bool,
}

impl Kinds {
    /// Every list (after a restart).
    const ALL: Self = Self {
        tools: true,
        prompts: true,
        resources: true,
    };

    /// The list a `notifications/*/list_changed` names.
    fn of(method: &str) -> Option<Self> {
        let none = Self {
            tools: false,
            prompts: false,
            resources: false,
        };
        match method {
            "notifications/tools/list_changed" => Some(Self {
                tools: true,
                ..none
            }),
            "notifications/prompts/list_changed" => Some(Self {
                prompts: true,
                ..none
            }),
            "notifications/resources/list_changed" => Some(Self {
                resources: true,
                ..none
            }),
            _ => None,
        }
    }
}

/// Swaps the items of `link` of the kinds that changed for those of the new lists (the
/// other kinds stay as they are, and their listeners hear nothing).
fn replace(
    handle: &ServerHandle,
    link: &Link,
    names: &mut ItemNames,
    kinds: Kinds,
    (tools, prompts, resources, mut next): (ToolSet, PromptSet, ResourceSet, ItemNames),
) {
    let mut out = names.clone();
    let tools = if kinds.tools {
        tools
    } else {
        out.tools.clear();
        next.tools.clone_from(&names.tools);
        ToolSet::new()
    };
    let prompts = if kinds.prompts {
        prompts
    } else {
        out.prompts.clear();
        next.prompts.clone_from(&names.prompts);
        PromptSet::new()
    };
    let resources = if kinds.resources {
        resources
    } else {
        out.resources.clear();
        next.resources.clone_from(&names.resources);
        ResourceSet::new()
    };
    match handle.replace_items(&out, tools, prompts, resources) {
        Ok(()) => *names = next,
        Err(e) => tracing::warn!(
            target: "mcp_framework::proxy",
            upstream = %link.name,
            "the upstream's new lists were refused: {e}"
        ),
    }
}

/// What changed upstream.
enum Change {
    /// These lists.
    Lists(Kinds),
    /// This resource (`notifications/resources/updated`).
    Updated(String),
}

/// The most resources of one upstream whose updates are followed (a listen filter's cap).
const MAX_FOLLOWED: usize = 1024;

/// How long before a listen that could not be opened is tried again.
const RELISTEN: Duration = Duration::from_secs(1);

/// The upstream's changes: a listen stream (modern) or its notifications (legacy), with the
/// updates of every resource it serves when it offers subscriptions.
enum Changes {
    Listen(Subscription),
    Notifications(tokio::sync::broadcast::Receiver<Value>),
    /// It offers none (it refused the listen).
    None,
    /// The listen could not be opened (an HTTP upstream down): tried again after
    /// [`RELISTEN`].
    Unreachable,
}

impl Changes {
    /// Follows `client`'s list changes and the updates of its fixed resources among
    /// `names` (a legacy upstream subscribed to each).
    async fn open(client: &Client, upstream: &str, names: &ItemNames) -> Self {
        let subscribes = client
            .server_capabilities()
            .and_then(|c| c.resources.as_ref())
            .is_some_and(|r| r.subscribe == Some(true));
        // URI templates (with `{…}`) name no one resource.
        let mut uris: Vec<&String> = if subscribes {
            names
                .resources
                .iter()
                .filter(|u| !u.contains('{'))
                .collect()
        } else {
            Vec::new()
        };
        if uris.len() > MAX_FOLLOWED {
            tracing::warn!(
                target: "mcp_framework::proxy",
                upstream,
                "following the updates of the first {MAX_FOLLOWED} of its {} resources",
                uris.len()
            );
            uris.truncate(MAX_FOLLOWED);
        }
        if client.protocol_version() != crate::protocol::ProtocolVersion::LATEST {
            let notifications = client.notifications();
            for uri in uris {
                if let Err(e) = client
                    .request("resources/subscribe", json!({"uri": uri}))
                    .await
                {
                    tracing::debug!(target: "mcp_framework::proxy", upstream, "cannot subscribe to `{uri}`: {e}");
                }
            }
            return Self::Notifications(notifications);
        }
        let mut filter = json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
        });
        if !uris.is_empty() {
            filter["resourceSubscriptions"] = json!(uris);
        }
        match client.listen(filter).await {
            Ok(mut listen) => {
                // The acknowledgement (or the refusal, which ends it).
                match listen.next().await {
                    Some(first) if first.get("error").is_none() => Self::Listen(listen),
                    Some(_) => Self::None,
                    None => Self::Unreachable,
                }
            }
            Err(ClientError::Rpc(_)) => Self::None,
            Err(_) => Self::Unreachable,
        }
    }

    /// Whether changes are heard (a listen or a legacy session's notifications).
    fn is_live(&self) -> bool {
        matches!(self, Self::Listen(_) | Self::Notifications(_))
    }

    /// Waits for the next change, or `None` when no more can come.
    async fn next(&mut self) -> Option<Change> {
        loop {
            let msg = match self {
                Self::Listen(listen) => match listen.next().await {
                    Some(msg) => msg,
                    None => return None,
                },
                Self::Notifications(rx) => match rx.recv().await {
                    Ok(msg) => msg,
                    // Missed some: relist everything.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        return Some(Change::Lists(Kinds::ALL));
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                        return std::future::pending().await;
                    }
                },
                Self::None => return std::future::pending().await,
                Self::Unreachable => {
                    tokio::time::sleep(RELISTEN).await;
                    return None;
                }
            };
            let method = msg["method"].as_str().unwrap_or_default();
            if method == "notifications/resources/updated"
                && let Some(uri) = msg["params"]["uri"].as_str()
            {
                return Some(Change::Updated(uri.to_owned()));
            }
            if let Some(kinds) = Kinds::of(method) {
                return Some(Change::Lists(kinds));
            }
        }
    }
}
