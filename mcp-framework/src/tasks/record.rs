//! [`TaskRecord`]: what is kept of a task (its status, its questions, its result or error,
//! who owns it, whose quota it counts against and when it expires), what it weighs
//! ([`TaskRecord::payload_bytes`]), how `tasks/get` shows it ([`TaskDetail`]), and
//! [`TaskUpdate`], the one way a record changes. Both are serde types, so a shared store
//! can keep them as JSON.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::raw::RawJson;
use crate::protocol::{ErrorObject, JsonObject, Task, TaskStatus};

/// A task as a [`TaskStore`](super::TaskStore) keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The task id: 128 random bits, hex-encoded (unguessable: with no authorization it is
    /// the only thing protecting the task).
    pub id: String,
    /// Who created it (the principal's subject), if the request was authenticated. Only
    /// the same principal may read, answer or cancel it.
    pub owner: Option<String>,
    /// Whose quota it counts against while it is kept (a store holds at most so many
    /// records of one holder): the principal when there is one, else the client (its
    /// address over HTTP, its connection over stdio). `None`: no one's (a message handed
    /// to `Server::handle_message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// Its status.
    pub status: TaskStatus,
    /// What it is doing, for people.
    pub status_message: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Time of the last change, in milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// Kept this long after creation (`None`: no limit).
    pub ttl_ms: Option<u64>,
    /// The polling interval suggested to clients.
    pub poll_interval_ms: Option<u64>,
    /// Questions waiting for answers, by key (while `input_required`).
    pub input_requests: JsonObject,
    /// The result of the original request, once `completed`, as its JSON text.
    pub result: Option<RawJson>,
    /// The error the request failed with, once `failed`.
    pub error: Option<ErrorObject>,
    /// A client asked to cancel it (its runner, wherever it is, should stop).
    pub cancel_requested: bool,
    /// Answers to its questions given on a replica that does not run it, waiting for the
    /// runner to take them (a shared store carries them there).
    #[serde(default, skip_serializing_if = "JsonObject::is_empty")]
    pub answers: JsonObject,
    /// Its runner holds it until then (milliseconds since the Unix epoch) and renews the
    /// lease while it runs; past it, with the task not final, the runner is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_until_ms: Option<u64>,
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `ms` since the Unix epoch as ISO 8601 (RFC 3339, UTC, milliseconds).
fn iso8601(ms: u64) -> String {
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_millis(ms)).to_string()
}

impl TaskRecord {
    /// A new `working` task created at `now_ms`.
    pub fn new(
        id: String,
        owner: Option<String>,
        now_ms: u64,
        ttl_ms: Option<u64>,
        poll_interval_ms: Option<u64>,
    ) -> Self {
        Self {
            id,
            owner,
            holder: None,
            status: TaskStatus::Working,
            status_message: None,
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            ttl_ms,
            poll_interval_ms,
            input_requests: JsonObject::new(),
            result: None,
            error: None,
            cancel_requested: false,
            answers: JsonObject::new(),
            lease_until_ms: None,
        }
    }

    /// The record counting against `holder`'s quota.
    #[must_use]
    pub fn held_by(mut self, holder: Option<String>) -> Self {
        self.holder = holder;
        self
    }

    /// The bytes its contents take as JSON: the result, the error, the questions, the
    /// answers waiting and the status message (what a store's byte budget counts; the
    /// fixed fields are bounded by the number of records).
    pub fn payload_bytes(&self) -> usize {
        let mut bytes = self.result.as_ref().map_or(0, RawJson::len);
        bytes += self.status_message.as_ref().map_or(0, String::len);
        if let Some(error) = &self.error {
            bytes += encoded_len(error);
        }
        if !self.input_requests.is_empty() {
            bytes += encoded_len(&self.input_requests);
        }
        if !self.answers.is_empty() {
            bytes += encoded_len(&self.answers);
        }
        bytes
    }

    /// Whether the task is not final and its runner's lease ran out before `now_ms` (the
    /// replica running it stopped). A record without a lease never is.
    pub fn runner_is_gone(&self, now_ms: u64) -> bool {
        !self.status.is_terminal() && self.lease_until_ms.is_some_and(|until| until < now_ms)
    }

