//! Rendering outcomes for a protocol revision: 2026-07-28 results carry `resultType`,
//! `_meta.serverInfo` and (where cacheable) `ttlMs`/`cacheScope`; legacy results carry none
//! of these, keep object-rooted `outputSchema`/`structuredContent`, and drop fields their
//! revision does not know. `structuredContent` is wrapped in `{result}` where the tool's
//! output schema is (by its schema profile on every revision, by the legacy ones' rule).

use bytes::Bytes;
use serde::Serialize;
use serde_json::Value;

use crate::cache::{CachePolicy, ListKind, encode_cursor};
use crate::catalog::Catalog;
use crate::protocol::{
    CacheScope, CallToolResult, CompleteResult, Completion, CreateTaskResult, DiscoverResult,
    EmptyResult, GetPromptResult, GetSkillResult, GetTaskResult, Icon, InitializeResult,
    InputRequiredResult, JsonObject, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, ProtocolVersion,
    ReadResourceDirectoryResult, ReadResourceResult, RequestId, Resource, ResourceContents,
    ResultType, SkillEntry, SubscriptionsListenResult, Tool,
};
use crate::registry::entry::ToolEntry;
use crate::runtime::state::ServerInner;
use crate::schema;
use crate::tasks::TaskRecord;

pub(crate) fn to_bytes(value: &impl Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).expect("protocol results serialize"))
}

