//! The tasks of this server ([`Tasks`]): creating them in the store, finding them for
//! their owner, the ones this process runs ([`LiveTask`]: the cancellation token its
//! handler watches, the questions it waits on), expiry, and the `notifications/tasks`
//! events every change publishes. [`TaskSlot`] is a request's link to its task, through
//! which its `Context` asks, reports and finishes.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use bytes::Bytes;
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::TaskConfig;
use super::raw::RawJson;
use super::record::{TaskRecord, TaskUpdate, encoded_len, now_ms};
use super::store::{TaskStore, TaskStoreError};
use crate::bus::{ChangeEvent, EventBus, TaskEvent};
use crate::protocol::{ErrorObject, JsonObject, TaskStatus};

/// How often, at most, expired tasks are looked for (on the next task operation).
const SWEEP_EVERY_MS: u64 = 1_000;
/// How many expired tasks one sweep removes at most.
const SWEEP_LIMIT: usize = 1_000;

/// Whose tasks a caller may see and change: its principal's subject (no one's without
/// authentication). Dispatch records it when a task is made, the extension's methods
/// compare it.
pub(crate) fn owner_of(principal: Option<&crate::principal::Principal>) -> Option<String> {
    principal.map(|p| p.subject().to_owned())
}

/// The server's tasks: the store, and the tasks running in this process.
pub(crate) struct Tasks {
    pub(crate) store: Box<dyn TaskStore>,
    pub(crate) config: TaskConfig,
    bus: Arc<dyn EventBus>,
    running: Mutex<HashMap<Arc<str>, Arc<LiveTask>>>,
    next_sweep_ms: AtomicU64,
    /// Listen streams asking for `notifications/tasks`: without any (and a bus that
    /// reaches no other replica), no event is built for the changes this process makes to
    /// its own tasks (changes written for a task another replica runs are always
    /// published: its runner listens).
    watchers: AtomicUsize,
    /// The loop that renews the leases of the tasks running here and picks up what other
    /// replicas wrote for them: started with the first task.
    control: OnceLock<()>,
}

/// A listen stream's interest in task notifications, held while it lives.
#[derive(Debug)]
pub(crate) struct Watching(Arc<Tasks>);

impl Drop for Watching {
    fn drop(&mut self) {
        self.0.watchers.fetch_sub(1, Ordering::Relaxed);
    }
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("config", &self.config)
            .field("running", &self.running.lock().expect("running").len())
            .finish_non_exhaustive()
    }
}

/// A task this process runs.
pub(crate) struct LiveTask {
    pub(crate) id: Arc<str>,
    /// Cancelled by `tasks/cancel` and at expiry; the handler's context watches it.
    pub(crate) cancel: CancellationToken,
    questions: Mutex<Questions>,
    /// Serializes this task's writes to the store, so they land in the order made.
    writes: tokio::sync::Mutex<()>,
}

impl fmt::Debug for LiveTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveTask")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Questions {
    asked: usize,
    /// Every key used so far: a key is never reused within a task.
    keys: HashSet<String>,
    pending: BTreeMap<String, (Value, oneshot::Sender<Value>)>,
    message: Option<String>,
}

/// How a task's handler ended.
#[derive(Debug)]
pub(crate) enum Finish {
    /// The original request's result, encoded.
    Result(Bytes),
    /// The JSON-RPC error it failed with.
    Error(ErrorObject),
    /// It stopped on cancellation.
    Cancelled,
}

fn not_found() -> ErrorObject {
    ErrorObject::invalid_params("Failed to retrieve task: Task not found")
}

