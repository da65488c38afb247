//! Procedural macros for `mcp-framework`: `#[tool]`, `#[prompt]` and `#[resource]`. Use
//! them through `mcp_framework`'s re-exports.
//!
//! Each macro is three steps: `parse` (darling and syn; every diagnostic comes from there,
//! all of them reported at once), `model` (plain data) and `expand` (tokens; never fails).
//! When parsing fails the macro emits the errors *and* the function (minus the parameter
//! attributes it owns), so that call sites do not pile up follow-on errors.
//!
//! Set `MCP_MACROS_DEBUG=1` to print every expansion to stderr while compiling, or
//! `MCP_MACROS_DEBUG=add,greet` to print only those functions'. Cargo does not know that
//! the macros read the variable: touch the source file (or `cargo clean -p <crate>`) so
//! that it is compiled again.
#![warn(clippy::needless_pass_by_value)]

use proc_macro::TokenStream;

mod docs;
mod expand;
mod form;
mod model;
mod parse;
mod paths;
mod skills;

/// Turns a function into an MCP tool.
///
/// The function's parameters become the tool's arguments (its input schema is derived with
/// `schemars`), its doc comment the description, and its return value the result: text
/// for `String`, content for `Content`/`Vec<Content>`/`CallToolResult`, and
/// `structuredContent` with an `outputSchema` for any other `Serialize + JsonSchema` type.
/// `Result<T, E>` returns `T` as above or `E`'s message as an `isError` result. The tool
/// is served by every `Server` built without an explicit tool set, or by name in
/// `tools![add]`.
///
/// ```
/// use mcp_framework::tool;
///
/// /// Adds two numbers.
/// #[tool(read_only)]
/// async fn add(a: f64, /** The right operand. */ b: f64) -> f64 {
///     a + b
/// }
/// # fn main() { let _ = mcp_framework::tools![add]; }
/// ```
///
/// # Grammar
///
/// ```text
/// #[tool]
/// #[tool(option, …)]
///
/// option:
///     name = "…"                   the tool's name (default: the function's name)
///     title = "…"                  a human-readable title
///     description = "…"            overrides the doc comment (also `include_str!("…")`)
///     read_only                    annotations: a bare flag is `= true`;
///     destructive = bool             each becomes the matching `…Hint`
///     idempotent = bool
///     open_world = bool
///     icon = "https://…"           an icon (repeatable)
///     meta = r#"{"k": 1}"#         `_meta` of the definition, a JSON object
///     layer = expr                 a middleware layer around this tool's calls (an
///                                    expression, evaluated when the server is built;
///                                    repeatable, the first one outermost; see
///                                    `mcp_framework::middleware`)
///     task                         calls may run as tasks (the Tasks extension) when the
///                                    client declared it; `task = "required"`: only as tasks
///                                    (others are refused with -32021)
///     task_start = "handler"       the task starts when the handler awaits
///                                    `cx.run_as_task()` (default: before it runs)
///     ui = ViewType | "ui://…"     the MCP Apps view that renders the results
///                                    (`_meta.ui.resourceUri`): a `#[resource]` view, checked
///                                    by the compiler, or its URI, checked by `build()`
///     visibility = "app"           who may call it: "model", "app" or a list of both
///                                    (default); a view-only tool is neither listed nor
///                                    callable for clients that render no views
///     register = false             not collected automatically (add it with `tools![…]`)
///     schema = "standard"          the schema profile of this tool: "standard", "portable"
///                                    or "openai_strict" (default: the server's)
///     allow(rule, …)               constructs of the profile accepted knowingly: tool_name,
///                                    tuple, open_object, recursive_type, root_combinator,
///                                    unresolvable_ref, dialect, optional_field
///     crate = path                 where `mcp_framework` is (default `::mcp_framework`)
///
/// parameter:
///     [/// doc] name: Type                 an argument; the doc is its description
///     [/// doc] #[arg(default = expr)] name: Type
///                                          optional, `default` in the schema, `expr`
///                                          (of the parameter's type) when absent
///     [/// doc] #[header("Name")] name: T  also sent as the `Mcp-Param-Name` HTTP header
///                                          (T: string, integer or bool, maybe in Option)
///     name: Context | State<T> | ServerHandle | CancellationToken | Option<Principal>
///                                          injected, not an argument (no attribute)
///     #[ctx] name: T                       injected (`T: FromContext`), not an argument
///     #[arg] name: T                       an argument, whatever `T` is called
/// ```
///
/// `&str`, `&[T]` and `&T` parameters are decoded as `String`, `Vec<T>` and `T`. The
/// function must be a free function (methods taking `&self` go in a `#[tool_impl]` block),
/// without generics, `unsafe` or ABI; parameters are plain names. A tool without a doc
/// comment or `description` warns (a `deprecated` lint); two registered tools of one name in
/// one crate are a compile error.
///
/// The signature is checked against the tool's schema profile (its `schema = …`, else
/// `portable`): a name outside `[A-Za-z0-9_-]` or longer than 64 characters, and under
/// `openai_strict` a map parameter, are errors; a tuple is a warning (it loses its
/// positions). What only the derived schemas show is checked by `build()`.
///
/// ```compile_fail
/// use mcp_framework::tool;
///
/// struct Calculator;
/// impl Calculator {
///     #[tool] // error: #[tool] goes on free functions, not methods
///     fn add(&self, a: f64, b: f64) -> f64 { a + b }
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    let out = parse::tool(args.into(), item.clone())
        .map(|m| debug("tool", &m.func.ident, expand::tool(&m)));
    finish(out, item)
}

