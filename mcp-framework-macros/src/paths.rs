//! Files a macro names by a path literal, found as `include_str!` finds them.

use std::path::{Path, PathBuf};

use syn::LitStr;

/// The path `lit` names: relative to the file holding the invocation (as `include_str!`
/// resolves), or to the crate's manifest when the compiler cannot say which file that is.
pub(crate) fn relative_to_invoking_file(lit: &LitStr, invoking_file: Option<PathBuf>) -> PathBuf {
    let rel = PathBuf::from(lit.value());
    if rel.is_absolute() {
        return rel;
    }
    let base = invoking_file
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
        .unwrap_or_default();
    let path = base.join(rel);
    std::fs::canonicalize(&path).unwrap_or(path)
}
