//! Tools an upstream runs only as tasks (`execution.taskSupport: "required"`, the
//! 2025-11-25 tasks): served here as ordinary tools whose call waits for the upstream's
//! task. The call is made a task (`params.task`), then `tasks/result` is asked, which the
//! upstream answers when the task ends; a question the task asks meanwhile (elicitation,
//! sampling, naming the task) reaches this call's caller as any upstream question does
//! (`callers.rs`). When this call ends first (cancelled, timed out, dropped by a layer),
//! the upstream's task is cancelled.

use serde_json::{Value, json};

use super::meta::{RELATED_TASK, drop_meta};
use crate::client::{Client, ClientError, RequestOptions};
use crate::protocol::keys;

/// How long the upstream keeps the task and its result (it may keep them less).
const TTL_MS: u64 = 300_000;

/// `tools/call` of `name` made a task of the upstream's, and its result when it ends.
pub(super) async fn call(
    client: &Client,
    name: &str,
    arguments: Value,
    options: &RequestOptions,
) -> Result<Value, ClientError> {
    let params = json!({"name": name, "arguments": arguments, "task": {"ttl": TTL_MS}});
    let created = client.request_with("tools/call", params, options).await?;
    let Some(task_id) = created.pointer("/task/taskId").and_then(Value::as_str) else {
        // An upstream that ran it at once answers with the result itself.
        return decode(created);
    };
    let mut running = Running {
        client: Some(client.clone()),
        task_id: task_id.to_owned(),
    };
    let result = client
        .request_with("tasks/result", json!({"taskId": task_id}), options)
        .await;
    running.client = None;
    decode(result?)
}

/// The upstream's result as this server's: without the upstream's identity and its link
/// to a task no one here knows.
fn decode(mut result: Value) -> Result<Value, ClientError> {
    drop_meta(&mut result, &[keys::SERVER_INFO, RELATED_TASK]);
    Ok(result)
}

/// An upstream task this call waits for; dropped while it still holds the client (the
/// call ended before the task), it cancels the task.
struct Running {
    client: Option<Client>,
    task_id: String,
}

impl Drop for Running {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        let task_id = std::mem::take(&mut self.task_id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let cancelled = client
                    .request("tasks/cancel", json!({"taskId": task_id}))
                    .await;
                if let Err(e) = cancelled {
                    tracing::debug!(
                        target: "mcp_framework::proxy",
                        "cancelling the upstream's task {task_id}: {e}"
                    );
                }
            });
        }
    }
}
