//! A forwarded request (`tools/call`, `prompts/get`, `resources/read`) is a value of its own
//! ([`Forwarded`]: the upstream request and the questions its upstream asks), which the
//! handler that started it drives ([`drive`]): it forwards the upstream's progress and log
//! messages to its caller and asks its caller what a legacy upstream asks (handed over by
//! `callers.rs`, each question keyed `<kind>-<n>` by its place among the request's
//! questions).
//!
//! When the caller speaks 2026-07-28, an unanswered question ends the caller's round (MRTR:
//! the answer comes in a retry) and the handler with it. A legacy upstream's request is not
//! given up then: it waits, parked (`parked.rs`), the upstream blocked on its question, and
//! the retry that carries the answer takes it back ([`resume`]) and goes on where it
//! stopped. The upstream's tool runs once, however many questions it asks, where replaying
//! the handler would have run it again from the start for each. A retry that finds nothing
//! parked (another replica, it waited too long, or another request started meanwhile)
//! calls the upstream again, and the answers its state carries answer the questions asked
//! again under the same keys. (Nothing of this costs a request that cannot park: one to a
//! modern upstream, or from a legacy caller.)

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{broadcast, mpsc};

use super::callers::{Asked, Callers, InFlight};
use super::parked::{ParkKey, Parked, Pending};
use crate::client::{Client, ClientError};
use crate::context::Context;
use crate::future::BoxFuture;
use crate::protocol::{ErrorObject, InputRequest, LoggingLevel, ProtocolVersion};

/// The forwarded requests of one upstream: those in flight (whom its questions go to) and
/// those parked between their callers' rounds.
#[derive(Default)]
pub(super) struct Traffic {
    pub(super) callers: Arc<Callers>,
    parked: Arc<Parked<Forwarded>>,
}

/// An upstream request, with the questions its upstream asks. It is polled by the handler
/// that drives it, and outlives that handler when parked (the upstream, blocked on its
/// question, sends nothing meanwhile). Dropped, it is given up: the request is dropped
/// (which cancels it upstream) and the questions asked in its name are refused.
pub(super) struct Forwarded {
    questions: mpsc::Receiver<Asked>,
    request: BoxFuture<Result<Value, ClientError>>,
    _in_flight: InFlight,
    /// How many questions it has asked.
    asked: u32,
    /// What its questions were answered so far, in order (`None` past [`MAX_TOLD`]: it is
    /// not parked then).
    told: Option<Vec<Told>>,
    /// The progress token the upstream was given, if its first caller wanted progress.
    token: Option<String>,
}

impl Forwarded {
    /// Remembers that the question `key` was answered `answer`.
    fn told(&mut self, key: String, request: InputRequest, answer: &Value) {
        if let Some(told) = &mut self.told {
            if told.len() < MAX_TOLD {
                let answer = answer.clone();
                told.push(Told {
                    key,
                    request,
                    answer,
                });
            } else {
                self.told = None;
            }
        }
    }

    /// Whether everything it was told is what `cx`'s retry says it was told: only then is
    /// the retry the same call (a retry of another caller's call with the same arguments
    /// would otherwise go on with that caller's answers).
    fn told_as(&self, cx: &Context) -> bool {
        self.told.as_ref().is_some_and(|told| {
            told.iter()
                .all(|t| cx.answered(&t.key, &t.request).as_ref() == Some(&t.answer))
        })
    }

    /// Whether it can be parked (it remembers all it was told).
    fn parkable(&self) -> bool {
        self.told.is_some()
    }
}

/// A question a forwarded request asked, and the answer it was given.
struct Told {
    key: String,
    request: InputRequest,
    answer: Value,
}

/// The most answers a forwarded request remembers (to be parked, it must remember them all).
const MAX_TOLD: usize = 32;

impl Forwarded {
    /// Starts `request` on `link`'s upstream (counted among its requests in flight first,
    /// so that its questions find it; the requests parked there given up, so that they do
    /// not make its questions ambiguous), sent with the progress token `token`.
    pub(super) fn start(
        traffic: &Traffic,
        token: Option<String>,
        request: impl Future<Output = Result<Value, ClientError>> + Send + 'static,
    ) -> Self {
        traffic.parked.give_up();
        let (in_flight, questions) = traffic.callers.enter();
        Self {
            questions,
            request: Box::pin(request),
            _in_flight: in_flight,
            asked: 0,
            told: Some(Vec::new()),
            token,
        }
    }
}

/// Which parked request a retry of `cx`'s `method` of `name` with `arguments` may take
/// back; `None` when the request cannot be parked: only a legacy upstream's questions wait
/// for a 2026-07-28 caller's retry (a modern upstream's are relayed in its own rounds, a
/// legacy caller answers at once).
pub(super) fn park_key(
    client: &Client,
    cx: &Context,
    method: &'static str,
    name: &str,
    arguments: &Value,
) -> Option<ParkKey> {
    let modern = ProtocolVersion::V2026_07_28;
    if client.protocol_version() >= modern || cx.protocol_version() < modern {
        return None;
    }
    Some(ParkKey {
        principal: cx.principal().map(|p| p.subject().to_owned()),
        method,
        name: name.to_owned(),
        arguments: crate::mrtr::ValueDigest::of(arguments).encode(),
    })
}

