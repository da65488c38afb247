//! Protocol revisions this crate speaks.

use std::fmt;

/// A protocol revision.
///
/// `2026-07-28` is *modern* (every request carries its version and client capabilities in
/// `_meta`); the older revisions are *legacy* (an `initialize` handshake opens a session).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2025-03-26`: the first Streamable HTTP revision (legacy).
    V2025_03_26,
    /// `2025-06-18`: structured tool output, titles, elicitation (legacy).
    V2025_06_18,
    /// `2025-11-25`: icons, URL elicitation, sampling with tools (legacy).
    V2025_11_25,
    /// `2026-07-28`: stateless requests, `server/discover`, MRTR (modern).
    V2026_07_28,
}

impl ProtocolVersion {
    /// The newest revision.
    pub const LATEST: Self = Self::V2026_07_28;
    /// The newest legacy (handshake-based) revision.
    pub const LATEST_LEGACY: Self = Self::V2025_11_25;
    /// Every revision this crate implements, newest first.
    pub const ALL: [Self; 4] = [
        Self::V2026_07_28,
        Self::V2025_11_25,
        Self::V2025_06_18,
        Self::V2025_03_26,
    ];

    /// The revision's date string, as it appears on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire version string; `None` for revisions this crate does not implement.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "2025-03-26" => Self::V2025_03_26,
            "2025-06-18" => Self::V2025_06_18,
            "2025-11-25" => Self::V2025_11_25,
            "2026-07-28" => Self::V2026_07_28,
            _ => return None,
        })
    }

    /// Whether this revision carries its version and capabilities on every request.
    pub const fn is_modern(self) -> bool {
        matches!(self, Self::V2026_07_28)
    }

    /// Whether results of this revision may carry `outputSchema`/`structuredContent`.
    pub(crate) const fn has_structured_output(self) -> bool {
        !matches!(self, Self::V2025_03_26)
    }

    /// Whether `structuredContent` and `outputSchema` must have an object root.
    pub(crate) const fn needs_object_output(self) -> bool {
        !self.is_modern()
    }

    /// Whether `title` on tools/prompts/resources exists in this revision.
    pub(crate) const fn has_titles(self) -> bool {
        !matches!(self, Self::V2025_03_26)
    }

    /// Whether `icons` exist in this revision.
    pub(crate) const fn has_icons(self) -> bool {
        matches!(self, Self::V2025_11_25 | Self::V2026_07_28)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ProtocolVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_orders() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
        }
        assert!(ProtocolVersion::V2025_03_26 < ProtocolVersion::V2026_07_28);
        assert_eq!(ProtocolVersion::parse("1900-01-01"), None);
        assert!(ProtocolVersion::LATEST.is_modern());
        assert!(!ProtocolVersion::LATEST_LEGACY.is_modern());
    }
}
