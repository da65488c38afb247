//! JSON-RPC middleware (SEP-3371's "JSON-RPC middleware" extension point): code that sees
//! every message of the server's conversation with a client, on every transport and in
//! both eras — each request before it is dispatched, each message sent for it (its
//! notifications and requests to the client as they go out, a listen stream's
//! notifications, then its response), and each notification from the client.
//!
//! Add one with [`ServerBuilder::rpc_middleware`](crate::ServerBuilder::rpc_middleware)
//! (or, from an extension, [`Setup::rpc_middleware`](crate::extension::Setup::rpc_middleware)).
//! **Order**: the application's, in the order added, then each extension's, in the order
//! the extensions were registered (an extension's own in the order it added them). A
//! request passes through them in that order (outermost first) after it is parsed and
//! before its method is resolved (so a changed `_meta` is what the request carries); the
//! messages sent for it pass through them in reverse, innermost first, before they are
//! serialized for the transport. A middleware that answers a request itself skips those
//! inside it, and its answer passes back through those outside it.
//!
//! The hooks are synchronous and run on the request's path: keep them quick (metadata,
//! policy, redaction, auditing). Work that waits belongs in a tower layer around item calls
//! ([`ServerBuilder::layer`](crate::ServerBuilder::layer)). With none added, messages take
//! the same path as without this module.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::principal::Principal;
use crate::protocol::{ErrorObject, JsonObject, RequestId};

/// Sees the messages of every request and notification; each hook's default passes the
/// message on unchanged.
///
/// ```
/// use mcp_framework::middleware::{RpcMiddleware, RpcRequest};
/// use mcp_framework::protocol::ErrorObject;
/// use serde_json::Value;
///
/// /// Tags every request with the tenant of its caller, and refuses `tools/call` on Sundays.
/// struct Tenant;
///
/// impl RpcMiddleware for Tenant {
///     fn request(&self, request: &mut RpcRequest) -> Option<Result<Value, ErrorObject>> {
///         let tenant = request.principal().map(|p| p.subject().to_owned());
///         request.meta_mut().insert("com.example/tenant".into(), tenant.into());
///         None // go on
///     }
/// }
/// ```
pub trait RpcMiddleware: Send + Sync + 'static {
    /// A request, before it is dispatched: change its params (its `_meta` included) in
    /// place, or answer it here with `Some(Ok(result))` or `Some(Err(error))` (the
    /// middleware inside this one and the handler do not run).
    fn request(&self, request: &mut RpcRequest) -> Option<Result<Value, ErrorObject>> {
        let _ = request;
        None
    }

    /// A message sent for `request` — a notification, a request to the client, or the
    /// response (`{"jsonrpc", "id", "result"}` or `{…, "error"}`) — before it is written:
    /// read it ([`RpcMessage::json`]) or change it ([`RpcMessage::json_mut`]), or return
    /// `false` to drop it (a response is never dropped; its `false` is ignored).
    fn message(&self, request: &RpcRequest, message: &mut RpcMessage) -> bool {
        let _ = (request, message);
        true
    }

    /// A notification from the client, before it is handled: change its params in place,
    /// or return `false` to drop it.
    fn notification(&self, notification: &mut RpcNotification) -> bool {
        let _ = notification;
        true
    }
}

/// A request as JSON-RPC middleware sees it: its method and id (fixed) and its params.
#[derive(Debug, Clone)]
pub struct RpcRequest {
    pub(crate) method: String,
    pub(crate) id: RequestId,
    /// The params as they came (`None` when there were none).
    pub(crate) raw: Option<Box<RawValue>>,
    /// The params, parsed the first time a middleware looks at them.
    pub(crate) params: OnceLock<Value>,
    pub(crate) principal: Option<Principal>,
    /// Whether a middleware asked for the params mutably (the request is then written
    /// again before dispatch; otherwise the bytes it came with are kept).
    pub(crate) touched: bool,
}

impl RpcRequest {
    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request id.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// The params (`null` when the request had none), parsed on the first call.
    pub fn params(&self) -> &Value {
        self.params.get_or_init(|| {
            self.raw
                .as_deref()
                .and_then(|p| serde_json::from_str(p.get()).ok())
                .unwrap_or(Value::Null)
        })
    }

