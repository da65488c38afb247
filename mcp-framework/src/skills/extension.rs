//! The Skills extension as an [`Extension`]: `skills/list` (paginated, an entry never
//! split), `skills/get` and `resources/directory/read`, answered from the server's skill
//! index through the same public API a third party's extension uses (declared under
//! `extensions` for 2026-07-28 clients only; a legacy client reads the files as plain
//! resources). `build()` registers it when the server has skills.

use std::sync::Arc;

use arc_swap::ArcSwap;
use serde::Deserialize;

use super::index::SkillIndex;
use crate::cache::{CachePolicy, decode_page, encode_page};
use crate::context::Context;
use crate::extension::{Extension, Setup};
use crate::protocol::{
    ErrorObject, GetSkillResult, JsonObject, ListSkillsResult, ReadResourceDirectoryResult,
    ResultType, keys,
};

/// The extension: the index it answers from (shared with the server's handle, which swaps
/// it when skills are added or removed), the page size and the caching hints.
pub(crate) struct SkillsExtension {
    pub(crate) index: Arc<ArcSwap<SkillIndex>>,
    pub(crate) page_size: usize,
    /// `skills/list`'s hints (the resource list's).
    pub(crate) list_cache: CachePolicy,
    /// `skills/get`'s hints (a resource read's).
    pub(crate) read_cache: CachePolicy,
}

#[derive(Deserialize)]
struct PageParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
}

impl Extension for SkillsExtension {
    fn id(&self) -> &str {
        keys::SKILLS_EXTENSION
    }

    fn settings(&self) -> JsonObject {
        let mut settings = JsonObject::new();
        settings.insert("directoryRead".into(), true.into());
        settings
    }

    fn modern_only(&self) -> bool {
        true
    }

    fn setup(&self, setup: &mut Setup) {
        let size = self.page_size.max(1);
        let (index, cache) = (self.index.clone(), self.list_cache);
        setup.request("skills/list", move |p: PageParams, _: Context| {
            std::future::ready(list(&index.load(), size, cache, p.cursor.as_deref()))
        });
        let (index, cache) = (self.index.clone(), self.read_cache);
        setup.request("skills/get", move |p: UriParams, _: Context| {
            std::future::ready(get(&index.load(), cache, &p.uri))
        });
        let index = self.index.clone();
        setup.request(
            "resources/directory/read",
            move |p: UriParams, _: Context| std::future::ready(directory(&index.load(), size, &p)),
        );
    }
}

/// The page a cursor names among `count` items (`tag` tells the methods' cursors apart).
fn page(
    tag: char,
    cursor: Option<&str>,
    count: usize,
    size: usize,
) -> Result<(usize, Option<String>), ErrorObject> {
    let pages = count.div_ceil(size).max(1);
    let page = match cursor {
        None => 0,
        Some(c) => decode_page(tag, c, pages)?,
    };
    let next = (page + 1 < pages).then(|| encode_page(tag, page + 1));
    Ok((page, next))
}

fn list(
    index: &SkillIndex,
    size: usize,
    cache: CachePolicy,
    cursor: Option<&str>,
) -> Result<ListSkillsResult, ErrorObject> {
    let entries = index.entries();
    let (n, next_cursor) = page('s', cursor, entries.len(), size)?;
    Ok(ListSkillsResult {
        result_type: Some(ResultType::Complete),
        skills: entries.iter().skip(n * size).take(size).cloned().collect(),
        next_cursor,
        ttl_ms: Some(cache.ttl_ms),
        cache_scope: Some(cache.scope),
        meta: None,
    })
}

fn get(index: &SkillIndex, cache: CachePolicy, uri: &str) -> Result<GetSkillResult, ErrorObject> {
    let entry = index.entry(uri).ok_or_else(|| {
        ErrorObject::invalid_params(format!("No skill is served at {uri}"))
            .with_data(serde_json::json!({"uri": uri}))
    })?;
    Ok(GetSkillResult {
        result_type: Some(ResultType::Complete),
        skill: entry.clone(),
        ttl_ms: Some(cache.ttl_ms),
        cache_scope: Some(cache.scope),
        meta: None,
    })
}

fn directory(
    index: &SkillIndex,
    size: usize,
    params: &UriParams,
) -> Result<ReadResourceDirectoryResult, ErrorObject> {
    let children = index.directory(&params.uri).ok_or_else(|| {
        ErrorObject::invalid_params(format!("{} is not a directory resource", params.uri))
            .with_data(serde_json::json!({"uri": params.uri}))
    })?;
    let (n, next_cursor) = page('d', params.cursor.as_deref(), children.len(), size)?;
    Ok(ReadResourceDirectoryResult {
        result_type: Some(ResultType::Complete),
        resources: children.iter().skip(n * size).take(size).cloned().collect(),
        next_cursor,
        meta: None,
    })
}
