//! `<server> inspect [--json]` (feature `cli`): what a built server serves, read from its
//! catalog without a client: tools (schemas, annotations, view, task support, scopes),
//! prompts, resources and templates; a table for a person, or JSON (the items as they are
//! listed, each with what lists do not say under `"framework"`).

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::Server;
use crate::principal::Requirement;
use crate::tasks::TaskSupport;

/// What `inspect` prints for `server`.
/// `inspect --card`: the Server Card as served (its remotes are its public URLs; without
/// them each request's card names the endpoint it reached).
pub(crate) fn card(server: &Server) -> Result<String, crate::error::Error> {
    #[cfg(feature = "http")]
    if let Some(card) = &server.http.card {
        return Ok(serde_json::to_string_pretty(&card.document(None)).expect("JSON values"));
    }
    let _ = server;
    Err(crate::error::Error::Command(
        "this server has no Server Card (ServerBuilder::server_card)".into(),
    ))
}

pub(crate) fn inspect(server: &Server, as_json: bool) -> String {
    if as_json {
        let text = serde_json::to_string_pretty(&described(server)).expect("JSON values");
        format!("{text}\n")
    } else {
        table(server)
    }
}

/// Scopes as JSON (absent when none).
fn scopes(requirement: &Requirement) -> Option<Value> {
    (!requirement.scopes.is_empty()).then(|| {
        Value::Array(
            requirement
                .scopes
                .iter()
                .map(|s| Value::String(s.to_string()))
                .collect(),
        )
    })
}

fn task_support(support: TaskSupport) -> Option<&'static str> {
    match support {
        TaskSupport::Forbidden => None,
        TaskSupport::Optional => Some("optional"),
        TaskSupport::Required => Some("required"),
    }
}

/// `item` (a listed item, as JSON) with `extra`'s set fields under `"framework"`.
fn with_extra(item: &impl serde::Serialize, extra: &[(&str, Option<Value>)]) -> Value {
    let mut value = serde_json::to_value(item).expect("protocol types serialize");
    let extra: Map<String, Value> = extra
        .iter()
        .filter_map(|(k, v)| v.clone().map(|v| ((*k).to_owned(), v)))
        .collect();
    if !extra.is_empty()
        && let Value::Object(map) = &mut value
    {
        map.insert("framework".to_owned(), Value::Object(extra));
    }
    value
}

/// The whole server as JSON.
fn described(server: &Server) -> Value {
    let catalog = server.inner.catalog.load();
    let tools: Vec<Value> = catalog
        .tools
        .iter()
        .map(|t| {
            with_extra(
                &t.tool,
                &[
                    ("scopes", scopes(&t.requirement)),
                    (
                        "taskSupport",
                        task_support(t.task.support).map(|s| json!(s)),
                    ),
                    ("view", t.view.clone().map(Value::String)),
                    ("hiddenFromModel", (!t.model_visible).then_some(json!(true))),
                ],
            )
        })
        .collect();
    let prompts: Vec<Value> = catalog
        .prompts
        .iter()
        .map(|p| with_extra(&p.prompt, &[("scopes", scopes(&p.requirement))]))
        .collect();
    let resources: Vec<Value> = catalog
        .resources
        .iter()
        .map(|r| with_extra(&r.resource, &[("scopes", scopes(&r.requirement))]))
        .collect();
    let templates: Vec<Value> = catalog
        .templates
        .iter()
        .map(|t| with_extra(&t.template, &[("scopes", scopes(&t.requirement))]))
        .collect();
    json!({
        "serverInfo": server.info(),
        "instructions": server.inner.instructions,
        "tools": tools,
        "prompts": prompts,
        "resources": resources,
        "resourceTemplates": templates,
    })
}

/// The first line of `text`.
fn first_line(text: Option<&str>) -> &str {
    text.and_then(|t| t.lines().next()).unwrap_or("")
}

