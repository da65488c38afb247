//! What differs between the kinds of item a call reaches (tools, prompts, concrete
//! resources, resource templates), as one trait, [`Kind`]: the method, the check of the
//! arguments, the handler, and how its outcome becomes the reply. The call pipeline
//! ([`call`](super::call)) is written once over it.
//!
//! The innermost step of every call, [`innermost`], is here too: the arguments checked,
//! then the handler in its span, with its panics caught and its questions (MRTR) turned
//! into [`CallOutput::InputRequired`]. A middleware stack reaches it boxed, as the
//! [`Item`] every entry is; a call without layers awaits it as it is.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt as _;
use serde_json::{Map, Value};

use super::reply::Reply;
use super::run::{as_handler, handler_panicked, panic_message};
use crate::cache::CachePolicy;
use crate::context::Context;
use crate::future::BoxFuture;
use crate::middleware::{BoxError, CallOutput, CallService, InputRequired, Item, Method};
use crate::outcome::error_result;
use crate::protocol::{
    CallToolResult, ErrorObject, GetPromptResult, ProtocolVersion, ResourceContents, codes,
};
use crate::registry::entry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};
use crate::registry::handler::ResourceRequest;
use crate::render;
use crate::runtime::config::OutputValidation;
use crate::runtime::state::ServerInner;
use crate::telemetry;

/// What a call's outcome is rendered with, besides the item: the request's revision, the
/// name called (a resource's URI) and a read's caching hints.
pub(super) struct Finishing<'a> {
    pub(super) version: ProtocolVersion,
    pub(super) name: &'a str,
    pub(super) cache: CachePolicy,
}

/// A kind of item a call reaches.
pub(super) trait Kind: Send + Sync + 'static {
    /// The method that calls it.
    const METHOD: Method;
    /// What its handler answers with.
    type Output: Send + 'static;

    /// Its own middleware stack.
    fn own_layers(&self) -> Option<&CallService>;

    /// The call's answer when `arguments` do not pass the item's schema (checked inside
    /// the layers, so that a layer sees every call).
    fn refuse(&self, arguments: &Value) -> Option<Result<CallOutput, BoxError>>;

    /// The handler's run for the call of `name` with `arguments`.
    fn handler(
        &self,
        cx: Context,
        name: &str,
        arguments: Value,
    ) -> BoxFuture<Result<Self::Output, ErrorObject>>;

    /// Its output among a stack's.
    fn output(output: Self::Output) -> CallOutput;

    /// Its output taken out of a stack's, or what else the stack answered.
    fn take(output: CallOutput) -> Result<Self::Output, &'static str>;

    /// The reply for the handler's outcome.
    fn finish(
        &self,
        server: &ServerInner,
        call: &Finishing<'_>,
        outcome: Result<Self::Output, ErrorObject>,
    ) -> Reply;
}

/// The innermost step of a call: the arguments checked, then the handler (see the module
/// documentation). Not boxed: a call without layers awaits it in place.
pub(super) fn innermost<'a, K: Kind>(
    item: &K,
    cx: &'a Context,
    name: Arc<str>,
    arguments: Value,
) -> impl Future<Output = Result<CallOutput, BoxError>> + Send + use<'a, K> {
    let handler = match item.refuse(&arguments) {
        Some(answer) => Err(answer),
        None => Ok(item.handler(cx.clone(), &name, arguments)),
    };
    async move {
        let fut = match handler {
            Ok(fut) => fut,
            Err(answer) => return answer,
        };
        let fut = as_handler(cx, K::METHOD, &name, AssertUnwindSafe(fut).catch_unwind());
        let out = tokio::select! {
            biased;
            out = fut => match out {
                Ok(Ok(v)) => Ok(K::output(v)),
                Ok(Err(e)) => Err(e.into()),
                Err(payload) => Err(handler_panicked(
                    K::METHOD.kind(),
                    &name,
                    &panic_message(&*payload),
                )
                .into()),
            },
            () = cx.wait_suspended() => match cx.inner.fatal.lock().expect("fatal").take() {
                Some(e) => Err(e.into()),
                None => Ok(CallOutput::InputRequired(InputRequired::new())),
            },
        };
        out
    }
}

/// Every kind is an [`Item`] of the catalog: the innermost step, boxed for a stack, whose
/// layers may drop it before it ends.
impl<K: Kind> Item for K {
    fn layers(&self) -> Option<&CallService> {
        self.own_layers()
    }

    fn run(
        self: Arc<Self>,
        cx: Context,
        name: Arc<str>,
        arguments: Value,
    ) -> BoxFuture<Result<CallOutput, BoxError>> {
        // The step is made inside the box: it borrows the context the box owns, as does
        // the guard that cancels that context when a layer drops the step.
        Box::pin(async move {
            // A layer that drops the handler before it ends (a timeout) cancels its context.
            let dropped = CancelOnDrop(Some(&cx));
            let out = innermost(&*self, &cx, name, arguments).await;
            dropped.disarm();
            out
        })
    }
}

/// Cancels a handler's context when dropped holding it: the handler was dropped before
/// it ended, by a layer (a timeout), which the context records first so that the
/// cancellation is not taken for the client's.
struct CancelOnDrop<'a>(Option<&'a Context>);

impl CancelOnDrop<'_> {
    /// The handler ended.
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(cx) = self.0.take() {
            cx.inner
                .dropped
                .store(true, std::sync::atomic::Ordering::Release);
            cx.inner.cancel.cancel();
        }
    }
}

impl Kind for ToolEntry {
    const METHOD: Method = Method::ToolsCall;
    type Output = CallToolResult;

