//! Entries: definitions checked (names, URIs, templates, `_meta`, `x-mcp-header`, the schema
//! profile's rules), shaped (tool schemas, for their profile) and compiled (validators) into
//! what the catalog serves and the dispatcher calls.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::definition::{
    CacheOverride, PromptDefinition, ResourceDefinition, ResourceShape, TaskMode, ToolDefinition,
};
use super::handler::{PromptFn, ReadFn, ToolFn};
use super::set::{PromptSet, ResourceSet, ToolSet};
use crate::apps::{self, UiToolMeta};
use crate::completion::ErasedCompleter;
use crate::error::Error;
use crate::headers::HeaderParam;
use crate::location::Location;
use crate::middleware::{CallService, Run};
use crate::principal::Requirement;
use crate::protocol::{
    CallToolResult, JsonObject, Prompt, PromptArgument, Resource, ResourceTemplate, Tool,
};
use crate::schema::{self, Validator};
use crate::schema_profile::{self as profile, Role, SchemaProfile};
use crate::template::UriTemplate;

/// What tool entries are checked and shaped against beyond their own definitions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolRules<'a> {
    /// The server's schema profile (a tool may choose another).
    pub(crate) profile: SchemaProfile,
    /// The server's name (`serverInfo.name`), which clients prefix tool names with.
    pub(crate) server_name: &'a str,
}

/// A tool ready to serve: definition, compiled validators and handler.
pub(crate) struct ToolEntry {
    /// Its name (the tool's), shared with every call of it.
    pub(crate) name: Arc<str>,
    /// The tool as clients see it: its schemas shaped for its profile.
    pub(crate) tool: Tool,
    /// `outputSchema` root is not an object: legacy revisions see it wrapped in `{result}`.
    pub(crate) wraps_output: bool,
    /// The profile wrapped the output schema in `{result}`: every revision sees
    /// `structuredContent` wrapped likewise.
    pub(crate) wraps_structured: bool,
    /// Arguments, against the input schema as defined.
    pub(crate) validator: Validator,
    /// `structuredContent`, against the output schema as clients see it (before wrapping).
    pub(crate) output_validator: Option<Validator>,
    /// The parameters mirrored in `Mcp-Param-*` headers (checked by HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) headers: Vec<HeaderParam>,
    pub(crate) call: ToolFn,
    /// The tool's own middleware stack.
    pub(crate) layers: Option<CallService>,
    /// The scopes a caller needs.
    pub(crate) requirement: Requirement,
    /// Whether, and from when, it runs as a task.
    pub(crate) task: TaskMode,
    /// The MCP Apps view that renders its results (`_meta.ui.resourceUri`).
    pub(crate) view: Option<String>,
    /// Whether the model may list and call it (`_meta.ui.visibility` has `"model"`, or
    /// there is none): clients that render no views see only these.
    pub(crate) model_visible: bool,
    /// Its scalar arguments, coerced from strings before validation (not under the
    /// `Standard` profile).
    pub(crate) scalars: Vec<(String, crate::outcome::Scalar)>,
    pub(crate) location: Location,
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.tool.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

fn definition_error(kind: &'static str, name: &str, location: Location, reason: String) -> Error {
    Error::Definition {
        kind,
        name: name.to_owned(),
        location,
        reason,
    }
}

fn parse_meta(
    kind: &'static str,
    name: &str,
    location: Location,
    meta: Option<&str>,
) -> Result<Option<JsonObject>, Error> {
    meta.map(|json| match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(obj)) => Ok(obj),
        Ok(_) => Err(definition_error(
            kind,
            name,
            location,
            "meta must be a JSON object".into(),
        )),
        Err(e) => Err(definition_error(
            kind,
            name,
            location,
            format!("meta is not valid JSON: {e}"),
        )),
    })
    .transpose()
}

/// A validator for one of a tool's schemas (`schema`, as the entry uses it). A definition
/// that can be built again (`rebuild`) keeps no copy: `from` takes the schema out of the
/// rebuilt definition when the validator compiles. Any other keeps a compact copy.
fn tool_validator(
    schema: &JsonObject,
    rebuild: Option<fn() -> ToolDefinition>,
    from: impl Fn(ToolDefinition) -> JsonObject + Send + Sync + 'static,
) -> Result<Validator, String> {
    match rebuild {
        Some(rebuild) => Validator::rebuilt(schema, move || from(rebuild())),
        None => Validator::compile(schema),
    }
}