/// The request parked for `key` that `cx` is the retry of, its question answered: the
/// question answered in `cx`'s state, and every earlier answer it was given the one that
/// state carries.
pub(super) fn resume(traffic: &Traffic, cx: &Context, key: Option<&ParkKey>) -> Option<Forwarded> {
    let (mut forwarded, pending, answer) = traffic.parked.take(key?, |held, pending| {
        cx.answered(&pending.key, &pending.request)
            .filter(|_| held.told_as(cx))
    })?;
    tracing::debug!(
        target: "mcp_framework::proxy",
        "the retry answers `{}`: the parked call goes on",
        pending.key
    );
    forwarded.told(pending.key, pending.request, &answer);
    let _ = pending.reply.send(Ok(answer));
    Some(forwarded)
}

/// Drives `forwarded` for the caller of `cx` to its end: the upstream's notifications
/// (`notifications`, when the caller follows them) and questions go to the caller, and
/// a caller's cancellation gives the request up.
pub(super) async fn drive(
    traffic: &Traffic,
    cx: &Context,
    key: Option<ParkKey>,
    forwarded: Forwarded,
    mut notifications: Option<broadcast::Receiver<Value>>,
) -> Result<Value, ClientError> {
    let mut run = Run {
        forwarded: Some(forwarded),
        pending: None,
        key,
        cx: cx.clone(),
        parked: traffic.parked.clone(),
    };
    loop {
        let forwarded = run.forwarded.as_mut().expect("held until the run ends");
        tokio::select! {
            biased;
            n = next(&mut notifications) => match n {
                Ok(n) => {
                    let token = forwarded.token.as_deref();
                    forward_notification(&n, token, &traffic.callers, cx).await;
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => notifications = None,
            },
            Some(Asked { request, reply }) = forwarded.questions.recv() => {
                forwarded.asked += 1;
                if let Some(required) = cx.missing_for(&request) {
                    // A question the caller cannot be asked is refused to the upstream,
                    // which asked it: the call goes on. (An upstream also asks of its own
                    // accord, `roots/list` after it starts, say, which is no call's.)
                    let _ = reply.send(Err(ErrorObject::missing_capability(required)));
                    continue;
                }
                let question = format!("{}-{}", request.key_prefix(), forwarded.asked);
                let ask = cx.relay(request.clone()).key(question.clone());
                // Held while the caller is asked: if this ends the caller's round, the
                // request is parked with it (`Run`'s drop).
                run.pending = Some(Pending { key: question, request, reply });
                let answer = ask.await;
                if let Some(pending) = run.pending.take() {
                    let answer = answer.map_err(|e| ErrorObject::internal(e.to_string()));
                    let forwarded = run.forwarded.as_mut().expect("held until the run ends");
                    if let Ok(answer) = &answer {
                        forwarded.told(pending.key, pending.request, answer);
                    }
                    let _ = pending.reply.send(answer);
                }
            }
            outcome = &mut forwarded.request => {
                // What came before the answer, still unread, goes first.
                while let Some(Ok(n)) = notifications.as_mut().map(broadcast::Receiver::try_recv) {
                    let token = forwarded.token.as_deref();
                    forward_notification(&n, token, &traffic.callers, cx).await;
                }
                return outcome;
            }
            () = cx.cancelled() => {
                return Err(ClientError::Rpc(ErrorObject::internal("cancelled")));
            }
        }
    }
}

/// The next notification, when following them.
async fn next(
    notifications: &mut Option<broadcast::Receiver<Value>>,
) -> Result<Value, broadcast::error::RecvError> {
    match notifications {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// A forwarded request being driven. Dropped while its caller is asked a question that
/// ended the caller's round, it parks the request for the retry; dropped otherwise (the
/// request ended, was cancelled, or a layer gave up on it), the request is given up.
struct Run {
    forwarded: Option<Forwarded>,
    pending: Option<Pending>,
    key: Option<ParkKey>,
    cx: Context,
    parked: Arc<Parked<Forwarded>>,
}

impl Drop for Run {
    fn drop(&mut self) {
        if let (Some(key), Some(forwarded), Some(pending)) =
            (self.key.take(), self.forwarded.take(), self.pending.take())
            && forwarded.parkable()
            && self.cx.awaits_answer()
        {
            self.parked.park(key, forwarded, pending);
        }
    }
}

/// Forwards an upstream `notifications/progress` of the request whose token is `token`,
/// and its `notifications/message` when the caller asked for logs and this is the only
/// request in flight on the upstream (over stdio a log message names no request: with
/// several in flight it could be another caller's, and is not forwarded).
async fn forward_notification(n: &Value, token: Option<&str>, callers: &Callers, cx: &Context) {
    let params = &n["params"];
    if n["method"] == "notifications/progress"
        && token.is_some_and(|t| params["progressToken"] == t)
    {
        let done = params["progress"].as_f64().unwrap_or_default();
        cx.progress(done, params["total"].as_f64(), params["message"].as_str())
            .await;
    } else if n["method"] == "notifications/message"
        && cx.log_level().is_some()
        && callers.alone()
        && let Ok(level) = serde_json::from_value::<LoggingLevel>(params["level"].clone())
    {
        cx.log(level, params["logger"].as_str(), &params["data"])
            .await;
    }
}
