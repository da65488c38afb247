//! The Tasks extension in dispatch: a `tools/call` that becomes a task (created before its
//! handler runs, or when the handler asks for it; counted against its caller's quota), the
//! handler run detached from the request that started it. (`tasks/get`, `tasks/update` and
//! `tasks/cancel` are the extension's own methods: `tasks/extension.rs`.)

use std::sync::{Arc, OnceLock};

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::carrier::Carrier;
use super::era::Era;
use super::kind::{Finishing, Kind as _};
use super::pipeline::run;
use super::reply::{Failure, Reply};
use super::resolve::Resolved;
use super::views::Retry;
use crate::peer::PeerId;
use crate::protocol::{ErrorObject, codes, keys};
use crate::registry::entry::ToolEntry;
use crate::render;
use crate::runtime::state::ServerInner;
use crate::tasks::live::{Finish, TaskSlot, Tasks};
use crate::tasks::{TaskStart, TaskStoreError, TaskSupport};

/// `-32021` naming the extension.
fn extension_required() -> ErrorObject {
    ErrorObject::missing_capability(serde_json::json!({
        "extensions": {keys::TASKS_EXTENSION: {}}
    }))
}

/// Whether the request declared the Tasks extension (only 2026-07-28 requests can: the
/// extension does not exist for the legacy revisions).
pub(super) fn declared(era: &Era) -> bool {
    era.version.is_modern()
        && era
            .caps
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(keys::TASKS_EXTENSION))
}

/// A `tools/call` of a tool that allows tasks. Arguments that do not pass are answered
/// before a task is made (inside layers, when there are some, as every call's are).
pub(super) async fn call_tool(server: &Arc<ServerInner>, call: Resolved<ToolEntry>) -> Reply {
    let tasks = server.tasks.clone().filter(|_| declared(&call.era));
    let Some(tasks) = tasks else {
        if call.item.task.support == TaskSupport::Required {
            return Reply::bad(extension_required());
        }
        return run(server, call, None).await;
    };
    let layered = server.middleware.is_some() || call.item.own_layers().is_some();
    if !layered && let Some(answer) = call.item.refuse(&call.arguments) {
        let finishing = Finishing {
            version: call.era.version,
            name: &call.name,
            cache: call.cache,
        };
        return match answer.map(ToolEntry::take) {
            Ok(Ok(result)) => call.item.finish(server, &finishing, Ok(result)),
            _ => Reply::error(ErrorObject::internal(
                "a tool's arguments were refused oddly",
            )),
        };
    }
    match call.item.task.start {
        TaskStart::Handler => handler_starts(server, tasks, call).await,
        _ => immediately(server, tasks, call).await,
    }
}

/// The reply when no task could be kept: the call runs inline if the tool allows that,
/// and is refused otherwise.
async fn without_task(
    server: &Arc<ServerInner>,
    call: Resolved<ToolEntry>,
    refused: Reply,
) -> Reply {
    if call.item.task.support == TaskSupport::Required {
        return refused;
    }
    run(server, call, None).await
}

/// Why no task could be kept, as the answer to a call that requires one: this caller's
/// quota (`429`: other callers are still served), else the server's (`503`).
fn refusal(tasks: &Tasks, why: &TaskStoreError) -> Reply {
    match why {
        TaskStoreError::HolderFull { max } => {
            tracing::debug!(error = %why, "no task could be created");
            let ttl = humantime::format_duration(tasks.config.ttl);
            let e = ErrorObject::new(
                codes::INTERNAL_ERROR,
                format!(
                    "This caller holds its maximum of {max} tasks (a task counts until its \
                     record expires, {ttl} after its creation, finished or not); retry when \
                     one has expired"
                ),
            )
            .with_data(serde_json::json!({"maxTasksPerOwner": max}));
            Reply::Error(e, Failure::Busy)
        }
        _ => {
            tracing::warn!(error = %why, "no task could be created");
            Reply::Error(
                ErrorObject::new(
                    codes::INTERNAL_ERROR,
                    format!("The server cannot take another task ({why}); retry later"),
                ),
                Failure::Unavailable,
            )
        }
    }
}

fn owner(carrier: &Carrier) -> Option<String> {
    crate::tasks::live::owner_of(carrier.principal())
}

