//! What the parsers produce and the expanders consume: plain data, already validated. No
//! raw attributes are left in here (the user's function is kept only to be re-emitted,
//! with its parameter attributes stripped).

use proc_macro2::Span;
use syn::{Expr, Ident, ItemFn, LitStr, Path, Type, Visibility};

use crate::docs::Docs;

/// Everything a `#[tool]` expands from.
pub(crate) struct ToolModel {
    pub(crate) common: Common,
    /// No doc comment and no `description = …`: a warning at the function's name.
    pub(crate) missing_description: Option<Warning>,
    pub(crate) func: FnModel,
    pub(crate) annotations: Annotations,
    pub(crate) schema: SchemaModel,
    pub(crate) task: TaskModel,
    pub(crate) ui: UiToolModel,
}

/// `task`, `task = "…"` and `task_start = "…"`: the runtime's `TaskSupport` and `TaskStart`
/// variants (`None`: the runtime's default).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaskModel {
    pub(crate) support: Option<&'static str>,
    pub(crate) start: Option<&'static str>,
}

/// Everything a `#[tool_impl]` expands from.
pub(crate) struct ToolImplModel {
    /// The block, without the `#[tool]` attributes and the parameter attributes the macros
    /// own.
    pub(crate) item: syn::ItemImpl,
    pub(crate) self_ty: Type,
    /// The type's name (the module of its tools is named after it).
    pub(crate) type_ident: Ident,
    pub(crate) methods: Vec<MethodTool>,
}

/// A `#[tool]` method: what its generated `#[tool]` function is made of.
pub(crate) struct MethodTool {
    /// The attribute's path as written (`tool`, `mcp_framework::tool`): the generated
    /// function uses it (so the user's import is used, and a renamed one works).
    pub(crate) path: Path,
    /// The `#[tool(…)]` arguments, as written.
    pub(crate) args: proc_macro2::TokenStream,
    /// The method's doc comment.
    pub(crate) docs: Vec<syn::Attribute>,
    /// Its signature (`Self` in the return type spelled as the type).
    pub(crate) sig: syn::Signature,
    /// Its parameters after `&self`, with their attributes, `Self` spelled as the type.
    pub(crate) params: Vec<syn::PatType>,
}

/// Everything a `#[prompt]` expands from.
pub(crate) struct PromptModel {
    pub(crate) common: Common,
    pub(crate) func: FnModel,
}

/// Everything a `#[resource]` expands from.
pub(crate) struct ResourceModel {
    pub(crate) common: Common,
    pub(crate) func: FnModel,
    pub(crate) kind: ResourceKind,
    pub(crate) mime: Option<String>,
    pub(crate) size: Option<u64>,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) cache_scope: Option<CacheScope>,
    /// `ui(…)` of a `ui://` resource (a view); `None` for other resources.
    pub(crate) ui: Option<UiResourceModel>,
}

/// A view whose HTML is a file: `#[resource(uri = "ui://…", html = "…")] struct View;`.
pub(crate) struct HtmlViewModel {
    pub(crate) common: Common,
    /// The user's struct, re-emitted as it is.
    pub(crate) item: syn::ItemStruct,
    /// The file, absolute (for `include_str!`).
    pub(crate) path: String,
    /// Its length in bytes.
    pub(crate) size: u64,
    pub(crate) ui: UiResourceModel,
    pub(crate) ttl_ms: Option<u64>,
    pub(crate) cache_scope: Option<CacheScope>,
}

/// Options shared by the three macros.
pub(crate) struct Common {
    /// The wire name (`name = …`, else the function's name).
    pub(crate) name: String,
    /// Where it is written (the `name = …` literal, else the function's name).
    pub(crate) name_span: Span,
    pub(crate) title: Option<String>,
    /// `description = …`, else the function's doc comment.
    pub(crate) description: Option<Docs>,
    pub(crate) icons: Vec<String>,
    /// `_meta` as a JSON object literal (the runtime parses it in `build()`).
    pub(crate) meta: Option<String>,
    /// `layer = …`: expressions building middleware layers, the first one outermost.
    pub(crate) layers: Vec<Expr>,
    /// `scopes = […]`: the scopes a caller's token must grant.
    pub(crate) scopes: Vec<String>,
    /// `hidden`: callers without the scopes do not see the item.
    pub(crate) hidden: bool,
    /// Submit to `inventory` for automatic collection.
    pub(crate) register: bool,
    /// The path of the `mcp_framework` crate (`crate = …`).
    pub(crate) krate: Path,
}

/// The annotated function.
pub(crate) struct FnModel {
    /// The user's function with the parameter attributes the macros own removed.
    pub(crate) item: ItemFn,
    pub(crate) ident: Ident,
    pub(crate) vis: Visibility,
    pub(crate) is_async: bool,
    pub(crate) params: Vec<Param>,
    /// The return type (`()` when there is none), with the user's tokens and spans.
    pub(crate) output: Type,
}