/// Serves the `#[tool]` methods of an `impl` block: each takes `&self`, which is the
/// server's state of the type (registered with `ServerBuilder::state`; `build()` refuses a
/// server without it). Schemas, options, registration and diagnostics are those of
/// `#[tool]` functions; `Type::tool_set()` gives the tools as a `ToolSet` for explicit
/// sets.
///
/// ```
/// use std::sync::Mutex;
/// use mcp_framework::{Server, tool, tool_impl};
///
/// #[derive(Default)]
/// struct Notes {
///     notes: Mutex<Vec<String>>,
/// }
///
/// #[tool_impl]
/// impl Notes {
///     /// Adds a note.
///     #[tool]
///     async fn add(&self, text: String) -> String {
///         let mut notes = self.notes.lock().unwrap();
///         notes.push(text);
///         format!("{} notes", notes.len())
///     }
/// }
///
/// # fn main() {
/// let server = Server::builder().state(Notes::default()).build().unwrap();
/// # let _ = Notes::tool_set();
/// # }
/// ```
///
/// # Grammar
///
/// ```text
/// #[tool_impl]
/// impl Type {                      a named type, without generics
///     #[tool(option, …)]           the options of #[tool]
///     [async] fn name(&self, parameter, …) [-> Output] { … }
///     …                            other items are left as they are
/// }
/// ```
///
/// ```compile_fail
/// use mcp_framework::{tool, tool_impl};
///
/// struct Notes;
///
/// #[tool_impl]
/// impl Notes {
///     /// Clears.
///     #[tool]
///     fn clear(&mut self) {} // error: a #[tool] method takes `&self`
/// }
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn tool_impl(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match parse::tool_impl(args.into(), item.clone()) {
        Ok(m) => debug("tool_impl", &m.type_ident, expand::tool_impl(&m)).into(),
        Err(e) => {
            // The errors, and the block as written minus the `#[tool]` attributes (so that
            // `#[tool]` does not report the methods again).
            let mut tokens = e.to_compile_error();
            tokens.extend(parse::fallback_impl(item));
            tokens.into()
        }
    }
}