    /// The params, to change: the request is dispatched with what this leaves.
    pub fn params_mut(&mut self) -> &mut Value {
        self.params();
        self.touched = true;
        self.params.get_mut().expect("parsed above")
    }

    /// The params' `_meta`, created when absent (the params become an object if they were
    /// `null`). Entries it does not know are kept.
    pub fn meta_mut(&mut self) -> &mut JsonObject {
        let params = self.params_mut();
        if !params.is_object() {
            *params = Value::Object(JsonObject::new());
        }
        let params = params.as_object_mut().expect("an object");
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if !meta.is_object() {
            *meta = Value::Object(JsonObject::new());
        }
        meta.as_object_mut().expect("an object")
    }

    /// Who is calling, when an authentication layer said.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }
}

/// A notification from the client as JSON-RPC middleware sees it.
#[derive(Debug, Clone)]
pub struct RpcNotification {
    pub(crate) method: String,
    pub(crate) params: Value,
}

impl RpcNotification {
    /// The method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The params (`null` when it had none).
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// The params, to change.
    pub fn params_mut(&mut self) -> &mut Value {
        &mut self.params
    }
}

/// A message on its way out as JSON-RPC middleware sees it: parsed the first time it is
/// looked at, and serialized again only when it was changed.
#[derive(Debug)]
pub struct RpcMessage {
    bytes: Bytes,
    value: OnceLock<Value>,
    changed: bool,
}

impl RpcMessage {
    /// The message as serialized for the transport.
    pub(crate) fn new(bytes: Bytes) -> Self {
        Self {
            bytes,
            value: OnceLock::new(),
            changed: false,
        }
    }

    /// The message (parsed on the first call; `null` if it is not JSON, which the
    /// server never sends).
    pub fn json(&self) -> &Value {
        self.value
            .get_or_init(|| serde_json::from_slice(&self.bytes).unwrap_or(Value::Null))
    }

    /// The message, to change: what is written is what this leaves.
    pub fn json_mut(&mut self) -> &mut Value {
        self.json();
        self.changed = true;
        self.value.get_mut().expect("parsed above")
    }

    /// Whether a middleware asked to change the message.
    pub(crate) fn changed(&self) -> bool {
        self.changed
    }

    /// The message as it is to be written.
    pub(crate) fn into_bytes(mut self) -> Bytes {
        match self.value.take() {
            Some(value) if self.changed => Bytes::from(value.to_string()),
            _ => self.bytes,
        }
    }

    /// The message as JSON, parsing it if no middleware did.
    pub(crate) fn into_json(mut self) -> Value {
        self.json();
        self.value.take().expect("parsed above")
    }
}

/// The middleware of a server, in order (built once, by `build()`).
#[derive(Clone, Default)]
pub(crate) struct RpcChain(pub(crate) Vec<Arc<dyn RpcMiddleware>>);

impl std::fmt::Debug for RpcChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RpcChain({} middleware)", self.0.len())
    }
}

/// A request that went through the chain: as the middleware left it, and how many of them
/// saw it (those its messages pass back through).
#[derive(Debug)]
pub(crate) struct Passed {
    pub(crate) request: RpcRequest,
    pub(crate) depth: usize,
}

impl RpcChain {
    /// Runs the request hooks, outermost first: the request as they left it, and an
    /// answer if one of them gave it.
    pub(crate) fn request(
        &self,
        mut request: RpcRequest,
    ) -> (Passed, Option<Result<Value, ErrorObject>>) {
        for (i, m) in self.0.iter().enumerate() {
            if let Some(answer) = m.request(&mut request) {
                return (Passed { request, depth: i }, Some(answer));
            }
        }
        let depth = self.0.len();
        (Passed { request, depth }, None)
    }

    /// Runs the message hooks of those that saw `passed`, innermost first; `false` when
    /// one dropped it.
    pub(crate) fn message(&self, passed: &Passed, message: &mut RpcMessage) -> bool {
        self.0[..passed.depth]
            .iter()
            .rev()
            .all(|m| m.message(&passed.request, message))
    }

    /// Runs the notification hooks, in order; `false` when one dropped it.
    pub(crate) fn notification(&self, notification: &mut RpcNotification) -> bool {
        self.0.iter().all(|m| m.notification(notification))
    }
}