impl ToolEntry {
    fn new(mut def: ToolDefinition, call: ToolFn, rules: ToolRules<'_>) -> Result<Self, Error> {
        let kind = "tool";
        let err = |reason: String| definition_error(kind, &def.name, def.location, reason);
        if def.name.is_empty() || def.name.len() > 128 {
            return Err(err("tool names must be 1 to 128 characters long".into()));
        }
        if let Some(bad) = def
            .name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            return Err(err(format!(
                "tool names may contain only ASCII letters, digits, `_`, `-` and `.`, not {bad:?}"
            )));
        }
        check_scopes(&def.requirement).map_err(err)?;
        // Before the validator: it checks arguments against the normalized schema.
        let headers = crate::headers::header_params(&mut def.input_schema).map_err(err)?;
        let validator = tool_validator(&def.input_schema, def.rebuild, |again| {
            let mut schema = again.input_schema;
            // As above; it succeeded there, and the schema is the same.
            let _ = crate::headers::header_params(&mut schema);
            schema
        })
        .map_err(|e| err(format!("the input schema does not compile: {e}")))?;
        let mut meta = parse_meta(kind, &def.name, def.location, def.meta.as_deref())?;
        let ui = crate::apps::tool_meta(&mut meta, &def.ui).map_err(err)?;

        let chosen = def.schema_profile.unwrap_or(rules.profile);
        let scalars = if chosen == SchemaProfile::Standard {
            Vec::new()
        } else {
            crate::outcome::scalar_properties(&def.input_schema)
        };
        let input = profile::shape(chosen, Role::Input, std::mem::take(&mut def.input_schema));
        let output = def
            .output_schema
            .take()
            .map(|s| profile::shape(chosen, Role::Output, s));
        let violations: Vec<_> = profile::check_name(chosen, rules.server_name, &def.name)
            .into_iter()
            .chain(input.violations)
            .chain(output.iter().flat_map(|o| o.violations.iter().cloned()))
            .filter(|v| !def.allowed.contains(&v.rule()))
            .collect();
        if !violations.is_empty() {
            return Err(Error::Schema {
                name: def.name.into_owned(),
                location: def.location,
                profile: chosen,
                violations,
            });
        }
        if !schema::is_object_schema(&input.schema) {
            return Err(err(
                "the input schema must have `type: \"object\"` at its root".into(),
            ));
        }
        let output_validator = output
            .as_ref()
            .map(|o| {
                tool_validator(&o.schema, def.rebuild, move |again| {
                    let schema = again.output_schema.unwrap_or_default();
                    profile::shape(chosen, Role::Output, schema).schema
                })
            })
            .transpose()
            .map_err(|e| err(format!("the output schema does not compile: {e}")))?;
        let wraps_structured = output.as_ref().is_some_and(|o| o.wrap);
        let output_schema = output.map(|o| {
            if o.wrap {
                schema::wrap_output_schema(&o.schema)
            } else {
                o.schema
            }
        });
        let wraps_output = output_schema
            .as_ref()
            .is_some_and(|s| !schema::is_object_schema(s));
        let tool = Tool {
            name: def.name.into_owned(),
            title: def.title.map(Cow::into_owned),
            description: def.description.map(Cow::into_owned),
            input_schema: input.schema,
            output_schema,
            annotations: def.annotations,
            icons: (!def.icons.is_empty()).then_some(def.icons),
            meta,
        };
        Ok(Self {
            name: Arc::from(tool.name.as_str()),
            tool,
            wraps_output,
            wraps_structured,
            validator,
            output_validator,
            headers,
            call,
            layers: def.layers.build(Run),
            requirement: def.requirement,
            task: def.task,
            view: ui.as_ref().and_then(|u| u.resource_uri.clone()),
            model_visible: ui.as_ref().is_none_or(UiToolMeta::model_visible),
            scalars,
            location: def.location,
        })
    }

    /// Checks a result against the tool's output schema: `Err` says what does not match.
    /// Error results (`isError`) are not checked; a successful one must carry
    /// `structuredContent` when the tool declares an output schema.
    pub(crate) fn check_output(&self, result: &CallToolResult) -> Result<(), String> {
        let Some(validator) = &self.output_validator else {
            return Ok(());
        };
        if result.is_error == Some(true) {
            return Ok(());
        }
        match &result.structured_content {
            Some(value) => validator.check(value),
            None => Err("the result has no `structuredContent`".into()),
        }
    }
}

/// A prompt ready to serve.
pub(crate) struct PromptEntry {
    /// Its name (the prompt's), shared with every call of it.
    pub(crate) name: Arc<str>,
    pub(crate) prompt: Prompt,
    pub(crate) arguments_schema: JsonObject,
    pub(crate) validator: Validator,
    pub(crate) completers: BTreeMap<String, Arc<dyn ErasedCompleter>>,
    pub(crate) get: PromptFn,
    /// The prompt's own middleware stack.
    pub(crate) layers: Option<CallService>,
    /// The scopes a caller needs.
    pub(crate) requirement: Requirement,
    pub(crate) location: Location,
}

