//! Rendering outcomes for a protocol revision: 2026-07-28 results carry `resultType`,
//! `_meta.serverInfo` and (where cacheable) `ttlMs`/`cacheScope`; legacy results carry none
//! of these, keep object-rooted `outputSchema`/`structuredContent`, and drop fields their
//! revision does not know. `structuredContent` is wrapped in `{result}` where the tool's
//! output schema is (by its schema profile on every revision, by the legacy ones' rule).

use std::borrow::Cow;

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;

use crate::cache::{CachePolicy, ListKind, encode_cursor};
use crate::catalog::Catalog;
use crate::protocol::{
    CacheScope, CallToolResult, CompleteResult, Completion, CreateTaskResult, DiscoverResult,
    GetPromptResult, Icon, InitializeResult, InputRequiredResult, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ProtocolVersion, ReadResourceResult,
    RequestId, ResourceContents, ResultType, SubscriptionsListenResult, ToolAnnotations,
};
use crate::registry::entry::ToolEntry;
use crate::runtime::state::ServerInner;
use crate::schema;
use crate::tasks::TaskRecord;

pub(crate) fn to_bytes(value: &impl Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).expect("protocol results serialize"))
}

/// How a result gets its `_meta.serverInfo`: already in its `_meta` (merged with the
/// handler's own keys, or not a modern result), or written after it by [`encode`] from the
/// bytes encoded at build time, when its `_meta` would hold nothing else (no map built,
/// no entry cloned, for almost every result).
#[must_use = "encode the result with `encode`, which writes `_meta` when it is spliced"]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stamped {
    InPlace,
    Spliced,
}

/// Encodes a stamped result: `_meta` with `serverInfo` as the last member of a spliced
/// one (an object with no `_meta` of its own).
fn encode(server: &ServerInner, value: &impl Serialize, stamped: Stamped) -> Bytes {
    Bytes::from(encode_into(Vec::with_capacity(256), server, value, stamped))
}

/// [`encode`] for a list page, which is kept for as long as its catalog: serialized into
/// `capacity` bytes to begin with (a page of a hundred tools is tens of kilobytes, which a
/// buffer growing from 256 bytes reaches by copying itself eight times), and what the
/// guess left over given back (glibc shrinks a block in place).
fn encode_page(
    server: &ServerInner,
    value: &impl Serialize,
    stamped: Stamped,
    capacity: usize,
) -> Bytes {
    let mut out = encode_into(Vec::with_capacity(capacity), server, value, stamped);
    out.shrink_to_fit();
    Bytes::from(out)
}