/// Turns a function into an MCP prompt.
///
/// The parameters are the prompt's arguments (doc comments become their descriptions;
/// `Option` ones are optional). Clients send strings; they are converted to the parameter
/// types (`"42"` for a `u32`). The function returns a `String` (one user message), a
/// `PromptMessage`, a `Vec<PromptMessage>` or a `GetPromptResult`, optionally in a
/// `Result`.
///
/// ```
/// use mcp_framework::{CompletionRequest, prompt};
///
/// fn languages(req: CompletionRequest) -> Vec<String> {
///     req.matching(["python", "rust"])
/// }
///
/// /// Asks for a code review.
/// #[prompt(title = "Code review")]
/// fn code_review(#[complete(languages)] language: String, code: String) -> String {
///     format!("Review this {language} code:\n{code}")
/// }
/// # fn main() { let _ = mcp_framework::prompts![code_review]; }
/// ```
///
/// # Grammar
///
/// ```text
/// #[prompt]
/// #[prompt(option, …)]
///
/// option:
///     name = "…" | title = "…" | description = "…" | icon = "…" | meta = "…"
///     layer = expr | register = false | crate = path   (as for #[tool])
///
/// parameter:
///     [/// doc] [#[complete(path::to::completer)]] name: Type
///     #[ctx] name: T | name: Context
/// ```
///
/// ```compile_fail
/// use mcp_framework::prompt;
///
/// #[prompt]
/// fn greet<T>(name: T) -> String { String::new() } // error: cannot be generic
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    let out = parse::prompt(args.into(), item.clone())
        .map(|m| debug("prompt", &m.func.ident, expand::prompt(&m)));
    finish(out, item)
}

/// Turns a function into an MCP resource (`uri = …`) or resource template
/// (`template = …`).
///
/// A static resource's function takes only context parameters. A template's function
/// takes exactly one parameter per template variable (RFC 6570: `{id}`, `{+path}`,
/// `{?q,page}`…), converted from the matched text to the parameter type. It returns a
/// `String` (text), `Vec<u8>` or `Blob` (binary), `Json<T>`, `ResourceContents` or
/// `Vec<ResourceContents>`, optionally in a `Result`.
///
/// ```
/// use mcp_framework::resource;
///
/// /// The README.
/// #[resource(uri = "file:///README.md", mime = "text/markdown")]
/// fn readme() -> String {
///     "# Hello".into()
/// }
///
/// /// One user's profile.
/// #[resource(template = "users://{id}/profile", mime = "application/json")]
/// async fn profile(id: u64) -> String {
///     format!("{{\"id\":{id}}}")
/// }
/// # fn main() { let _ = mcp_framework::resources![readme, profile]; }
/// ```
///
/// # Grammar
///
/// ```text
/// #[resource(uri = "scheme:…", option, …)]
/// #[resource(template = "scheme:…{var}…", option, …)]
///
/// option:
///     name = "…"                   default: the function's name
///     title = "…" | description = "…" | icon = "…" | meta = "…"
///     mime = "type/subtype"
///     size = 123                   size in bytes
///     ttl_ms = 60000               `ttlMs` of `resources/read` results
///     cache_scope = "public" | "private"
///     layer = expr | register = false | crate = path   (as for #[tool])
///     ui(…)                        `_meta.ui` of an MCP Apps view (a `ui://` resource, of
///                                    type `text/html;profile=mcp-app`):
///         csp(connect_domains = ["https://…"], resource_domains = […],
///             frame_domains = […], base_uri_domains = […])
///         permissions(camera, microphone, geolocation, clipboard_write)
///         domain = "…"             prefers_border = bool
///
/// a view whose HTML is a file (read and checked now, embedded with `include_str!`):
///     #[resource(uri = "ui://…", html = "view.html", ui(…), …)]
///     struct ForecastView;
///
/// parameter (templates):
///     [#[complete(path::to::completer)]] var: Type
/// parameter (both):
///     #[ctx] name: T | name: Context
/// ```
///
/// ```compile_fail
/// use mcp_framework::resource;
///
/// #[resource(template = "users://{id}")]
/// fn user(name: String) -> String { name } // error: `id` has no parameter
/// # fn main() {}
/// ```
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    if let Ok(view) = syn::parse2::<syn::ItemStruct>(item.clone()) {
        let invoking_file = proc_macro::Span::call_site().local_file();
        let out = parse::html_view(args.into(), view, invoking_file)
            .map(|m| debug("resource", &m.item.ident, expand::html_view(&m)));
        return finish(out, item);
    }
    let out = parse::resource(args.into(), item.clone())
        .map(|m| debug("resource", &m.func.ident, expand::resource(&m)));
    finish(out, item)
}