impl FnModel {
    /// The parameters that come from the request's arguments (not from the context).
    pub(crate) fn args(&self) -> impl Iterator<Item = (&Param, &ArgParam)> {
        self.params.iter().filter_map(|p| match &p.kind {
            ParamKind::Arg(a) => Some((p, a)),
            ParamKind::Context(_) => None,
        })
    }

    pub(crate) fn has_context(&self) -> bool {
        self.params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Context(_)))
    }
}

/// One parameter of the function.
pub(crate) struct Param {
    /// The binding, as written (possibly a raw identifier such as `r#type`).
    pub(crate) ident: Ident,
    /// The name on the wire (`type` for `r#type`).
    pub(crate) name: String,
    pub(crate) kind: ParamKind,
}

pub(crate) enum ParamKind {
    /// Decoded from the arguments (tool), arguments (prompt) or URI variables (template).
    Arg(ArgParam),
    /// Injected through `FromContext` (`#[ctx]`, or a parameter of type `Context`).
    Context(ContextParam),
}

pub(crate) struct ArgParam {
    /// The field type in the generated arguments struct: the user's type, or for a
    /// reference the owned type it borrows from (`&str` → `String`, `&[T]` → `Vec<T>`,
    /// `&T` → `T`).
    pub(crate) field_ty: Type,
    /// Pass `&__args.x` instead of `__args.x`.
    pub(crate) by_ref: bool,
    /// The parameter's type as written (a default value is checked against it).
    pub(crate) ty: Box<Type>,
    /// `#[arg(default = …)]`: the value when the argument is absent, in the
    /// schema as `default`; the argument is then optional.
    pub(crate) default: Option<Box<Expr>>,
    pub(crate) description: Option<Docs>,
    /// `#[header("Name")]`: mirrored into `Mcp-Param-Name` (`x-mcp-header`).
    pub(crate) header: Option<String>,
    /// `#[complete(path)]`: a completer function.
    pub(crate) completer: Option<Path>,
}

pub(crate) struct ContextParam {
    /// The type implementing `FromContext` (without the reference).
    pub(crate) ty: Type,
    pub(crate) by_ref: bool,
}

/// Tool behaviour hints (`ToolAnnotations`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Annotations {
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
}

impl Annotations {
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A tool's schema profile and what its lint found.
pub(crate) struct SchemaModel {
    /// `schema = "…"`; `None`: the server's profile.
    pub(crate) profile: Option<Profile>,
    /// The runtime's `SchemaRule` variants accepted with `allow(…)`, spanned at the
    /// user's names.
    pub(crate) allow: Vec<Ident>,
    /// Warnings, each emitted as the use of a deprecated item.
    pub(crate) warnings: Vec<Warning>,
}

/// The runtime's `SchemaProfile`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Profile {
    Standard,
    Portable,
    OpenAiStrict,
}

impl Profile {
    /// The name of `schema = "…"`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Portable => "portable",
            Self::OpenAiStrict => "openai_strict",
        }
    }

    /// The runtime's variant.
    pub(crate) fn variant(self) -> &'static str {
        match self {
            Self::Standard => "Standard",
            Self::Portable => "Portable",
            Self::OpenAiStrict => "OpenAiStrict",
        }
    }
}

/// A lint warning: where (the offending tokens) and what.
pub(crate) struct Warning {
    pub(crate) span: Span,
    pub(crate) message: String,
}

pub(crate) enum ResourceKind {
    /// One resource at a fixed URI.
    Static { uri: LitStr },
    /// An RFC 6570 URI template; its variables are the non-context parameters.
    Template { template: LitStr },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheScope {
    Public,
    Private,
}

/// A tool's view (`ui = …`): a view type (its URI read through `UiView`) or a URI.
pub(crate) enum ViewRef {
    Type(Path),
    Uri(LitStr),
}

/// A tool's MCP Apps options.
#[derive(Default)]
pub(crate) struct UiToolModel {
    pub(crate) view: Option<ViewRef>,
    /// `Visibility` variants.
    pub(crate) visibility: Option<Vec<&'static str>>,
}

/// A view's `_meta.ui` (`ui(…)` of a `ui://` resource).
pub(crate) struct UiResourceModel {
    pub(crate) uri: String,
    pub(crate) connect_domains: Vec<String>,
    pub(crate) resource_domains: Vec<String>,
    pub(crate) frame_domains: Vec<String>,
    pub(crate) base_uri_domains: Vec<String>,
    pub(crate) camera: bool,
    pub(crate) microphone: bool,
    pub(crate) geolocation: bool,
    pub(crate) clipboard_write: bool,
    pub(crate) domain: Option<String>,
    pub(crate) prefers_border: Option<bool>,
}
