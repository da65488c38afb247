//! The client's answers to the server's questions: the callbacks for elicitation, sampling
//! and `roots/list` (and `ping`), whether a question comes as a legacy server-to-client
//! request or as an `inputRequests` entry (an MRTR round's or a task's).

use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::error::ClientError;
use crate::future::BoxFuture;
use crate::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ErrorObject, ListRootsResult, Root,
};

/// A callback answering one kind of question.
pub(super) type Callback<P, R> = Arc<dyn Fn(P) -> BoxFuture<R> + Send + Sync>;

/// Answers any question as it came: the method, its params, the result or the error to send.
pub(crate) type Relay =
    Arc<dyn Fn(&str, Value) -> BoxFuture<Result<Value, ErrorObject>> + Send + Sync>;

/// The callbacks a client was built with (a question without one is `-32601`).
#[derive(Default)]
pub(super) struct Handlers {
    /// Takes every question when set (a proxy passes them on to its own caller).
    pub(super) relay: Option<Relay>,
    pub(super) elicit: Option<Callback<ElicitRequestParams, ElicitResult>>,
    pub(super) sample: Option<Callback<CreateMessageRequestParams, CreateMessageResult>>,
    pub(super) roots: Option<Callback<(), Vec<Root>>>,
}

impl Handlers {
    /// Answers one question: its `result`, or the error to send back.
    pub(super) async fn answer(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        if let Some(relay) = &self.relay
            && method != "ping"
        {
            return relay(method, params).await;
        }
        match method {
            "elicitation/create" => ask(self.elicit.as_ref(), method, params).await,
            "sampling/createMessage" => ask(self.sample.as_ref(), method, params).await,
            "roots/list" => {
                let f = self
                    .roots
                    .as_ref()
                    .ok_or_else(|| ErrorObject::method_not_found(method))?;
                let roots = f(()).await;
                Ok(
                    serde_json::to_value(ListRootsResult { roots, meta: None })
                        .expect("serializes"),
                )
            }
            "ping" => Ok(json!({})),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    /// Answers `inputRequests` (MRTR or a task's) by key; the first question that cannot be
    /// answered fails them all.
    pub(super) async fn answer_all(
        &self,
        requests: Option<&Value>,
    ) -> Result<Map<String, Value>, ClientError> {
        let mut responses = Map::new();
        for (key, req) in requests.and_then(Value::as_object).into_iter().flatten() {
            let method = req
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let p = req.get("params").cloned().unwrap_or_else(|| json!({}));
            let answer = self.answer(method, p).await.map_err(ClientError::Rpc)?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }
}

/// Asks `f` (if the client has it) with `params` read as its parameters.
async fn ask<P: DeserializeOwned, R: Serialize>(
    f: Option<&Callback<P, R>>,
    method: &str,
    params: Value,
) -> Result<Value, ErrorObject> {
    let f = f.ok_or_else(|| ErrorObject::method_not_found(method))?;
    let p =
        serde_json::from_value(params).map_err(|e| ErrorObject::invalid_params(e.to_string()))?;
    Ok(serde_json::to_value(f(p).await).expect("serializes"))
}
