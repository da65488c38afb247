use std::rc::Rc;

use mcp_framework::tool;

/// Holds an `Rc` across an await.
#[tool]
async fn hold(x: u8) -> u8 {
    let rc = Rc::new(x);
    std::future::ready(()).await;
    *rc
}

fn main() {}