impl fmt::Debug for PromptEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptEntry")
            .field("name", &self.prompt.name)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// The properties of an object schema as `(name, description, required)`.
pub(crate) fn schema_arguments(schema: &JsonObject) -> Vec<(String, Option<String>, bool)> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| {
                    let description = prop
                        .get("description")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    (name.clone(), description, required.contains(&name.as_str()))
                })
                .collect()
        })
        .unwrap_or_default()
}

impl PromptEntry {
    fn new(def: PromptDefinition, get: PromptFn) -> Result<Self, Error> {
        let kind = "prompt";
        if def.name.is_empty() {
            return Err(definition_error(
                kind,
                &def.name,
                def.location,
                "empty name".into(),
            ));
        }
        let meta = parse_meta(kind, &def.name, def.location, def.meta.as_deref())?;
        check_scopes(&def.requirement)
            .map_err(|reason| definition_error(kind, &def.name, def.location, reason))?;
        let validator = Validator::compile(&def.arguments_schema).map_err(|e| {
            definition_error(
                kind,
                &def.name,
                def.location,
                format!("the arguments schema does not compile: {e}"),
            )
        })?;
        let declared = schema_arguments(&def.arguments_schema);
        for arg in def.completers.keys() {
            if !declared.iter().any(|(n, ..)| n == arg) {
                return Err(definition_error(
                    kind,
                    &def.name,
                    def.location,
                    format!("completer for unknown argument `{arg}`"),
                ));
            }
        }
        let arguments: Vec<PromptArgument> = declared
            .into_iter()
            .map(|(name, description, required)| PromptArgument {
                name,
                title: None,
                description,
                required: Some(required),
            })
            .collect();
        let prompt = Prompt {
            name: def.name.into_owned(),
            title: def.title.map(Cow::into_owned),
            description: def.description.map(Cow::into_owned),
            arguments: (!arguments.is_empty()).then_some(arguments),
            icons: (!def.icons.is_empty()).then_some(def.icons),
            meta,
        };
        Ok(Self {
            name: Arc::from(prompt.name.as_str()),
            prompt,
            arguments_schema: def.arguments_schema,
            validator,
            completers: def.completers,
            get,
            layers: def.layers.build(Run),
            requirement: def.requirement,
            location: def.location,
        })
    }
}

/// A concrete resource ready to serve.
pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) cache: CacheOverride,
    pub(crate) read: ReadFn,
    /// The resource's own middleware stack.
    pub(crate) layers: Option<CallService>,
    /// The scopes a caller needs.
    pub(crate) requirement: Requirement,
    pub(crate) location: Location,
}

impl fmt::Debug for ResourceEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceEntry")
            .field("uri", &self.resource.uri)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A resource template ready to serve.
pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) matcher: UriTemplate,
    pub(crate) variables_schema: JsonObject,
    pub(crate) cache: CacheOverride,
    pub(crate) completers: BTreeMap<String, Arc<dyn ErasedCompleter>>,
    pub(crate) read: ReadFn,
    /// The template's own middleware stack.
    pub(crate) layers: Option<CallService>,
    /// The scopes a caller needs.
    pub(crate) requirement: Requirement,
    pub(crate) location: Location,
}

impl fmt::Debug for TemplateEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TemplateEntry")
            .field("uriTemplate", &self.template.uri_template)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Every required scope is an RFC 6749 scope token.
fn check_scopes(requirement: &Requirement) -> Result<(), String> {
    match requirement
        .scopes
        .iter()
        .find(|s| !Requirement::valid_scope(s))
    {
        Some(bad) => Err(format!(
            "{bad:?} is not a scope (printable ASCII without spaces, `\"` or `\\`)"
        )),
        None => Ok(()),
    }
}

/// `read`, with the view's `_meta.ui` added to the contents it returns.
fn stamping(read: ReadFn, ui: Value) -> ReadFn {
    let ui = Arc::new(ui);
    Arc::new(move |request, cx| {
        let (read, ui) = (read.clone(), ui.clone());
        let uri = request.uri.clone();
        Box::pin(async move {
            let mut contents = read(request, cx).await?;
            apps::stamp(&mut contents, &uri, &ui);
            Ok(contents)
        })
    })
}

enum ResourceOrTemplate {
    Resource(ResourceEntry),
    Template(TemplateEntry),
}