    fn own_layers(&self) -> Option<&CallService> {
        self.layers.as_ref()
    }

    /// Arguments that do not pass are a tool execution error (the model can correct them).
    fn refuse(&self, arguments: &Value) -> Option<Result<CallOutput, BoxError>> {
        let problems = self.validator.check(arguments).err()?;
        let message = format!(
            "Invalid arguments for tool `{}`: {problems}",
            self.tool.name
        );
        Some(Ok(CallOutput::Tool(error_result(message))))
    }

    fn handler(
        &self,
        cx: Context,
        _: &str,
        arguments: Value,
    ) -> BoxFuture<Result<CallToolResult, ErrorObject>> {
        (self.call)(arguments, cx)
    }

    fn output(output: CallToolResult) -> CallOutput {
        CallOutput::Tool(output)
    }

    fn take(output: CallOutput) -> Result<CallToolResult, &'static str> {
        output.into_tool()
    }

    fn finish(
        &self,
        server: &ServerInner,
        call: &Finishing<'_>,
        outcome: Result<CallToolResult, ErrorObject>,
    ) -> Reply {
        match outcome.and_then(|result| honest(server, self, result)) {
            Ok(result) => {
                if result.is_error == Some(true) {
                    telemetry::tool_error();
                }
                Reply::Result(render::tool_result(server, call.version, self, result))
            }
            Err(e) => Reply::error(e),
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

impl Kind for PromptEntry {
    const METHOD: Method = Method::PromptsGet;
    type Output = GetPromptResult;

    fn own_layers(&self) -> Option<&CallService> {
        self.layers.as_ref()
    }

    /// Arguments (coerced from the strings clients send) that do not pass are `-32602`.
    fn refuse(&self, arguments: &Value) -> Option<Result<CallOutput, BoxError>> {
        let problems = self.validator.check(arguments).err()?;
        Some(Err(ErrorObject::invalid_params(format!(
            "Invalid arguments for prompt `{}`: {problems}",
            self.prompt.name
        ))
        .into()))
    }

    fn handler(
        &self,
        cx: Context,
        _: &str,
        arguments: Value,
    ) -> BoxFuture<Result<GetPromptResult, ErrorObject>> {
        (self.get)(arguments, cx)
    }

    fn output(output: GetPromptResult) -> CallOutput {
        CallOutput::Prompt(output)
    }

    fn take(output: CallOutput) -> Result<GetPromptResult, &'static str> {
        output.into_prompt()
    }

    fn finish(
        &self,
        server: &ServerInner,
        call: &Finishing<'_>,
        outcome: Result<GetPromptResult, ErrorObject>,
    ) -> Reply {
        match outcome {
            Ok(mut result) => {
                if result.description.is_none() {
                    result.description.clone_from(&self.prompt.description);
                }
                Reply::Result(render::prompt_result(server, call.version, result))
            }
            Err(e) => Reply::error(e),
        }
    }
}

/// What a resource handler is given: the URI read, the item's MIME type and, for a
/// template, the variables it matched (the call's arguments object).
fn resource_request(uri: &str, mime_type: Option<&str>, arguments: Value) -> ResourceRequest {
    let variables = match arguments {
        Value::Object(variables) => variables,
        _ => Map::new(),
    };
    ResourceRequest {
        uri: uri.to_owned(),
        mime_type: mime_type.map(Arc::from),
        variables,
    }
}

/// A read's reply: the contents with their caching hints, or the error; a handler's
/// "resource not found" answers with the code of the request's era.
fn read_reply(
    server: &ServerInner,
    call: &Finishing<'_>,
    outcome: Result<Vec<ResourceContents>, ErrorObject>,
) -> Reply {
    match outcome {
        Ok(contents) => Reply::Result(render::read_result(
            server,
            call.version,
            contents,
            call.cache,
        )),
        Err(e)
            if e.code == codes::INVALID_PARAMS
                && e.data.as_ref().is_some_and(|d| d.get("uri").is_some()) =>
        {
            Reply::error(ErrorObject::resource_not_found_in(call.version, call.name))
        }
        Err(e) => Reply::error(e),
    }
}

/// The two kinds of resource differ only in where their MIME type is.
macro_rules! resource_kind {
    ($entry:ty, $mime:expr) => {
        impl Kind for $entry {
            const METHOD: Method = Method::ResourcesRead;
            type Output = Vec<ResourceContents>;

            fn own_layers(&self) -> Option<&CallService> {
                self.layers.as_ref()
            }

            /// A template's variables were checked when its URI matched.
            fn refuse(&self, _: &Value) -> Option<Result<CallOutput, BoxError>> {
                None
            }

            fn handler(
                &self,
                cx: Context,
                uri: &str,
                arguments: Value,
            ) -> BoxFuture<Result<Vec<ResourceContents>, ErrorObject>> {
                let mime: fn(&Self) -> Option<&str> = $mime;
                (self.read)(resource_request(uri, mime(self), arguments), cx)
            }

            fn output(output: Vec<ResourceContents>) -> CallOutput {
                CallOutput::Resource(output)
            }

            fn take(output: CallOutput) -> Result<Vec<ResourceContents>, &'static str> {
                output.into_resource()
            }

            fn finish(
                &self,
                server: &ServerInner,
                call: &Finishing<'_>,
                outcome: Result<Vec<ResourceContents>, ErrorObject>,
            ) -> Reply {
                read_reply(server, call, outcome)
            }
        }
    };
}

resource_kind!(ResourceEntry, |e| e.resource.mime_type.as_deref());
resource_kind!(TemplateEntry, |e| e.template.mime_type.as_deref());
