use mcp_framework::{tool, tool_impl};

struct Notes;

#[tool_impl]
impl Notes {
    /// Changes the notes.
    #[tool]
    fn clear(&mut self) {}

    /// Takes the notes.
    #[tool]
    fn take(self) {}

    /// Has no receiver.
    #[tool]
    fn make() -> String {
        String::new()
    }
}

fn main() {}
