use mcp_framework::resource;

#[resource(uri = "ui://views/missing", html = "missing.html")]
struct Missing;

#[resource(uri = "ui://views/not-html", html = "html_views.rs")]
struct NotHtml;

#[resource(uri = "ui://views/no-html")]
struct NoHtml;

#[resource(uri = "file:///page.html", html = "page.html")]
struct NotUi;

#[resource(uri = "ui://views/fields", html = "page.html")]
struct Fields {
    x: u8,
}

fn main() {}
