//! Legacy sessions (2025-11-25, 2025-06-18, 2025-03-26): the `initialize` handshake, the
//! session's log level and resource subscriptions, server-to-client requests, and change
//! notifications forwarded to the session's stream. The transport keeps the session (stdio:
//! per connection; HTTP: by `Mcp-Session-Id`) and whatever else it needs beside it.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::bus::ChangeEvent;
use crate::context::SessionPeer;
use crate::error::ContextError;
use crate::inflight::InFlight;
use crate::peer::Sink;
use crate::protocol::jsonrpc::{Request, Response, notification_message, request_message};
use crate::protocol::meta::read_request_meta;
use crate::protocol::{
    ClientCapabilities, ErrorObject, Implementation, LoggingLevel, NotificationParams,
    ProtocolVersion, RequestId, ResourceUpdatedNotificationParams,
};
use crate::runtime::state::ServerInner;
use crate::watch::Watched;

/// The largest `initialize` params a session is opened with (it keeps the client's
/// capabilities and `clientInfo`).
const MAX_INITIALIZE_BYTES: usize = 64 * 1024;

type Pending = HashMap<RequestId, oneshot::Sender<Result<Box<RawValue>, ErrorObject>>>;

/// One initialized legacy peer.
#[derive(Debug)]
pub(crate) struct LegacySession {
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// `LoggingLevel as u8 + 1`; 0 = never set (then `info` and above are sent).
    log_level: AtomicU8,
    /// The resources of its `resources/subscribe` (see [`watch`](crate::watch)).
    pub(crate) subscriptions: Mutex<Watched>,
    pending: Mutex<Pending>,
    next_id: AtomicI64,
    /// The session-wide stream (stdio: stdout; HTTP: the standalone GET stream).
    outbound: Mutex<Option<mpsc::Sender<Bytes>>>,
    request_timeout: Duration,
    /// Ends the session's background tasks (change forwarding) and open streams.
    pub(crate) closed: CancellationToken,
    /// In-flight requests (HTTP; stdio tracks them per connection).
    pub(crate) inflight: InFlight,
    /// When it was opened (the session-duration metric).
    #[cfg(feature = "metrics")]
    opened: std::time::Instant,
}

const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeView {
    protocol_version: String,
    #[serde(default)]
    capabilities: ClientCapabilities,
    #[serde(default)]
    client_info: Option<Implementation>,
}

impl LegacySession {
    /// Whether `request` is a legacy handshake that opens a session: an `initialize`
    /// without 2026-07-28 request metadata. An `initialize` whose `_meta` names a protocol
    /// version is a modern request like any other, and 2026-07-28 has no such method: it
    /// is dispatched and answered `-32601` (HTTP 404), as `basic/versioning.mdx` has a
    /// request carrying per-request `_meta` served statelessly by this revision.
    pub(crate) fn is_handshake(request: &Request) -> bool {
        request.method == "initialize"
            && read_request_meta(request.params.as_deref())
                .map_or(true, |(meta, _)| meta.protocol_version.is_none())
    }

    /// A session for an `initialize` request: negotiates the version (the client's if this
    /// server speaks it, else the newest legacy revision), starts with the session-wide
    /// stream `outbound` (HTTP attaches one later) and forwards the server's change events
    /// to it. Server-to-client requests wait the configured time for their answers.
    pub(crate) fn open(
        params: Option<&RawValue>,
        server: &Arc<ServerInner>,
        outbound: Option<mpsc::Sender<Bytes>>,
    ) -> Result<Arc<Self>, ErrorObject> {
        let config = &server.config;
        let params =
            params.ok_or_else(|| ErrorObject::invalid_params("initialize needs params"))?;
        // The session keeps the client's capabilities and identity for its whole life.
        if params.get().len() > MAX_INITIALIZE_BYTES {
            return Err(ErrorObject::invalid_params(format!(
                "initialize params are {} bytes; a session keeps at most {MAX_INITIALIZE_BYTES}",
                params.get().len()
            )));
        }
        let view: InitializeView = serde_json::from_str(params.get())
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid initialize params: {e}")))?;
        let version = match ProtocolVersion::parse(&view.protocol_version) {
            Some(v) if !v.is_modern() => v,
            _ => ProtocolVersion::LATEST_LEGACY,
        };
        let session = Arc::new(Self {
            version,
            client_capabilities: Arc::new(view.capabilities),
            client_info: view.client_info.map(Arc::new),
            log_level: AtomicU8::new(0),
            subscriptions: Mutex::new(Watched::default()),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            outbound: Mutex::new(outbound),
            request_timeout: config.client_request_timeout,
            closed: CancellationToken::new(),
            inflight: InFlight::new(config.max_concurrent_requests),
            #[cfg(feature = "metrics")]
            opened: std::time::Instant::now(),
        });
        #[cfg(feature = "metrics")]
        if let Some(m) = crate::telemetry::metrics::get() {
            m.session_opened();
        }
        // Without listen the server declares no change notifications (see the builder).
        if config.listen.enabled {
            spawn_forwarder(server.bus.subscribe(), &session, server.clone());
        }
        Ok(session)
    }

    /// The level at or above which log messages are sent.
    fn log_level(&self) -> Option<LoggingLevel> {
        match self.log_level.load(Ordering::Relaxed) {
            0 => Some(LoggingLevel::Info),
            n => LEVELS.get(usize::from(n) - 1).copied(),
        }
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        let i = LEVELS
            .iter()
            .position(|l| *l == level)
            .expect("all levels listed");
        self.log_level
            .store(u8::try_from(i + 1).expect("8 levels"), Ordering::Relaxed);
    }

