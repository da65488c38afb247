//! Asking for a form with a type that does not derive `Form`.

use mcp_framework::{Context, ToolError, tool};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// Greets.
#[tool]
async fn greet(ctx: Context) -> Result<String, ToolError> {
    let _ = ctx.elicit::<Name>("Your name?").await?;
    Ok("hello".into())
}

fn main() {}
