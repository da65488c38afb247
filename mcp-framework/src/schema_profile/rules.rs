//! The profiles ([`SchemaProfile`]), the rules they refuse tools for ([`SchemaRule`]), what
//! a refusal says ([`SchemaViolation`]), and what shaping one schema produces.

use std::fmt;

use crate::protocol::JsonObject;

/// How the `inputSchema` and `outputSchema` of tools are shaped for clients.
///
/// Chosen for the whole server with
/// [`ServerBuilder::schema_profile`](crate::ServerBuilder::schema_profile) and per tool
/// with `#[tool(schema = "…")]` or
/// [`ToolDefinition::schema_profile`](crate::ToolDefinition::schema_profile). The server
/// validates arguments against the schema the tool was defined with, whatever the profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// JSON Schema 2020-12 exactly as derived or written: `$defs`/`$ref`, combinators and
    /// conditionals, schemars' `format`s (`"double"`, `"uint32"`…), non-object output roots
    /// on 2026-07-28 (`#[tool(schema = "standard")]`).
    Standard,
    /// What the major clients all accept (the default): `$ref`s inlined, only the
    /// `date-time` format (integer widths become `minimum`/`maximum`), `items` on every
    /// array, object roots without combinators, no `$schema`, tool names of
    /// `[A-Za-z0-9_-]` within 64 characters with the server's name
    /// (`#[tool(schema = "portable")]`).
    #[default]
    Portable,
    /// `Portable`, and the input schema follows OpenAI's strict function calling: every
    /// property required (optional ones as `type: [T, "null"]`) and
    /// `additionalProperties: false` on every object (`#[tool(schema = "openai_strict")]`).
    OpenAiStrict,
}

impl SchemaProfile {
    /// Every profile.
    pub const ALL: [Self; 3] = [Self::Standard, Self::Portable, Self::OpenAiStrict];

    /// The name of `#[tool(schema = "…")]`: `standard`, `portable` or `openai_strict`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Portable => "portable",
            Self::OpenAiStrict => "openai_strict",
        }
    }
}

impl fmt::Display for SchemaProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule of the `Portable` and `OpenAiStrict` profiles that the transform cannot satisfy
/// by itself: a tool breaking one is refused by `build()` (and by
/// [`ServerHandle::add_tools`](crate::ServerHandle::add_tools)) unless it accepts it with
/// `#[tool(allow(rule))]` or [`ToolDefinition::allow`](crate::ToolDefinition::allow). An
/// accepted construct is served as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaRule {
    /// `tool_name`: tool names of `[A-Za-z0-9_-]` (OpenAI function names have no `.`),
    /// and the server's name plus the tool's within 64 characters (clients prefix tool
    /// names with the server's and cut at 64).
    ToolName,
    /// `root_combinator`: no `oneOf`/`anyOf`/`allOf`/`not`/`if`/`then`/`else` at the root
    /// of an input schema (clients reject them; outputs are wrapped instead).
    RootCombinator,
    /// `recursive_type`: a type that contains itself cannot be inlined.
    RecursiveType,
    /// `unresolvable_ref`: a `$ref` that is not `#/$defs/…` (anchors, other documents).
    UnresolvableRef,
    /// `dialect`: a `$schema` other than 2020-12 (the transform speaks 2020-12 only).
    Dialect,
    /// `open_object` (`OpenAiStrict`): maps (`additionalProperties` or
    /// `patternProperties`) have no strict form.
    OpenObject,
    /// `optional_field` (`OpenAiStrict`): an optional property that does not accept `null`
    /// cannot be made required (`#[serde(default)]` fields; `Option<T>` is fine).
    OptionalField,
}

impl SchemaRule {
    /// Every rule.
    pub const ALL: [Self; 7] = [
        Self::ToolName,
        Self::RootCombinator,
        Self::RecursiveType,
        Self::UnresolvableRef,
        Self::Dialect,
        Self::OpenObject,
        Self::OptionalField,
    ];

    /// The name of `#[tool(allow(…))]`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ToolName => "tool_name",
            Self::RootCombinator => "root_combinator",
            Self::RecursiveType => "recursive_type",
            Self::UnresolvableRef => "unresolvable_ref",
            Self::Dialect => "dialect",
            Self::OpenObject => "open_object",
            Self::OptionalField => "optional_field",
        }
    }

    /// How to fix a violation.
    const fn fix(self) -> &'static str {
        match self {
            Self::ToolName => "rename the tool (letters, digits, `_` and `-`)",
            Self::RootCombinator => {
                "take the alternatives as one object with optional properties, or as one \
                 parameter of the enum type"
            }
            Self::RecursiveType => "bound the nesting with a non-recursive type",
            Self::UnresolvableRef => "point `$ref`s at `#/$defs/…` definitions",
            Self::Dialect => "write the schema in JSON Schema 2020-12",
            Self::OpenObject => "use a struct, or a list of key-value structs",
            Self::OptionalField => "make the field an `Option<T>`",
        }
    }
}

impl fmt::Display for SchemaRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One construct of a tool that its schema profile refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{pointer}: {message}; {fix}, serve the tool with another profile (`schema = \"standard\"`), \
     or accept it knowingly (`allow({rule})`)",
    fix = rule.fix()
)]
pub struct SchemaViolation {
    rule: SchemaRule,
    pointer: String,
    message: String,
}

impl SchemaViolation {
    pub(crate) fn new(rule: SchemaRule, pointer: impl Into<String>, message: String) -> Self {
        Self {
            rule,
            pointer: pointer.into(),
            message,
        }
    }

    /// The rule broken.
    pub fn rule(&self) -> SchemaRule {
        self.rule
    }

    /// Where, as a JSON pointer into the tool's definition (`/name`,
    /// `/inputSchema/properties/tree`).
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Which of a tool's schemas is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Input,
    Output,
}

impl Role {
    pub(super) fn pointer(self) -> &'static str {
        match self {
            Self::Input => "/inputSchema",
            Self::Output => "/outputSchema",
        }
    }
}

/// A schema as a profile shapes it.
#[derive(Debug)]
pub(crate) struct Shaped {
    /// The schema clients see (for an output that needs it, before wrapping).
    pub(crate) schema: JsonObject,
    /// An output whose root is not a plain object: clients see it wrapped as
    /// `{"result": …}` (and its `structuredContent` likewise).
    pub(crate) wrap: bool,
    /// What the profile refuses.
    pub(crate) violations: Vec<SchemaViolation>,
}
