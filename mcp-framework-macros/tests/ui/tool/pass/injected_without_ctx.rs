//! The framework's own injectables need no `#[ctx]`: `Context`, `State<T>` (by value or
//! by reference), `ServerHandle`, `Option<Principal>`. `#[arg]` makes a parameter whose
//! type has one of those names an argument after all.
#![deny(warnings)]

use mcp_framework::{Context, Principal, ServerHandle, State, tool, tools};

/// The application's state.
struct Store;

mod user {
    /// A user's own type named `State`: an argument.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct State<T> {
        pub value: T,
    }
}

/// Uses every injectable.
#[tool]
fn everything(
    cx: Context,
    store: State<Store>,
    by_ref: &State<Store>,
    server: ServerHandle,
    principal: Option<Principal>,
    #[arg] state: user::State<u32>,
    n: u32,
) -> String {
    let _ = (cx, store, by_ref, server, principal);
    format!("{}", state.value + n)
}

fn main() {
    let _ = tools![everything];
}