/// `name: type` for each property of an object schema, `?` after the optional ones.
fn parameters(schema: &Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    properties
        .iter()
        .map(|(name, p)| {
            let ty = match p.get("type") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("|"),
                _ if p.get("enum").is_some() => "enum".to_owned(),
                // `anyOf` of plain types (an output's `Option<T>`): `string|null`.
                _ => match p
                    .get("anyOf")
                    .and_then(Value::as_array)
                    .and_then(|branches| {
                        branches
                            .iter()
                            .map(|b| b.get("type").and_then(Value::as_str))
                            .collect::<Option<Vec<_>>>()
                    }) {
                    Some(types) => types.join("|"),
                    None => "any".to_owned(),
                },
            };
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{optional}: {ty}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A table for a person.
fn table(server: &Server) -> String {
    let catalog = server.inner.catalog.load();
    let info = server.info();
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", info.name, info.version);
    if let Some(title) = &info.title {
        let _ = writeln!(out, "{title}");
    }
    let _ = writeln!(out, "\nTools ({})", catalog.tools.len());
    for t in &catalog.tools {
        let _ = writeln!(
            out,
            "  {}({})  {}",
            t.tool.name,
            parameters(&t.tool.input_schema),
            first_line(t.tool.description.as_deref())
        );
        let mut notes = Vec::new();
        if let Some(output) = &t.tool.output_schema {
            notes.push(format!("returns {{{}}}", parameters(output)));
        }
        if let Some(a) = &t.tool.annotations {
            for (hint, name) in [
                (a.read_only_hint, "read-only"),
                (a.destructive_hint, "destructive"),
                (a.idempotent_hint, "idempotent"),
                (a.open_world_hint, "open-world"),
            ] {
                if hint == Some(true) {
                    notes.push(name.to_owned());
                }
            }
        }
        if let Some(s) = task_support(t.task.support) {
            notes.push(format!("task: {s}"));
        }
        if !t.requirement.scopes.is_empty() {
            notes.push(format!("scopes: {}", t.requirement.scopes.join(" ")));
        }
        if let Some(view) = &t.view {
            notes.push(format!("view: {view}"));
        }
        if !t.model_visible {
            notes.push("app only".to_owned());
        }
        if !notes.is_empty() {
            let _ = writeln!(out, "      {}", notes.join("; "));
        }
    }
    let _ = writeln!(out, "\nPrompts ({})", catalog.prompts.len());
    for p in &catalog.prompts {
        let arguments = p
            .prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| {
                let optional = if a.required == Some(true) { "" } else { "?" };
                format!("{}{optional}", a.name)
            })
            .collect::<Vec<_>>()
            .join(", ");
        let scopes = scope_note(&p.requirement);
        let _ = writeln!(
            out,
            "  {}({arguments})  {}{scopes}",
            p.prompt.name,
            first_line(p.prompt.description.as_deref())
        );
    }
    let _ = writeln!(out, "\nResources ({})", catalog.resources.len());
    for r in &catalog.resources {
        let r_ = &r.resource;
        let _ = writeln!(
            out,
            "  {}  {}  {}{}",
            r_.uri,
            r_.mime_type.as_deref().unwrap_or("-"),
            first_line(r_.description.as_deref()),
            scope_note(&r.requirement)
        );
    }
    let _ = writeln!(out, "\nResource templates ({})", catalog.templates.len());
    for t in &catalog.templates {
        let t_ = &t.template;
        let _ = writeln!(
            out,
            "  {}  {}  {}{}",
            t_.uri_template,
            t_.mime_type.as_deref().unwrap_or("-"),
            first_line(t_.description.as_deref()),
            scope_note(&t.requirement)
        );
    }
    out
}

/// `  [scopes: a b]`, or nothing.
fn scope_note(requirement: &Requirement) -> String {
    if requirement.scopes.is_empty() {
        String::new()
    } else {
        format!("  [scopes: {}]", requirement.scopes.join(" "))
    }
}
