//! The running server's shared state, below dispatch: [`state`] (what every layer reads),
//! [`config`] (settings and limits), [`handle`] (run-time changes).
//!
//! Imports: the catalog, the registry and the leaves; never dispatch, a transport or the
//! facade.

pub(crate) mod config;
pub(crate) mod handle;
pub(crate) mod state;