fn ms(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Tasks {
    pub(crate) fn new(
        store: Box<dyn TaskStore>,
        config: TaskConfig,
        bus: Arc<dyn EventBus>,
    ) -> Self {
        Self {
            store,
            config,
            bus,
            running: Mutex::new(HashMap::new()),
            next_sweep_ms: AtomicU64::new(0),
            watchers: AtomicUsize::new(0),
            control: OnceLock::new(),
        }
    }

    fn lease_until(&self, now: u64) -> u64 {
        now.saturating_add(ms(self.config.lease))
    }

    /// Starts the control loop (once, on the runtime of the first task).
    fn start_control(self: &Arc<Self>) {
        self.control.get_or_init(|| {
            let events = self.bus.subscribe();
            tokio::spawn(control_loop(Arc::downgrade(self), events));
        });
    }

    /// Renews the lease of every task running here, and takes what the store holds for
    /// them.
    async fn renew_all(&self) {
        let running: Vec<Arc<LiveTask>> = self
            .running
            .lock()
            .expect("running")
            .values()
            .cloned()
            .collect();
        let until = self.lease_until(now_ms());
        for live in running {
            let renewed = {
                let _w = live.writes.lock().await;
                self.store.update(&live.id, TaskUpdate::lease(until)).await
            };
            match renewed {
                Ok(Some(record)) => self.take_controls(&live, &record).await,
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(task = %live.id, error = %e, "could not renew a task's lease");
                }
            }
        }
    }

    /// Reads a task running here again, after another replica wrote for it.
    async fn refresh(&self, id: &str) {
        let Some(live) = self.running(id) else { return };
        if let Ok(Some(record)) = self.store.get(id).await {
            self.take_controls(&live, &record).await;
        }
    }

    /// What other replicas left in `record` for the task `live` runs here: cancellation,
    /// answers to its questions.
    async fn take_controls(&self, live: &Arc<LiveTask>, record: &TaskRecord) {
        if record.cancel_requested {
            live.cancel.cancel();
        }
        if record.answers.is_empty() {
            return;
        }
        let answered = deliver(live, record.answers.clone());
        let taken: Vec<String> = record.answers.keys().cloned().collect();
        {
            let _w = live.writes.lock().await;
            let update = TaskUpdate::at(now_ms()).answers_taken(taken);
            if let Err(e) = self.store.update(&live.id, update).await {
                tracing::warn!(task = %live.id, error = %e, "could not take a task's answers");
            }
        }
        if answered {
            self.write_questions(live).await;
        }
    }

    /// Counts a listen stream that wants `notifications/tasks` while the guard lives.
    pub(crate) fn watch(self: &Arc<Self>) -> Watching {
        self.watchers.fetch_add(1, Ordering::Relaxed);
        Watching(self.clone())
    }

    /// Creates a `working` task owned by `owner`, counted against `holder`'s quota
    /// ([`TaskConfig::max_tasks_per_owner`]), and registers it as running here. Once this
    /// returns, `tasks/get` finds it.
    /// `cancel` is the token the task's handler watches.
    pub(crate) async fn create(
        self: &Arc<Self>,
        owner: Option<&str>,
        holder: Option<String>,
        cancel: CancellationToken,
    ) -> Result<(TaskRecord, Arc<LiveTask>), TaskStoreError> {
        self.sweep().await;
        self.start_control();
        let now = now_ms();
        let mut record = TaskRecord::new(
            crate::unguessable::hex_id(),
            owner.map(str::to_owned),
            now,
            Some(ms(self.config.ttl)),
            Some(ms(self.config.poll_interval)),
        )
        .held_by(holder);
        record.lease_until_ms = Some(self.lease_until(now));
        self.store
            .create(record.clone(), self.config.max_tasks_per_owner)
            .await?;
        let live = Arc::new(LiveTask {
            id: Arc::from(record.id.as_str()),
            cancel,
            questions: Mutex::new(Questions::default()),
            writes: tokio::sync::Mutex::new(()),
        });
        self.running
            .lock()
            .expect("running")
            .insert(live.id.clone(), live.clone());
        self.publish(&record);
        Ok((record, live))
    }

    /// Removes expired tasks (at most once a second), cancelling the ones still running.
    async fn sweep(&self) {
        let now = now_ms();
        let next = self.next_sweep_ms.load(Ordering::Relaxed);
        if now < next
            || self
                .next_sweep_ms
                .compare_exchange(
                    next,
                    now + SWEEP_EVERY_MS,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let Ok(expired) = self.store.expired(now, SWEEP_LIMIT).await else {
            return;
        };
        for id in expired {
            self.forget(&id).await;
        }
    }

    /// Drops a task: its runner is cancelled and its record removed.
    async fn forget(&self, id: &str) {
        if let Some(live) = self.running.lock().expect("running").remove(id) {
            live.cancel.cancel();
        }
        if let Err(e) = self.store.remove(id).await {
            tracing::warn!(task = id, error = %e, "could not remove an expired task");
        }
    }

    /// The task `id`, if `owner` owns it and it has not expired (`-32602` otherwise: a
    /// task of someone else is not found, like one that never existed).
    pub(crate) async fn find(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<TaskRecord, ErrorObject> {
        self.sweep().await;
        let record = self
            .store
            .get(id)
            .await
            .map_err(|e| ErrorObject::internal(format!("Failed to retrieve task: {e}")))?
            .ok_or_else(not_found)?;
        if record.owner.as_deref() != owner {
            return Err(not_found());
        }
        let now = now_ms();
        if record.is_expired(now) {
            self.forget(id).await;
            return Err(ErrorObject::invalid_params(
                "Failed to retrieve task: Task has expired",
            ));
        }
        if record.runner_is_gone(now) && self.running(id).is_none() {
            // Its runner stopped without finishing it: it fails, it does not hang.
            let update = TaskUpdate::at(now).failed(ErrorObject::internal(
                "The server instance running this task stopped before it finished \
                 (its lease ran out)",
            ));
            return Ok(self.write_control(id, update).await.unwrap_or(record));
        }
        Ok(record)
    }

    fn running(&self, id: &str) -> Option<Arc<LiveTask>> {
        self.running.lock().expect("running").get(id).cloned()
    }

    /// `tasks/update`: hands the answers to the questions they answer; answers to keys not
    /// waiting (never asked, answered already) are ignored.
    pub(crate) async fn answer(
        &self,
        id: &str,
        owner: Option<&str>,
        responses: JsonObject,
    ) -> Result<(), ErrorObject> {
        let record = self.find(id, owner).await?;
        if record.status.is_terminal() {
            return Ok(());
        }
        let Some(live) = self.running(id) else {
            // Another replica runs it: the answers wait in the store for its runner.
            if !responses.is_empty() {
                self.write_control(id, TaskUpdate::at(now_ms()).answers(responses))
                    .await;
            }
            return Ok(());
        };
        if deliver(&live, responses) {
            self.write_questions(&live).await;
        }
        Ok(())
    }

    /// `tasks/cancel`: asks the task to stop. A task running here has its handler
    /// cancelled (it ends `cancelled`, or with what it finished first); a task no process
    /// runs any more is marked `cancelled` at once; a final task is left as it is.
    pub(crate) async fn cancel(&self, id: &str, owner: Option<&str>) -> Result<(), ErrorObject> {
        let record = self.find(id, owner).await?;
        if record.status.is_terminal() {
            return Ok(());
        }
        let update = TaskUpdate::at(now_ms()).cancel_requested();
        if let Some(live) = self.running(id) {
            let _w = live.writes.lock().await;
            self.write(id, update).await;
            live.cancel.cancel();
        } else if record.lease_until_ms.is_some_and(|until| until >= now_ms()) {
            // Another replica runs it: its runner picks the request up and stops it.
            self.write_control(id, update).await;
        } else {
            self.write(id, update.status(TaskStatus::Cancelled)).await;
        }
        Ok(())
    }

    /// A question of the handler of `live`: waits as one of its `inputRequests` until
    /// `tasks/update` answers it. `kind` names positional keys (`elicitation-1`).
    pub(crate) async fn ask(
        &self,
        live: &Arc<LiveTask>,
        key: Option<String>,
        kind: &str,
        request: Value,
    ) -> Result<Value, ErrorObject> {
        let rx = {
            let mut q = live.questions.lock().expect("questions");
            q.asked += 1;
            let key = key.unwrap_or_else(|| format!("{kind}-{}", q.asked));
            if !q.keys.insert(key.clone()) {
                return Err(ErrorObject::internal(format!(
                    "two questions of this task use the input key {key:?}"
                )));
            }
            if q.pending.len() >= self.config.max_pending_questions {
                return Err(ErrorObject::internal(format!(
                    "a task waits for at most {} answers at once",
                    self.config.max_pending_questions
                )));
            }
            let (tx, rx) = oneshot::channel();
            q.pending.insert(key, (request, tx));
            rx
        };
        self.write_questions(live).await;
        rx.await
            .map_err(|_| ErrorObject::internal("the task stopped waiting for an answer"))
    }

    /// Sets the status message of a running task.
    pub(crate) async fn report(&self, live: &Arc<LiveTask>, message: Option<String>) {
        live.questions.lock().expect("questions").message = message;
        self.write_questions(live).await;
    }

    /// Writes a running task's status from its questions: `input_required` while any wait.
    /// A task the store failed instead (its questions past the store's budget) is
    /// cancelled: nothing will answer it.
    async fn write_questions(&self, live: &Arc<LiveTask>) {
        let _w = live.writes.lock().await;
        let (status, requests, message) = {
            let q = live.questions.lock().expect("questions");
            let requests: JsonObject = q
                .pending
                .iter()
                .map(|(k, (request, _))| (k.clone(), request.clone()))
                .collect();
            let status = if requests.is_empty() {
                TaskStatus::Working
            } else {
                TaskStatus::InputRequired
            };
            (status, requests, q.message.clone())
        };
        let update = TaskUpdate::at(now_ms())
            .status(status)
            .input_requests(requests)
            .status_message(message);
        if self
            .write(&live.id, update)
            .await
            .is_some_and(|r| r.status.is_terminal())
        {
            live.cancel.cancel();
        }
    }

    /// Records how the handler of `live` ended; the task is then no longer running here.
    pub(crate) async fn finish(&self, live: &Arc<LiveTask>, finish: Finish) {
        let now = now_ms();
        let update = match finish {
            Finish::Result(bytes) if bytes.len() > self.config.max_result_bytes => {
                TaskUpdate::at(now).failed(ErrorObject::internal(format!(
                    "the task's result is {} bytes, more than the {} a task may keep",
                    bytes.len(),
                    self.config.max_result_bytes
                )))
            }
            // Kept as its text: parsed, `[0,0,…]` would take a `Value` per two bytes.
            Finish::Result(bytes) => match RawJson::from_slice(&bytes) {
                Ok(result) => TaskUpdate::at(now).completed(result),
                Err(e) => TaskUpdate::at(now).failed(ErrorObject::internal(format!(
                    "unreadable task result: {e}"
                ))),
            },
            Finish::Error(error) => {
                let bytes = encoded_len(&error);
                if bytes > self.config.max_result_bytes {
                    TaskUpdate::at(now).failed(ErrorObject::internal(format!(
                        "the task failed with an error of {bytes} bytes (code {}), more than \
                         the {} a task may keep",
                        error.code, self.config.max_result_bytes
                    )))
                } else {
                    TaskUpdate::at(now).failed(error)
                }
            }
            Finish::Cancelled => TaskUpdate::at(now)
                .status(TaskStatus::Cancelled)
                .status_message(Some("Cancelled by the client".into())),
        };
        {
            let _w = live.writes.lock().await;
            self.write(&live.id, update).await;
        }
        self.running.lock().expect("running").remove(&live.id);
        // Questions still waiting have no one to answer them.
        live.questions.lock().expect("questions").pending.clear();
    }

    /// Writes a change of a task running here; the record after it, if it is still kept.
    async fn write(&self, id: &str, update: TaskUpdate) -> Option<TaskRecord> {
        match self.store.update(id, update).await {
            Ok(Some(record)) => {
                self.publish(&record);
                Some(record)
            }
            Ok(None) => None, // expired and removed meanwhile
            Err(e) => {
                tracing::error!(task = id, error = %e, "could not record a task's state");
                None
            }
        }
    }

    /// Writes a change for a task another replica may run, and announces it whoever
    /// listens here: its runner learns of it through the bus (or at its next renewal).
    async fn write_control(&self, id: &str, update: TaskUpdate) -> Option<TaskRecord> {
        match self.store.update(id, update).await {
            Ok(Some(record)) => {
                self.announce(&record);
                Some(record)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::error!(task = id, error = %e, "could not record a task's state");
                None
            }
        }
    }

    fn publish(&self, record: &TaskRecord) {
        if self.watchers.load(Ordering::Relaxed) == 0 && !self.bus.is_distributed() {
            return;
        }
        self.announce(record);
    }

    /// `notifications/tasks` for `record`, on the bus.
    fn announce(&self, record: &TaskRecord) {
        let Ok(detail) = serde_json::to_string(&record.detail()) else {
            return;
        };
        self.bus
            .publish(ChangeEvent::TaskChanged(Arc::new(TaskEvent {
                id: Arc::from(record.id.as_str()),
                owner: record.owner.as_deref().map(Arc::from),
                detail: Arc::from(detail),
            })));
    }
}

/// Hands `responses` to the questions of `live` they answer (answers to keys not waiting
/// are ignored); whether any was.
fn deliver(live: &LiveTask, responses: JsonObject) -> bool {
    let mut q = live.questions.lock().expect("questions");
    let mut answered = false;
    for (key, value) in responses {
        if let Some((_, tx)) = q.pending.remove(&key) {
            // The handler may have stopped waiting (cancelled): nothing to do.
            let _ = tx.send(value);
            answered = true;
        }
    }
    answered
}

/// Renews the leases of the tasks running here every third of the lease, and reads a
/// task again as soon as the bus says it changed (another replica wrote for it). Ends
/// with the server's tasks.
async fn control_loop(tasks: Weak<Tasks>, mut events: broadcast::Receiver<ChangeEvent>) {
    let Some(lease) = tasks.upgrade().map(|t| t.config.lease) else {
        return;
    };
    let mut tick = tokio::time::interval(lease / 3);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let event = tokio::select! {
            _ = tick.tick() => None,
            e = events.recv() => Some(e),
        };
        let Some(tasks) = tasks.upgrade() else { return };
        match event {
            None | Some(Err(broadcast::error::RecvError::Lagged(_))) => tasks.renew_all().await,
            Some(Ok(ChangeEvent::TaskChanged(task))) => tasks.refresh(&task.id).await,
            Some(Ok(_)) => {}
            Some(Err(broadcast::error::RecvError::Closed)) => return,
        }
    }
}

/// A request's link to its task: the task once there is one, and, for a handler that
/// decides when its task starts ([`TaskStart::Handler`](super::TaskStart::Handler)), the
/// way to ask the request to answer with it.
pub(crate) struct TaskSlot {
    pub(crate) tasks: Arc<Tasks>,
    live: OnceLock<Arc<LiveTask>>,
    promote: Option<mpsc::Sender<oneshot::Sender<bool>>>,
}

impl fmt::Debug for TaskSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskSlot")
            .field("task", &self.live.get().map(|l| &l.id))
            .finish_non_exhaustive()
    }
}