/// Whose quota a task counts against: the principal's, else the client's (its address over
/// HTTP, as the transport keys clients: an IPv6 address by its network; its connection over
/// stdio, tagged with this process so that replicas sharing a store never mix theirs up);
/// no one's for a message handed to `handle_message`.
fn holder(carrier: &Carrier) -> Option<String> {
    if let Some(p) = carrier.principal() {
        return Some(format!("principal:{}", p.subject()));
    }
    match carrier.peer.as_ref()? {
        PeerId::Addr(ip) => Some(format!("addr:{ip}")),
        PeerId::Connection(n) => {
            static PROCESS: OnceLock<String> = OnceLock::new();
            let process = PROCESS.get_or_init(crate::unguessable::hex_id);
            Some(format!("connection:{process}:{n}"))
        }
    }
}

/// How a task's handler run ended, from the reply it would have sent.
fn finish_of(reply: Reply) -> Finish {
    match reply {
        Reply::Result(bytes) => Finish::Result(bytes),
        Reply::Error(e, _) => Finish::Error(e),
        Reply::Cancelled => Finish::Cancelled,
        Reply::Listen(_) => Finish::Error(ErrorObject::internal("a tool answered with a stream")),
    }
}

/// [`TaskStart::Immediately`]: the task is created, the handler starts on its own, and the
/// request is answered with the task.
async fn immediately(
    server: &Arc<ServerInner>,
    tasks: Arc<Tasks>,
    mut call: Resolved<ToolEntry>,
) -> Reply {
    let cancel = CancellationToken::new();
    let created = tasks
        .create(
            owner(&call.carrier).as_deref(),
            holder(&call.carrier),
            cancel.clone(),
        )
        .await;
    let (record, live) = match created {
        Ok(created) => created,
        Err(e) => {
            let refused = refusal(&tasks, &e);
            return without_task(server, call, refused).await;
        }
    };
    // From here on only `tasks/cancel` (or expiry) stops the handler, and nothing streams.
    call.carrier.cancel = cancel;
    call.carrier.sink = None;
    call.carrier.close_stream = None;
    call.retry = Retry::none();
    let slot = Arc::new(TaskSlot::bound(tasks.clone(), live.clone()));
    let runner = server.clone();
    tokio::spawn(async move {
        let reply = run(&runner, call, Some(slot)).await;
        tasks.finish(&live, finish_of(reply)).await;
    });
    Reply::Result(render::task_created(server, &record))
}

/// [`TaskStart::Handler`]: the handler runs as the request's, detached so that it can
/// outlive it; when it awaits `run_as_task` the task is created and the request answered
/// with it, and the handler goes on as the task. Until then a cancelled (or dropped)
/// request cancels the handler, and the handler's own answer is the request's.
async fn handler_starts(
    server: &Arc<ServerInner>,
    tasks: Arc<Tasks>,
    mut call: Resolved<ToolEntry>,
) -> Reply {
    let owner = owner(&call.carrier);
    let holder = holder(&call.carrier);
    let cancel = CancellationToken::new();
    let request_cancel = std::mem::replace(&mut call.carrier.cancel, cancel.clone());
    let orphaned = cancel.clone().drop_guard();
    let (promote, mut promotions) = mpsc::channel::<oneshot::Sender<bool>>(1);
    let slot = Arc::new(TaskSlot::promotable(tasks.clone(), promote));
    let (answer, mut answered) = oneshot::channel::<Reply>();
    let runner = server.clone();
    let runner_slot = slot.clone();
    let runner_tasks = tasks.clone();
    tokio::spawn(async move {
        let reply = run(&runner, call, Some(runner_slot.clone())).await;
        match runner_slot.live() {
            Some(live) => runner_tasks.finish(live, finish_of(reply)).await,
            None => {
                let _ = answer.send(reply);
            }
        }
    });
    loop {
        tokio::select! {
            biased;
            () = request_cancel.cancelled() => return Reply::Cancelled,
            reply = &mut answered => {
                return reply.unwrap_or_else(|_| {
                    Reply::error(ErrorObject::internal("the handler ended without an answer"))
                });
            }
            Some(ack) = promotions.recv() => {
                match tasks.create(owner.as_deref(), holder.clone(), cancel.clone()).await {
                    Ok((record, live)) => {
                        slot.bind(live);
                        orphaned.disarm();
                        let _ = ack.send(true);
                        return Reply::Result(render::task_created(server, &record));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "no task could be created; the call goes on inline");
                        let _ = ack.send(false);
                    }
                }
            }
        }
    }
}
