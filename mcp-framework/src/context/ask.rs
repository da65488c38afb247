//! Asking the client: elicitation (forms and URLs), sampling and roots, through one
//! [`Asker`]: MRTR rounds on 2026-07-28 (an unanswered question suspends the handler, and
//! the retry replays it), real server-to-client requests on legacy sessions.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::form::elicitation_schema;
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
        self.inner
            .suspend_flag
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.inner.suspended.notify_one();
        std::future::pending().await
    }

    /// Completes once the handler must stop (see [`Self::fail`] and MRTR questions).
    pub(crate) async fn wait_suspended(&self) {
        loop {
            let notified = self.inner.suspended.notified();
            if self
                .inner
                .suspend_flag
                .load(std::sync::atomic::Ordering::SeqCst)
            {
                return;
            }
            notified.await;
        }
    }

    async fn ask(
        &self,
        question: Question,
        capability: Option<Value>,
    ) -> Result<Value, ContextError> {
        if let Some(required) = capability {
            self.fail(ErrorObject::missing_capability(required)).await;
        }
        match &self.inner.asker {
            Asker::Mrtr(round) => {
                let answer = round.lock().expect("round lock").ask(question);
                match answer {
                    Some(v) => Ok(v),
                    None => self.suspend().await,
                }
            }
            Asker::Legacy(session) => {
                session
                    .request(
                        question.request.method(),
                        &question.params,
                        self.inner.sink.as_ref(),
                        &self.inner.cancel,
                    )
                    .await
            }
            Asker::None => {
                self.fail(ErrorObject::internal(format!(
                    "`{}` is not available for this request",
                    question.request.method()
                )))
                .await
            }
        }
    }

    fn parse_answer<T: DeserializeOwned>(&self, what: &str, v: Value) -> Result<T, ContextError> {
        serde_json::from_value(v).map_err(|e| ContextError::InvalidResponse(format!("{what}: {e}")))
    }

    /// Asks the user to fill in a form for `T` (a flat struct of strings, numbers, booleans
    /// and enums, as elicitation allows). Requires the client's `elicitation` capability;
    /// without it the request fails with `-32021`.
    pub async fn elicit<T>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ContextError>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        let schema = match elicitation_schema::<T>() {
            Ok(s) => s,
            Err(reason) => {
                self.fail(ErrorObject::internal(format!(
                    "`{}` cannot be elicited: {reason}",
                    std::any::type_name::<T>()
                )))
                .await
            }
        };
        match self.elicit_with_schema(message, (*schema).clone()).await? {
            Elicitation::Accept(content) => {
                let value = self.parse_answer("elicitation content", Value::Object(content))?;
                Ok(Elicitation::Accept(value))
            }
            Elicitation::Decline => Ok(Elicitation::Decline),
            Elicitation::Cancel => Ok(Elicitation::Cancel),
        }
    }

    /// Form elicitation with a hand-written `requestedSchema`.
    pub async fn elicit_with_schema(
        &self,
        message: impl Into<String>,
        requested_schema: JsonObject,
    ) -> Result<Elicitation<JsonObject>, ContextError> {
        let caps = &self.inner.client_capabilities;
        let missing = (!caps.supports_elicitation_form())
            .then(|| serde_json::json!({"elicitation": {"form": {}}}));
        // 2025-06-18 knows no modes: its forms go without one.
        let request = ElicitRequestParams::Form(ElicitRequestFormParams {
            mode: (self.inner.version >= ProtocolVersion::V2025_11_25)
                .then_some(ElicitFormMode::Form),
            message: message.into(),
            requested_schema,
            meta: None,
        });
        let answer = self.ask(Question::new(request.into()), missing).await?;
        self.elicit_outcome(answer)
    }

    fn elicit_outcome(&self, answer: Value) -> Result<Elicitation<JsonObject>, ContextError> {
        #[derive(serde::Deserialize)]
        struct Raw {
            action: String,
            #[serde(default)]
            content: Option<JsonObject>,
        }
        let raw: Raw = self.parse_answer("elicitation result", answer)?;
        match raw.action.as_str() {
            "accept" => Ok(Elicitation::Accept(raw.content.unwrap_or_default())),
            "decline" => Ok(Elicitation::Decline),
            "cancel" => Ok(Elicitation::Cancel),
            other => Err(ContextError::InvalidResponse(format!(
                "unknown elicitation action {other:?}"
            ))),
        }
    }

    /// Asks the user to visit `url` (URL-mode elicitation; 2025-11-25 and later). The
    /// outcome tells whether they agreed, not what happened there.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Result<Elicitation<()>, ContextError> {
        let caps = &self.inner.client_capabilities;
        let missing = (!caps.supports_elicitation_url())
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
        let answer = self.ask(Question::new(request.into()), missing).await?;
        Ok(match self.elicit_outcome(answer)? {
            Elicitation::Accept(_) => Elicitation::Accept(()),
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
        })
    }

    /// Asks the client's LLM for a completion (`sampling/createMessage`). Requires the
    /// client's `sampling` capability (and `sampling.tools` when `tools` are given).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ContextError> {
        let caps = &self.inner.client_capabilities;
        let missing = if !caps.supports_sampling() {
            Some(serde_json::json!({"sampling": {}}))
        } else if params.tools.is_some() && !caps.supports_sampling_tools() {
            Some(serde_json::json!({"sampling": {"tools": {}}}))
        } else {
            None
        };
        let answer = self.ask(Question::new(params.into()), missing).await?;
        self.parse_answer("sampling result", answer)
    }

    /// The client's roots (`roots/list`). Requires the client's `roots` capability.
    pub async fn roots(&self) -> Result<Vec<Root>, ContextError> {
        let missing = (!self.inner.client_capabilities.supports_roots())
            .then(|| serde_json::json!({"roots": {}}));
        let answer = self
            .ask(Question::new(InputRequest::list_roots()), missing)
            .await?;
        let result: ListRootsResult = self.parse_answer("roots result", answer)?;
        Ok(result.roots)
    }
}
