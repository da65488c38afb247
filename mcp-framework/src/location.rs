//! [`Location`]: where a definition is in the source, recorded by the macros and reported
//! by [`Error`](crate::Error) for duplicate and invalid definitions.

use std::fmt;

/// Where a definition is in the source (reported for duplicates and invalid definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// Source file.
    pub file: &'static str,
    /// Line.
    pub line: u32,
}

impl Location {
    /// A location (`file!()`, `line!()`).
    pub const fn new(file: &'static str, line: u32) -> Self {
        Self { file, line }
    }

    /// The location of a definition made at run time (no source position).
    pub const RUNTIME: Self = Self::new("<runtime>", 0);

    /// The location of an item another server serves through this one (a proxied or
    /// mounted server's). Such a resource or template yields to any other of the same URI.
    pub(crate) const UPSTREAM: Self = Self::new("<upstream>", 0);
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}