    /// When the record may be removed (never, without a TTL).
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.ttl_ms
            .map(|ttl| self.created_at_ms.saturating_add(ttl))
    }

    /// Whether the record has outlived its TTL at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms().is_some_and(|at| now_ms >= at)
    }

    /// The task's common fields (what a `CreateTaskResult` carries).
    pub fn task(&self) -> Task {
        Task {
            task_id: self.id.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            created_at: iso8601(self.created_at_ms),
            last_updated_at: iso8601(self.updated_at_ms),
            ttl_ms: self.ttl_ms,
            poll_interval_ms: self.poll_interval_ms,
        }
    }

    /// The task as `tasks/get` and `notifications/tasks` show it (a `DetailedTask`):
    /// questions only while `input_required`, the result only once `completed`, the error
    /// only once `failed`. It borrows from the record: the result is written as kept.
    pub fn detail(&self) -> TaskDetail<'_> {
        TaskDetail {
            task: self.task(),
            input_requests: (self.status == TaskStatus::InputRequired)
                .then_some(&self.input_requests),
            result: (self.status == TaskStatus::Completed)
                .then_some(self.result.as_ref())
                .flatten()
                .map(RawJson::as_raw),
            error: (self.status == TaskStatus::Failed)
                .then_some(self.error.as_ref())
                .flatten(),
        }
    }
}

/// A task in detail, borrowed from its [`TaskRecord`]: it serializes as the protocol's
/// [`DetailedTask`](crate::protocol::DetailedTask) does, writing the result's JSON text
/// as it is kept.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskDetail<'a> {
    /// The task.
    #[serde(flatten)]
    pub task: Task,
    /// The questions waiting (`input_required` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<&'a JsonObject>,
    /// The result (`completed` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'a RawValue>,
    /// The error (`failed` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a ErrorObject>,
}

/// The length of `value` encoded as JSON, counted without keeping the text.
pub(crate) fn encoded_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).expect("protocol values serialize");
    count.0
}

/// A change to a record. A store applies it with [`apply`](Self::apply), atomically: a
/// record that is final (`completed`, `failed`, `cancelled`) never changes again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskUpdate {
    /// The new status.
    pub status: Option<TaskStatus>,
    /// The new status message (`Some(None)` clears it).
    pub status_message: Option<Option<String>>,
    /// The questions now waiting (replacing the previous ones).
    pub input_requests: Option<JsonObject>,
    /// The result (with `status: completed`).
    pub result: Option<RawJson>,
    /// The error (with `status: failed`).
    pub error: Option<ErrorObject>,
    /// Marks the task as asked to cancel.
    pub cancel_requested: bool,
    /// Answers for the runner to take (added to those waiting).
    pub answers: Option<JsonObject>,
    /// Answers the runner took (removed from those waiting).
    pub answers_taken: Vec<String>,
    /// The runner's new lease.
    pub lease_until_ms: Option<u64>,
    /// When the change happened, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

impl TaskUpdate {
    /// An empty change at `at_ms`.
    pub fn at(at_ms: u64) -> Self {
        Self {
            at_ms,
            ..Self::default()
        }
    }

    /// Sets the status.
    #[must_use]
    pub fn status(mut self, status: TaskStatus) -> Self {
        self.status = Some(status);
        self
    }

    /// Sets (or, with `None`, clears) the status message.
    #[must_use]
    pub fn status_message(mut self, message: Option<String>) -> Self {
        self.status_message = Some(message);
        self
    }

    /// Replaces the waiting questions.
    #[must_use]
    pub fn input_requests(mut self, requests: JsonObject) -> Self {
        self.input_requests = Some(requests);
        self
    }

    /// Completes the task with `result`.
    #[must_use]
    pub fn completed(mut self, result: RawJson) -> Self {
        self.status = Some(TaskStatus::Completed);
        self.result = Some(result);
        self
    }

    /// Fails the task with `error` (its message becomes the status message).
    #[must_use]
    pub fn failed(mut self, error: ErrorObject) -> Self {
        self.status = Some(TaskStatus::Failed);
        self.status_message = Some(Some(error.message.clone()));
        self.error = Some(error);
        self
    }

    /// Marks the task as asked to cancel.
    #[must_use]
    pub fn cancel_requested(mut self) -> Self {
        self.cancel_requested = true;
        self
    }

    /// Leaves answers for the runner (given on a replica that does not run the task).
    #[must_use]
    pub fn answers(mut self, answers: JsonObject) -> Self {
        self.answers = Some(answers);
        self
    }

    /// Removes answers the runner took.
    #[must_use]
    pub fn answers_taken(mut self, keys: Vec<String>) -> Self {
        self.answers_taken = keys;
        self
    }

