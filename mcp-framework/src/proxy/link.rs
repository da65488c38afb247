//! `Link`: the connection to one upstream and its supervision. The client in use sits
//! behind a swap: a forwarded request takes the current one, or fails at once with a
//! clear error while there is none. A task follows the upstream: its list changes
//! (`subscriptions/listen` of a modern upstream, the notifications of a legacy one)
//! replace its items in one catalog change; when it dies (a stdio process exited) its
//! items stay and answer "unavailable" while it is started again with backoff (0.1 s
//! doubling to 10 s), then relisted. The task holds the server weakly and ends with it.

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwapOption;
use serde_json::{Value, json};

use super::lists::{Snapshot, snapshot};
use super::upstream::Upstream;
use crate::client::{Client, ClientError, Subscription};
use crate::error::Error;
use crate::protocol::ErrorObject;
use crate::registry::set::{PromptSet, ResourceSet, ToolSet};
use crate::runtime::handle::{ItemNames, ServerHandle, WeakServerHandle};

/// The longest wait between two restarts.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// Turns an upstream's lists into this server's items (`items::items`).
pub(super) type Rebuild = fn(&Arc<Link>, Snapshot) -> (ToolSet, PromptSet, ResourceSet, ItemNames);

/// One upstream: its prefix, how to reach it, and the client in use.
pub(super) struct Link {
    pub(super) prefix: String,
    upstream: Upstream,
    current: ArcSwapOption<Client>,
}

impl Link {
    /// Connects to `upstream` and lists what it serves.
    pub(super) async fn open(
        prefix: String,
        upstream: Upstream,
    ) -> Result<(Arc<Self>, Snapshot), Error> {
        let client = upstream.connect().await.map_err(|e| Error::Upstream {
            name: prefix.clone(),
            message: e.to_string(),
        })?;
        let snapshot = snapshot(&client).await.map_err(|e| Error::Upstream {
            name: prefix.clone(),
            message: format!("listing what it serves: {e}"),
        })?;
        let link = Arc::new(Self {
            prefix,
            upstream,
            current: ArcSwapOption::from_pointee(client),
        });
        Ok((link, snapshot))
    }

    /// The client in use, or the error a request gets while the upstream is down.
    pub(super) fn client(&self) -> Result<Client, ErrorObject> {
        self.current
            .load_full()
            .map(|c| (*c).clone())
            .ok_or_else(|| {
                ErrorObject::internal(format!(
                    "upstream `{}` is unavailable: it stopped and is being started again",
                    self.prefix
                ))
            })
    }

    /// A client error as the error this server answers with: the upstream's own JSON-RPC
    /// error as it is, anything else named for the upstream.
    pub(super) fn error(&self, e: ClientError) -> ErrorObject {
        match e {
            ClientError::Rpc(e) => e,
            other => ErrorObject::internal(format!("upstream `{}`: {other}", self.prefix)),
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
                upstream = %self.prefix,
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
        loop {
            let Some(client) = self.current.load_full() else {
                // Down: start it again.
                tokio::time::sleep(backoff).await;
                if server.upgrade().is_none() {
                    return;
                }
                match self.upstream.connect().await {
                    Ok(client) => {
                        tracing::info!(target: "mcp_framework::proxy", upstream = %self.prefix, "upstream started again");
                        self.current.store(Some(Arc::new(client)));
                        backoff = Duration::from_millis(100);
                        self.resync(&server, &mut names, rebuild).await;
                    }
                    Err(e) => {
                        tracing::warn!(target: "mcp_framework::proxy", upstream = %self.prefix, "cannot start the upstream again: {e}");
                        backoff = (backoff * 2).min(MAX_BACKOFF);
                    }
                }
                continue;
            };
            let mut changes = Changes::open(&client).await;
            loop {
                tokio::select! {
                    () = client.closed() => {
                        tracing::warn!(target: "mcp_framework::proxy", upstream = %self.prefix, "the upstream stopped; starting it again");
                        self.current.store(None);
                        break;
                    }
                    changed = changes.next() => {
                        if !changed {
                            // The listen ended (a modern upstream closed it): open it again.
                            break;
                        }
                        self.resync(&server, &mut names, rebuild).await;
                    }
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

    /// Lists the upstream again and replaces its items.
    async fn resync(
        self: &Arc<Self>,
        server: &WeakServerHandle,
        names: &mut ItemNames,
        rebuild: Rebuild,
    ) {
        let Ok(client) = self.client() else { return };
        let Some(handle) = server.upgrade() else {
            return;
        };
        match snapshot(&client).await {
            Ok(snapshot) => replace(&handle, self, names, rebuild(self, snapshot)),
            Err(e) => {
                tracing::warn!(target: "mcp_framework::proxy", upstream = %self.prefix, "cannot list the upstream: {e}");
            }
        }
    }
}

/// Swaps the items of `link` for those of `snapshot`.
fn replace(
    handle: &ServerHandle,
    link: &Link,
    names: &mut ItemNames,
    (tools, prompts, resources, next): (ToolSet, PromptSet, ResourceSet, ItemNames),
) {
    match handle.replace_items(names, tools, prompts, resources) {
        Ok(()) => *names = next,
        Err(e) => tracing::warn!(
            target: "mcp_framework::proxy",
            upstream = %link.prefix,
            "the upstream's new lists were refused: {e}"
        ),
    }
}

/// The upstream's list changes: a listen stream (modern) or its notifications (legacy).
enum Changes {
    Listen(Subscription),
    Notifications(tokio::sync::broadcast::Receiver<Value>),
    None,
}

impl Changes {
    async fn open(client: &Client) -> Self {
        if client.protocol_version() != crate::protocol::ProtocolVersion::LATEST {
            return Self::Notifications(client.notifications());
        }
        let filter = json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
        });
        match client.listen(filter).await {
            Ok(mut listen) => {
                // The acknowledgement (or the refusal, which ends it).
                match listen.next().await {
                    Some(first) if first.get("error").is_none() => Self::Listen(listen),
                    _ => Self::None,
                }
            }
            Err(_) => Self::None,
        }
    }

    /// Waits for the next list change; `false` when no more can come.
    async fn next(&mut self) -> bool {
        loop {
            let method = match self {
                Self::Listen(listen) => match listen.next().await {
                    Some(msg) => msg["method"].as_str().map(str::to_owned),
                    None => return false,
                },
                Self::Notifications(rx) => match rx.recv().await {
                    Ok(msg) => msg["method"].as_str().map(str::to_owned),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return true,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                        return std::future::pending().await;
                    }
                },
                Self::None => return std::future::pending().await,
            };
            if method.is_some_and(|m| m.ends_with("/list_changed")) {
                return true;
            }
        }
    }
}