/// The `_meta` of a modern result: the handler's own keys plus `serverInfo`.
fn with_server_info(server: &ServerInner, meta: Option<JsonObject>) -> Option<JsonObject> {
    let mut meta = meta.unwrap_or_default();
    for (k, v) in &server.server_info_meta {
        meta.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Some(meta)
}

/// Clears the display fields a revision does not know: `title` (before 2025-06-18) and
/// `icons` (before 2025-11-25).
fn display_fields(
    version: ProtocolVersion,
    title: &mut Option<String>,
    icons: &mut Option<Vec<Icon>>,
) {
    if !version.has_titles() {
        *title = None;
    }
    if !version.has_icons() {
        *icons = None;
    }
}

/// Fills the common result fields of a modern result (and clears them for legacy ones).
macro_rules! stamp {
    ($server:expr, $version:expr, $result:expr) => {{
        let r = $result;
        if $version.is_modern() {
            r.result_type = Some(ResultType::Complete);
            r.meta = with_server_info($server, r.meta.take());
        } else {
            r.result_type = None;
        }
    }};
    ($server:expr, $version:expr, $result:expr, $cache:expr) => {{
        let r = $result;
        stamp!($server, $version, &mut *r);
        if $version.is_modern() {
            let c: CachePolicy = $cache;
            r.ttl_ms = Some(c.ttl_ms);
            r.cache_scope = Some(c.scope);
        } else {
            r.ttl_ms = None;
            r.cache_scope = None;
        }
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
            stamp!(
                server,
                ProtocolVersion::LATEST,
                &mut result,
                server.config.cache.discover
            );
            to_bytes(&result)
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
        capabilities: server.capabilities.clone(),
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

/// A tool definition as a revision shows it.
pub(crate) fn tool_for(entry: &ToolEntry, version: ProtocolVersion) -> Tool {
    let mut tool = entry.tool.clone();
    if !version.has_structured_output() {
        tool.output_schema = None;
    } else if version.needs_object_output() && entry.wraps_output {
        tool.output_schema = tool.output_schema.as_ref().map(schema::wrap_output_schema);
    }
    display_fields(version, &mut tool.title, &mut tool.icons);
    tool
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
        let mut cache = server.config.cache.for_list(kind);
        if private {
            cache.scope = CacheScope::Private;
        }
        match kind {
            ListKind::Tools => {
                let mut r = ListToolsResult {
                    tools: catalog.tools[start..end]
                        .iter()
                        .map(|t| tool_for(t, version))
                        .collect(),
                    next_cursor,
                    ..ListToolsResult::default()
                };
                stamp!(server, version, &mut r, cache);
                to_bytes(&r)
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
                stamp!(server, version, &mut r, cache);
                to_bytes(&r)
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
                stamp!(server, version, &mut r, cache);
                to_bytes(&r)
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
                stamp!(server, version, &mut r, cache);
                to_bytes(&r)
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
    stamp!(server, version, &mut result);
    to_bytes(&result)
}

pub(crate) fn prompt_result(
    server: &ServerInner,
    version: ProtocolVersion,
    mut result: GetPromptResult,
) -> Bytes {
    stamp!(server, version, &mut result);
    to_bytes(&result)
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
    stamp!(server, version, &mut result, cache);
    to_bytes(&result)
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
    stamp!(server, version, &mut result);
    to_bytes(&result)
}

/// An `InputRequiredResult`: never cached, so no `ttlMs`/`cacheScope`.
pub(crate) fn input_required(server: &ServerInner, mut result: InputRequiredResult) -> Bytes {
    result.meta = Some(server.server_info_meta.clone());
    to_bytes(&result)
}

/// The final result of a `subscriptions/listen` ended by the server.
/// A page of `skills/list` (cached like the resource list).
pub(crate) fn skills_page<'a>(
    server: &ServerInner,
    skills: impl Iterator<Item = &'a SkillEntry>,
    next_cursor: Option<String>,
) -> Bytes {
    let mut result = ListSkillsResult {
        result_type: None,
        skills: skills.cloned().collect(),
        next_cursor,
        ttl_ms: None,
        cache_scope: None,
        meta: None,
    };
    stamp!(
        server,
        ProtocolVersion::LATEST,
        &mut result,
        server.config.cache.resources
    );
    to_bytes(&result)
}

/// `skills/get` (cached like a resource read).
pub(crate) fn skill(server: &ServerInner, entry: &SkillEntry) -> Bytes {
    let mut result = GetSkillResult {
        result_type: None,
        skill: entry.clone(),
        ttl_ms: None,
        cache_scope: None,
        meta: None,
    };
    stamp!(
        server,
        ProtocolVersion::LATEST,
        &mut result,
        server.config.cache.read
    );
    to_bytes(&result)
}

/// A page of `resources/directory/read`.
pub(crate) fn directory_page<'a>(
    server: &ServerInner,
    children: impl Iterator<Item = &'a Resource>,
    next_cursor: Option<String>,
) -> Bytes {
    let mut result = ReadResourceDirectoryResult {
        result_type: None,
        resources: children.cloned().collect(),
        next_cursor,
        meta: None,
    };
    stamp!(server, ProtocolVersion::LATEST, &mut result);
    to_bytes(&result)
}

/// The answer to a call that became a task: `resultType: "task"` and the task's fields.
pub(crate) fn task_created(server: &ServerInner, record: &TaskRecord) -> Bytes {
    to_bytes(&CreateTaskResult {
        result_type: ResultType::Task,
        task: record.task(),
        meta: with_server_info(server, None),
    })
}

/// `tasks/get`: the task in detail.
pub(crate) fn task_detail(server: &ServerInner, record: &TaskRecord) -> Bytes {
    to_bytes(&GetTaskResult {
        result_type: ResultType::Complete,
        task: record.detail(),
        meta: with_server_info(server, None),
    })
}

/// The empty acknowledgement of a modern request (`tasks/update`, `tasks/cancel`).
pub(crate) fn acknowledged(server: &ServerInner) -> Bytes {
    to_bytes(&EmptyResult {
        result_type: Some(ResultType::Complete),
        meta: with_server_info(server, None),
    })
}

pub(crate) fn listen_closed(server: &ServerInner, subscription_id: &RequestId) -> Bytes {
    let mut result = SubscriptionsListenResult::closed(subscription_id);
    result.meta = with_server_info(server, result.meta.take());
    to_bytes(&result)
}
