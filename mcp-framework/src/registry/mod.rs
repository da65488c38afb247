//! What a server serves: definitions and the handlers behind them, collected in sets
//! (explicitly with `tools![…]` or automatically through `inventory`), and the checked,
//! compiled entries the catalog holds and the dispatcher calls.
//!
//! `definition` (under construction) → `entry` (checked and compiled) ← `set` (what a
//! builder is given); `handler` is what each of them calls.
//!
//! Imports: the leaves, and `context` (a handler takes a `Context`: the one import of the
//! runtime that runs up, see `scripts/check-layers`).

pub(crate) mod definition;
pub(crate) mod entry;
pub(crate) mod handler;
pub(crate) mod set;
