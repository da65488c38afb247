//! Legacy sessions (2025-11-25, 2025-06-18, 2025-03-26): the `initialize` handshake, the
//! session's log level and resource subscriptions, and server-to-client requests.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::context::{ContextError, Sink};
use crate::protocol::jsonrpc::{Request, Response, write_notification, write_request};
use crate::protocol::meta::read_request_meta;
use crate::protocol::{
    ClientCapabilities, ErrorObject, Implementation, LoggingLevel, ProtocolVersion, RequestId,
};
use crate::server::ServerInner;

type Pending = HashMap<RequestId, oneshot::Sender<Result<Box<RawValue>, ErrorObject>>>;

/// One initialized legacy peer.
#[derive(Debug)]
pub(crate) struct LegacySession {
    /// `Mcp-Session-Id` (HTTP only).
    pub(crate) id: Option<Arc<str>>,
    pub(crate) version: ProtocolVersion,
    pub(crate) client_capabilities: Arc<ClientCapabilities>,
    pub(crate) client_info: Option<Arc<Implementation>>,
    /// `LoggingLevel as u8 + 1`; 0 = never set (then `info` and above are sent).
    log_level: AtomicU8,
    pub(crate) subscriptions: Mutex<HashSet<String>>,
    pending: Mutex<Pending>,
    next_id: AtomicI64,
    pub(crate) initialized: AtomicBool,
    /// The session-wide stream (stdio: stdout; HTTP: the standalone GET stream).
    outbound: Mutex<Option<mpsc::Sender<Bytes>>>,
    request_timeout: Duration,
    last_seen: Mutex<Instant>,
    /// Ends the session's background tasks (change forwarding) and open streams.
    pub(crate) closed: CancellationToken,
    /// Resumable response streams (HTTP).
    streams: Mutex<HashMap<u64, Arc<ResumableStream>>>,
    /// In-flight requests (HTTP; stdio tracks its own).
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
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

    /// Answers `initialize`: negotiates the version (the client's if this server speaks it,
    /// else the newest legacy revision) and creates the session.
    pub(crate) fn initialize(
        server: &Arc<ServerInner>,
        params: Option<&RawValue>,
        id: Option<Arc<str>>,
    ) -> Result<(Arc<Self>, Bytes), ErrorObject> {
        let params =
            params.ok_or_else(|| ErrorObject::invalid_params("initialize needs params"))?;
        let view: InitializeView = serde_json::from_str(params.get())
            .map_err(|e| ErrorObject::invalid_params(format!("Invalid initialize params: {e}")))?;
        let version = match ProtocolVersion::parse(&view.protocol_version) {
            Some(v) if !v.is_modern() => v,
            _ => ProtocolVersion::LATEST_LEGACY,
        };
        let session = Arc::new(Self {
            id,
            version,
            client_capabilities: Arc::new(view.capabilities),
            client_info: view.client_info.map(Arc::new),
            log_level: AtomicU8::new(0),
            subscriptions: Mutex::new(HashSet::new()),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            initialized: AtomicBool::new(false),
            outbound: Mutex::new(None),
            request_timeout: server.config.client_request_timeout,
            last_seen: Mutex::new(Instant::now()),
            closed: CancellationToken::new(),
            streams: Mutex::new(HashMap::new()),
            inflight: Mutex::new(HashMap::new()),
        });
        let result = crate::render::initialize_result(server, version);
        Ok((session, result))
    }

    /// The level at or above which log messages are sent.
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
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

    pub(crate) fn touch(&self) {
        *self.last_seen.lock().expect("last_seen") = Instant::now();
    }

    pub(crate) fn idle_for(&self) -> Duration {
        self.last_seen.lock().expect("last_seen").elapsed()
    }

    /// Attaches the session-wide stream (replacing an earlier one).
    pub(crate) fn attach(&self, tx: mpsc::Sender<Bytes>) {
        *self.outbound.lock().expect("outbound") = Some(tx);
    }

    /// Sends a notification on the session-wide stream (dropped if there is none).
    pub(crate) async fn notify(&self, method: &str, params: &impl serde::Serialize) {
        let tx = self.outbound.lock().expect("outbound").clone();
        if let Some(tx) = tx {
            let mut out = Vec::new();
            write_notification(&mut out, method, params);
            let _ = tx.send(Bytes::from(out)).await;
        }
    }

