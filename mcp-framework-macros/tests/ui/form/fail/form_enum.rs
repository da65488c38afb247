//! A choice that carries data, and an enum with no choices.

use mcp_framework::Form;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema, Form)]
enum Size {
    Small,
    Custom { inches: u32 },
    Other(String),
}

#[derive(Deserialize, JsonSchema, Form)]
enum Nothing {}

fn main() {}
