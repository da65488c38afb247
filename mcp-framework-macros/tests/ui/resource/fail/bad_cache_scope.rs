use mcp_framework::resource;

/// Cached.
#[resource(uri = "test://cached", cache_scope = "shared", ttl_ms = 60000)]
fn cached() -> String {
    String::new()
}

fn main() {
    let _ = cached();
}
