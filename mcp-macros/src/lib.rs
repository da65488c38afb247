//! Procedural macros for `mcp-framework`. Use them through `mcp_framework`'s re-exports.

use proc_macro::TokenStream;

/// Placeholder.
#[proc_macro_attribute]
pub fn tool(_: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Placeholder.
#[proc_macro_attribute]
pub fn prompt(_: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Placeholder.
#[proc_macro_attribute]
pub fn resource(_: TokenStream, item: TokenStream) -> TokenStream {
    item
}
