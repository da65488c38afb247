//! A field a form cannot hold, a flattened struct and a derive on a tuple struct.

use mcp_framework::Form;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[derive(Deserialize, JsonSchema, Form)]
struct Order {
    name: String,
    items: Vec<String>,
    address: Option<Address>,
}

#[derive(Deserialize, JsonSchema, Form)]
struct Flat {
    name: String,
    #[serde(flatten)]
    address: Address,
}

#[derive(Deserialize, JsonSchema, Form)]
struct Pair(String, u32);

fn main() {}
