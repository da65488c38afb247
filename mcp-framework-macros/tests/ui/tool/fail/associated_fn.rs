// A known limitation: an attribute macro cannot tell that a function without `self` is
// inside an `impl`, so rustc reports the generated items instead (the first error still
// points at `#[tool]`). Methods with `self` get a clear message (method_self.rs).
use mcp_framework::tool;

struct Calculator;

impl Calculator {
    /// An associated function without `self` cannot be a tool either.
    #[tool]
    fn add(a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {}
