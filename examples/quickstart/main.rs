//! The quickstart server: two tools (one with structured output), a prompt, a static
//! resource and a resource template. Run `quickstart stdio` or
//! `quickstart http --bind 127.0.0.1:8080`.

use mcp_framework::{Server, ToolError, prompt, resource, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// Today's forecast for a city.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    celsius: f64,
    conditions: String,
}

/// Gets the weather forecast for a city.
#[tool(read_only)]
fn forecast(
    /// City name, e.g. "Paris".
    city: String,
) -> Result<Forecast, ToolError> {
    if city.trim().is_empty() {
        return Err(ToolError::new("city must not be empty"));
    }
    Ok(Forecast {
        celsius: 21.5,
        conditions: "sunny".into(),
        city,
    })
}

/// Shouts the text back.
#[tool]
async fn shout(
    /// What to shout.
    text: String,
) -> String {
    text.to_uppercase()
}

/// Asks for a haiku about a topic.
#[prompt]
fn haiku(
    /// What the haiku is about.
    topic: &str,
) -> String {
    format!("Write a haiku about {topic}.")
}

/// What this server is.
#[resource(uri = "info://about", mime = "text/markdown")]
fn about() -> &'static str {
    "# Quickstart\nA tiny MCP server written with mcp-framework."
}

/// A greeting for anyone.
#[resource(template = "greeting://{name}", mime = "text/plain")]
fn greeting(name: &str) -> String {
    format!("Hello, {name}!")
}

#[tokio::main]
async fn main() -> Result<(), mcp_framework::Error> {
    Server::builder()
        .name("quickstart")
        .version(env!("CARGO_PKG_VERSION"))
        .run()
        .await
}
