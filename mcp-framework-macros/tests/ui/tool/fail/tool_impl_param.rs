use mcp_framework::{tool, tool_impl};

struct Notes;

struct Opaque;

#[tool_impl]
impl Notes {
    /// A parameter that is no argument: reported at it, as for a function.
    #[tool]
    fn find(&self, what: Opaque) -> String {
        let _ = what;
        String::new()
    }

    /// An unknown option: reported as for a function.
    #[tool(read_onyl)]
    fn list(&self) -> String {
        String::new()
    }
}

fn main() {}
