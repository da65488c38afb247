use mcp_framework::{Context, Server, tool, tools};

/// May run as a task.
#[tool(task)]
async fn optional(ctx: Context) -> String {
    ctx.set_status_message("working").await;
    ctx.task_id().unwrap_or("inline").to_owned()
}

/// Only runs as a task.
#[tool(task = "required")]
fn required(n: u32) -> u32 {
    n
}

/// Starts its task itself.
#[tool(task = "optional", task_start = "handler")]
async fn self_started(ctx: Context) -> bool {
    ctx.run_as_task().await
}

/// Explicitly the default start.
#[tool(task, task_start = "immediately", read_only)]
fn immediately() -> &'static str {
    "x"
}

fn main() {
    let server = Server::builder()
        .tools(tools![optional, required, self_started, immediately])
        .build()
        .unwrap();
    drop(server);
}