impl TaskSlot {
    /// The slot of a call that is a task from the start.
    pub(crate) fn bound(tasks: Arc<Tasks>, live: Arc<LiveTask>) -> Self {
        Self {
            tasks,
            live: OnceLock::from(live),
            promote: None,
        }
    }

    /// The slot of a call whose handler starts the task; the request receives its
    /// requests to on `promote`'s other end.
    pub(crate) fn promotable(
        tasks: Arc<Tasks>,
        promote: mpsc::Sender<oneshot::Sender<bool>>,
    ) -> Self {
        Self {
            tasks,
            live: OnceLock::new(),
            promote: Some(promote),
        }
    }

    /// The task, once the call is one.
    pub(crate) fn live(&self) -> Option<&Arc<LiveTask>> {
        self.live.get()
    }

    /// Binds the task the request created for the handler.
    pub(crate) fn bind(&self, live: Arc<LiveTask>) {
        let _ = self.live.set(live);
    }

    /// Asks the request to answer with a task now; whether the call is a task after.
    pub(crate) async fn promote(&self) -> bool {
        if self.live.get().is_some() {
            return true;
        }
        let Some(promote) = &self.promote else {
            return false;
        };
        let (ack, acked) = oneshot::channel();
        if promote.send(ack).await.is_err() {
            return false;
        }
        acked.await.unwrap_or(false)
    }
}
