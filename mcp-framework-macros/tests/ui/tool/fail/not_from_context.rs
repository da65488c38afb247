use mcp_framework::tool;

struct Database;

/// Uses a database.
#[tool]
fn query(#[ctx] db: Database, sql: String) -> String {
    let _ = db;
    sql
}

fn main() {}
