//! Requests followed to their end: MRTR rounds (an `input_required` result answered with
//! the handlers and retried with `inputResponses` and `requestState`) and tasks (a task
//! result polled with `tasks/get`, its questions answered with `tasks/update`).

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::error::ClientError;
use super::facade::Client;
use super::requests::RequestOptions;
use crate::protocol::ErrorObject;

impl Client {
    /// Sends a request and, while the server answers `input_required`, answers its input
    /// requests with the callbacks and retries with `inputResponses` and `requestState`.
    /// A request answered with a task (the client declared the Tasks extension) is
    /// followed to its end: polled with `tasks/get`, its questions answered with
    /// `tasks/update`; its result is returned, its error is this call's.
    pub async fn request_resolving(
        &self,
        method: &str,
        params: Value,
        options: &RequestOptions,
    ) -> Result<Value, ClientError> {
        let mut params = params;
        for _ in 0..16 {
            let result = self.request_with(method, params.clone(), options).await?;
            match result.get("resultType").and_then(Value::as_str) {
                Some("input_required") => {}
                Some("task") => return self.follow_task(&result).await,
                _ => return Ok(result),
            }
            let responses = self
                .conn
                .config
                .handlers
                .answer_all(result.get("inputRequests"))
                .await?;
            params["inputResponses"] = Value::Object(responses);
            match result.get("requestState") {
                Some(state) => params["requestState"] = state.clone(),
                None => {
                    if let Some(p) = params.as_object_mut() {
                        p.remove("requestState");
                    }
                }
            }
        }
        Err(ClientError::Decode("too many input_required rounds".into()))
    }

    /// Polls the task of a `CreateTaskResult` until it ends (within the client's timeout
    /// for each request, at most 10,000 polls), answering its questions once each.
    async fn follow_task(&self, created: &Value) -> Result<Value, ClientError> {
        let id = created
            .get("taskId")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::Decode("a task result without taskId".into()))?
            .to_owned();
        let interval = |t: &Value| {
            Duration::from_millis(
                t.get("pollIntervalMs")
                    .and_then(Value::as_u64)
                    .unwrap_or(100)
                    .clamp(5, 1_000),
            )
        };
        let mut wait = interval(created);
        let mut answered = HashSet::new();
        for _ in 0..10_000 {
            tokio::time::sleep(wait).await;
            let task = self.request("tasks/get", json!({"taskId": id})).await?;
            wait = interval(&task);
            match task.get("status").and_then(Value::as_str) {
                Some("completed") => {
                    return Ok(task.get("result").cloned().unwrap_or_else(|| json!({})));
                }
                Some("failed") => {
                    let error = task.get("error").cloned().unwrap_or_default();
                    return Err(ClientError::Rpc(
                        serde_json::from_value(error).unwrap_or_else(|_| {
                            ErrorObject::internal("the task failed without an error")
                        }),
                    ));
                }
                Some("cancelled") => {
                    return Err(ClientError::Rpc(ErrorObject::internal(
                        "the task was cancelled",
                    )));
                }
                Some("input_required") => {
                    let mut fresh = Map::new();
                    if let Some(requests) = task.get("inputRequests").and_then(Value::as_object) {
                        for (key, req) in requests {
                            if answered.insert(key.clone()) {
                                fresh.insert(key.clone(), req.clone());
                            }
                        }
                    }
                    if !fresh.is_empty() {
                        let responses = self
                            .conn
                            .config
                            .handlers
                            .answer_all(Some(&Value::Object(fresh)))
                            .await?;
                        self.request(
                            "tasks/update",
                            json!({"taskId": id, "inputResponses": responses}),
                        )
                        .await?;
                    }
                }
                _ => {}
            }
        }
        Err(ClientError::Timeout)
    }
}
