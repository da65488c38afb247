//! An upstream's task adopted as this server's (the Tasks extension, 2026-07-28): when a
//! forwarded `tools/call` is answered by the upstream with a task (`resultType: "task"`),
//! the call becomes a task of this server's ([`Context::run_as_task`]: its caller gets
//! this server's task id, polls this server, and this server's owner checks, bounds and
//! TTL apply), and the handler goes on following the upstream's task: its status message
//! mirrored, its questions (`inputRequests`) asked of the caller under the same keys and
//! each answer passed on with `tasks/update` as it comes, its result or error made this
//! task's. A task cancelled here (or a caller gone, for a call that could not become a
//! task) cancels the upstream's.

use std::collections::HashSet;
use std::time::Duration;

use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use serde_json::{Map, Value, json};

use crate::client::{Client, ClientError, RequestOptions};
use crate::context::Context;
use crate::protocol::{DetailedTask, ErrorObject, InputRequest, TaskStatus};

/// The shortest and longest wait between two polls of the upstream's task (its
/// `pollIntervalMs` within these).
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);

/// Whether an upstream's result is a task handle.
pub(super) fn is_task(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("task")
}

/// Follows the upstream task `created` (a `CreateTaskResult`) for the call of `cx`, made
/// this server's task, to its end: its result, or its error.
pub(super) async fn follow(
    client: &Client,
    created: &Value,
    options: &RequestOptions,
    cx: &Context,
) -> Result<Value, ClientError> {
    let Some(task_id) = created.get("taskId").and_then(Value::as_str) else {
        return Err(ClientError::Decode("a task without a taskId".into()));
    };
    let mut poll = poll_interval(created);
    let mut upstream = Upstream {
        client: Some(client.clone()),
        task_id: task_id.to_owned(),
        options: options.clone(),
    };
    // `false`: the caller did not declare the extension, or no task could be kept here;
    // the call then waits for the upstream's task as an ordinary request.
    cx.run_as_task().await;
    let mut status_message: Option<String> = None;
    let mut answered = HashSet::new();
    loop {
        tokio::select! {
            () = cx.cancelled() => return Err(ClientError::Cancelled),
            () = tokio::time::sleep(poll) => {}
        }
        let got = upstream
            .request("tasks/get", json!({"taskId": task_id}))
            .await?;
        poll = poll_interval(&got);
        let task: DetailedTask = serde_json::from_value(got)
            .map_err(|e| ClientError::Decode(format!("the upstream's task: {e}")))?;
        if task.task.status_message != status_message {
            status_message.clone_from(&task.task.status_message);
            if let Some(message) = &status_message {
                cx.set_status_message(message.clone()).await;
            }
        }
        match task.task.status {
            TaskStatus::Working => {}
            TaskStatus::InputRequired => {
                let requests = task.input_requests.unwrap_or_default();
                upstream.ask(cx, requests, &mut answered).await?;
            }
            TaskStatus::Completed => {
                upstream.client = None;
                return task.result.ok_or_else(|| {
                    ClientError::Decode("a completed task without a result".into())
                });
            }
            TaskStatus::Failed => {
                upstream.client = None;
                let error = task
                    .error
                    .unwrap_or_else(|| ErrorObject::internal("the upstream's task failed"));
                return Err(ClientError::Rpc(error));
            }
            // Cancelled, or a status of a later revision: the call ends with it.
            _ => {
                upstream.client = None;
                return Err(ClientError::Rpc(ErrorObject::internal(format!(
                    "the upstream's task ended {}",
                    task.task.status.as_str()
                ))));
            }
        }
    }
}

/// The wait before the next poll: the upstream's `pollIntervalMs` (500 ms without one),
/// within [`MIN_POLL`] and [`MAX_POLL`].
fn poll_interval(task: &Value) -> Duration {
    let ms = task
        .get("pollIntervalMs")
        .and_then(Value::as_u64)
        .unwrap_or(500);
    Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL)
}

/// The upstream's task while this call follows it; dropped while it still holds the
/// client (the call ended first), it cancels the task.
struct Upstream {
    client: Option<Client>,
    task_id: String,
    /// The caller's capabilities (the extension declared), which the upstream's task
    /// methods ask for.
    options: RequestOptions,
}

impl Upstream {
    async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        let client = self.client.as_ref().ok_or(ClientError::Closed)?;
        client.request_with(method, params, &self.options).await
    }

    /// Asks the caller the questions of `requests` not asked yet (under the upstream's
    /// keys) and passes each answer on as it comes.
    async fn ask(
        &self,
        cx: &Context,
        requests: Map<String, Value>,
        answered: &mut HashSet<String>,
    ) -> Result<(), ClientError> {
        let mut asks = FuturesUnordered::new();
        for (key, request) in requests {
            if !answered.insert(key.clone()) {
                continue; // answered already; the upstream has not taken it in yet
            }
            let request: InputRequest = serde_json::from_value(request)
                .map_err(|e| ClientError::Decode(format!("input request `{key}`: {e}")))?;
            asks.push(async move { (key.clone(), cx.relay(request).key(key).await) });
        }
        while let Some((key, answer)) = asks.next().await {
            let answer = answer.map_err(|e| {
                ClientError::Rpc(ErrorObject::internal(format!("input request `{key}`: {e}")))
            })?;
            let mut responses = Map::new();
            responses.insert(key, answer);
            self.request(
                "tasks/update",
                json!({"taskId": self.task_id, "inputResponses": responses}),
            )
            .await?;
        }
        Ok(())
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        let (task_id, options) = (std::mem::take(&mut self.task_id), self.options.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let params = json!({"taskId": task_id});
                if let Err(e) = client.request_with("tasks/cancel", params, &options).await {
                    tracing::debug!(
                        target: "mcp_framework::proxy",
                        "cancelling the upstream's task {task_id}: {e}"
                    );
                }
            });
        }
    }
}
