//! The Tasks extension's methods as an [`Extension`]: `tasks/get`, `tasks/update` and
//! `tasks/cancel`, answered for the task's owner from the server's tasks through the same
//! public API a third party's extension uses (declared for 2026-07-28 clients only, and
//! answered only to requests that declare it: `-32021` otherwise). `build()` registers it
//! when the server keeps tasks.
//!
//! A `tools/call` that becomes a task is not a method of its own: it stays the core
//! method's, which dispatch runs as a task when the tool allows one and the request
//! declares this extension (`dispatch/task.rs`).

use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::TaskRecord;
use super::live::{Tasks, owner_of};
use crate::context::Context;
use crate::extension::{Extension, Setup};
use crate::protocol::{TaskIdParams, UpdateTaskParams, keys};

/// The extension: the tasks it answers about.
pub(crate) struct TasksExtension {
    pub(crate) tasks: Arc<Tasks>,
}

/// Whose tasks a request may see (see [`owner_of`]).
fn owner(cx: &Context) -> Option<String> {
    owner_of(cx.principal())
}

/// `tasks/get`'s result: the task's fields and what its status has (its questions, its
/// result or its error).
struct Detail(TaskRecord);

impl Serialize for Detail {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.detail().serialize(serializer)
    }
}

/// The empty acknowledgement of `tasks/update` and `tasks/cancel`.
#[derive(Serialize)]
struct Acknowledged {}

impl Extension for TasksExtension {
    fn id(&self) -> &str {
        keys::TASKS_EXTENSION
    }

    fn modern_only(&self) -> bool {
        true
    }

    fn client_must_declare(&self) -> bool {
        true
    }

    fn setup(&self, setup: &mut Setup) {
        let tasks = self.tasks.clone();
        setup.request("tasks/get", move |p: TaskIdParams, cx: Context| {
            let tasks = tasks.clone();
            async move {
                let owner = owner(&cx);
                tasks.find(&p.task_id, owner.as_deref()).await.map(Detail)
            }
        });
        let tasks = self.tasks.clone();
        setup.request("tasks/update", move |p: UpdateTaskParams, cx: Context| {
            let tasks = tasks.clone();
            async move {
                let owner = owner(&cx);
                tasks
                    .answer(&p.task_id, owner.as_deref(), p.input_responses)
                    .await
                    .map(|()| Acknowledged {})
            }
        });
        let tasks = self.tasks.clone();
        setup.request("tasks/cancel", move |p: TaskIdParams, cx: Context| {
            let tasks = tasks.clone();
            async move {
                let owner = owner(&cx);
                tasks
                    .cancel(&p.task_id, owner.as_deref())
                    .await
                    .map(|()| Acknowledged {})
            }
        });
    }
}
