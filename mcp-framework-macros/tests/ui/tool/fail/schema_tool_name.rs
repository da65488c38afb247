//! The portable schema profile (the default) refuses tool names that OpenAI function names
//! or the 64-character limit of clients would not keep.
use mcp_framework::tool;

/// A dotted name.
#[tool(name = "math.add")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// A name too long for any server to prefix.
#[tool]
fn a_tool_whose_name_goes_on_and_on_well_past_what_the_clients_keep_whole() {}

/// Accepted knowingly, or served with the standard profile: no error.
#[tool(name = "math.sub", allow(tool_name))]
fn sub(a: f64, b: f64) -> f64 {
    a - b
}

/// Negates.
#[tool(name = "math.neg", schema = "standard")]
fn neg(a: f64) -> f64 {
    -a
}

fn main() {}
