//! The one pipeline of a call (`tools/call`, `prompts/get`, `resources/read`), written once
//! over the item's [`Kind`]: the resolved call's context prepared, the call through the
//! middleware stacks to the item's innermost step (without layers, that step awaited in
//! place: an empty stack costs nothing), how it ended read, and its outcome rendered by the
//! kind ([`Kind::finish`]).

use std::future::Future;
use std::sync::Arc;

use futures_util::future::Either;

use super::kind::{Finishing, Kind, innermost};
use super::reply::Reply;
use super::resolve::Resolved;
use super::run::{Invocation, execute, prepare, read};
use crate::middleware::{self, Call};
use crate::runtime::state::ServerInner;
use crate::tasks::live::TaskSlot;

/// Runs a resolved call (inline, or as the body of the task `task`) and renders its
/// outcome.
///
/// Not an `async fn`: the context is prepared before the returned future exists, so that
/// the carrier and the era (consumed by then) take no room in it.
pub(super) fn run<K: Kind>(
    server: &Arc<ServerInner>,
    call: Resolved<K>,
    task: Option<Arc<TaskSlot>>,
) -> impl Future<Output = Reply> + Send + '_ {
    let Resolved {
        id,
        era,
        carrier,
        item,
        name,
        arguments,
        retry,
        sent,
        cache,
    } = call;
    let version = era.version;
    let layered = server.middleware.is_some() || item.own_layers().is_some();
    let invocation = Invocation {
        method: K::METHOD,
        name: name.clone(),
        retry,
        sent,
    };
    let prepared = prepare(server, id, era, carrier, invocation, task);
    async move {
        let prepared = match prepared {
            Ok(p) => p,
            Err(e) => return Reply::error(e),
        };
        let answer = if layered {
            let cx = prepared.cx.clone();
            let call = Call::new(K::METHOD, name.clone(), arguments, cx, item.clone());
            Either::Left(middleware::serve(server.middleware.as_ref(), call))
        } else {
            Either::Right(innermost(&*item, &prepared.cx, name.clone(), arguments))
        };
        let finishing = Finishing {
            version,
            name: &name,
            cache,
        };
        let answer = std::pin::pin!(answer);
        let answer = match execute(&prepared, answer).await {
            Ok(answer) => answer,
            Err(reply) => return reply,
        };
        match read(server, &prepared, answer, K::take) {
            Ok(outcome) => item.finish(server, &finishing, outcome),
            Err(reply) => reply,
        }
    }
}
