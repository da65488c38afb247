use mcp_framework::resource;

#[resource(uri = "file:///view.html", ui(prefers_border = true))]
fn not_ui() -> String {
    String::new()
}

#[resource(uri = "ui://views/text", mime = "text/plain")]
fn wrong_type() -> String {
    String::new()
}

#[resource(template = "ui://views/{id}")]
fn template(id: String) -> String {
    id
}

#[resource(uri = "ui://views/origins", ui(csp(connect_domains = ["https://a.example https://b.example"])))]
fn two_origins() -> String {
    String::new()
}

#[resource(uri = "ui://views/fn", html = "page.html")]
fn html_on_fn() -> String {
    String::new()
}

fn main() {}