    /// Renews the runner's lease: not a change clients see (the record's `updated_at_ms`
    /// stays).
    pub fn lease(until_ms: u64) -> Self {
        Self {
            lease_until_ms: Some(until_ms),
            ..Self::default()
        }
    }

    /// Applies the change to `record`; returns whether anything changed (nothing does once
    /// the record is final).
    pub fn apply(self, record: &mut TaskRecord) -> bool {
        if record.status.is_terminal() {
            return false;
        }
        if let Some(status) = self.status {
            record.status = status;
            if status.is_terminal() {
                record.input_requests.clear();
            }
        }
        if let Some(message) = self.status_message {
            record.status_message = message;
        }
        if let Some(requests) = self.input_requests
            && !record.status.is_terminal()
        {
            record.input_requests = requests;
        }
        if self.result.is_some() {
            record.result = self.result;
        }
        if self.error.is_some() {
            record.error = self.error;
        }
        record.cancel_requested |= self.cancel_requested;
        if let Some(answers) = self.answers {
            record.answers.extend(answers);
        }
        for key in &self.answers_taken {
            record.answers.remove(key);
        }
        if self.status.is_some_and(TaskStatus::is_terminal) {
            record.answers.clear();
        }
        if let Some(until) = self.lease_until_ms {
            record.lease_until_ms = Some(until);
        }
        record.updated_at_ms = record.updated_at_ms.max(self.at_ms);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn final_records_never_change() {
        let mut r = TaskRecord::new("t".into(), None, 1_000, Some(10), None);
        assert!(
            TaskUpdate::at(1_001)
                .completed(json!({"content": []}).into())
                .apply(&mut r)
        );
        assert_eq!(r.status, TaskStatus::Completed);
        assert!(
            !TaskUpdate::at(1_002)
                .status(TaskStatus::Working)
                .apply(&mut r)
        );
        assert_eq!((r.status, r.updated_at_ms), (TaskStatus::Completed, 1_001));
        assert!(r.is_expired(1_010) && !r.is_expired(1_009));
    }

    #[test]
    fn detail_shows_what_the_status_has() {
        let mut r = TaskRecord::new("t".into(), None, 0, None, Some(500));
        let mut q = JsonObject::new();
        q.insert(
            "elicitation-1".into(),
            json!({"method": "elicitation/create"}),
        );
        TaskUpdate::at(5)
            .status(TaskStatus::InputRequired)
            .input_requests(q)
            .apply(&mut r);
        let d = serde_json::to_value(r.detail()).unwrap();
        assert_eq!(d["createdAt"], "1970-01-01T00:00:00.000Z");
        assert_eq!(d["lastUpdatedAt"], "1970-01-01T00:00:00.005Z");
        assert_eq!(d["ttlMs"], Value::Null);
        assert!(d["inputRequests"]["elicitation-1"].is_object());
        TaskUpdate::at(6)
            .failed(ErrorObject::internal("boom"))
            .apply(&mut r);
        let d = serde_json::to_value(r.detail()).unwrap();
        assert!(d.get("inputRequests").is_none() && d.get("result").is_none());
        assert_eq!(d["error"]["code"], -32603);
    }

    #[test]
    fn the_result_is_written_as_kept_and_weighed_by_its_text() {
        let mut r = TaskRecord::new("t".into(), None, 0, None, None);
        assert_eq!(r.payload_bytes(), 0);
        let text = r#"{"content": [], "structuredContent": [0,0,0]}"#;
        TaskUpdate::at(1)
            .completed(RawJson::from_slice(text.as_bytes()).unwrap())
            .apply(&mut r);
        assert_eq!(r.payload_bytes(), text.len());
        // Inside another flattened result, as `tasks/get` writes it.
        #[derive(Serialize)]
        struct Wrapped<'a> {
            kind: &'static str,
            #[serde(flatten)]
            task: TaskDetail<'a>,
        }
        let out = serde_json::to_string(&Wrapped {
            kind: "complete",
            task: r.detail(),
        })
        .unwrap();
        assert!(out.contains(&format!(r#""result":{text}"#)), "{out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["kind"], "complete");
        assert_eq!(v["status"], "completed");
        let mut failed = TaskRecord::new("u".into(), None, 0, None, None);
        TaskUpdate::at(1)
            .failed(ErrorObject::internal("boom"))
            .apply(&mut failed);
        let error = serde_json::to_string(&ErrorObject::internal("boom")).unwrap();
        assert_eq!(failed.payload_bytes(), error.len() + "boom".len());
    }
}