/// The expansion, or the errors followed by the function itself.
fn finish(
    out: syn::Result<proc_macro2::TokenStream>,
    item: proc_macro2::TokenStream,
) -> TokenStream {
    match out {
        Ok(tokens) => tokens.into(),
        Err(e) => {
            let mut tokens = e.to_compile_error();
            tokens.extend(parse::fallback_item(item));
            tokens.into()
        }
    }
}

/// Prints the expansion when `MCP_MACROS_DEBUG` asks for it.
fn debug(
    kind: &str,
    ident: &syn::Ident,
    tokens: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    if let Ok(filter) = std::env::var("MCP_MACROS_DEBUG") {
        let name = ident.to_string();
        let all = matches!(filter.trim(), "1" | "true" | "all" | "*");
        if all || filter.split(',').any(|f| f.trim() == name) {
            eprintln!("// ---- #[{kind}] {name} ----\n{tokens}\n");
        }
    }
    tokens
}

/// Makes a struct an elicitation form (`ctx.elicit::<T>(…)`), or a unit-only enum a choice
/// in one. Every field of the struct must be a `FormField` — a string, number, integer,
/// boolean, an enum deriving `Form`, a `Vec` of such an enum (multi-select), or an
/// `Option` of one of these — and a field that is not is a compile error at its type.
/// Fields serde skips are not asked; `#[serde(flatten)]` is refused (forms are flat).
///
/// ```
/// use mcp_framework::Form;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// /// A size to pick.
/// #[derive(Deserialize, JsonSchema, Form)]
/// enum Size { Small, Large }
///
/// /// An order.
/// #[derive(Deserialize, JsonSchema, Form)]
/// struct Order {
///     /// How many.
///     count: u32,
///     /// Which size.
///     size: Size,
///     /// Anything to add.
///     note: Option<String>,
/// }
/// ```
///
/// ```compile_fail
/// use mcp_framework::Form;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema, Form)]
/// struct Order {
///     items: Vec<String>, // error: `Vec<String>` cannot be a field of an elicitation form
/// }
/// ```
#[proc_macro_derive(Form)]
pub fn derive_form(input: TokenStream) -> TokenStream {
    form::derive(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Embeds a folder of [Agent Skills](https://agentskills.io/specification) in the binary:
/// `skills!("skills")` is a `Vec<mcp_framework::skills::Skill>` of every skill below the
/// folder (every directory holding a `SKILL.md`, nested ones too), for
/// `ServerBuilder::skills`. The path is relative to the file holding the invocation, like
/// `include_str!`'s.
///
/// Every rule is checked while compiling, with the runtime's own rules (the
/// `mcp-skill-format` crate): a missing `SKILL.md` frontmatter, `name` or `description`,
/// a name that is not the folder's or breaks the naming rules, a path segment that is not
/// plain, a skill over 512 files or 16 MiB, a reserved `metadata` key, invalid YAML. Each
/// problem is an error at the literal, naming the skill and the file.
///
/// Each file is embedded with `include_bytes!`, so changing one rebuilds the crate; adding
/// or removing a file is seen at the next build of the crate (touch the file that invokes
/// the macro, or add a `build.rs` with `cargo::rerun-if-changed=skills`).
///
/// ```ignore
/// let server = Server::builder().skills(mcp_framework::skills!("skills")).build()?;
/// ```
#[proc_macro]
pub fn skills(input: TokenStream) -> TokenStream {
    let invoking_file = proc_macro::Span::call_site().local_file();
    skills::skills(input.into(), invoking_file)
        .unwrap_or_else(|e| {
            // One `compile_error!` per problem, as statements of a block that still has the
            // macro's type: only the problems are reported.
            let errors = e.into_compile_error();
            quote::quote!({ #errors ::std::vec::Vec::<::mcp_framework::__private::Skill>::new() })
        })
        .into()
}
