//! [`Call`]: what a layer sees of one `tools/call`, `prompts/get` or `resources/read`;
//! [`CallOutput`]: what the handler (or a layer) answers it with; [`CallService`]: the
//! service in between; [`Item`]: what a call reaches in the end.

use std::fmt;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use serde_json::Value;
use tower::{BoxError, Service};

use crate::context::Context;
use crate::future::BoxFuture;
use crate::peer::Transport;
use crate::principal::Principal;
use crate::protocol::{
    CallToolResult, GetPromptResult, ProtocolVersion, RequestId, ResourceContents,
};

/// An item of the catalog as a call reaches it: its own layers and its handler.
pub(crate) trait Item: Send + Sync + 'static {
    /// The item's own stack (its layers over the handler), if it has layers.
    fn layers(&self) -> Option<&CallService>;

    /// Runs the handler for `name` with `arguments` (checking them first).
    fn run(
        self: Arc<Self>,
        cx: Context,
        name: Arc<str>,
        arguments: Value,
    ) -> BoxFuture<Result<CallOutput, BoxError>>;
}

/// The method of a [`Call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// `tools/call`.
    ToolsCall,
    /// `prompts/get`.
    PromptsGet,
    /// `resources/read`.
    ResourcesRead,
}

impl Method {
    /// The method's name on the wire (`tools/call`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolsCall => "tools/call",
            Self::PromptsGet => "prompts/get",
            Self::ResourcesRead => "resources/read",
        }
    }

    /// What the method calls, for messages: `tool`, `prompt` or `resource`.
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Self::ToolsCall => "tool",
            Self::PromptsGet => "prompt",
            Self::ResourcesRead => "resource",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One call of a tool, a prompt or a resource, as a middleware layer sees it: the method,
/// the item's name (a resource's URI), its arguments and the request's [`Context`].
///
/// The item exists (an unknown name is answered before any layer runs) and, for tools and
/// prompts, the arguments are not validated yet: the handler's input schema is checked
/// after the layers, so a layer sees every call, including those that will fail.
pub struct Call {
    method: Method,
    name: Arc<str>,
    arguments: Value,
    cx: Context,
    pub(super) item: Arc<dyn Item>,
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("method", &self.method)
            .field("name", &self.name)
            .field("request_id", self.cx.request_id())
            .finish_non_exhaustive()
    }
}

impl Call {
    pub(crate) fn new(
        method: Method,
        name: Arc<str>,
        arguments: Value,
        cx: Context,
        item: Arc<dyn Item>,
    ) -> Self {
        Self {
            method,
            name,
            arguments,
            cx,
            item,
        }
    }

    /// `tools/call`, `prompts/get` or `resources/read`.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The tool's or prompt's name, or the URI of the resource read.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The arguments: the `arguments` object of a tool call; the arguments of a prompt as an
    /// object, their values coerced from strings to the types the prompt's schema asks for;
    /// the variables a resource template matched in the URI (an empty object for a concrete
    /// resource).
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// The request's context (the same one the handler gets).
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// The authenticated principal (see [`Principal`]), if any.
    pub fn principal(&self) -> Option<&Principal> {
        self.cx.principal()
    }

    /// The protocol revision of the request; [`ProtocolVersion::is_modern`] tells the era.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.cx.protocol_version()
    }

    /// The JSON-RPC id of the request.
    pub fn request_id(&self) -> &RequestId {
        self.cx.request_id()
    }

    /// The transport the request arrived on.
    pub fn transport(&self) -> Transport {
        self.cx.transport()
    }

    /// Runs the item's handler (the innermost step of a stack).
    pub(super) fn run(self) -> BoxFuture<Result<CallOutput, BoxError>> {
        let Self {
            name,
            arguments,
            cx,
            item,
            ..
        } = self;
        item.run(cx, name, arguments)
    }
}

/// What a call is answered with: the result of the method called, or a sign that the
/// handler asked the client for input. A layer that answers a call itself returns the
/// variant of the call's method; another variant is answered with an internal error.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum CallOutput {
    /// A tool's result (`isError: true` for a tool execution error).
    Tool(CallToolResult),
    /// A prompt's messages.
    Prompt(GetPromptResult),
    /// A resource's contents.
    Resource(Vec<ResourceContents>),
    /// The handler asked the client a question (an `InputRequiredResult` on 2026-07-28):
    /// only the handler can produce it.
    InputRequired(InputRequired),
}

