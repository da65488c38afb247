//! The server span of one request, after the OpenTelemetry semantic conventions for MCP
//! (Development status): named `{mcp.method.name} {target}` (`tools/call add`) through the
//! `otel.name` field, with `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`,
//! `network.transport`, the target's attribute (`gen_ai.tool.name`, `gen_ai.prompt.name`,
//! `mcp.resource.uri`) and, when it fails, `error.type` and an error status. Dispatch
//! creates it; the handler itself runs in a child span.

use tracing::Span;
use tracing::field::Empty;

use crate::protocol::RequestId;

/// The `tracing` target of request and handler spans (for filters: `RUST_LOG=mcp_framework::request=debug`).
pub(crate) const TARGET: &str = "mcp_framework::request";

/// How the request arrived (`network.transport`: `pipe` for stdio, `tcp` for HTTP).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Transport {
    Pipe,
    Tcp,
}

impl From<crate::peer::Transport> for Transport {
    /// HTTP is `tcp`; stdio framing (and a message handed over in process) is `pipe`.
    fn from(transport: crate::peer::Transport) -> Self {
        match transport {
            crate::peer::Transport::Http => Self::Tcp,
            _ => Self::Pipe,
        }
    }
}

impl Transport {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pipe => "pipe",
            Self::Tcp => "tcp",
        }
    }
}

/// The span of a request (disabled, and free, unless a subscriber wants it), named for the
/// item the request resolved to (`target`: a name the server does not serve is not one, so
/// names stay bounded). Its name and attributes are complete when it is returned: an
/// exported span cannot be renamed once started.
pub(crate) fn request(
    method: &str,
    id: Option<&RequestId>,
    target: Option<&str>,
    version: Option<&str>,
    transport: Transport,
) -> Span {
    let span = tracing::debug_span!(
        target: TARGET,
        "mcp.request",
        otel.name = Empty,
        otel.kind = "server",
        otel.status_code = Empty,
        mcp.method.name = method,
        jsonrpc.request.id = Empty,
        jsonrpc.protocol.version = "2.0",
        mcp.protocol.version = version,
        network.transport = transport.as_str(),
        gen_ai.operation.name = Empty,
        gen_ai.tool.name = Empty,
        gen_ai.prompt.name = Empty,
        mcp.resource.uri = Empty,
        "error.type" = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    if let Some(id) = id {
        span.record("jsonrpc.request.id", tracing::field::display(id));
    }
    let attribute = match method {
        "tools/call" => "gen_ai.tool.name",
        "prompts/get" => "gen_ai.prompt.name",
        _ => "mcp.resource.uri",
    };
    match target {
        Some(target) => {
            span.record(attribute, target);
            span.record("otel.name", format!("{method} {target}"));
        }
        None => {
            span.record("otel.name", method);
        }
    }
    if method == "tools/call" {
        span.record("gen_ai.operation.name", "execute_tool");
    }
    span
}

/// A failed request: `error.type` (the JSON-RPC error code, or `tool_error` for a tool
/// result with `isError`) and the error status.
pub(crate) fn record_error(span: &Span, error_type: impl tracing::Value) {
    if span.is_disabled() {
        return;
    }
    span.record("error.type", error_type);
    span.record("otel.status_code", "error");
}

/// The child span a handler runs in.
pub(crate) fn handler(kind: &'static str, name: &str) -> Span {
    let span = tracing::debug_span!(
        target: TARGET,
        "mcp.handler",
        otel.name = Empty,
        mcp.handler.kind = kind,
        mcp.handler.name = name,
    );
    if !span.is_disabled() {
        span.record("otel.name", format!("{kind} {name}"));
    }
    span
}
