use mcp_framework::prompt;

/// Returns a file.
#[prompt]
fn count(path: String) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

fn main() {}
