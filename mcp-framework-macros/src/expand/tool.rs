//! `#[tool]` → `ToolHandler`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::{
    args_struct, assemble, call, common_builder, cx_param, future, location, output_span,
    use_private,
};
use crate::model::{Annotations, SchemaModel, TaskModel, ToolModel, Warning};

pub(crate) fn tool(model: &ToolModel) -> TokenStream {
    let ToolModel {
        common,
        missing_description,
        func,
        annotations,
        schema,
        task,
        ui,
    } = model;
    let ident = &func.ident;
    let name = &common.name;
    let args_struct = args_struct(common, func, true);
    let output = &func.output;
    let builder = common_builder(common);
    let injects = super::injects(func);
    let annotations = annotations_builder(annotations);
    let schema_options = schema_builder(schema);
    let task_options = task_builder(*task);
    let ui_options = super::ui::tool_builder(ui);
    let warnings = warnings(schema, missing_description.as_ref());
    let location = location();
    let (lets, call) = call(func);
    let cx = cx_param(func);
    // The conversion of the return type is picked by autoref specialization in the
    // runtime. The call is spanned over the return type (receiver at its first token,
    // method at its last), so that an unsupported type is reported there.
    let (first, last) = output_span(func);
    let receiver = quote_spanned!(first=> (&&&&__mcp::Probe::<#output>::NEW));
    let method = quote_spanned!(last=> tool_output);
    let probe = quote!(#receiver.#method());
    let claim = super::name_claim("tool", common);
    let submit = common
        .register
        .then(|| quote!(__mcp::submit_tool!(#ident);));
    let future = future(
        func,
        &quote! {
            let __mcp_args = match __mcp::decode_arguments(__mcp_arguments(), __mcp_value) {
                ::core::result::Result::Ok(__mcp_args) => __mcp_args,
                ::core::result::Result::Err(__mcp_result) => return __mcp_result,
            };
            #lets
            #call
            (__mcp_output().convert)(__mcp_out)
        },
    );
    let use_private = use_private(common);
    let inner = quote! {
        #use_private

        #args_struct

        fn __mcp_output() -> __mcp::ToolOutput<#output> {
            #[allow(unused_imports)]
            use __mcp::{
                ViaContent as _, ViaResultContent as _, ViaResultStructured as _,
                ViaStructured as _,
            };
            // The end of the autoref chain (by value on `Probe<T>`): chosen only when no
            // conversion applies, and then its `where` clause fails with the runtime's
            // diagnostic ("`T` cannot be returned from a `#[tool]` function").
            trait __McpUnsupported<T> {
                fn tool_output(self) -> __mcp::ToolOutput<T>
                where
                    T: __mcp::IntoToolResult;
            }
            impl<T> __McpUnsupported<T> for __mcp::Probe<T> {
                fn tool_output(self) -> __mcp::ToolOutput<T>
                where
                    T: __mcp::IntoToolResult,
                {
                    ::core::unreachable!()
                }
            }
            #probe
        }

        impl __mcp::ToolHandler for #ident {
            fn definition() -> __mcp::ToolDefinition {
                __mcp::ToolDefinition::new(#name, __mcp_input_schema())
                    #builder
                    #injects
                    .output_schema(__mcp_output().schema.map(|__mcp_schema| __mcp_schema()))
                    #annotations
                    #schema_options
                    #task_options
                    #ui_options
                    #location
                    .rebuilt_by(<Self as __mcp::ToolHandler>::definition)
            }

            fn call(
                __mcp_value: __mcp::Value,
                #cx: __mcp::Context,
            ) -> __mcp::BoxFuture<__mcp::ToolResult> {
                #future
            }
        }

        #submit

        #claim

        #warnings
    };
    assemble(func, &inner)
}

/// `.task(…)` and `.task_start(…)`.
fn task_builder(task: TaskModel) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(support) = task.support {
        let variant = format_ident!("{support}");
        out.extend(quote!(.task(__mcp::TaskSupport::#variant)));
    }
    if let Some(start) = task.start {
        let variant = format_ident!("{start}");
        out.extend(quote!(.task_start(__mcp::TaskStart::#variant)));
    }
    out
}

/// `.schema_profile(…)` and `.allow(…)`.
fn schema_builder(schema: &SchemaModel) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(profile) = schema.profile {
        let variant = format_ident!("{}", profile.variant());
        out.extend(quote!(.schema_profile(__mcp::SchemaProfile::#variant)));
    }
    for rule in &schema.allow {
        out.extend(quote!(.allow(__mcp::SchemaRule::#rule)));
    }
    out
}

/// Each lint warning as the use of a deprecated constant, spanned at the offending tokens:
/// rustc reports the deprecation (with the lint's message) there, as a warning.
fn warnings(schema: &SchemaModel, missing_description: Option<&Warning>) -> TokenStream {
    let mut out = TokenStream::new();
    let named = schema
        .warnings
        .iter()
        .enumerate()
        .map(|(i, w)| (format!("__mcp_schema_lint_{i}"), w))
        .chain(missing_description.map(|w| ("__mcp_missing_description".to_owned(), w)));
    for (name, warning) in named {
        let item = Ident::new(&name, proc_macro2::Span::call_site());
        let use_site = Ident::new(&name, warning.span);
        let message = &warning.message;
        out.extend(quote! {
            #[deprecated(note = #message)]
            const #item: () = ();
            const _: () = #use_site;
        });
    }
    out
}

fn annotations_builder(a: &Annotations) -> TokenStream {
    if a.is_empty() {
        return TokenStream::new();
    }
    let hint = |v: Option<bool>| match v {
        Some(b) => quote!(::core::option::Option::Some(#b)),
        None => quote!(::core::option::Option::None),
    };
    let (r, d, i, o) = (
        hint(a.read_only),
        hint(a.destructive),
        hint(a.idempotent),
        hint(a.open_world),
    );
    quote! {
        .annotations(__mcp::ToolAnnotations {
            read_only_hint: #r,
            destructive_hint: #d,
            idempotent_hint: #i,
            open_world_hint: #o,
            ..::core::default::Default::default()
        })
    }
}
