use mcp_framework::{Context, prompt, resource, tool};

/// Needs two scopes; callers without them are challenged.
#[tool(scopes = ["notes:read", "profile:read"])]
fn read_profile(cx: Context) -> String {
    cx.principal().map_or("anonymous".into(), |p| p.subject().to_owned())
}

/// Hidden from callers without `admin`.
#[prompt(scopes = ["admin"], hidden)]
fn admin_prompt() -> String {
    "secret".into()
}

/// A scoped resource.
#[resource(uri = "test://private", scopes = ["files:read"])]
fn private_file() -> String {
    "contents".into()
}

fn main() {}
