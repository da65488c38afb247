use mcp_framework::{Server, skills};

fn main() {
    let embedded = skills!("good_skills");
    let paths: Vec<&str> = embedded.iter().map(|s| s.path()).collect();
    assert_eq!(paths, ["acme/refunds", "pdf"]);
    let server = Server::builder().skills(embedded).build().unwrap();
    drop(server);
}
