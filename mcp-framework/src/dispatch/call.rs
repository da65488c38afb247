//! The methods that run a handler (`tools/call`, `prompts/get`, `resources/read`): each
//! resolved once ([`resolve`](super::resolve)), then run by the one
//! [`pipeline`](super::pipeline); a tool that may run as a task through
//! [`task`](super::task), which takes the same pipeline, detached.

use std::future::Future;
use std::sync::Arc;

use futures_util::future::Either;

use super::carrier::Carrier;
use super::era::Era;
use super::pipeline::run;
use super::reply::Reply;
use super::resolve::{self, ResolvedRead};
use super::task;
use crate::protocol::jsonrpc::Request;
use crate::runtime::state::ServerInner;
use crate::tasks::TaskSupport;

/// `tools/call`: resolved, then run inline, or as a task when the tool allows tasks.
///
/// Not an `async fn`: resolving keeps no state in the run's future, which is the only
/// future of an inline tool call ([`route`](super::route) awaits it directly), so it is
/// moved and copied as little as possible on the hot path.
pub(super) fn call_tool(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Result<impl Future<Output = Reply> + Send + '_, Reply> {
    let call = resolve::tool(server, request, era, carrier)?;
    Ok(if call.item.task.support == TaskSupport::Forbidden {
        Either::Right(run(server, call, None))
    } else {
        // Boxed: the task path's state stays out of every other call's future.
        Either::Left(Box::pin(task::call_tool(server, call)))
    })
}

/// `prompts/get`.
pub(super) async fn get_prompt(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Reply {
    match resolve::prompt(server, request, era, carrier) {
        Ok(call) => run(server, call, None).await,
        Err(reply) => reply,
    }
}

/// `resources/read`.
pub(super) async fn read_resource(
    server: &Arc<ServerInner>,
    request: Request,
    era: Era,
    carrier: Carrier,
) -> Reply {
    match resolve::read(server, request, era, carrier) {
        Ok(ResolvedRead::Fixed(call)) => run(server, call, None).await,
        Ok(ResolvedRead::Template(call)) => run(server, call, None).await,
        Err(reply) => reply,
    }
}
