use mcp_framework::skills;

fn main() {
    // Every broken rule of every skill, each at the literal.
    let _ = skills!("broken_skills");
    // Not a string literal.
    let _ = skills!(42);
}
