//! The connection to the server, whatever carries it: request ids, the requests waiting
//! for their response, the open listens, the era the server was found to speak, and the
//! routing of what the server sends (`receive`): a response to the request waiting on its
//! id (or to the listen it ends), a server-to-client request to the client's handlers, a
//! notification to its subscription or to every `notifications()` receiver. How messages
//! leave and arrive is the transport's (`transport/`).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::builder::ClientBuilder;
use super::error::ClientError;
use super::transport::{Sink, Transport};
use crate::protocol::{
    ErrorObject, Implementation, ProtocolVersion, RequestId, ServerCapabilities, keys,
};

type Waiter = oneshot::Sender<Result<Value, ClientError>>;

/// The era the server speaks and what it said of itself (`server/discover` or
/// `initialize`; nothing when the client was told the era and did not ask).
#[derive(Debug, Default)]
pub(super) struct Handshake {
    /// The legacy revision spoken, or `None` for modern.
    pub(super) legacy: Option<ProtocolVersion>,
    pub(super) info: Option<Implementation>,
    pub(super) capabilities: Option<ServerCapabilities>,
    pub(super) instructions: Option<String>,
}

/// One connection to a server, shared by every clone of its `Client`.
pub(super) struct Connection {
    pub(super) transport: Transport,
    /// Requests waiting for their response, by id.
    pending: std::sync::Mutex<HashMap<RequestId, Waiter>>,
    /// Open listens, by the id of their request.
    subscriptions: std::sync::Mutex<HashMap<RequestId, mpsc::UnboundedSender<Value>>>,
    notifications: broadcast::Sender<Value>,
    next_id: AtomicI64,
    /// What the server said of itself when the era was found out. Unset until then
    /// (requests are modern meanwhile).
    handshake: OnceLock<Handshake>,
    /// Cancelled when the transport is gone.
    closed: tokio_util::sync::CancellationToken,
    /// What the client was built with.
    pub(super) config: ClientBuilder,
    /// The client's capabilities and information as the `_meta` of a modern request
    /// carries them, serialized once.
    pub(super) declared: Declared,
}

/// `clientCapabilities` and `clientInfo` as JSON values, made when the connection is.
pub(super) struct Declared {
    pub(super) capabilities: Value,
    pub(super) info: Value,
}

impl Connection {
    /// A connection over `transport` (whose reading side, if it has one, is started by the
    /// caller with [`Connection::receive`] as its sink).
    pub(super) fn new(transport: Transport, config: ClientBuilder) -> Arc<Self> {
        let (notifications, _) = broadcast::channel(4096);
        Arc::new(Self {
            transport,
            pending: std::sync::Mutex::new(HashMap::new()),
            subscriptions: std::sync::Mutex::new(HashMap::new()),
            notifications,
            next_id: AtomicI64::new(1),
            handshake: OnceLock::new(),
            closed: tokio_util::sync::CancellationToken::new(),
            declared: Declared {
                capabilities: serde_json::to_value(&config.capabilities).expect("serializes"),
                info: serde_json::to_value(&config.info).expect("serializes"),
            },
            config,
        })
    }

    /// The legacy revision in use, or `None` when requests are modern.
    pub(super) fn legacy(&self) -> Option<ProtocolVersion> {
        self.handshake.get().and_then(|h| h.legacy)
    }

    /// What the server said of itself, once the era is known.
    pub(super) fn handshake(&self) -> Option<&Handshake> {
        self.handshake.get()
    }

    /// Records what the era probe or handshake found (once; later calls change nothing).
    pub(super) fn set_handshake(&self, handshake: Handshake) {
        let _ = self.handshake.set(handshake);
    }

    /// A fresh request id.
    pub(super) fn next_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Every notification not routed to a subscription, from now on.
    pub(super) fn notifications(&self) -> broadcast::Receiver<Value> {
        self.notifications.subscribe()
    }

    /// Sends a request and waits (within the client's timeout) for its `result`; a request
    /// that times out is cancelled.
    pub(super) async fn send(
        self: &Arc<Self>,
        method: &str,
        params: Value,
    ) -> Result<Value, ClientError> {
        self.send_within(method, params, self.config.timeout).await
    }

    /// [`send`](Self::send) with its own timeout.
    pub(super) async fn send_within(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        timeout: std::time::Duration,
    ) -> Result<Value, ClientError> {
        let (id, outcome) = self.start(method, params).await?;
        // Dropped before its answer (the caller gave up): the request is cancelled.
        let mut guard = CancelOnDrop {
            conn: self.clone(),
            id: Some(id),
        };
        let outcome = tokio::time::timeout(timeout, outcome).await;
        let id = guard.id.take().expect("armed until here");
        match outcome {
            Err(_) => {
                self.pending.lock().expect("pending").remove(&id);
                let _ = self.cancel(&id).await;
                Err(ClientError::Timeout)
            }
            Ok(outcome) => outcome,
        }
    }

    /// Sends a request; returns its id and a future of its outcome (with no timeout).
    pub(super) async fn start(
        self: &Arc<Self>,
        method: &str,
        params: Value,
    ) -> Result<
        (
            RequestId,
            impl Future<Output = Result<Value, ClientError>> + use<>,
        ),
        ClientError,
    > {
        let id = self.next_id();
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending").insert(id.clone(), tx);
        if let Err(e) = self.write_request(&id, method, params).await {
            self.pending.lock().expect("pending").remove(&id);
            return Err(e);
        }
        Ok((
            id,
            async move { rx.await.unwrap_or(Err(ClientError::Closed)) },
        ))
    }

