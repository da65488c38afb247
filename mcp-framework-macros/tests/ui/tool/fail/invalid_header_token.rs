use mcp_framework::tool;

/// Routes a request.
#[tool]
fn route(#[header("My Region")] region: String, #[header("")] zone: String) -> String {
    region + &zone
}

fn main() {}
