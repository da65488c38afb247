//! Compile-pass and compile-fail cases of `#[tool]`, `#[prompt]`, `#[resource]`,
//! `#[derive(Form)]`, the MCP Apps attributes and `skills!`.
//!
//! The diagnostics are pinned to rustc 1.95 (they drift between versions). Regenerate the
//! `.stderr` files with `TRYBUILD=overwrite cargo test -p mcp-framework-macros --test ui`
//! and review the diff like code.
//!
//! Two runs, not one: trybuild checks a run with no compile-pass case in one `cargo check`
//! of every case (`--keep-going`), but a run that has one builds and links every case
//! separately, one after another (five times the time for the compile-fail cases).

#[rustversion::attr(not(stable(1.95)), ignore = "rustc diagnostics drift")]
#[test]
fn ui() {
    // Each `TestCases` runs when it is dropped: the compile-fail cases first, then the
    // compile-pass ones.
    trybuild::TestCases::new().compile_fail("tests/ui/*/fail/*.rs");
    trybuild::TestCases::new().pass("tests/ui/*/pass/*.rs");
}