fn encode_into(
    mut out: Vec<u8>,
    server: &ServerInner,
    value: &impl Serialize,
    stamped: Stamped,
) -> Vec<u8> {
    serde_json::to_writer(&mut out, value).expect("protocol results serialize");
    if stamped == Stamped::Spliced {
        let close = out.pop();
        debug_assert_eq!(close, Some(b'}'), "results are JSON objects");
        if out.len() > 1 {
            out.push(b',');
        }
        out.extend_from_slice(br#""_meta":"#);
        out.extend_from_slice(server.server_info_meta_json.as_bytes());
        out.push(b'}');
    }
    out
}

/// The `_meta` of a modern result: `meta` (a handler's own keys) plus `serverInfo`, or
/// nothing to hold when there are no own keys (then [`encode`] splices it in).
fn with_server_info(server: &ServerInner, meta: &mut Option<JsonObject>) -> Stamped {
    match meta {
        Some(own) if !own.is_empty() => {
            // The server's identity is its own: a handler's key of the same name does not
            // replace it.
            for (k, v) in &server.server_info_meta {
                own.insert(k.clone(), v.clone());
            }
            Stamped::InPlace
        }
        _ => {
            *meta = None;
            Stamped::Spliced
        }
    }
}

/// Clears the display fields a revision does not know: `title` (before 2025-06-18) and
/// `icons` (before 2025-11-25). Generic so that owned fields (`String`, `Vec<Icon>`) and
/// borrowed ones (`&str`, `&[Icon]`) follow the one rule.
fn display_fields<T, I>(version: ProtocolVersion, title: &mut Option<T>, icons: &mut Option<I>) {
    if !version.has_titles() {
        *title = None;
    }
    if !version.has_icons() {
        *icons = None;
    }
}

/// Fills the common result fields of a modern result (and clears them for legacy ones);
/// evaluates to the result's [`Stamped`], for [`encode`].
macro_rules! stamp {
    ($server:expr, $version:expr, $result:expr) => {{
        let r = $result;
        if $version.is_modern() {
            r.result_type = Some(ResultType::Complete);
            with_server_info($server, &mut r.meta)
        } else {
            r.result_type = None;
            Stamped::InPlace
        }
    }};
    ($server:expr, $version:expr, $result:expr, $cache:expr) => {{
        let r = $result;
        let stamped = stamp!($server, $version, &mut *r);
        if $version.is_modern() {
            let c: CachePolicy = $cache;
            r.ttl_ms = Some(c.ttl_ms);
            r.cache_scope = Some(c.scope);
        } else {
            r.ttl_ms = None;
            r.cache_scope = None;
        }
        stamped
    }};
}

pub(crate) fn discover(server: &ServerInner) -> Bytes {
    server
        .discover_bytes
        .get_or_init(|| {
            let mut result = DiscoverResult {
                supported_versions: ProtocolVersion::ALL
                    .iter()
                    .map(|v| v.as_str().to_owned())
                    .collect(),
                capabilities: server.capabilities.clone(),
                instructions: server.instructions.clone(),
                ..DiscoverResult::default()
            };
            let stamped = stamp!(
                server,
                ProtocolVersion::LATEST,
                &mut result,
                server.config.cache.discover
            );
            encode(server, &result, stamped)
        })
        .clone()
}

pub(crate) fn initialize_result(server: &ServerInner, version: ProtocolVersion) -> Bytes {
    let mut info = server.info.clone();
    display_fields(version, &mut info.title, &mut info.icons);
    if !version.has_icons() {
        // Added with icons (2025-11-25).
        info.website_url = None;
        info.description = None;
    }
    let result = InitializeResult {
        protocol_version: version.as_str().to_owned(),
        capabilities: server
            .legacy_capabilities
            .as_ref()
            .unwrap_or(&server.capabilities)
            .clone(),
        server_info: info,
        instructions: server.instructions.clone(),
        meta: None,
    };
    to_bytes(&result)
}

/// `{}` for legacy methods whose result is empty (`ping`, `logging/setLevel`,
/// `resources/subscribe`, `resources/unsubscribe`).
pub(crate) fn empty() -> Bytes {
    Bytes::from_static(b"{}")
}

/// A tool as a revision shows it, borrowed from its entry: a page of 100 tools is
/// rendered without a copy of their schemas. Serializes as [`Tool`] does (same fields,
/// same order, same omissions; a test compares the two).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolView<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a JsonObject,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<Cow<'a, JsonObject>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<&'a ToolAnnotations>,
    #[serde(skip_serializing_if = "Option::is_none")]
    icons: Option<&'a [Icon]>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a JsonObject>,
}

impl<'a> ToolView<'a> {
    /// The tool of `entry` as `version` shows it: no `outputSchema` before 2025-06-18, an
    /// object-rooted one (wrapped) where the revision needs it, [display
    /// fields](display_fields) it knows.
    fn of(entry: &'a ToolEntry, version: ProtocolVersion) -> Self {
        let tool = &entry.tool;
        let output_schema = if !version.has_structured_output() {
            None
        } else if version.needs_object_output() && entry.wraps_output {
            tool.output_schema
                .as_ref()
                .map(|s| Cow::Owned(schema::wrap_output_schema(s)))
        } else {
            tool.output_schema.as_ref().map(Cow::Borrowed)
        };
        let (mut title, mut icons) = (tool.title.as_deref(), tool.icons.as_deref());
        display_fields(version, &mut title, &mut icons);
        Self {
            name: &tool.name,
            title,
            description: tool.description.as_deref(),
            input_schema: &tool.input_schema,
            output_schema,
            annotations: tool.annotations.as_ref(),
            icons,
            meta: tool.meta.as_ref(),
        }
    }
}

/// A page of `tools/list` over borrowed tools; serializes as [`ListToolsResult`] does.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolsPage<'a> {
    tools: Vec<ToolView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<ResultType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<JsonObject>,
}