    /// Sends a server-to-client request (on the related request's stream when there is
    /// one, else on the session stream) and waits for the answer.
    pub(crate) async fn request(
        &self,
        method: &str,
        params: Value,
        related: Option<&Sink>,
        cancel: &CancellationToken,
    ) -> Result<Value, ContextError> {
        let id = RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending").insert(id.clone(), tx);
        let mut out = Vec::new();
        write_request(&mut out, &id, method, &params);
        let sent = match related {
            Some(sink) => sink.send(Bytes::from(out)).await,
            None => {
                let tx = self.outbound.lock().expect("outbound").clone();
                match tx {
                    Some(tx) => tx.send(Bytes::from(out)).await.is_ok(),
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
        for token in self.inflight.lock().expect("inflight").values() {
            token.cancel();
        }
        self.streams.lock().expect("streams").clear();
        self.pending.lock().expect("pending").clear();
        *self.outbound.lock().expect("outbound") = None;
    }
}

/// Forwards change events to a legacy session's stream until the session closes:
/// `list_changed` for every kind, `resources/updated` for subscribed URIs (and their
/// sub-resources).
pub(crate) fn spawn_forwarder(server: &Arc<ServerInner>, session: &Arc<LegacySession>) {
    use crate::events::{ChangeEvent, uri_covers};
    use tokio::sync::broadcast::error::RecvError;
    let mut rx = server.bus.subscribe();
    let session = session.clone();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = session.closed.cancelled() => return,
                e = rx.recv() => e,
            };
            let empty = serde_json::json!({});
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
                    let subscribed = session
                        .subscriptions
                        .lock()
                        .expect("subscriptions")
                        .iter()
                        .any(|s| uri_covers(s, &uri));
                    if subscribed {
                        session
                            .notify(
                                "notifications/resources/updated",
                                &serde_json::json!({"uri": &*uri}),
                            )
                            .await;
                    }
                }
                // Fell behind: tell the client everything may have changed.
                Err(RecvError::Lagged(_)) => {
                    for kind in ["tools", "prompts", "resources"] {
                        session
                            .notify(&format!("notifications/{kind}/list_changed"), &empty)
                            .await;
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}

impl LegacySession {
    /// A notification from the client on this session.
    pub(crate) fn on_notification(&self, n: &crate::protocol::jsonrpc::Notification) {
        match n.method.as_str() {
            "notifications/initialized" => self.initialized.store(true, Ordering::Relaxed),
            "notifications/cancelled" => {
                #[derive(Deserialize)]
                #[serde(rename_all = "camelCase")]
                struct Cancelled {
                    request_id: Option<RequestId>,
                }
                let id = n
                    .params
                    .as_deref()
                    .and_then(|p| serde_json::from_str::<Cancelled>(p.get()).ok())
                    .and_then(|c| c.request_id);
                if let Some(id) = id
                    && let Some(token) = self.inflight.lock().expect("inflight").get(&id)
                {
                    token.cancel();
                }
            }
            _ => {}
        }
    }
}

/// How many messages a resumable stream keeps for replay.
const STREAM_LOG: usize = 1024;
/// How many resumable streams a session keeps (finished ones are dropped first).
const MAX_STREAMS: usize = 256;

/// A legacy response stream that survives its connection (2025-11-25 resumability): every
/// message gets a sequence number and stays in a bounded log, so a client that lost the
/// connection (or whose connection the server closed) resumes with `Last-Event-ID`.
#[derive(Debug)]
pub(crate) struct ResumableStream {
    pub(crate) id: u64,
    inner: Mutex<StreamInner>,
}

#[derive(Debug)]
struct StreamInner {
    log: std::collections::VecDeque<(u64, Bytes, bool)>,
    next: u64,
    live: Option<mpsc::Sender<(u64, Bytes, bool)>>,
    done: bool,
}

/// What a (re)attached connection gets: the messages to replay, then the live feed.
pub(crate) struct Attached {
    pub(crate) replay: Vec<(u64, Bytes, bool)>,
    pub(crate) live: Option<mpsc::Receiver<(u64, Bytes, bool)>>,
}

impl ResumableStream {
    /// Records a message (`last`: the final response) and forwards it to the connection.
    pub(crate) fn push(&self, message: Bytes, last: bool) {
        let mut s = self.inner.lock().expect("stream");
        s.next += 1;
        let seq = s.next;
        if s.log.len() == STREAM_LOG {
            s.log.pop_front();
        }
        s.log.push_back((seq, message.clone(), last));
        s.done |= last;
        if let Some(live) = &s.live {
            // A connection that does not keep up is dropped; it can resume.
            if live.try_send((seq, message, last)).is_err() {
                s.live = None;
            }
        }
        if last {
            s.live = None;
        }
    }

    /// Attaches a connection, replaying what came after `after`.
    pub(crate) fn attach(&self, after: u64) -> Attached {
        let mut s = self.inner.lock().expect("stream");
        let replay: Vec<_> = s
            .log
            .iter()
            .filter(|(seq, ..)| *seq > after)
            .cloned()
            .collect();
        let live = if s.done {
            None
        } else {
            let (tx, rx) = mpsc::channel(256);
            s.live = Some(tx);
            Some(rx)
        };
        Attached { replay, live }
    }

    /// Closes the connection without ending the stream (the client polls back).
    pub(crate) fn detach(&self) {
        self.inner.lock().expect("stream").live = None;
    }

    pub(crate) fn is_done(&self) -> bool {
        self.inner.lock().expect("stream").done
    }
}

impl LegacySession {
    /// Opens a new resumable stream.
    pub(crate) fn open_stream(&self) -> Arc<ResumableStream> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).unsigned_abs();
        let stream = Arc::new(ResumableStream {
            id,
            inner: Mutex::new(StreamInner {
                log: std::collections::VecDeque::new(),
                next: 0,
                live: None,
                done: false,
            }),
        });
        let mut streams = self.streams.lock().expect("streams");
        if streams.len() >= MAX_STREAMS {
            let finished: Vec<u64> = streams
                .iter()
                .filter(|(_, s)| s.is_done())
                .map(|(k, _)| *k)
                .collect();
            for k in finished {
                streams.remove(&k);
            }
            if streams.len() >= MAX_STREAMS
                && let Some(oldest) = streams.keys().min().copied()
            {
                streams.remove(&oldest);
            }
        }
        streams.insert(id, stream.clone());
        stream
    }

    /// A stream by id (for `Last-Event-ID`).
    pub(crate) fn stream(&self, id: u64) -> Option<Arc<ResumableStream>> {
        self.streams.lock().expect("streams").get(&id).cloned()
    }

    /// Forgets a finished stream whose final message was delivered.
    pub(crate) fn forget_stream(&self, id: u64) {
        self.streams.lock().expect("streams").remove(&id);
    }

    /// Registers an in-flight request (so `notifications/cancelled` can stop it).
    pub(crate) fn track(&self, id: RequestId, cancel: CancellationToken) {
        self.inflight.lock().expect("inflight").insert(id, cancel);
    }

    pub(crate) fn untrack(&self, id: &RequestId) {
        self.inflight.lock().expect("inflight").remove(id);
    }
}
