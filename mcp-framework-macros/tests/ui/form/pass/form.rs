//! Forms of every kind of field `#[derive(Form)]` accepts, asked from a tool.

use mcp_framework::{Context, Elicitation, Form, ToolError, tool};
use schemars::JsonSchema;
use serde::Deserialize;

/// A size.
#[derive(Deserialize, JsonSchema, Form)]
enum Size {
    Small,
    Large,
}

/// A topping.
#[derive(Deserialize, JsonSchema, Form, PartialEq, Eq, PartialOrd, Ord)]
enum Topping {
    Cheese,
    Olives,
}

/// A string with a format: a field of the author's own.
#[derive(Deserialize, JsonSchema)]
struct Email(String);

impl mcp_framework::FormField for Email {}

/// An order.
#[derive(Deserialize, JsonSchema, Form)]
struct Order {
    name: String,
    count: u32,
    price: f64,
    gift: bool,
    size: Size,
    toppings: Vec<Topping>,
    extras: std::collections::BTreeSet<Topping>,
    note: Option<String>,
    maybe_size: Option<Size>,
    email: Email,
    #[serde(skip)]
    internal: Vec<Vec<u8>>,
}

/// Takes an order.
#[tool]
async fn order(ctx: Context) -> Result<String, ToolError> {
    match ctx.elicit::<Order>("Your order?").await? {
        Elicitation::Accept(order) => Ok(format!("{} × {}", order.count, order.name)),
        _ => Ok("no order".into()),
    }
}

fn main() {}
