//! The request-metadata headers of a 2026-07-28 request against its body:
//! `MCP-Protocol-Version`, `Mcp-Method` and, for `tools/call`, `prompts/get` and
//! `resources/read` (and the Tasks extension's `tasks/get`, `tasks/update` and
//! `tasks/cancel`, whose `Mcp-Name` is the task id, so that load balancers can route by
//! task), `Mcp-Name` (base64-decoded); a missing or different one is `-32020`
//! (`HeaderMismatch`). The `Mcp-Param-*` headers are checked by dispatch, which knows the
//! tool.

use axum::http::HeaderMap;
use serde_json::value::RawValue;

use crate::headers::{decode_value, single_header};
use crate::protocol::ErrorObject;
use crate::protocol::jsonrpc::Request;
use crate::protocol::meta::Members;

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, ErrorObject> {
    single_header(headers, name)?
        .map(|v| {
            v.to_str().map_err(|_| {
                ErrorObject::header_mismatch(format!("{name} contains invalid characters"))
            })
        })
        .transpose()
}

/// The request-metadata headers of a modern request must mirror its body.
pub(crate) fn check_standard_headers(
    headers: &HeaderMap,
    request: &Request,
    members: &Members,
    body_version: &str,
) -> Result<(), ErrorObject> {
    match header_str(headers, "mcp-protocol-version")? {
        None => {
            return Err(ErrorObject::header_mismatch(
                "missing MCP-Protocol-Version header",
            ));
        }
        Some(v) if v != body_version => {
            return Err(ErrorObject::header_mismatch(format!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{body_version}'"
            )));
        }
        Some(_) => {}
    }
    match header_str(headers, "mcp-method")? {
        None => return Err(ErrorObject::header_mismatch("missing Mcp-Method header")),
        Some(m) if m != request.method => {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Method header value '{m}' does not match body value '{}'",
                request.method
            )));
        }
        Some(_) => {}
    }
    let (span, key) = match request.method.as_str() {
        "tools/call" | "prompts/get" => (members.name, "name"),
        "resources/read" => (members.uri, "uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => (members.task_id, "taskId"),
        _ => return Ok(()),
    };
    let params = request.params.as_deref().map_or("", RawValue::get);
    let Some(body_name) = Members::read_str(params, span, key)? else {
        return Ok(()); // the dispatcher reports the missing field
    };
    let Some(raw) = single_header(headers, "mcp-name")? else {
        return Err(ErrorObject::header_mismatch("missing Mcp-Name header"));
    };
    let decoded = decode_value(raw.as_bytes())
        .map_err(|e| ErrorObject::header_mismatch(format!("Mcp-Name {e}")))?;
    if decoded != body_name {
        return Err(ErrorObject::header_mismatch(format!(
            "Mcp-Name header value '{decoded}' does not match body value '{body_name}'"
        )));
    }
    Ok(())
}
