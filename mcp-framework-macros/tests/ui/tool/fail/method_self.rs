use mcp_framework::tool;

struct Calculator;

impl Calculator {
    /// Adds.
    #[tool]
    fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {
    let _ = Calculator.add(1.0, 2.0);
}