    /// Routes the messages of the request `id` (a listen) to a new receiver: its
    /// notifications, then the final result if the server ends it.
    pub(super) fn subscribe(&self, id: RequestId) -> mpsc::UnboundedReceiver<Value> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.subscriptions.lock().expect("subs").insert(id, tx);
        rx
    }

    /// Stops routing the messages of the listen `id`.
    pub(super) fn unsubscribe(&self, id: &RequestId) {
        self.subscriptions.lock().expect("subs").remove(id);
    }

    /// Writes a request whose outcome is routed by its `id`.
    pub(super) async fn write_request(
        self: &Arc<Self>,
        id: &RequestId,
        method: &str,
        params: Value,
    ) -> Result<(), ClientError> {
        let msg =
            json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method, "params": params});
        self.transport.request(self.clone(), id, method, &msg).await
    }

    /// Writes a notification.
    pub(super) async fn notify(
        self: &Arc<Self>,
        method: &str,
        params: Value,
    ) -> Result<(), ClientError> {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.transport.post(&**self, msg).await
    }

    /// Cancels the request `id` the way the transport and era cancel: closing its response
    /// stream (modern HTTP), or `notifications/cancelled`.
    pub(super) async fn cancel(self: &Arc<Self>, id: &RequestId) -> Result<(), ClientError> {
        if self.transport.abort(&**self, id) {
            return Ok(());
        }
        self.notify(
            "notifications/cancelled",
            json!({"requestId": id.to_value()}),
        )
        .await
    }

    /// Routes one message the server sent.
    pub(super) fn receive(self: &Arc<Self>, msg: Value) {
        let id = msg
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        match (id, method) {
            (Some(id), None) => self.route_response(&id, msg),
            (Some(id), Some(method)) => self.answer_request(id, method, &msg),
            (None, Some(_)) => self.route_notification(msg),
            (None, None) => {}
        }
    }

    /// The transport is gone: every waiter fails with `Closed`, every listen ends.
    pub(super) fn close_all(&self) {
        self.pending.lock().expect("pending").clear();
        self.subscriptions.lock().expect("subs").clear();
        self.closed.cancel();
    }

    /// Completes once the transport is gone.
    pub(super) async fn closed(&self) {
        self.closed.cancelled().await;
    }

    /// A response: to the request waiting on its id, or the final result of a listen
    /// closed by the server.
    fn route_response(&self, id: &RequestId, mut msg: Value) {
        if msg.get("result").is_none() && msg.get("error").is_none() {
            return;
        }
        let waiter = self.pending.lock().expect("pending").remove(id);
        if let Some(tx) = waiter {
            // The result is moved out of the message, not copied.
            let outcome = match msg.get_mut("result").map(Value::take) {
                Some(result) => Ok(result),
                None => Err(ClientError::Rpc(
                    serde_json::from_value(msg["error"].take())
                        .unwrap_or_else(|_| ErrorObject::internal("malformed error")),
                )),
            };
            let _ = tx.send(outcome);
        } else if let Some(tx) = self.subscriptions.lock().expect("subs").remove(id) {
            let _ = tx.send(msg);
        }
    }

    /// A legacy server-to-client request: answered by the handlers, on a task of its own.
    fn answer_request(self: &Arc<Self>, id: RequestId, method: String, msg: &Value) {
        let conn = self.clone();
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        tokio::spawn(async move {
            let answer = conn.config.handlers.answer(&method, params).await;
            let mut reply = json!({"jsonrpc": "2.0", "id": id});
            match answer {
                Ok(result) => reply["result"] = result,
                Err(e) => reply["error"] = serde_json::to_value(e).expect("error serializes"),
            }
            if let Err(e) = conn.transport.post(&*conn, reply).await {
                tracing::debug!(target: "mcp_framework::client", "answering {method}: {e}");
            }
        });
    }

    /// A notification: to the subscription its `_meta` names; a server-side teardown of a
    /// subscription (stdio: `notifications/cancelled` naming the listen) ends it; anything
    /// else goes to every `notifications()` receiver.
    fn route_notification(&self, msg: Value) {
        let sub = msg
            .pointer("/params/_meta")
            .and_then(|m| m.get(keys::SUBSCRIPTION_ID))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let routed = sub.and_then(|id| self.subscriptions.lock().expect("subs").get(&id).cloned());
        if let Some(tx) = routed {
            let _ = tx.send(msg);
            return;
        }
        if msg["method"] == "notifications/cancelled"
            && let Ok(id) = serde_json::from_value::<RequestId>(msg["params"]["requestId"].clone())
            && let Some(tx) = self.subscriptions.lock().expect("subs").remove(&id)
        {
            let _ = tx.send(msg);
            return;
        }
        let _ = self.notifications.send(msg);
    }
}

/// Cancels the request `id` unless disarmed (its `id` taken) first.
struct CancelOnDrop {
    conn: Arc<Connection>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        self.conn.pending.lock().expect("pending").remove(&id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let conn = self.conn.clone();
            runtime.spawn(async move {
                let _ = conn.cancel(&id).await;
            });
        }
    }
}

impl Sink for Connection {
    fn deliver(self: Arc<Self>, msg: Value) {
        self.receive(msg);
    }

    fn fail(&self, id: &RequestId, error: ClientError) {
        let waiter = self.pending.lock().expect("pending").remove(id);
        if let Some(tx) = waiter {
            let _ = tx.send(Err(error));
        } else {
            self.subscriptions.lock().expect("subs").remove(id);
        }
    }

    fn is_open(&self, id: &RequestId) -> bool {
        self.pending.lock().expect("pending").contains_key(id)
            || self.subscriptions.lock().expect("subs").contains_key(id)
    }

    fn closed(&self) {
        self.close_all();
    }

    fn legacy(&self) -> Option<ProtocolVersion> {
        Self::legacy(self)
    }
}
