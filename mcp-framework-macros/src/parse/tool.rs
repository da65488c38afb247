//! `#[tool(…)]`.

use darling::FromMeta;
use darling::util::PathList;
use proc_macro2::TokenStream;
use syn::LitStr;

use super::params::function;
use super::schema::{NameSource, SchemaArgs, lint};
use super::ui::{UiRef, VisibilityArg, tool_options};
use super::{CommonArgs, Errors, Kind, common, parse_args, parse_item};
use crate::model::{Annotations, TaskModel, ToolModel, Warning};

/// The arguments of `#[tool(…)]`.
#[derive(FromMeta)]
struct ToolArgs {
    #[darling(flatten)]
    common: CommonArgs,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
    task: Option<TaskArg>,
    task_start: Option<LitStr>,
    ui: Option<UiRef>,
    visibility: Option<VisibilityArg>,
    schema: Option<LitStr>,
    allow: Option<PathList>,
}

/// `task` (a flag: tasks allowed), `task = "optional"` or `task = "required"`.
struct TaskArg(&'static str);

impl FromMeta for TaskArg {
    fn from_word() -> darling::Result<Self> {
        Ok(Self("Optional"))
    }

    fn from_list(_: &[darling::ast::NestedMeta]) -> darling::Result<Self> {
        Err(darling::Error::custom(
            "`task` is a flag or takes a string: `task` or `task = \"required\"`",
        ))
    }

    fn from_string(value: &str) -> darling::Result<Self> {
        match value {
            "optional" => Ok(Self("Optional")),
            "required" => Ok(Self("Required")),
            other => Err(darling::Error::custom(format!(
                "unknown task support {other:?}: use `task` (or `task = \"optional\"`) or `task = \"required\"`"
            ))),
        }
    }
}

/// `task_start = "…"`, checked against `task`.
fn task_start(
    start: Option<&LitStr>,
    task: Option<&TaskArg>,
    acc: &mut Errors,
) -> Option<&'static str> {
    let lit = start?;
    let variant = match lit.value().as_str() {
        "immediately" => "Immediately",
        "handler" => "Handler",
        other => {
            acc.push(syn::Error::new(
                lit.span(),
                format!("unknown task start {other:?}: use \"immediately\" or \"handler\""),
            ));
            return None;
        }
    };
    if task.is_none() {
        acc.push(syn::Error::new(
            lit.span(),
            "`task_start` needs `task` (or `task = \"required\"`): this tool never runs as a task",
        ));
        return None;
    }
    Some(variant)
}

/// Tool names: 1 to 128 of `A-Z a-z 0-9 _ - .`.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 128 {
        return Err("tool names must be 1 to 128 characters long".into());
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return Err(format!(
            "tool names may contain only ASCII letters, digits, `_`, `-` and `.`, not {bad:?}"
        ));
    }
    Ok(())
}

