use mcp_framework::tool;

mod a {
    use super::*;

    /// Adds.
    #[tool]
    pub fn add(a: f64, b: f64) -> f64 {
        a + b
    }
}

mod b {
    use super::*;

    /// Adds too.
    #[tool(name = "add")]
    pub fn plus(a: f64, b: f64) -> f64 {
        a + b
    }

    /// Not registered: no claim on the name.
    #[tool(name = "add", register = false)]
    pub fn unregistered(a: f64) -> f64 {
        a
    }
}

fn main() {}
