//! `crate = path`: the runtime through a re-export.
#![deny(warnings)]

mod fw {
    pub use ::mcp_framework::*;
}

/// Through a re-export.
#[fw::tool(crate = crate::fw)]
fn via_reexport(x: u8) -> u8 {
    x
}

/// A quoted path works too.
#[fw::prompt(crate = "crate::fw")]
fn quoted(x: u8) -> String {
    x.to_string()
}

/// Resources too.
#[fw::resource(uri = "test://fw", crate = crate::fw)]
fn res() -> String {
    String::new()
}

fn main() {
    let _ = fw::tools![via_reexport];
    let _ = fw::prompts![quoted];
    let _ = fw::resources![res];
}
