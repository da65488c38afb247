//! A library with the strictest lints: generated code adds no warning, and the
//! `inventory` submission compiles under `forbid(unsafe_code)`.
#![forbid(unsafe_code)]
#![deny(
    warnings,
    missing_docs,
    unreachable_pub,
    missing_debug_implementations,
    unused,
    unused_qualifications,
    unused_results,
    trivial_casts,
    rust_2018_idioms,
    single_use_lifetimes,
    unused_lifetimes,
    variant_size_differences,
    non_ascii_idents,
    elided_lifetimes_in_paths
)]

/// Public tools in a public module.
pub mod math {
    use mcp_framework::{prompt, resource, tool};

    /// Subtracts.
    #[tool]
    pub async fn sub(a: i64, b: i64) -> i64 {
        a - b
    }

    /// A crate-visible tool.
    #[tool]
    pub(crate) fn neg(a: i64) -> i64 {
        -a
    }

    /// A private tool that is not registered and never used.
    #[tool(register = false)]
    fn unused_tool() {}

    /// A prompt.
    #[prompt]
    pub fn ask(question: String) -> String {
        question
    }

    /// A resource.
    #[resource(uri = "test://strict")]
    pub fn strict() -> String {
        String::new()
    }

    /// A template.
    #[resource(template = "test://strict/{id}")]
    pub async fn strict_item(id: u32) -> String {
        id.to_string()
    }
}

/// Uses the module's tools by path.
pub fn set() -> mcp_framework::ToolSet {
    mcp_framework::tools![math::sub, math::neg]
}

fn main() {
    assert_eq!(set().len(), 2);
}
