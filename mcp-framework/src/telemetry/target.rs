//! What a request is about, for its span and its metrics: the tool's or prompt's name, the
//! resource's URI, read from the params without building them (only when telemetry wants it).
//! Metrics keep a target only when it names an item the server serves.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize, Default)]
struct TargetView<'a> {
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uri: Option<Cow<'a, str>>,
}

/// The target of `method` (`tools/call`, `prompts/get`: the name; `resources/read`: the URI).
pub(crate) fn of<'a>(method: &str, params: Option<&'a RawValue>) -> Option<Cow<'a, str>> {
    let view = || -> TargetView<'a> {
        params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default()
    };
    match method {
        "tools/call" | "prompts/get" => view().name,
        "resources/read" => view().uri,
        _ => None,
    }
}
