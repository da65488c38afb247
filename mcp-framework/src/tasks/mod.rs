//! The Tasks extension (`io.modelcontextprotocol/tasks`): a tool call that outlives its
//! request. Owns what a task is ([`TaskRecord`], [`record`]; its result kept as JSON text,
//! [`RawJson`]), where tasks are kept ([`TaskStore`] and the bounded [`MemoryTaskStore`],
//! [`store`]: in all, per caller, in bytes; [`contract`] checks any store), and the tasks
//! this process runs (`live`: their cancellation, the questions
//! they wait on, their expiry and the status notifications they publish).
//!
//! Dispatch decides, per call, whether a tool runs inline or as a task (the tool's
//! [`TaskSupport`], when its task starts ([`TaskStart`]), and whether the client declared
//! the extension); `tasks/get`, `tasks/update` and `tasks/cancel` are the extension's
//! methods on the public extension API (`extension`), answered from here.
//!
//! Imports: the leaves below it (`events`, `future`) and `protocol`.

pub mod contract;
pub(crate) mod extension;
pub(crate) mod live;
mod raw;
pub mod record;
pub mod store;

use std::time::Duration;

pub use raw::RawJson;
pub use record::{TaskDetail, TaskRecord, TaskUpdate};
pub use store::{MemoryTaskStore, StoreFuture, TaskStore, TaskStoreError};

/// Whether a tool may run as a task (`#[tool(task)]`, [`ToolDefinition::task`]).
///
/// [`ToolDefinition::task`]: crate::ToolDefinition::task
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never: every call runs inline (the default).
    #[default]
    Forbidden,
    /// When the request declares the extension, the call becomes a task; otherwise it runs
    /// inline like any other tool (`#[tool(task)]`).
    Optional,
    /// Only as a task: a request that does not declare the extension is refused with
    /// `-32021` (`#[tool(task = "required")]`).
    Required,
}

/// When a call that may become a task does (`#[tool(task_start = …)]`,
/// [`ToolDefinition::task_start`]).
///
/// [`ToolDefinition::task_start`]: crate::ToolDefinition::task_start
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskStart {
    /// Before the handler runs: the request is answered with the task at once (the
    /// default). Questions the handler asks become the task's `inputRequests`.
    #[default]
    Immediately,
    /// When the handler awaits [`Context::run_as_task`]: until then the call is an
    /// ordinary request (its questions are multi round-trip rounds, answered by retrying
    /// the call), then the request is answered with the task and the handler goes on
    /// (`#[tool(task_start = "handler")]`). A handler that returns first answers inline.
    ///
    /// [`Context::run_as_task`]: crate::Context::run_as_task
    Handler,
}

/// How tasks are kept: the store's bounds and the timings sent to clients
/// ([`ServerBuilder::tasks`](crate::ServerBuilder::tasks)).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct TaskConfig {
    /// How long after its creation a task is kept (`ttlMs`); a task still running then is
    /// cancelled, and the record removed. Default: one hour.
    pub ttl: Duration,
    /// The polling interval suggested to clients (`pollIntervalMs`). Default: 500 ms.
    pub poll_interval: Duration,
    /// At most this many tasks are kept at once, running or finished (the default store's
    /// bound). A call that would need another one runs inline when its tool allows that,
    /// and is refused (`503` over HTTP) when the tool requires a task. Default: 10,000.
    pub max_tasks: usize,
    /// At most this many of them are one caller's: the principal's (its subject), or
    /// without authorization the client's (its address over HTTP, an IPv6 address's /64;
    /// its connection over stdio). A task counts from its creation until its record is
    /// removed, a [`ttl`](Self::ttl) later, finished or not. A call past it runs inline
    /// when its tool allows that, and is refused (`-32603`, `429` over HTTP) when the tool
    /// requires a task. With a shared store the count is the store's, across replicas.
    /// Default: 100 (1% of `max_tasks`' default: a hundred callers at their quota fill
    /// the store, one cannot).
    pub max_tasks_per_owner: usize,
    /// A result larger than this (encoded JSON) fails its task instead of being kept.
    /// Default: 1 MiB.
    pub max_result_bytes: usize,
    /// The default store keeps at most this many bytes of results, errors and questions
    /// in all (kept as JSON text, counted as such): a result that does not fit fails its
    /// task instead of being kept. Default: 256 MiB (a caller at its quota, with results
    /// of `max_result_bytes`, holds at most 100 MiB of it). A store you give the builder
    /// has its own bounds ([`MemoryTaskStore::max_bytes`]).
    pub max_total_bytes: usize,
    /// At most this many questions of one task wait for answers at once. Default: 16.
    pub max_pending_questions: usize,
    /// How long a replica holds the tasks it runs without renewing: it renews every third
    /// of it, and picks up what other replicas wrote for them (answers, cancellation) each
    /// time. When it stops (crashes, is killed), its tasks fail once the lease has run out.
    /// Default: 10 s.
    pub lease: Duration,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            max_tasks: 10_000,
            max_tasks_per_owner: 100,
            max_result_bytes: 1 << 20,
            max_total_bytes: store::DEFAULT_MAX_BYTES,
            max_pending_questions: 16,
            lease: Duration::from_secs(10),
        }
    }
}

impl TaskConfig {
    /// Sets [`ttl`](Self::ttl).
    #[must_use]
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Sets [`poll_interval`](Self::poll_interval).
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets [`max_tasks`](Self::max_tasks).
    #[must_use]
    pub fn max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max;
        self
    }

    /// Sets [`max_tasks_per_owner`](Self::max_tasks_per_owner).
    #[must_use]
    pub fn max_tasks_per_owner(mut self, max: usize) -> Self {
        self.max_tasks_per_owner = max;
        self
    }

    /// Sets [`max_result_bytes`](Self::max_result_bytes).
    #[must_use]
    pub fn max_result_bytes(mut self, max: usize) -> Self {
        self.max_result_bytes = max;
        self
    }

    /// Sets [`max_total_bytes`](Self::max_total_bytes).
    #[must_use]
    pub fn max_total_bytes(mut self, max: usize) -> Self {
        self.max_total_bytes = max;
        self
    }

    /// Sets [`lease`](Self::lease) (at least 300 ms).
    #[must_use]
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// Sets [`max_pending_questions`](Self::max_pending_questions).
    #[must_use]
    pub fn max_pending_questions(mut self, max: usize) -> Self {
        self.max_pending_questions = max;
        self
    }
}
