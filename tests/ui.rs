//! Compile-pass and compile-fail cases of `#[tool]`, `#[prompt]` and `#[resource]`.
//!
//! The diagnostics are pinned to rustc 1.95 (they drift between versions). Regenerate the
//! `.stderr` files with `TRYBUILD=overwrite cargo test -p tests --test ui` and review the
//! diff like code.

#[rustversion::attr(not(stable(1.95)), ignore = "rustc diagnostics drift")]
#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/*/pass/*.rs");
    t.compile_fail("ui/*/fail/*.rs");
}