/// The handler stopped to ask the client for input (see [`CallOutput::InputRequired`]).
#[derive(Debug, Clone)]
pub struct InputRequired(());

impl InputRequired {
    pub(crate) fn new() -> Self {
        Self(())
    }
}

/// The `into_…` methods take out the output of one method, or say what else it is.
impl CallOutput {
    pub(crate) fn into_tool(self) -> Result<CallToolResult, &'static str> {
        match self {
            Self::Tool(r) => Ok(r),
            other => Err(other.describe()),
        }
    }

    pub(crate) fn into_prompt(self) -> Result<GetPromptResult, &'static str> {
        match self {
            Self::Prompt(r) => Ok(r),
            other => Err(other.describe()),
        }
    }

    pub(crate) fn into_resource(self) -> Result<Vec<ResourceContents>, &'static str> {
        match self {
            Self::Resource(r) => Ok(r),
            other => Err(other.describe()),
        }
    }

    /// What the output is, for messages.
    fn describe(&self) -> &'static str {
        match self {
            Self::Tool(_) => "a tool result",
            Self::Prompt(_) => "a prompt result",
            Self::Resource(_) => "resource contents",
            Self::InputRequired(_) => "an input request",
        }
    }
}

/// What a [`CallService`] answers with.
type Answer = BoxFuture<Result<CallOutput, BoxError>>;

/// The service a layer wraps: the rest of the stack, boxed (`Clone`, `Send` and `Sync`), its
/// future a [`BoxFuture`](crate::BoxFuture).
pub struct CallService(Box<dyn Erased>);

impl CallService {
    /// Boxes `service`, its error converted to a [`BoxError`].
    pub fn new<S>(service: S) -> Self
    where
        S: Service<Call, Response = CallOutput> + Clone + Send + Sync + 'static,
        S::Error: Into<BoxError>,
        S::Future: Send + 'static,
    {
        // A layer that hands back the service it was given (tower's `Identity`) adds nothing.
        let mut slot = Some(service);
        if let Some(same) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<Self>>() {
            return same.take().expect("just put there");
        }
        Self(Box::new(Boxing(slot.expect("just put there"))))
    }

    /// Boxes `service`, whose future is boxed already.
    pub(crate) fn boxed<S>(service: S) -> Self
    where
        S: Service<Call, Response = CallOutput, Error = BoxError, Future = Answer>
            + Clone
            + Send
            + Sync
            + 'static,
    {
        Self(Box::new(Boxed(service)))
    }
}

impl Clone for CallService {
    fn clone(&self) -> Self {
        Self(self.0.clone_box())
    }
}

impl fmt::Debug for CallService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CallService")
    }
}

impl Service<Call> for CallService {
    type Response = CallOutput;
    type Error = BoxError;
    type Future = Answer;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Answer {
        self.0.call(call)
    }
}

/// A service behind the box, its type erased.
trait Erased: Send + Sync + 'static {
    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>>;
    fn call(&mut self, call: Call) -> Answer;
    fn clone_box(&self) -> Box<dyn Erased>;
}

/// A service whose future and error are boxed on the way out.
#[derive(Clone)]
struct Boxing<S>(S);

impl<S> Erased for Boxing<S>
where
    S: Service<Call, Response = CallOutput> + Clone + Send + Sync + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, call: Call) -> Answer {
        // A layer whose future is the one of the service it wraps (it forwards, or decides
        // before the call) hands back a boxed future already: not boxed twice.
        let mut fut = Some(self.0.call(call));
        if let Some(answer) = (&mut fut as &mut dyn std::any::Any).downcast_mut::<Option<Answer>>()
        {
            return answer.take().expect("just put there");
        }
        let fut = fut.expect("just put there");
        Box::pin(async move { fut.await.map_err(Into::into) })
    }

    fn clone_box(&self) -> Box<dyn Erased> {
        Box::new(self.clone())
    }
}

/// A service whose future is a [`BoxFuture`] already.
#[derive(Clone)]
struct Boxed<S>(S);

impl<S> Erased for Boxed<S>
where
    S: Service<Call, Response = CallOutput, Error = BoxError, Future = Answer>
        + Clone
        + Send
        + Sync
        + 'static,
{
    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, call: Call) -> Answer {
        self.0.call(call)
    }

    fn clone_box(&self) -> Box<dyn Erased> {
        Box::new(self.clone())
    }
}
