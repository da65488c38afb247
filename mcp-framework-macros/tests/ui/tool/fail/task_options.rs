use mcp_framework::tool;

/// Not a kind of task support.
#[tool(task = "sometimes")]
fn sometimes() -> &'static str {
    "x"
}

/// A start for a tool that never runs as a task.
#[tool(task_start = "handler")]
fn never_a_task() -> &'static str {
    "x"
}

/// Not a start.
#[tool(task, task_start = "later")]
fn later() -> &'static str {
    "x"
}

/// A flag, not a list.
#[tool(task(required))]
fn listed() -> &'static str {
    "x"
}

fn main() {}
