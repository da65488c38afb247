use mcp_framework::{resource, tool};

/// A view from a file.
#[resource(uri = "ui://pass/view", html = "view.html", ui(csp(connect_domains = ["https://api.example.com"]), permissions(camera, geolocation), domain = "a.example", prefers_border = true))]
pub struct View;

/// A view from a function.
#[resource(uri = "ui://pass/fn", mime = "text/html; profile=mcp-app")]
fn fn_view() -> String {
    String::new()
}

/// A tool.
#[tool(ui = View)]
fn shown() -> String {
    String::new()
}

/// A tool.
#[tool(ui = fn_view, visibility = "app")]
fn view_only() -> String {
    String::new()
}

/// A tool.
#[tool(ui = "ui://pass/view", visibility = ["model", "app"])]
fn by_uri() -> String {
    String::new()
}

/// A tool.
#[tool(visibility = ["model"])]
fn model_only() -> String {
    String::new()
}

fn main() {
    let _ = mcp_framework::Server::builder().build().unwrap();
    use mcp_framework::apps::UiView as _;
    assert_eq!(View::URI, "ui://pass/view");
}
