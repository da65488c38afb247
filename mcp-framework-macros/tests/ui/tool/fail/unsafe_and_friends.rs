use mcp_framework::tool;

/// Unsafe.
#[tool]
unsafe fn danger() {}

/// With a where clause.
#[tool]
fn bounded(x: u8) -> u8
where
    u8: Copy,
{
    x
}

/// Mutable reference.
#[tool]
fn mutate(v: &mut Vec<u8>) {
    v.clear();
}

fn main() {}
