//! Transports: bytes in, bytes out. They frame messages, multiplex requests and map
//! replies to their wire form; what a tool is stays in `dispatch`.

#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod stdio;

use serde_json::Value;

use crate::context::HttpParts;
use crate::protocol::ErrorObject;
use crate::registry::HeaderParam;

/// Checks the `Mcp-Param-{Name}` headers of an HTTP `tools/call` against its arguments.
#[cfg(feature = "http")]
pub(crate) fn check_param_headers(
    http: &HttpParts,
    params: &[HeaderParam],
    arguments: &Value,
) -> Result<(), ErrorObject> {
    for p in params {
        let header_name = format!("mcp-param-{}", p.header);
        let header = self::http::single_header(&http.headers, &header_name)?;
        let Some(value) = crate::headers::argument_at(arguments, &p.path) else {
            // A null or missing argument has no header; a stray header is tolerated.
            continue;
        };
        let Some(header) = header else {
            return Err(ErrorObject::header_mismatch(format!(
                "missing header Mcp-Param-{} for argument `{}`",
                p.header,
                p.path.join(".")
            )));
        };
        let decoded = crate::headers::decode_value(header.as_bytes())
            .map_err(|e| ErrorObject::header_mismatch(format!("Mcp-Param-{} {e}", p.header)))?;
        if !crate::headers::matches(p.kind, &decoded, value) {
            return Err(ErrorObject::header_mismatch(format!(
                "Mcp-Param-{} header value {decoded:?} does not match body value {value}",
                p.header
            )));
        }
    }
    Ok(())
}

/// Without the HTTP transport there are no headers to check.
#[cfg(not(feature = "http"))]
pub(crate) fn check_param_headers(
    _: &HttpParts,
    _: &[HeaderParam],
    _: &Value,
) -> Result<(), ErrorObject> {
    Ok(())
}
