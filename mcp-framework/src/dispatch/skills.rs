//! The Skills extension in dispatch: `skills/list` (paginated, an entry never split),
//! `skills/get` and `resources/directory/read`, answered from the server's skill index.
//! Its files are ordinary resources, read with `resources/read`.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::reply::Reply;
use super::views::parse;
use crate::cache::{decode_page, encode_page};
use crate::protocol::ErrorObject;
use crate::render;
use crate::runtime::state::ServerInner;
use crate::skills::index::SkillIndex;

#[derive(Deserialize)]
struct PageView {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriPageView {
    uri: String,
    #[serde(default)]
    cursor: Option<String>,
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

/// `skills/list`, `skills/get` or `resources/directory/read`.
pub(super) fn method(
    server: &ServerInner,
    index: &SkillIndex,
    method: &str,
    params: Option<&RawValue>,
) -> Reply {
    let size = server.config.page_size.max(1);
    match method {
        "skills/list" => {
            let view: PageView = match parse(params) {
                Ok(v) => v,
                Err(e) => return Reply::bad(e),
            };
            let entries = index.entries();
            match page('s', view.cursor.as_deref(), entries.len(), size) {
                Ok((n, next)) => {
                    let skills = entries.iter().skip(n * size).take(size);
                    Reply::Result(render::skills_page(server, skills, next))
                }
                Err(e) => Reply::error(e),
            }
        }
        "skills/get" => {
            let view: UriPageView = match parse(params) {
                Ok(v) => v,
                Err(e) => return Reply::bad(e),
            };
            match index.entry(&view.uri) {
                Some(entry) => Reply::Result(render::skill(server, entry)),
                None => Reply::error(
                    ErrorObject::invalid_params(format!("No skill is served at {}", view.uri))
                        .with_data(serde_json::json!({"uri": view.uri})),
                ),
            }
        }
        _ => {
            let view: UriPageView = match parse(params) {
                Ok(v) => v,
                Err(e) => return Reply::bad(e),
            };
            let Some(children) = index.directory(&view.uri) else {
                return Reply::error(
                    ErrorObject::invalid_params(format!(
                        "{} is not a directory resource",
                        view.uri
                    ))
                    .with_data(serde_json::json!({"uri": view.uri})),
                );
            };
            match page('d', view.cursor.as_deref(), children.len(), size) {
                Ok((n, next)) => {
                    let children = children.iter().skip(n * size).take(size);
                    Reply::Result(render::directory_page(server, children, next))
                }
                Err(e) => Reply::error(e),
            }
        }
    }
}
