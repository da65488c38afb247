//! `Callers`: the calls an upstream is serving for this server, while they run. A legacy
//! upstream asks its questions (elicitation, sampling, roots) as requests of its own that
//! name no call; with one call in flight the question is that call's and is asked of its
//! caller (as an input request of a 2026-07-28 caller, a request to a legacy one), with
//! several it cannot be told whose it is and is refused, never asked of someone else. The
//! same rule says whose a log message is. A forwarded request speaks for its caller:
//! [`as_caller`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::meta::{RELATED_TASK, drop_meta};
use crate::client::RequestOptions;
use crate::context::Context;
use crate::protocol::{ErrorObject, InputRequest, keys};

/// The forwarded calls in flight, with their contexts.
#[derive(Default)]
pub(super) struct Callers {
    next: AtomicU64,
    list: Mutex<Vec<(u64, Context, CancellationToken)>>,
}

/// A forwarded call in flight; dropping it (the call ended or was dropped) ends the
/// questions asked in its name.
pub(super) struct InFlight {
    callers: Arc<Callers>,
    id: u64,
    over: CancellationToken,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.over.cancel();
        self.callers
            .list
            .lock()
            .expect("callers")
            .retain(|(id, ..)| *id != self.id);
    }
}

impl Callers {
    /// Counts the call of `cx` until the guard is dropped.
    pub(super) fn enter(self: &Arc<Self>, cx: &Context) -> InFlight {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let over = CancellationToken::new();
        self.list
            .lock()
            .expect("callers")
            .push((id, cx.clone(), over.clone()));
        InFlight {
            callers: self.clone(),
            id,
            over,
        }
    }

    /// Whether one call alone is in flight.
    pub(super) fn alone(&self) -> bool {
        self.list.lock().expect("callers").len() == 1
    }

    /// Asks the upstream's question `method`/`params` of the caller of the one call in
    /// flight; its answer as it gave it.
    pub(super) async fn ask(&self, method: &str, mut params: Value) -> Result<Value, ErrorObject> {
        // A question an upstream task asks names that task, which no one here knows (and
        // which a 2026-07-28 caller's retry would see change: the retry runs a new task).
        drop_meta(&mut params, &[RELATED_TASK]);
        let (cx, over) = {
            let list = self.list.lock().expect("callers");
            match list.as_slice() {
                [(_, cx, over)] => (cx.clone(), over.clone()),
                [] => {
                    return Err(ErrorObject::invalid_request(format!(
                        "{method}: no call is in flight to ask it for"
                    )));
                }
                _ => {
                    return Err(ErrorObject::invalid_request(format!(
                        "{method}: several calls are in flight and the question names none"
                    )));
                }
            }
        };
        let request: InputRequest =
            serde_json::from_value(json!({"method": method, "params": params}))
                .map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
        // A question the caller cannot be asked (its client lacks the capability) is
        // refused to the upstream, which asked it: the call goes on. (An upstream also asks
        // of its own accord, `roots/list` after it starts, say, which is no call's.)
        if let Some(required) = cx.missing_for(&request) {
            return Err(ErrorObject::missing_capability(required));
        }
        tokio::select! {
            answer = cx.relay(request) => answer.map_err(|e| ErrorObject::internal(e.to_string())),
            () = over.cancelled() => Err(ErrorObject::internal(format!(
                "{method}: the call that asked is over"
            ))),
        }
    }
}

/// The options of a forwarded request: a modern upstream asks in the caller's name, so it
/// sees the caller's capabilities.
pub(super) fn as_caller(cx: &Context) -> RequestOptions {
    let mut options = RequestOptions::default();
    options.meta.insert(
        keys::CLIENT_CAPABILITIES.into(),
        serde_json::to_value(cx.client_capabilities()).expect("serializes"),
    );
    options
}
