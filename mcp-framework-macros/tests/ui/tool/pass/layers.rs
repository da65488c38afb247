//! `layer = …` on `#[tool]`, `#[prompt]` and `#[resource]`: any expression building a layer
//! (a call, a path to a value, tower's own layers), repeated.
#![deny(warnings)]

use std::time::Duration;

use mcp_framework::middleware::{self, AuditLayer, Call, Next};
use mcp_framework::{Server, prompt, prompts, resource, resources, tool, tools};

fn short() -> middleware::TimeoutLayer {
    middleware::timeout(Duration::from_secs(1))
}

const AUDIT: AuditLayer = AuditLayer;

/// Adds.
#[tool(layer = short(), layer = AUDIT, layer = middleware::concurrency_limit(4))]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Greets.
#[prompt(layer = middleware::from_fn(|call: Call, next: Next| next.run(call)))]
fn greet(name: String) -> String {
    format!("Hello, {name}")
}

/// A file.
#[resource(template = "file:///{name}", layer = tower::layer::util::Identity::new())]
fn file(name: String) -> String {
    name
}

fn main() {
    let _ = Server::builder()
        .tools(tools![add])
        .prompts(prompts![greet])
        .resources(resources![file])
        .build()
        .unwrap();
}