fn build_resource(def: ResourceDefinition, read: ReadFn) -> Result<ResourceOrTemplate, Error> {
    let mut meta = parse_meta("resource", &def.name, def.location, def.meta.as_deref())?;
    check_scopes(&def.requirement)
        .map_err(|reason| definition_error("resource", &def.name, def.location, reason))?;
    let icons = (!def.icons.is_empty()).then_some(def.icons);
    match def.shape {
        ResourceShape::Static { uri } => {
            if uri.is_empty() || !uri.contains(':') {
                return Err(definition_error(
                    "resource",
                    &def.name,
                    def.location,
                    format!("`{uri}` is not an absolute URI"),
                ));
            }
            let err =
                |reason: String| definition_error("resource", &def.name, def.location, reason);
            let view = apps::resource_meta(&uri, &mut meta, def.ui.as_ref()).map_err(err)?;
            let mut mime_type = def.mime_type.map(Cow::into_owned);
            let mut read = read;
            if view.is_some() {
                match &mime_type {
                    None => mime_type = Some(apps::APP_MIME_TYPE.to_owned()),
                    Some(m) if !apps::is_app_mime(m) => {
                        return Err(err(format!(
                            "`{uri}` is an MCP Apps view (a `ui://` resource): its type is \
                             `{}`, not `{m}`",
                            apps::APP_MIME_TYPE
                        )));
                    }
                    Some(_) => {}
                }
                if let Some(ui) = meta.as_ref().and_then(|m| m.get("ui")) {
                    read = stamping(read, ui.clone());
                }
            }
            Ok(ResourceOrTemplate::Resource(ResourceEntry {
                resource: Resource {
                    uri: uri.into_owned(),
                    name: def.name.into_owned(),
                    title: def.title.map(Cow::into_owned),
                    description: def.description.map(Cow::into_owned),
                    mime_type,
                    size: def.size,
                    annotations: None,
                    icons,
                    meta,
                },
                cache: def.cache,
                read,
                layers: def.layers.build(Run),
                requirement: def.requirement,
                location: def.location,
            }))
        }
        ResourceShape::Template {
            template,
            variables_schema,
        } => {
            let err = |reason: String| {
                definition_error("resource template", &def.name, def.location, reason)
            };
            if apps::is_view_uri(&template) {
                return Err(err(
                    "an MCP Apps view is one fixed `ui://` resource (tools name it by its URI): \
                     declare it with `uri = …`, not as a template"
                        .into(),
                ));
            }
            apps::resource_meta(&template, &mut meta, def.ui.as_ref()).map_err(&err)?;
            let matcher = UriTemplate::parse(&template).map_err(&err)?;
            let declared: Vec<String> = schema_arguments(&variables_schema)
                .into_iter()
                .map(|(n, ..)| n)
                .collect();
            for var in matcher.variables() {
                if !declared.iter().any(|d| d == var) {
                    return Err(err(format!(
                        "template variable `{var}` has no matching parameter"
                    )));
                }
            }
            for name in def.completers.keys() {
                if !matcher.variables().any(|v| v == name) {
                    return Err(err(format!("completer for unknown variable `{name}`")));
                }
            }
            Ok(ResourceOrTemplate::Template(TemplateEntry {
                template: ResourceTemplate {
                    uri_template: template.into_owned(),
                    name: def.name.into_owned(),
                    title: def.title.map(Cow::into_owned),
                    description: def.description.map(Cow::into_owned),
                    mime_type: def.mime_type.map(Cow::into_owned),
                    annotations: None,
                    icons,
                    meta,
                },
                matcher,
                variables_schema,
                cache: def.cache,
                completers: def.completers,
                read,
                layers: def.layers.build(Run),
                requirement: def.requirement,
                location: def.location,
            }))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Sets into entries (at build time and for run-time additions alike)

impl ToolSet {
    /// Checks, shapes and compiles every tool of the set.
    pub(crate) fn into_entries(self, rules: ToolRules<'_>) -> Result<Vec<Arc<ToolEntry>>, Error> {
        self.items
            .into_iter()
            .map(|t| ToolEntry::new(t.definition, t.call, rules).map(Arc::new))
            .collect()
    }
}

impl PromptSet {
    /// Checks and compiles every prompt of the set.
    pub(crate) fn into_entries(self) -> Result<Vec<Arc<PromptEntry>>, Error> {
        self.items
            .into_iter()
            .map(|p| PromptEntry::new(p.definition, p.get).map(Arc::new))
            .collect()
    }
}

/// The concrete resources and the templates of a set.
pub(crate) type ResourceEntries = (Vec<Arc<ResourceEntry>>, Vec<Arc<TemplateEntry>>);

impl ResourceSet {
    /// Checks and compiles every resource and template of the set.
    pub(crate) fn into_entries(self) -> Result<ResourceEntries, Error> {
        let (mut fixed, mut templates) = (Vec::new(), Vec::new());
        for r in self.items {
            match build_resource(r.definition, r.read)? {
                ResourceOrTemplate::Resource(e) => fixed.push(Arc::new(e)),
                ResourceOrTemplate::Template(e) => templates.push(Arc::new(e)),
            }
        }
        Ok((fixed, templates))
    }
}
