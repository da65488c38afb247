//! JSON-RPC middleware on the one request path (see [`RpcMiddleware`]): [`enter`] runs a
//! request through the chain before its method is resolved (its params rewritten, its
//! `_meta` read again; or the answer one of them gave), and hooks the chain onto whatever
//! the request will send (its sink, a listen stream); [`leave`] passes its reply back
//! through those that saw it. Client notifications pass through [`notification`].
//!
//! [`RpcMiddleware`]: crate::middleware::RpcMiddleware

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde_json::Value;
use serde_json::value::RawValue;

use super::carrier::Carrier;
use super::reply::{Failure, Reply};
use crate::middleware::rpc::{Passed, RpcChain, RpcMessage, RpcNotification, RpcRequest};
use crate::peer::MessageMap;
use crate::protocol::jsonrpc::{Notification, Request};
use crate::protocol::{ErrorObject, RequestId};

/// A request on its way: the chain, and what it left of the request.
pub(crate) struct Around {
    chain: Arc<RpcChain>,
    passed: Arc<Passed>,
}

/// Params as JSON (`null` when there are none).
fn params_value(params: Option<&RawValue>) -> Value {
    params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or(Value::Null)
}

/// Runs `request` through `chain`: the request to dispatch (params as the middleware left
/// them) and its carrier (its messages passed back through the chain), or the reply one of
/// them answered with.
pub(crate) fn enter(
    chain: &Arc<RpcChain>,
    mut request: Request,
    mut carrier: Carrier,
) -> Result<(Request, Carrier, Around), Reply> {
    let rpc = RpcRequest {
        method: request.method.clone(),
        id: request.id.clone(),
        raw: request.params.clone(),
        params: OnceLock::new(),
        principal: carrier.principal().cloned(),
        touched: false,
    };
    let (passed, answer) = chain.request(rpc);
    let around = Around {
        chain: chain.clone(),
        passed: Arc::new(passed),
    };
    if let Some(answer) = answer {
        let reply = match answer {
            Ok(result) => Reply::Result(Bytes::from(result.to_string())),
            Err(e) => Reply::Error(e, Failure::Answered),
        };
        return Err(leave(&around, reply));
    }
    if around.passed.request.touched {
        let params = around.passed.request.params();
        request.params = if params.is_null() {
            None
        } else {
            serde_json::value::to_raw_value(params).ok()
        };
        // Read `_meta` again: the middleware may have changed it.
        carrier.head = None;
    }
    carrier.sink = carrier.sink.map(|sink| sink.mapped(around.map()));
    Ok((request, carrier, around))
}

impl Around {
    /// What every message sent for the request passes through.
    fn map(&self) -> MessageMap {
        let (chain, passed) = (self.chain.clone(), self.passed.clone());
        MessageMap(Arc::new(move |message: Bytes| {
            let mut message = RpcMessage::new(message);
            chain
                .message(&passed, &mut message)
                .then(|| message.into_bytes())
        }))
    }
}

/// The request's reply, passed back through the middleware that saw the request (the
/// reply itself when none of them changed it).
pub(crate) fn leave(around: &Around, reply: Reply) -> Reply {
    let id: &RequestId = &around.passed.request.id;
    let (envelope, failure) = match &reply {
        Reply::Result(result) => (envelope(id, "result", result), Failure::Answered),
        Reply::Error(e, failure) => {
            let error = serde_json::to_vec(e).unwrap_or_default();
            (envelope(id, "error", &error), failure.clone())
        }
        Reply::Listen(_) | Reply::Cancelled => {
            return match reply {
                Reply::Listen(mut listen) => {
                    listen.map_notifications(around.map());
                    Reply::Listen(listen)
                }
                other => other,
            };
        }
    };
    let mut message = RpcMessage::new(envelope);
    // A response is never dropped.
    let _ = around.chain.message(&around.passed, &mut message);
    if !message.changed() {
        return reply;
    }
    let Value::Object(mut message) = message.into_json() else {
        return Reply::Error(
            ErrorObject::internal("a JSON-RPC middleware replaced the response with a non-object"),
            Failure::Answered,
        );
    };
    if let Some(error) = message.remove("error") {
        let error = serde_json::from_value::<ErrorObject>(error).unwrap_or_else(|e| {
            ErrorObject::internal(format!(
                "a JSON-RPC middleware wrote a malformed error: {e}"
            ))
        });
        return Reply::Error(error, failure);
    }
    let result = message.remove("result").unwrap_or(Value::Null);
    Reply::Result(Bytes::from(result.to_string()))
}

/// `{"jsonrpc":"2.0","id":…,"<member>":<body>}` around an already serialized body.
fn envelope(id: &RequestId, member: &str, body: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(body.len() + member.len() + 48);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut out, id).expect("an id serializes");
    out.extend_from_slice(b",\"");
    out.extend_from_slice(member.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(body);
    out.push(b'}');
    Bytes::from(out)
}

/// A client notification through the chain: `None` when a middleware dropped it, else the
/// notification as they left it.
pub(crate) fn notification(chain: &RpcChain, notification: &Notification) -> Option<Notification> {
    let mut rpc = RpcNotification {
        method: notification.method.clone(),
        params: params_value(notification.params.as_deref()),
    };
    if !chain.notification(&mut rpc) {
        return None;
    }
    Some(Notification {
        method: notification.method.clone(),
        params: if rpc.params.is_null() {
            None
        } else {
            serde_json::value::to_raw_value(&rpc.params).ok()
        },
    })
}
