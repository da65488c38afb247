//! Asking the client: elicitation (forms and URLs), sampling and roots. Each question is an
//! [`Ask`], asked when awaited through the request's `Asker`: MRTR rounds on 2026-07-28 (an
//! unanswered question suspends the handler, and the retry replays it), real
//! server-to-client requests on legacy sessions.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::form::{Form, elicitation_schema};
use super::{Asker, Context};
use crate::error::ContextError;
use crate::mrtr::Question;
use crate::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitFormMode, ElicitRequestFormParams,
    ElicitRequestParams, ElicitRequestUrlParams, ElicitUrlMode, ErrorObject, InputRequest,
    JsonObject, ListRootsResult, ProtocolVersion, Root,
};

/// The outcome of an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accept(T),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The accepted value, if any.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(v) => Some(v),
            _ => None,
        }
    }
}

impl Context {
    /// Stops the handler: the dispatcher answers with `error` instead of a result.
    async fn fail(&self, error: ErrorObject) -> ! {
        self.inner
            .fatal
            .lock()
            .expect("fatal lock")
            .get_or_insert(error);
        self.suspend().await
    }

    async fn suspend(&self) -> ! {
        self.inner.suspension.stop();
        std::future::pending().await
    }

    /// Completes once the handler must stop (see [`Self::fail`] and MRTR questions).
    pub(crate) async fn wait_suspended(&self) {
        self.inner.suspension.stopped().await;
    }

    /// Form elicitation for `T` (a struct deriving [`Form`]: strings, numbers, booleans
    /// and enums, as elicitation allows, checked while compiling): asks the user to fill
    /// in a form and returns what they did. Requires the client's `elicitation`
    /// capability; without it the request fails with `-32021`. Await it; [`Ask::key`]
    /// names the question.
    pub fn elicit<T: Form>(&self, message: impl Into<String>) -> Ask<'_, Elicitation<T>> {
        let form = match elicitation_schema::<T>() {
            Ok(schema) => self.elicit_with_schema(message, (*schema).clone()),
            Err(reason) => {
                self.elicit_with_schema(message, JsonObject::new())
                    .broken(ErrorObject::internal(format!(
                        "`{}` cannot be elicited: {reason}",
                        std::any::type_name::<T>()
                    )))
            }
        };
        form.map(read_form::<T>)
    }

    /// Asks the user a yes-or-no question: a form with no fields, whose acceptance is
    /// `true` and whose refusal or dismissal is `false` (`ctx.confirm("Delete note 3?")`).
    /// Requires the client's `elicitation` capability, as [`elicit`](Self::elicit) does.
    pub fn confirm(&self, message: impl Into<String>) -> Ask<'_, bool> {
        let mut schema = JsonObject::new();
        schema.insert("type".into(), Value::String("object".into()));
        schema.insert("properties".into(), Value::Object(JsonObject::new()));
        self.elicit_with_schema(message, schema)
            .map(read_confirmation)
    }

    /// Form elicitation with a hand-written `requestedSchema`.
    pub fn elicit_with_schema(
        &self,
        message: impl Into<String>,
        requested_schema: JsonObject,
    ) -> Ask<'_, Elicitation<JsonObject>> {
        let missing = (!self.inner.client_capabilities.supports_elicitation_form())
            .then(|| serde_json::json!({"elicitation": {"form": {}}}));
        // 2025-06-18 knows no modes: its forms go without one.
        let request = ElicitRequestParams::Form(ElicitRequestFormParams {
            mode: (self.inner.version >= ProtocolVersion::V2025_11_25)
                .then_some(ElicitFormMode::Form),
            message: message.into(),
            requested_schema,
            meta: None,
        });
        Ask::new(self, request.into(), missing, read_elicitation)
    }

    /// Asks the user to visit `url` (URL-mode elicitation; 2025-11-25 and later). The
    /// outcome tells whether they agreed, not what happened there.
    pub fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Ask<'_, Elicitation<()>> {
        let missing = (!self.inner.client_capabilities.supports_elicitation_url())
            .then(|| serde_json::json!({"elicitation": {"url": {}}}));
        let request = ElicitRequestParams::Url(ElicitRequestUrlParams {
            mode: ElicitUrlMode::Url,
            message: message.into(),
            url: url.into(),
            // The legacy shape correlates the out-of-band flow with an id.
            elicitation_id: (self.inner.version == ProtocolVersion::V2025_11_25)
                .then(|| self.inner.request_id.to_string()),
            meta: None,
        });
        Ask::new(self, request.into(), missing, read_url)
    }

    /// Asks the client's LLM for a completion (`sampling/createMessage`). Requires the
    /// client's `sampling` capability (and `sampling.tools` when `tools` are given).
    pub fn sample(&self, params: CreateMessageRequestParams) -> Ask<'_, CreateMessageResult> {
        let caps = &self.inner.client_capabilities;
        let missing = if !caps.supports_sampling() {
            Some(serde_json::json!({"sampling": {}}))
        } else if params.tools.is_some() && !caps.supports_sampling_tools() {
            Some(serde_json::json!({"sampling": {"tools": {}}}))
        } else {
            None
        };
        Ask::new(self, params.into(), missing, read_json)
    }

    /// Asks `request` as it came from elsewhere (a proxy's upstream asked it) and returns
    /// the client's answer as it is: the capability its kind needs is checked as for the
    /// typed questions.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn relay(&self, request: InputRequest) -> Ask<'_, Value> {
        let missing = self.missing_for(&request);
        Ask::new(self, request, missing, Ok)
    }

    /// The answer this request carries to `request` asked under `key` in an earlier round
    /// (MRTR: under a key its sealed state recorded as asked, to that same question).
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn answered(&self, key: &str, request: &InputRequest) -> Option<Value> {
        let Asker::Mrtr(round) = &self.inner.asker else {
            return None;
        };
        let digest = Question::new(request.clone()).digest();
        let round = round.lock().expect("round lock");
        round
            .answers()
            .get(key)
            .filter(|a| a.question == digest)
            .map(|a| a.value.clone())
    }

    /// Whether the handler was stopped to ask the client (an MRTR round ended with a
    /// question unanswered), not failed.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn awaits_answer(&self) -> bool {
        matches!(self.inner.asker, Asker::Mrtr(_))
            && self.inner.suspension.is_stopped()
            && self.inner.fatal.lock().expect("fatal lock").is_none()
    }

    /// The client capability `request` needs and this client lacks (as the `-32021`
    /// error's `data.requiredCapabilities` names it), if any.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn missing_for(&self, request: &InputRequest) -> Option<Value> {
        let caps = &self.inner.client_capabilities;
        match request {
            InputRequest::Elicit(ElicitRequestParams::Form(_))
                if !caps.supports_elicitation_form() =>
            {
                Some(serde_json::json!({"elicitation": {"form": {}}}))
            }
            InputRequest::Elicit(ElicitRequestParams::Url(_))
                if !caps.supports_elicitation_url() =>
            {
                Some(serde_json::json!({"elicitation": {"url": {}}}))
            }
            InputRequest::CreateMessage(params)
                if !caps.supports_sampling()
                    || (params.tools.is_some() && !caps.supports_sampling_tools()) =>
            {
                Some(serde_json::json!({"sampling": {}}))
            }
            InputRequest::ListRoots(_) if !caps.supports_roots() => {
                Some(serde_json::json!({"roots": {}}))
            }
            _ => None,
        }
    }

    /// The client's roots (`roots/list`). Requires the client's `roots` capability.
    pub fn roots(&self) -> Ask<'_, Vec<Root>> {
        let missing = (!self.inner.client_capabilities.supports_roots())
            .then(|| serde_json::json!({"roots": {}}));
        Ask::new(self, InputRequest::list_roots(), missing, read_roots)
    }
}

