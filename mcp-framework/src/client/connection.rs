//! The connection to the server: the in-process pipe to a `Server` (served with
//! `serve_stream`, so over the real stdio wire format: one JSON-RPC message a line),
//! writing messages, request ids, and the reading task that routes what the server sends: a
//! response to the request waiting on its id (or to the listen it ends), a server-to-client
//! request to the client's handlers, a notification to its subscription or to every
//! `notifications()` receiver.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{Mutex, broadcast, mpsc, oneshot};

use super::builder::ClientBuilder;
use super::error::ClientError;
use crate::protocol::{ErrorObject, RequestId, keys};
use crate::server::Server;

type Waiter = oneshot::Sender<Result<Value, ErrorObject>>;

/// One connection to a server, shared by every clone of its `Client`.
pub(super) struct Connection {
    write: Mutex<WriteHalf<DuplexStream>>,
    /// Requests waiting for their response, by id.
    pending: std::sync::Mutex<HashMap<RequestId, Waiter>>,
    /// Open listens, by the id of their request.
    subscriptions: std::sync::Mutex<HashMap<RequestId, mpsc::UnboundedSender<Value>>>,
    notifications: broadcast::Sender<Value>,
    next_id: AtomicI64,
    /// What the client was built with.
    pub(super) config: ClientBuilder,
}

impl Connection {
    /// Serves `server` on one end of an in-memory pipe and reads the other end.
    pub(super) fn open(server: &Server, config: ClientBuilder) -> Arc<Self> {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        let server = server.clone();
        tokio::spawn(async move {
            let _ = server.serve_stream(server_read, server_write).await;
        });
        let (read, write) = tokio::io::split(client_io);
        let (notifications, _) = broadcast::channel(4096);
        let conn = Arc::new(Self {
            write: Mutex::new(write),
            pending: std::sync::Mutex::new(HashMap::new()),
            subscriptions: std::sync::Mutex::new(HashMap::new()),
            notifications,
            next_id: AtomicI64::new(1),
            config,
        });
        tokio::spawn(read_loop(conn.clone(), BufReader::new(read)));
        conn
    }

    /// A fresh request id.
    pub(super) fn next_id(&self) -> RequestId {
        RequestId::Number(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Every notification not routed to a subscription, from now on.
    pub(super) fn notifications(&self) -> broadcast::Receiver<Value> {
        self.notifications.subscribe()
    }

    /// Sends a request and waits (within the client's timeout) for its `result`.
    pub(super) async fn send(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let (id, outcome) = self.start(method, params).await?;
        match tokio::time::timeout(self.config.timeout, outcome).await {
            Err(_) => {
                self.pending.lock().expect("pending").remove(&id);
                Err(ClientError::Timeout)
            }
            Ok(outcome) => outcome,
        }
    }

    /// Sends a request; returns its id and a future of its outcome (with no timeout).
    pub(super) async fn start(
        &self,
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
        self.write_request(&id, method, params).await?;
        Ok((id, async move {
            match rx.await {
                Err(_) => Err(ClientError::Closed),
                Ok(Err(e)) => Err(ClientError::Rpc(e)),
                Ok(Ok(v)) => Ok(v),
            }
        }))
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
        &self,
        id: &RequestId,
        method: &str,
        params: Value,
    ) -> Result<(), ClientError> {
        let msg =
            json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method, "params": params});
        self.write(&msg).await
    }

    /// Writes a notification.
    pub(super) async fn notify(&self, method: &str, params: Value) -> Result<(), ClientError> {
        self.write(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await
    }

    /// Writes one message as one line.
    async fn write(&self, msg: &Value) -> Result<(), ClientError> {
        let mut bytes = serde_json::to_vec(msg).expect("messages serialize");
        bytes.push(b'\n');
        let mut w = self.write.lock().await;
        w.write_all(&bytes).await.map_err(|_| ClientError::Closed)?;
        w.flush().await.map_err(|_| ClientError::Closed)
    }
}

/// Reads the server's lines until the pipe closes, then drops every waiter (their requests
/// fail with `Closed`) and every subscription (their streams end).
async fn read_loop(conn: Arc<Connection>, mut read: BufReader<ReadHalf<DuplexStream>>) {
    let mut line = String::new();
    loop {
        line.clear();
        match read.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let Ok(msg) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        let id = msg
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        match (id, method) {
            (Some(id), None) => route_response(&conn, &id, msg),
            (Some(id), Some(method)) => answer_request(&conn, id, method, &msg),
            (None, Some(_)) => route_notification(&conn, msg),
            (None, None) => {}
        }
    }
    conn.pending.lock().expect("pending").clear();
    conn.subscriptions.lock().expect("subs").clear();
}

/// A response: to the request waiting on its id, or the final result of a listen closed by
/// the server.
fn route_response(conn: &Connection, id: &RequestId, msg: Value) {
    let outcome = match (msg.get("result"), msg.get("error")) {
        (Some(r), _) => Ok(r.clone()),
        (None, Some(e)) => Err(serde_json::from_value(e.clone())
            .unwrap_or_else(|_| ErrorObject::internal("malformed error"))),
        _ => return,
    };
    let waiter = conn.pending.lock().expect("pending").remove(id);
    if let Some(tx) = waiter {
        let _ = tx.send(outcome);
    } else if let Some(tx) = conn.subscriptions.lock().expect("subs").remove(id) {
        let _ = tx.send(msg);
    }
}

/// A legacy server-to-client request: answered by the handlers, on a task of its own.
fn answer_request(conn: &Arc<Connection>, id: RequestId, method: String, msg: &Value) {
    let conn = conn.clone();
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    tokio::spawn(async move {
        let answer = conn.config.handlers.answer(&method, params).await;
        let mut reply = json!({"jsonrpc": "2.0", "id": id});
        match answer {
            Ok(result) => reply["result"] = result,
            Err(e) => {
                reply["error"] = serde_json::to_value(e).expect("error serializes");
            }
        }
        let _ = conn.write(&reply).await;
    });
}

/// A notification: to the subscription its `_meta` names; a server-side teardown of a
/// subscription (stdio: `notifications/cancelled` naming the listen) ends it; anything
/// else goes to every `notifications()` receiver.
fn route_notification(conn: &Connection, msg: Value) {
    let sub = msg
        .pointer("/params/_meta")
        .and_then(|m| m.get(keys::SUBSCRIPTION_ID))
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let routed = sub.and_then(|id| conn.subscriptions.lock().expect("subs").get(&id).cloned());
    if let Some(tx) = routed {
        let _ = tx.send(msg);
        return;
    }
    if msg["method"] == "notifications/cancelled"
        && let Ok(id) = serde_json::from_value::<RequestId>(msg["params"]["requestId"].clone())
        && let Some(tx) = conn.subscriptions.lock().expect("subs").remove(&id)
    {
        let _ = tx.send(msg);
        return;
    }
    let _ = conn.notifications.send(msg);
}
