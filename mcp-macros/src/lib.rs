//! Procedural macros for `mcp-framework`. Use them through `mcp_framework`'s re-exports.