/// A question to the client (elicitation, sampling, roots), asked when awaited.
///
/// It is answered the same way in both eras: a 2026-07-28 request is stopped and answered
/// with an `InputRequiredResult` carrying the question under an input key, then replayed
/// when the client retries with the answer; in a legacy session the question is a real
/// server-to-client request.
///
/// Input keys are positional by default (`elicitation-1`, `sampling-2`, … in the order the
/// handler asks), which is enough when the client only echoes them. Name a question with
/// [`key`](Self::key) when clients are told what to answer ahead of time. Questions awaited
/// together (`tokio::join!`) go to the client in one `InputRequiredResult`.
///
/// In the 2026-07-28 era an answer that does not parse as the question's result (say, a
/// number where an `ElicitResult` belongs) fails the request with `-32602`; in a legacy
/// session it is [`ContextError::InvalidResponse`].
#[must_use = "a question is asked when it is awaited"]
pub struct Ask<'a, T> {
    cx: &'a Context,
    request: InputRequest,
    key: Option<String>,
    /// The capability the client must have declared (`requiredCapabilities` otherwise).
    missing: Option<Value>,
    /// Fails the request when awaited (a question that cannot be built).
    broken: Option<ErrorObject>,
    read: Reader<T>,
}

/// Reads the client's answer; the `Err` says what is wrong with it.
type Reader<T> = Box<dyn FnOnce(Value) -> Result<T, String> + Send>;

