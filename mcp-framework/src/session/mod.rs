//! Sessions of legacy (initialize-based) peers. Imports: the leaves only; the transports
//! keep the sessions.

pub(crate) mod legacy;
