use mcp_framework::tool;

/// Routes a request.
#[tool]
fn route(#[header("Region")] region: String, #[header("region")] fallback: String) -> String {
    region + &fallback
}

fn main() {}
