//! Identifiers that stand for a secret: 128 bits from the OS random source, hex-encoded
//! (legacy session ids, task ids; without authorization they are all that protects what
//! they name).

/// A new 32-character lowercase hex id.
pub(crate) fn hex_id() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