/// One page of a list, rendered once per catalog generation and revision.
pub(crate) fn list_page(
    server: &ServerInner,
    catalog: &Catalog,
    kind: ListKind,
    version: ProtocolVersion,
    page: usize,
    private: bool,
) -> Bytes {
    catalog.pages.get_or_render(kind, version, page, || {
        let size = catalog.page_size;
        let start = page * size;
        let end = (start + size).min(catalog.len(kind));
        let next_cursor = (end < catalog.len(kind)).then(|| encode_cursor(kind, page + 1));
        // About what one listed item takes (a tool with its schemas is larger).
        let capacity = 256 + (end - start) * if kind == ListKind::Tools { 512 } else { 192 };
        let mut cache = server.config.cache.for_list(kind);
        if private {
            cache.scope = CacheScope::Private;
        }
        match kind {
            ListKind::Tools => {
                let mut r = ToolsPage {
                    tools: catalog.tools[start..end]
                        .iter()
                        .map(|t| ToolView::of(t, version))
                        .collect(),
                    next_cursor,
                    result_type: None,
                    ttl_ms: None,
                    cache_scope: None,
                    meta: None,
                };
                let stamped = stamp!(server, version, &mut r, cache);
                encode_page(server, &r, stamped, capacity)
            }
            ListKind::Prompts => {
                let mut r = ListPromptsResult {
                    prompts: catalog.prompts[start..end]
                        .iter()
                        .map(|p| {
                            let mut p = p.prompt.clone();
                            display_fields(version, &mut p.title, &mut p.icons);
                            p
                        })
                        .collect(),
                    next_cursor,
                    ..ListPromptsResult::default()
                };
                let stamped = stamp!(server, version, &mut r, cache);
                encode_page(server, &r, stamped, capacity)
            }
            ListKind::Resources => {
                let mut r = ListResourcesResult {
                    resources: catalog.resources[start..end]
                        .iter()
                        .map(|e| {
                            let mut r = e.resource.clone();
                            display_fields(version, &mut r.title, &mut r.icons);
                            r
                        })
                        .collect(),
                    next_cursor,
                    ..ListResourcesResult::default()
                };
                let stamped = stamp!(server, version, &mut r, cache);
                encode_page(server, &r, stamped, capacity)
            }
            ListKind::Templates => {
                let mut r = ListResourceTemplatesResult {
                    resource_templates: catalog.templates[start..end]
                        .iter()
                        .map(|e| {
                            let mut t = e.template.clone();
                            display_fields(version, &mut t.title, &mut t.icons);
                            t
                        })
                        .collect(),
                    next_cursor,
                    ..ListResourceTemplatesResult::default()
                };
                let stamped = stamp!(server, version, &mut r, cache);
                encode_page(server, &r, stamped, capacity)
            }
        }
    })
}

pub(crate) fn tool_result(
    server: &ServerInner,
    version: ProtocolVersion,
    entry: &ToolEntry,
    mut result: CallToolResult,
) -> Bytes {
    if !version.has_structured_output() {
        result.structured_content = None;
    } else if let Some(v) = result.structured_content.take() {
        let wrap = entry.wraps_structured
            || (version.needs_object_output() && (entry.wraps_output || !v.is_object()));
        result.structured_content = Some(if wrap {
            let mut m = serde_json::Map::new();
            m.insert("result".into(), v);
            Value::Object(m)
        } else {
            v
        });
    }
    let stamped = stamp!(server, version, &mut result);
    encode(server, &result, stamped)
}

pub(crate) fn prompt_result(
    server: &ServerInner,
    version: ProtocolVersion,
    mut result: GetPromptResult,
) -> Bytes {
    let stamped = stamp!(server, version, &mut result);
    encode(server, &result, stamped)
}

pub(crate) fn read_result(
    server: &ServerInner,
    version: ProtocolVersion,
    contents: Vec<ResourceContents>,
    cache: CachePolicy,
) -> Bytes {
    let mut result = ReadResourceResult {
        contents,
        ..ReadResourceResult::default()
    };
    let stamped = stamp!(server, version, &mut result, cache);
    encode(server, &result, stamped)
}

pub(crate) fn completion_result(
    server: &ServerInner,
    version: ProtocolVersion,
    completion: Completion,
) -> Bytes {
    let mut result = CompleteResult {
        completion,
        ..CompleteResult::default()
    };
    let stamped = stamp!(server, version, &mut result);
    encode(server, &result, stamped)
}

/// An `InputRequiredResult`: never cached, so no `ttlMs`/`cacheScope`.
pub(crate) fn input_required(server: &ServerInner, mut result: InputRequiredResult) -> Bytes {
    result.meta = None;
    encode(server, &result, Stamped::Spliced)
}

/// The final result of a `subscriptions/listen` ended by the server.
/// The result of an extension's custom request. A 2026-07-28 result that is an object
/// gets what every result of that revision carries: `resultType` (`"complete"` unless the
/// handler said otherwise) and `_meta.serverInfo` (beside the handler's own keys).
pub(crate) fn custom_result(server: &ServerInner, modern: bool, mut result: Value) -> Bytes {
    if modern && let Value::Object(fields) = &mut result {
        fields
            .entry("resultType")
            .or_insert_with(|| Value::String("complete".into()));
        let meta = fields
            .entry("_meta")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if let Value::Object(meta) = meta {
            for (k, v) in &server.server_info_meta {
                meta.insert(k.clone(), v.clone());
            }
        }
    }
    to_bytes(&result)
}