impl<T> fmt::Debug for Ask<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ask")
            .field("method", &self.request.method())
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl<'a, T: Send + 'static> Ask<'a, T> {
    fn new(
        cx: &'a Context,
        request: InputRequest,
        missing: Option<Value>,
        read: fn(Value) -> Result<T, String>,
    ) -> Self {
        Self {
            cx,
            request,
            key: None,
            missing,
            broken: None,
            read: Box::new(read),
        }
    }

    /// Names the question: its key in the `InputRequiredResult`'s `inputRequests` and in
    /// the client's `inputResponses` (2026-07-28; legacy requests have no keys). Keys must
    /// be unique within a request.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    fn broken(mut self, error: ErrorObject) -> Self {
        self.broken = Some(error);
        self
    }

    fn map<U: Send + 'static>(self, f: fn(T) -> Result<U, String>) -> Ask<'a, U> {
        let read = self.read;
        Ask {
            cx: self.cx,
            request: self.request,
            key: self.key,
            missing: self.missing,
            broken: self.broken,
            read: Box::new(move |v| read(v).and_then(f)),
        }
    }
}

impl<'a, T: Send + 'static> std::future::IntoFuture for Ask<'a, T> {
    type Output = Result<T, ContextError>;
    type IntoFuture =
        std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let cx = self.cx;
            if let Some(error) = self.broken {
                cx.fail(error).await;
            }
            if let Some(required) = self.missing {
                cx.fail(ErrorObject::missing_capability(required)).await;
            }
            let question = Question::new(self.request);
            // In a task, a question waits among the task's `inputRequests`.
            if let (Some(slot), Some(live)) = (&cx.inner.task, cx.live_task()) {
                let request = serde_json::to_value(&question.request).expect("questions serialize");
                let answer = slot
                    .tasks
                    .ask(live, self.key, question.kind(), request)
                    .await;
                return match answer {
                    Ok(answer) => match (self.read)(answer) {
                        Ok(v) => Ok(v),
                        Err(reason) => {
                            cx.fail(ErrorObject::invalid_params(format!(
                                "Invalid inputResponses: {reason}"
                            )))
                            .await
                        }
                    },
                    Err(e) => cx.fail(e).await,
                };
            }
            match &cx.inner.asker {
                Asker::Mrtr(round) => {
                    let asked = round.lock().expect("round lock").ask(question, self.key);
                    match asked {
                        Ok((_, None)) => cx.suspend().await,
                        Ok((key, Some(answer))) => match (self.read)(answer) {
                            Ok(v) => Ok(v),
                            Err(reason) => {
                                cx.fail(ErrorObject::invalid_params(format!(
                                    "Invalid inputResponses[{key:?}]: {reason}"
                                )))
                                .await
                            }
                        },
                        Err(e) => cx.fail(e).await,
                    }
                }
                Asker::Legacy(session) => {
                    let answer = session
                        .request(
                            question.request.method(),
                            &question.params,
                            cx.inner.sink.as_ref(),
                            &cx.inner.cancel,
                        )
                        .await?;
                    (self.read)(answer).map_err(ContextError::InvalidResponse)
                }
                Asker::None => {
                    cx.fail(ErrorObject::internal(format!(
                        "`{}` is not available for this request",
                        question.request.method()
                    )))
                    .await
                }
            }
        })
    }
}

fn read_json<T: DeserializeOwned>(answer: Value) -> Result<T, String> {
    serde_json::from_value(answer).map_err(|e| e.to_string())
}

fn read_elicitation(answer: Value) -> Result<Elicitation<JsonObject>, String> {
    #[derive(serde::Deserialize)]
    struct Raw {
        action: String,
        #[serde(default)]
        content: Option<JsonObject>,
    }
    let raw: Raw = read_json(answer).map_err(|e| format!("elicitation result: {e}"))?;
    match raw.action.as_str() {
        "accept" => Ok(Elicitation::Accept(raw.content.unwrap_or_default())),
        "decline" => Ok(Elicitation::Decline),
        "cancel" => Ok(Elicitation::Cancel),
        other => Err(format!("unknown elicitation action {other:?}")),
    }
}

fn read_form<T: DeserializeOwned>(
    outcome: Elicitation<JsonObject>,
) -> Result<Elicitation<T>, String> {
    Ok(match outcome {
        Elicitation::Accept(content) => Elicitation::Accept(
            read_json(Value::Object(content)).map_err(|e| format!("elicitation content: {e}"))?,
        ),
        Elicitation::Decline => Elicitation::Decline,
        Elicitation::Cancel => Elicitation::Cancel,
    })
}

fn read_confirmation(outcome: Elicitation<JsonObject>) -> Result<bool, String> {
    Ok(outcome.accepted().is_some())
}

fn read_url(answer: Value) -> Result<Elicitation<()>, String> {
    Ok(match read_elicitation(answer)? {
        Elicitation::Accept(_) => Elicitation::Accept(()),
        Elicitation::Decline => Elicitation::Decline,
        Elicitation::Cancel => Elicitation::Cancel,
    })
}

fn read_roots(answer: Value) -> Result<Vec<Root>, String> {
    let result: ListRootsResult = read_json(answer).map_err(|e| format!("roots result: {e}"))?;
    Ok(result.roots)
}
