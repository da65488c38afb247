use mcp_framework::tool;

/// Opens a file.
#[tool]
fn open(path: String) -> std::fs::File {
    std::fs::File::open(path).unwrap()
}

fn main() {}
