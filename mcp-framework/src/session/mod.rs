//! Sessions of legacy (initialize-based) peers.

pub(crate) mod legacy;