/// The answer to a call that became a task: `resultType: "task"` and the task's fields.
pub(crate) fn task_created(server: &ServerInner, record: &TaskRecord) -> Bytes {
    let result = CreateTaskResult {
        result_type: ResultType::Task,
        task: record.task(),
        meta: None,
    };
    encode(server, &result, Stamped::Spliced)
}

pub(crate) fn listen_closed(server: &ServerInner, subscription_id: &RequestId) -> Bytes {
    let mut result = SubscriptionsListenResult::closed(subscription_id);
    let stamped = with_server_info(server, &mut result.meta);
    encode(server, &result, stamped)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use std::sync::Arc;

    use crate::protocol::{CallToolResult, ListToolsResult, Tool};
    use crate::registry::definition::ToolDefinition;
    use crate::registry::entry::ToolRules;
    use crate::registry::set::ToolSet;
    use crate::schema_profile::SchemaProfile;

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(o) => o,
            _ => unreachable!("an object"),
        }
    }

    /// Tools with every field a revision may drop or reshape: title, icons, annotations,
    /// `_meta`, an object output schema and a non-object (wrapped) one.
    fn entries() -> Vec<Arc<ToolEntry>> {
        let input = || object(json!({"type": "object", "properties": {"a": {"type": "number"}}}));
        let icon = Icon {
            src: "https://example.com/i.png".into(),
            mime_type: Some("image/png".into()),
            sizes: Some(vec!["48x48".into()]),
            theme: None,
        };
        let full = ToolDefinition::new("full", input())
            .title("Full")
            .description("Everything set.")
            .icon(icon)
            .meta_json(r#"{"example.com/k": 1}"#)
            .annotations(ToolAnnotations {
                read_only_hint: Some(true),
                ..ToolAnnotations::default()
            })
            .output_schema(Some(object(
                json!({"type": "object", "properties": {"sum": {"type": "number"}}}),
            )));
        let list = ToolDefinition::new("list", input())
            .schema_profile(SchemaProfile::Standard)
            .output_schema(Some(object(
                json!({"type": "array", "items": {"type": "integer"}}),
            )));
        let bare = ToolDefinition::new("bare", input());
        let mut set = ToolSet::new();
        for def in [full, list, bare] {
            set = set.with_fn(def, |_, _| async { Ok(CallToolResult::default()) });
        }
        set.into_entries(ToolRules {
            profile: SchemaProfile::Portable,
            server_name: "test",
        })
        .expect("the tools build")
    }

    /// The tool of `entry` as `version` shows it, made the long way: a copy of the whole
    /// `Tool`, then the fields the revision does not know removed.
    fn copied(entry: &ToolEntry, version: ProtocolVersion) -> Tool {
        let mut tool = entry.tool.clone();
        if !version.has_structured_output() {
            tool.output_schema = None;
        } else if version.needs_object_output() && entry.wraps_output {
            tool.output_schema = tool.output_schema.as_ref().map(schema::wrap_output_schema);
        }
        display_fields(version, &mut tool.title, &mut tool.icons);
        tool
    }

    #[test]
    fn a_borrowed_page_serializes_as_the_list_result_of_copied_tools() {
        let entries = entries();
        assert!(
            entries.iter().any(|e| e.wraps_output),
            "one output is wrapped"
        );
        for version in ProtocolVersion::ALL {
            let page = ToolsPage {
                tools: entries.iter().map(|e| ToolView::of(e, version)).collect(),
                next_cursor: Some("c".into()),
                result_type: Some(ResultType::Complete),
                ttl_ms: Some(5),
                cache_scope: Some(CacheScope::Private),
                meta: Some(object(json!({"k": true}))),
            };
            let copied = ListToolsResult {
                tools: entries.iter().map(|e| copied(e, version)).collect(),
                next_cursor: Some("c".into()),
                result_type: Some(ResultType::Complete),
                ttl_ms: Some(5),
                cache_scope: Some(CacheScope::Private),
                meta: Some(object(json!({"k": true}))),
            };
            assert_eq!(
                serde_json::to_string(&page).unwrap(),
                serde_json::to_string(&copied).unwrap(),
                "{version:?}"
            );
            let empty = ToolsPage {
                tools: Vec::new(),
                next_cursor: None,
                result_type: None,
                ttl_ms: None,
                cache_scope: None,
                meta: None,
            };
            assert_eq!(
                serde_json::to_string(&empty).unwrap(),
                serde_json::to_string(&ListToolsResult::default()).unwrap()
            );
        }
    }
}
