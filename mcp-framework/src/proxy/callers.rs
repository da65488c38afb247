//! `Callers`: the requests an upstream is serving for this server, while they run. A legacy
//! upstream asks its questions (elicitation, sampling, roots) as requests of its own that
//! name no call; with one forwarded request in flight the question is that request's and is
//! handed to it (`forward.rs` asks its caller), with several it cannot be told whose it is
//! and is refused, never asked of someone else. The same rule says whose a log message is.
//! A forwarded request speaks for its caller: [`as_caller`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use super::meta::{RELATED_TASK, drop_meta};
use crate::client::RequestOptions;
use crate::context::Context;
use crate::protocol::{ErrorObject, InputRequest, keys};

/// An upstream's question, handed to the forwarded request it belongs to, and where its
/// answer goes.
pub(super) struct Asked {
    pub(super) request: InputRequest,
    pub(super) reply: oneshot::Sender<Result<Value, ErrorObject>>,
}

/// How many of its questions a forwarded request holds before it reads them (an upstream
/// asks one at a time; a second waits for room).
const QUEUED: usize = 4;

/// The forwarded requests in flight, each with where its questions go.
#[derive(Default)]
pub(super) struct Callers {
    next: AtomicU64,
    list: Mutex<Vec<(u64, mpsc::Sender<Asked>)>>,
}

/// A forwarded request in flight; dropping it (the request ended, or was given up) ends
/// the questions asked in its name: their answers will never come.
pub(super) struct InFlight {
    callers: Arc<Callers>,
    id: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.callers
            .list
            .lock()
            .expect("callers")
            .retain(|(id, _)| *id != self.id);
    }
}

impl Callers {
    /// Counts a forwarded request until the guard is dropped; its questions arrive on the
    /// receiver.
    pub(super) fn enter(self: &Arc<Self>) -> (InFlight, mpsc::Receiver<Asked>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (sender, questions) = mpsc::channel(QUEUED);
        self.list.lock().expect("callers").push((id, sender));
        let in_flight = InFlight {
            callers: self.clone(),
            id,
        };
        (in_flight, questions)
    }

    /// Whether one forwarded request alone is in flight.
    pub(super) fn alone(&self) -> bool {
        self.list.lock().expect("callers").len() == 1
    }

    /// Hands the upstream's question `method`/`params` to the one forwarded request in
    /// flight; its caller's answer as it gave it.
    pub(super) async fn ask(&self, method: &str, mut params: Value) -> Result<Value, ErrorObject> {
        // A question an upstream task asks names that task, which no one here knows.
        drop_meta(&mut params, &[RELATED_TASK]);
        let to = {
            let list = self.list.lock().expect("callers");
            match list.as_slice() {
                [(_, to)] => to.clone(),
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
        let (reply, answer) = oneshot::channel();
        let over = || ErrorObject::internal(format!("{method}: the call that asked is over"));
        to.send(Asked { request, reply })
            .await
            .map_err(|_| over())?;
        answer.await.map_err(|_| over())?
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
