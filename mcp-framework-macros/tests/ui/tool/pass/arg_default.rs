//! `#[arg(default = …)]` on values, references, options and `Cow`, in tools and prompts.
#![deny(warnings)]

use std::borrow::Cow;

use mcp_framework::{prompt, prompts, tool, tools};

/// Lists things.
#[tool]
fn list(
    /// How many.
    #[arg(default = 10)]
    limit: u32,
    #[arg(default = "all")] tag: &str,
    #[arg(default = &[1, 2])] ids: &[u8],
    #[arg(default = Some(2))] page: Option<u32>,
    #[arg(default = Cow::Borrowed("x"))] name: Cow<'_, str>,
    #[arg] plain: String,
) -> String {
    format!("{limit} {tag} {ids:?} {page:?} {name} {plain}")
}

/// Summarizes.
#[prompt]
fn summary(#[arg(default = "short".to_owned())] style: String) -> String {
    style
}

fn main() {
    let _ = (tools![list], prompts![summary]);
}
