//! What the proxy takes out of an upstream's `_meta` before passing a message on: the
//! upstream's identity (`serverInfo`; results carry this server's) and its links to tasks
//! no one here knows (`related-task`).

use serde_json::Value;

/// Where a 2025-11-25 message names the task it belongs to.
pub(super) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// Takes `keys` out of a message's `_meta` (and `_meta` itself, left empty).
pub(super) fn drop_meta(message: &mut Value, keys: &[&str]) {
    if let Some(meta) = message.get_mut("_meta").and_then(Value::as_object_mut) {
        for key in keys {
            meta.remove(*key);
        }
        if meta.is_empty() {
            message.as_object_mut().map(|m| m.remove("_meta"));
        }
    }
}