pub(crate) fn tool(args: TokenStream, item: TokenStream) -> syn::Result<ToolModel> {
    let item = parse_item(Kind::Tool, item)?;
    let mut acc = Errors::new();
    let args = acc.handle(parse_args::<ToolArgs>(args));
    let func = function(Kind::Tool, item, &mut acc);
    let Some(args) = args else {
        return Err(acc.finish().expect_err("the arguments failed to parse"));
    };
    let annotations = Annotations {
        read_only: args.read_only,
        destructive: args.destructive,
        idempotent: args.idempotent,
        open_world: args.open_world,
    };
    let task = TaskModel {
        support: args.task.as_ref().map(|t| t.0),
        start: task_start(args.task_start.as_ref(), args.task.as_ref(), &mut acc),
    };
    let ui = tool_options(args.ui, args.visibility, &mut acc);
    let name_lit = args.common.name.clone();
    let common = common(
        args.common,
        (&func.item.sig.ident, &func.item.attrs),
        &mut acc,
        check_name,
    );
    let source = match &name_lit {
        Some(lit) => NameSource::Option(lit),
        None => NameSource::Function(&func.ident),
    };
    let schema = lint(
        &SchemaArgs {
            schema: args.schema,
            allow: args.allow,
        },
        &common.name,
        &source,
        &func,
        &mut acc,
    );
    // The description is what the model reads to pick the tool: its absence is worth a
    // warning (deny-able with `#![deny(deprecated)]`).
    let missing_description = common.description.is_none().then(|| Warning {
        span: func.ident.span(),
        message: format!(
            "tool `{}` has no description, and clients show the model none: add a `///` doc \
             comment to the function, or `#[tool(description = \"…\")]`",
            common.name
        ),
    });
    acc.finish_with(ToolModel {
        common,
        missing_description,
        func,
        annotations,
        schema,
        task,
        ui,
    })
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, quote};

    use super::*;
    use crate::model::{ParamKind, Profile};

    fn parse(args: TokenStream, item: TokenStream) -> ToolModel {
        match tool(args, item) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }

    fn errors(args: TokenStream, item: TokenStream) -> Vec<String> {
        match tool(args, item) {
            Ok(_) => panic!("expected errors"),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn a_missing_description_is_a_warning() {
        let m = parse(
            quote!(),
            quote!(
                fn add(a: f64) -> f64 {
                    a
                }
            ),
        );
        let w = m.missing_description.expect("a warning");
        assert!(
            w.message.starts_with("tool `add` has no description"),
            "{}",
            w.message
        );
        let m = parse(
            quote!(description = "Adds."),
            quote!(
                fn add(a: f64) -> f64 {
                    a
                }
            ),
        );
        assert!(m.missing_description.is_none());
        let m = parse(
            quote!(),
            quote!(
                /// Adds.
                fn add(a: f64) -> f64 {
                    a
                }
            ),
        );
        assert!(m.missing_description.is_none());
    }

    #[test]
    fn defaults_and_docs() {
        let m = parse(
            quote!(),
            quote! {
                /// Adds two numbers.
                ///
                ///   Returns the sum.
                pub async fn add(a: f64, /** right operand */ b: f64) -> Sum { todo!() }
            },
        );
        assert_eq!(m.common.name, "add");
        assert_eq!(
            m.common.description.unwrap().as_text(),
            Some("Adds two numbers.\n\nReturns the sum.")
        );
        assert!(m.common.register);
        assert_eq!(
            m.common.krate.to_token_stream().to_string(),
            ":: mcp_framework"
        );
        assert!(m.annotations.is_empty());
        assert!(m.func.is_async);
        assert_eq!(m.func.output.to_token_stream().to_string(), "Sum");
        assert_eq!(m.func.params.len(), 2);
        let ParamKind::Arg(b) = &m.func.params[1].kind else {
            panic!()
        };
        assert_eq!(
            b.description.as_ref().unwrap().as_text(),
            Some("right operand")
        );
        // Parameter docs are gone from the function that is emitted again.
        let emitted = m.func.item.to_token_stream().to_string();
        assert!(!emitted.contains("right operand"), "{emitted}");
        assert!(emitted.contains("Adds two numbers"), "{emitted}");
    }

    #[test]
    fn options() {
        let m = parse(
            quote!(
                name = "math.add",
                title = "Add",
                description = "Overrides the docs.",
                read_only,
                destructive = false,
                idempotent = true,
                icon = "https://example.com/a.png",
                icon = "data:image/png;base64,AAAA",
                meta = r#"{"k":1}"#,
                register = false,
                schema = "openai_strict",
                allow(tool_name, tuple),
                crate = ::my::reexport
            ),
            quote! {
                /// Ignored.
                fn add() {}
            },
        );
        assert_eq!(m.common.name, "math.add");
        assert_eq!(m.common.title.as_deref(), Some("Add"));
        assert_eq!(
            m.common.description.unwrap().as_text(),
            Some("Overrides the docs.")
        );
        assert_eq!(
            m.annotations,
            Annotations {
                read_only: Some(true),
                destructive: Some(false),
                idempotent: Some(true),
                open_world: None,
            }
        );
        assert_eq!(m.common.icons.len(), 2);
        assert_eq!(m.common.meta.as_deref(), Some(r#"{"k":1}"#));
        assert!(!m.common.register);
        assert_eq!(
            m.common.krate.to_token_stream().to_string(),
            ":: my :: reexport"
        );
        assert!(!m.func.is_async);
        assert_eq!(m.func.output.to_token_stream().to_string(), "()");
        assert_eq!(m.schema.profile, Some(Profile::OpenAiStrict));
        // `tuple` is the macro's own lint: only `tool_name` reaches the runtime.
        let allowed: Vec<String> = m.schema.allow.iter().map(ToString::to_string).collect();
        assert_eq!(allowed, ["ToolName"]);
    }

    #[test]
    fn schema_lint() {
        // Portable by default: dotted names are refused, tuples warned about.
        let e = errors(
            quote!(name = "math.add"),
            quote!(
                fn f() {}
            ),
        );
        assert!(e[0].contains("`math.add` has '.'"), "{e:?}");
        assert!(e[0].contains("name = \"math_add\""), "{e:?}");
        let long = syn::Ident::new(&"x".repeat(65), proc_macro2::Span::call_site());
        let e = errors(quote!(), quote!(fn #long() {}));
        assert!(e[0].contains("65 characters"), "{e:?}");

        let m = parse(
            quote!(),
            quote!(
                fn f(pair: (u8, String), list: Vec<(f64, f64)>) -> Result<(u8, u8), (i8, i8)> {
                    todo!()
                }
            ),
        );
        let warnings: Vec<&str> = m
            .schema
            .warnings
            .iter()
            .map(|w| w.message.as_str())
            .collect();
        assert_eq!(warnings.len(), 3, "{warnings:?}");
        assert!(
            warnings[0].starts_with("`(u8, String)` is a tuple"),
            "{warnings:?}"
        );
        assert!(
            warnings[2].starts_with("`(u8, u8)` is a tuple"),
            "{warnings:?}"
        );
        let m = parse(
            quote!(allow(tuple)),
            quote!(
                fn f(pair: (u8, String)) {}
            ),
        );
        assert!(m.schema.warnings.is_empty());

        // Standard checks nothing.
        let m = parse(
            quote!(name = "math.add", schema = "standard"),
            quote!(
                fn f(pair: (u8, String)) {}
            ),
        );
        assert!(m.schema.warnings.is_empty());
        assert_eq!(m.schema.profile, Some(Profile::Standard));

        // OpenAI's strict mode has no maps.
        let e = errors(
            quote!(schema = "openai_strict"),
            quote!(
                fn f(tags: Option<std::collections::HashMap<String, u32>>) {}
            ),
        );
        assert!(
            e[0].starts_with("`std::collections::HashMap<String, u32>` is a map"),
            "{e:?}"
        );
        parse(
            quote!(schema = "openai_strict", allow(open_object)),
            quote!(
                fn f(tags: HashMap<String, u32>) {}
            ),
        );
    }

    #[test]
    fn schema_options_are_checked() {
        let e = errors(
            quote!(schema = "strict", allow(tuples, tool_name, a::b)),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].contains("unknown schema profile `strict`"), "{e:?}");
        assert!(
            e[1].starts_with("unknown schema rule: expected one of `tool_name`"),
            "{e:?}"
        );
        assert!(e[2].starts_with("unknown schema rule"), "{e:?}");
    }

    #[test]
    fn crate_self() {
        let m = parse(
            quote!(crate = crate),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(m.common.krate.to_token_stream().to_string(), "crate");
    }

    #[test]
    fn unknown_key_suggests() {
        let e = errors(
            quote!(nmae = "x"),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(e, ["Unknown field: `nmae`. Did you mean `name`?"]);
    }

    #[test]
    fn bad_names() {
        let e = errors(
            quote!(name = "has space"),
            quote!(
                fn f() {}
            ),
        );
        assert!(e[0].contains("not ' '"), "{e:?}");
    }

    #[test]
    fn context_and_reference_params() {
        let m = parse(
            quote!(),
            quote! {
                async fn f(cx: Context, q: &str, items: &[u8], #[ctx] h: &ServerHandle, p: &Point) {}
            },
        );
        let kinds: Vec<String> = m
            .func
            .params
            .iter()
            .map(|p| match &p.kind {
                ParamKind::Arg(a) => format!(
                    "{}: arg {} {}",
                    p.name,
                    a.field_ty.to_token_stream(),
                    a.by_ref
                ),
                ParamKind::Context(c) => {
                    format!("{}: ctx {} {}", p.name, c.ty.to_token_stream(), c.by_ref)
                }
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "cx: ctx Context false",
                "q: arg :: std :: string :: String true",
                "items: arg :: std :: vec :: Vec < u8 > true",
                "h: ctx ServerHandle true",
                "p: arg Point true",
            ]
        );
        assert!(m.func.has_context());
        assert!(
            !m.func
                .item
                .to_token_stream()
                .to_string()
                .contains("# [ctx]")
        );
    }

    #[test]
    fn raw_identifiers_lose_their_prefix() {
        let m = parse(
            quote!(),
            quote!(
                fn r#match(r#type: String) {}
            ),
        );
        assert_eq!(m.common.name, "match");
        assert_eq!(m.func.params[0].name, "type");
        assert_eq!(m.func.params[0].ident.to_string(), "r#type");
    }

    #[test]
    fn headers() {
        let m = parse(
            quote!(),
            quote!(
                fn f(#[header("Region")] region: Option<String>, #[header("X-Count")] n: u32) {}
            ),
        );
        let headers: Vec<_> = m
            .func
            .args()
            .map(|(_, a)| a.header.clone().unwrap())
            .collect();
        assert_eq!(headers, ["Region", "X-Count"]);

        let e = errors(
            quote!(),
            quote!(
                fn f(
                    #[header("Region")] a: String,
                    #[header("region")] b: String,
                    #[header("Bad Name")] c: String,
                    #[header("Price")] d: f64,
                    #[header("Tags")] e: Vec<String>,
                ) {
                }
            ),
        );
        assert_eq!(e.len(), 4, "{e:?}");
        assert!(e[0].contains("duplicate header `region`"), "{e:?}");
        assert!(e[1].contains("not a valid HTTP header name"), "{e:?}");
        assert_eq!(e[2], "x-mcp-header is not allowed on `number` parameters");
        assert_eq!(
            e[3],
            "x-mcp-header needs a string, integer or boolean parameter"
        );
    }

    #[test]
    fn rejected_signatures_report_everything() {
        let e = errors(
            quote!(),
            quote!(
                unsafe extern "C" fn f<T>(self, (a, b): (u8, u8), c: impl Display) -> impl Display {
                }
            ),
        );
        let all = e.join("\n");
        for needle in [
            "for methods taking `&self`, put `#[tool_impl]` on the `impl` block",
            "cannot be generic",
            "cannot be `unsafe`",
            "`extern` ABI",
            "plain names",
            "`impl Trait` parameters",
            "return a concrete type from a #[tool] function",
        ] {
            assert!(all.contains(needle), "missing {needle:?} in {all}");
        }
    }

    #[test]
    fn variadics_and_static_references_rejected() {
        let e = errors(
            quote!(),
            quote!(
                unsafe extern "C" fn f(a: u8, ...) {}
            ),
        );
        assert!(e.iter().any(|e| e.contains("cannot be variadic")), "{e:?}");
        let e = errors(
            quote!(),
            quote!(
                fn f(a: &'static str) {}
            ),
        );
        assert!(e[0].contains("cannot be `&'static`"), "{e:?}");
    }

    #[test]
    fn where_clause_and_complete_rejected() {
        let e = errors(
            quote!(),
            quote!(
                fn f(a: u8)
                where
                    u8: Copy,
                {
                }
            ),
        );
        assert!(e[0].contains("where clause"));
        let e = errors(
            quote!(),
            quote!(
                fn f(#[complete(c)] a: String) {}
            ),
        );
        assert!(e[0].contains("#[complete] is only supported"));
    }

    #[test]
    fn task_options() {
        let m = parse(
            quote!(task),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!((m.task.support, m.task.start), (Some("Optional"), None));
        let m = parse(
            quote!(task = "required", task_start = "handler"),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!(
            (m.task.support, m.task.start),
            (Some("Required"), Some("Handler"))
        );
        let m = parse(
            quote!(),
            quote!(
                fn f() {}
            ),
        );
        assert_eq!((m.task.support, m.task.start), (None, None));
        let e = errors(
            quote!(task = "always", task_start = "soon"),
            quote!(
                fn f() {}
            ),
        );
        assert!(
            e.iter().any(|e| e.contains("unknown task support")),
            "{e:?}"
        );
        let e = errors(
            quote!(task_start = "handler"),
            quote!(
                fn f() {}
            ),
        );
        assert!(e[0].contains("needs `task`"), "{e:?}");
    }

    #[test]
    fn layers_keep_their_order_and_literals_are_refused() {
        let m = parse(
            quote!(
                layer = outer(),
                layer = mw::timeout(Duration::from_secs(1)),
                layer = INNER
            ),
            quote!(
                fn f() {}
            ),
        );
        let layers: Vec<String> = m
            .common
            .layers
            .iter()
            .map(|l| l.to_token_stream().to_string())
            .collect();
        assert_eq!(
            layers,
            [
                "outer ()",
                "mw :: timeout (Duration :: from_secs (1))",
                "INNER"
            ]
        );
        let e = errors(
            quote!(layer = "timeout"),
            quote!(
                fn f() {}
            ),
        );
        assert!(e[0].starts_with("`layer` takes an expression"), "{e:?}");
    }

    #[test]
    fn not_a_function() {
        let e = errors(
            quote!(),
            quote!(
                struct S;
            ),
        );
        assert_eq!(e, ["#[tool] goes on a function (`fn` or `async fn`)"]);
    }
}
