//! A tuple is a warning under the portable profile (denied here to pin the message): it
//! becomes an array whose `items` admit every element type.
#![deny(deprecated)]

use mcp_framework::tool;

/// Moves a point.
#[tool]
fn shift(point: (f64, f64), by: &[(f64, f64)]) -> Result<(f64, f64), String> {
    let (x, y) = by.iter().fold(point, |(x, y), (dx, dy)| (x + dx, y + dy));
    Ok((x, y))
}

/// Accepted knowingly: no warning.
#[tool(allow(tuple))]
fn swap(pair: (u8, String)) -> String {
    format!("{} {}", pair.1, pair.0)
}

fn main() {}
