//! Running a checked `tools/call`: the handler (through the middleware stacks when there
//! are layers), its result checked against the output schema, rendered for the era. Called
//! for inline calls and, detached, for the body of a task.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::carrier::Carrier;
use super::era::Era;
use super::reply::Reply;
use super::run::{Invocation, as_handler, execute, prepare, read};
use crate::middleware::{self, Call, CallOutput, Method};
use crate::outcome::error_result;
use crate::protocol::{CallToolResult, ErrorObject, RequestId};
use crate::registry::entry::ToolEntry;
use crate::render;
use crate::runtime::config::OutputValidation;
use crate::runtime::state::ServerInner;
use crate::tasks::live::TaskSlot;
use crate::telemetry;

/// A checked `tools/call`, ready to run: what [`run_tool`] needs besides the entry.
pub(super) struct ToolRun {
    pub(super) name: String,
    pub(super) arguments: Value,
    pub(super) request_state: Option<String>,
    pub(super) input_responses: Option<Map<String, Value>>,
    /// Through middleware (the arguments are then checked inside the stack).
    pub(super) layered: bool,
}

/// Runs a tool's handler for a checked call (inline, or as the body of a task when `task`
/// is given) and renders its outcome.
///
/// Not an `async fn`: the context is prepared before the returned future exists, so that
/// the carrier and the era (consumed by then) take no room in it; the future owns the
/// entry, so that callers can return it as it is.
pub(super) fn run_tool(
    server: &Arc<ServerInner>,
    entry: Arc<ToolEntry>,
    id: RequestId,
    era: Era,
    carrier: Carrier,
    run: ToolRun,
    task: Option<Arc<TaskSlot>>,
) -> impl Future<Output = Reply> + Send + '_ {
    let version = era.version;
    let ToolRun {
        name,
        arguments,
        request_state,
        input_responses,
        layered,
    } = run;
    // The name the request gave is the entry's (it was looked up by it): the run owns it,
    // and a layered call's `Call` a copy.
    let call_name = layered.then(|| name.clone());
    let invocation = Invocation {
        method: Method::ToolsCall,
        name: Cow::Owned(name),
        arguments: &arguments,
        request_state,
        input_responses,
    };
    let prepared = prepare(server, id, era, carrier, invocation, layered, task);
    async move {
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => return Reply::error(e),
        };
        let done = |outcome: Result<CallToolResult, ErrorObject>| match outcome {
            Ok(result) => match honest(server, &entry, result) {
                Ok(result) => {
                    if result.is_error == Some(true) {
                        telemetry::tool_error();
                    }
                    Reply::Result(render::tool_result(server, version, &entry, result))
                }
                Err(e) => Reply::error(e),
            },
            Err(e) => Reply::error(e),
        };
        if let Some(name) = call_name {
            let call = Call::new(
                Method::ToolsCall,
                name,
                arguments,
                prepared.cx.clone(),
                entry.clone(),
            );
            let stack = middleware::serve(server.middleware.as_ref(), call);
            execute(server, &prepared, stack, |answer| {
                read(server, &prepared, answer, CallOutput::into_tool).map_or_else(|r| r, done)
            })
            .await
        } else {
            let fut = (entry.call)(arguments, prepared.cx.clone());
            let fut = as_handler(&prepared.cx, Method::ToolsCall, &entry.tool.name, fut);
            execute(server, &prepared, fut, done).await
        }
    }
}

/// A result whose `structuredContent` does not match the tool's output schema, as the
/// server's [`OutputValidation`] says: sent anyway, or logged and replaced by a tool error
/// or a protocol error.
fn honest(
    server: &ServerInner,
    entry: &ToolEntry,
    result: CallToolResult,
) -> Result<CallToolResult, ErrorObject> {
    let validation = server.config.output_validation;
    if validation == OutputValidation::Off {
        return Ok(result);
    }
    let Err(problems) = entry.check_output(&result) else {
        return Ok(result);
    };
    let name = &entry.tool.name;
    tracing::error!(tool = %name, %problems, "the tool's result does not match its outputSchema");
    let message =
        format!("the result of tool `{name}` does not match its outputSchema: {problems}");
    match validation {
        OutputValidation::InternalError => Err(ErrorObject::internal(message)),
        _ => Ok(error_result(message)),
    }
}