    /// Attaches the session-wide stream (replacing an earlier one).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn attach(&self, tx: mpsc::Sender<Bytes>) {
        *self.outbound.lock().expect("outbound") = Some(tx);
    }

    /// Sends a notification on the session-wide stream (dropped if there is none).
    pub(crate) async fn notify(&self, method: &str, params: &impl serde::Serialize) {
        let tx = self.outbound.lock().expect("outbound").clone();
        if let Some(tx) = tx {
            let _ = tx
                .send(Bytes::from(notification_message(method, params)))
                .await;
        }
    }

    /// Sends a server-to-client request (on the related request's stream when there is
    /// one, else on the session stream) and waits for the answer.
    async fn request(
        &self,
        method: &str,
        params: &Value,
        related: Option<&Sink>,
        cancel: &CancellationToken,
    ) -> Result<Value, ContextError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending").insert(id.clone(), tx);
        let message = Bytes::from(request_message(&id, method, params));
        let sent = match related {
            Some(sink) => sink.send(message).await,
            None => {
                let tx = self.outbound.lock().expect("outbound").clone();
                match tx {
                    Some(tx) => tx.send(message).await.is_ok(),
                    None => false,
                }
            }
        };
        let forget = || {
            self.pending.lock().expect("pending").remove(&id);
        };
        if !sent {
            forget();
            return Err(if cancel.is_cancelled() {
                ContextError::Cancelled
            } else {
                ContextError::Closed
            });
        }
        tokio::select! {
            answer = rx => match answer {
                Ok(Ok(raw)) => serde_json::from_str(raw.get())
                    .map_err(|e| ContextError::InvalidResponse(e.to_string())),
                Ok(Err(e)) => Err(ContextError::Client(e)),
                Err(_) => Err(ContextError::Closed),
            },
            () = cancel.cancelled() => { forget(); Err(ContextError::Cancelled) }
            () = self.closed.cancelled() => { forget(); Err(ContextError::Closed) }
            () = tokio::time::sleep(self.request_timeout) => { forget(); Err(ContextError::Timeout) }
        }
    }

    /// Delivers the client's response to a server-to-client request.
    pub(crate) fn deliver(&self, response: Response) {
        let waiter = self.pending.lock().expect("pending").remove(&response.id);
        match waiter {
            Some(tx) => {
                let _ = tx.send(response.outcome);
            }
            None => tracing::debug!(id = %response.id, "response to an unknown request ignored"),
        }
    }

    pub(crate) fn close(&self) {
        self.closed.cancel();
        self.inflight.cancel_all();
        self.pending.lock().expect("pending").clear();
        *self.outbound.lock().expect("outbound") = None;
    }
}

impl SessionPeer for LegacySession {
    fn log_level(&self) -> Option<LoggingLevel> {
        Self::log_level(self)
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: &'a Value,
        related: Option<&'a Sink>,
        cancel: &'a CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Result<Value, ContextError>> + Send + 'a>> {
        Box::pin(Self::request(self, method, params, related, cancel))
    }
}

/// A session is counted from `open` until it is gone.
#[cfg(feature = "metrics")]
impl Drop for LegacySession {
    fn drop(&mut self) {
        if let Some(m) = crate::telemetry::metrics::get() {
            m.session_closed(self.opened);
        }
    }
}

/// Forwards change events to a legacy session's stream until the session closes:
/// `list_changed` for every kind, `resources/updated` for subscribed URIs (and their
/// sub-resources).
fn spawn_forwarder(
    mut rx: broadcast::Receiver<ChangeEvent>,
    session: &Arc<LegacySession>,
    server: Arc<ServerInner>,
) {
    use tokio::sync::broadcast::error::RecvError;
    let session = session.clone();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = session.closed.cancelled() => return,
                e = rx.recv() => e,
            };
            let empty = NotificationParams::default();
            match event {
                Ok(ChangeEvent::ToolsChanged) => {
                    session
                        .notify("notifications/tools/list_changed", &empty)
                        .await;
                }
                Ok(ChangeEvent::PromptsChanged) => {
                    session
                        .notify("notifications/prompts/list_changed", &empty)
                        .await;
                }
                Ok(ChangeEvent::ResourcesChanged) => {
                    session
                        .notify("notifications/resources/list_changed", &empty)
                        .await;
                }
                Ok(ChangeEvent::ResourceUpdated(uri)) => {
                    let hears =
                        (session.subscriptions.lock().expect("subscriptions")).hears(&server, &uri);
                    if hears {
                        let params = ResourceUpdatedNotificationParams {
                            uri: uri.to_string(),
                            meta: None,
                        };
                        session
                            .notify("notifications/resources/updated", &params)
                            .await;
                    }
                }
                // Fell behind, or events were lost between replicas: tell the client
                // everything may have changed.
                Ok(ChangeEvent::Resync) | Err(RecvError::Lagged(_)) => {
                    for kind in ["tools", "prompts", "resources"] {
                        session
                            .notify(&format!("notifications/{kind}/list_changed"), &empty)
                            .await;
                    }
                }
                // Tasks, and the listen filter extensions add to, are not part of the legacy
                // revisions.
                Ok(_) => {}
                Err(RecvError::Closed) => return,
            }
        }
    });
}
