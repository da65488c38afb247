//! OpenAI's strict mode has no maps (every object is `additionalProperties: false`).
use std::collections::HashMap;

use mcp_framework::tool;

/// Counts words.
#[tool(schema = "openai_strict")]
fn count(words: Vec<String>, weights: Option<HashMap<String, f64>>) -> usize {
    words.len() + weights.map_or(0, |w| w.len())
}

/// Accepted knowingly.
#[tool(schema = "openai_strict", allow(open_object))]
fn tally(weights: HashMap<String, f64>) -> usize {
    weights.len()
}

fn main() {}
