//! Parameter and return types: enums, nested structs, `Vec`, `HashMap`, references,
//! structured output, `Result`, content types.
#![deny(warnings)]

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use mcp_framework::{CallToolResult, Content, ToolError, tool, tools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A unit.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A nested struct.
#[derive(Debug, Deserialize, JsonSchema)]
struct Address {
    street: String,
    city: City,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct City {
    name: String,
    zip: Option<u32>,
}

/// A structured result.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    temperature: f64,
    summary: String,
}

/// Everything at once. (The tuple is accepted knowingly: the portable schema profile
/// warns that it loses its positions.)
#[tool(allow(tuple))]
async fn forecast(
    unit: Unit,
    address: &Address,
    days: Vec<u8>,
    hours: &[u8],
    labels: HashMap<String, String>,
    limits: BTreeMap<String, f64>,
    note: Cow<'_, str>,
    maybe: Option<Cow<'static, str>>,
    pair: (u8, String),
) -> Forecast {
    let _ = (unit, &address.street, &address.city.name, address.city.zip);
    let _ = (days, hours, labels, limits, note, maybe, pair);
    Forecast {
        temperature: 21.5,
        summary: "sunny".into(),
    }
}

/// Structured output in a `Result`.
#[tool]
fn checked(x: i32) -> Result<Forecast, ToolError> {
    if x < 0 {
        return Err(ToolError::new("negative"));
    }
    Ok(Forecast {
        temperature: f64::from(x),
        summary: String::new(),
    })
}

/// Text in a `Result` with any `Display` error.
#[tool]
fn text_or_error(x: i32) -> Result<String, std::num::ParseIntError> {
    "12".parse::<i32>().map(|n| (n + x).to_string())
}

/// A plain `String`, from a `Cow<str>` (elided lifetime, sync fn).
#[tool]
fn text(input: Cow<str>) -> String {
    input.into_owned()
}

/// Content types.
#[tool]
fn content() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

/// A full result.
#[tool]
fn full() -> CallToolResult {
    CallToolResult::success(vec![Content::text("ok")])
}

/// Structured output that is not an object.
#[tool]
fn list() -> Vec<u32> {
    vec![1, 2, 3]
}

/// A `&'static str`.
#[tool]
fn fixed() -> &'static str {
    "fixed"
}

fn main() {
    let set = tools![
        forecast,
        checked,
        text_or_error,
        text,
        content,
        full,
        list,
        fixed
    ];
    assert_eq!(set.len(), 8);
}
