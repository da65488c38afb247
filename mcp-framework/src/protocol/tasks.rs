//! The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` answered
//! with a task handle ([`CreateTaskResult`], `resultType: "task"`) that the client polls
//! with `tasks/get`, answers with `tasks/update` and stops with `tasks/cancel`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capabilities::JsonObject;
use super::jsonrpc::ErrorObject;
use super::result::ResultType;

/// Where a task is in its life. `completed`, `failed` and `cancelled` are final.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The server waits for answers to the task's `inputRequests`.
    InputRequired,
    /// The request finished with a result (a tool error, `isError: true`, included).
    Completed,
    /// The request failed with a JSON-RPC error.
    Failed,
    /// The request was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether the status is final.
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// What every shape of a task carries (`Task`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// The task's identifier.
    pub task_id: String,
    /// Its status.
    pub status: TaskStatus,
    /// What the task is doing, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it last changed (ISO 8601).
    pub last_updated_at: String,
    /// How long after its creation the server keeps it, in milliseconds (`null`: no limit).
    pub ttl_ms: Option<u64>,
    /// How often the client should poll, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

/// A task's state as `tasks/get` and `notifications/tasks` carry it (`DetailedTask`): the
/// [`Task`], plus `inputRequests` while `input_required`, `result` once `completed` and
/// `error` once `failed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// The questions waiting for an answer, by key (`input_required` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<JsonObject>,
    /// The result of the original request (`completed` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error the request failed with (`failed` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

/// `tasks/get`'s result: the task in detail, `resultType: "complete"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskResult {
    /// `"complete"`.
    pub result_type: ResultType,
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// The answer to a request that became a task: `resultType: "task"` and the [`Task`] at
/// the top level (never its result, error or questions: those are `tasks/get`'s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// `"task"`.
    pub result_type: ResultType,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// `notifications/tasks`: the task in detail, as `tasks/get` would return it now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskStatusNotificationParams {
    /// The task.
    #[serde(flatten)]
    pub task: DetailedTask,
    /// Notification metadata (the subscription id).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `tasks/get` and `tasks/cancel`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task.
    pub task_id: String,
}

/// Params of `tasks/update`: answers to the task's `inputRequests`, by key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// The task.
    pub task_id: String,
    /// The answers.
    pub input_responses: JsonObject,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(status: TaskStatus) -> DetailedTask {
        DetailedTask {
            task: Task {
                task_id: "t1".into(),
                status,
                status_message: None,
                created_at: "2026-12-02T10:00:00.000Z".into(),
                last_updated_at: "2026-12-02T10:00:01.000Z".into(),
                ttl_ms: Some(60_000),
                poll_interval_ms: Some(500),
            },
            input_requests: None,
            result: None,
            error: None,
        }
    }

    #[test]
    fn get_result_is_flat_and_complete() {
        let mut t = task(TaskStatus::Completed);
        t.result = Some(json!({"content": []}));
        let r = GetTaskResult {
            result_type: ResultType::Complete,
            task: t,
            meta: None,
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({
                "resultType": "complete", "taskId": "t1", "status": "completed",
                "createdAt": "2026-12-02T10:00:00.000Z",
                "lastUpdatedAt": "2026-12-02T10:00:01.000Z",
                "ttlMs": 60000, "pollIntervalMs": 500, "result": {"content": []}
            })
        );
    }

    #[test]
    fn unlimited_ttl_is_null_not_absent() {
        let mut t = task(TaskStatus::Working);
        t.task.ttl_ms = None;
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["ttlMs"], Value::Null);
        assert_eq!(TaskStatus::InputRequired.as_str(), "input_required");
        assert!(TaskStatus::Cancelled.is_terminal() && !TaskStatus::Working.is_terminal());
    }
}
