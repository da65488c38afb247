//! Model → tokens. Nothing here fails: every check happened in `parse`.
//!
//! Shape of every expansion: the user's function, a braced proxy struct of the same name
//! (type namespace only, so it sits beside the function), and a `const _: () = { … };`
//! holding the arguments struct, the handler impl and the `inventory` submission. Every
//! path is absolute (`::core`, `::std`, or `__mcp`, an alias of the runtime's
//! `__private` module); generated names start with `__mcp_`.

mod methods;
mod prompt;
mod resource;
mod tool;
mod ui;

pub(crate) use methods::tool_impl;

pub(crate) use prompt::prompt;
pub(crate) use resource::{html_view, resource};
pub(crate) use tool::tool;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Path};

use crate::model::{Common, FnModel, ParamKind};

/// The lints generated code must never trigger in the user's crate.
fn allow_lints() -> TokenStream {
    quote! {
        #[allow(
            clippy::all,
            clippy::pedantic,
            clippy::nursery,
            dead_code,
            missing_docs,
            missing_debug_implementations,
            non_camel_case_types,
            non_snake_case,
            unreachable_pub,
            unused_qualifications,
        )]
    }
}

/// `path` as source text without spaces (`::mcp_framework::__private::serde`), for the
/// `crate = "…"` options of serde and schemars.
fn path_string(path: &Path, suffix: &str) -> String {
    let mut s = String::new();
    if path.leading_colon.is_some() {
        s.push_str("::");
    }
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    s.push_str(&segments.join("::"));
    s.push_str(suffix);
    s
}

/// The braced proxy struct named like the function: `tools![add]` names it.
fn proxy_struct(func: &FnModel) -> TokenStream {
    let FnModel { ident, vis, .. } = func;
    let allow = allow_lints();
    quote! {
        #[doc(hidden)]
        #allow
        #vis struct #ident {}
    }
}

/// `use …::__private as __mcp;`
fn use_private(common: &Common) -> TokenStream {
    let krate = &common.krate;
    quote!(use #krate::__private as __mcp;)
}

/// The name of the arguments struct.
fn args_ident(func: &FnModel) -> Ident {
    use syn::ext::IdentExt;
    format_ident!("__mcp_args_{}", func.ident.unraw())
}

/// The struct the arguments deserialize into (and whose schema is the input schema), and
/// `fn __mcp_arguments() -> __mcp::Arguments<…>`, its schema and decoder, and
/// `fn __mcp_input_schema()`, the schema with the parameters' defaults.
///
/// The struct is generic over its field types, and instantiated with the user's types once,
/// through a function bounded by `__mcp::Argument` and spanned at each type: a type that is
/// neither an argument nor injected is reported once, at its parameter (with a concrete
/// struct, serde's and schemars' derives would each report it, in their own words).
fn args_struct(common: &Common, func: &FnModel, deny_unknown_fields: bool) -> TokenStream {
    let name = args_ident(func);
    let serde_crate = path_string(&common.krate, "::__private::serde");
    let schemars_crate = path_string(&common.krate, "::__private::schemars");
    let deny = deny_unknown_fields.then(|| quote!(, deny_unknown_fields));
    let mut generics = Vec::new();
    let mut types = Vec::new();
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    for (i, (p, a)) in func.args().enumerate() {
        let ident = &p.ident;
        let ty = &a.field_ty;
        // A type known to be an argument (a scalar, `String`, or an `Option`/`Vec` of one)
        // is written as it is: it cannot fail the bound, and a concrete field costs the
        // compiler less than a generic one.
        let slot = if is_known_argument(ty) {
            quote!(#ty)
        } else {
            let generic = format_ident!("__McpA{}", i);
            types.push(quote_spanned!(ty.span()=> #ty));
            generics.push(generic.clone());
            quote!(#generic)
        };
        let description = a
            .description
            .as_ref()
            .map(|d| quote!(#[schemars(description = #d)]));
        let header = a
            .header
            .as_ref()
            .map(|h| quote!(#[schemars(extend("x-mcp-header" = #h))]));
        if let Some(default) = &a.default {
            // Absent is `None` (serde decodes a missing `Option` so), filled in with the
            // default by `call`; the property's schema is the parameter type's
            // (`with`), made optional and given its `default` by `__mcp_input_schema`.
            let with = slot.to_string();
            fields.push(quote! {
                #description
                #header
                #[schemars(with = #with)]
                #ident: ::core::option::Option<#slot>,
            });
            let name = &p.name;
            let written = &a.ty;
            // Spanned at the value: one of the wrong type is reported there.
            let value = quote_spanned!(default.span()=> __mcp::default_value::<#written>(#default));
            defaults.push(quote!((#name, #value)));
        } else {
            fields.push(quote! {
                #description
                #header
                #ident: #slot,
            });
        }
    }
    let input_schema = if defaults.is_empty() {
        quote!((__mcp_arguments().schema)())
    } else {
        quote!(__mcp::with_defaults((__mcp_arguments().schema)(), [#(#defaults),*]))
    };
    quote! {
        #[derive(__mcp::serde::Deserialize, __mcp::schemars::JsonSchema)]
        #[serde(crate = #serde_crate #deny)]
        #[schemars(crate = #schemars_crate)]
        struct #name<#(#generics),*> {
            #(#fields)*
        }

        fn __mcp_arguments_of<#(#generics: __mcp::Argument),*>()
            -> __mcp::Arguments<#name<#(#generics),*>>
        {
            __mcp::Arguments::NEW
        }

        fn __mcp_arguments() -> __mcp::Arguments<#name<#(#types),*>> {
            __mcp_arguments_of::<#(#types),*>()
        }

        fn __mcp_input_schema() -> __mcp::JsonObject {
            #input_schema
        }
    }
}

/// Whether `ty` is certainly an argument (`Deserialize + JsonSchema`): a primitive scalar,
/// `String`, or an `Option` or `Vec` of one, written without a path.
fn is_known_argument(ty: &syn::Type) -> bool {
    const SCALARS: &[&str] = &[
        "bool", "char", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32",
        "u64", "u128", "usize", "f32", "f64",
    ];
    let syn::Type::Path(path) = ty else {
        return false;
    };
    if path.qself.is_some() || path.path.leading_colon.is_some() {
        return false;
    }
    let [segment] = path.path.segments.iter().collect::<Vec<_>>()[..] else {
        return false;
    };
    let name = segment.ident.to_string();
    match &segment.arguments {
        syn::PathArguments::None => SCALARS.contains(&name.as_str()),
        syn::PathArguments::AngleBracketed(args) if name == "Option" || name == "Vec" => {
            matches!(&args.args.iter().collect::<Vec<_>>()[..],
                [syn::GenericArgument::Type(inner)] if is_known_argument(inner))
        }
        _ => false,
    }
}

/// The statements that extract context parameters, and the call of the user's function
/// (awaited if it is async). Arguments come from `__mcp_args`, the context from
/// `__mcp_cx`.
fn call(func: &FnModel) -> (TokenStream, TokenStream) {
    let mut lets = TokenStream::new();
    let mut args = Vec::new();
    let mut n = 0usize;
    for p in &func.params {
        match &p.kind {
            ParamKind::Arg(a) => {
                let ident = &p.ident;
                args.push(match (&a.default, a.by_ref) {
                    (None, true) => quote!(&__mcp_args.#ident),
                    (None, false) => quote!(__mcp_args.#ident),
                    // The default is of the parameter's type: borrowed for a reference.
                    (Some(d), true) => {
                        let ty = &a.ty;
                        quote! {{
                            let __mcp_value: #ty = match &__mcp_args.#ident {
                                ::core::option::Option::Some(__mcp_value) => {
                                    ::core::borrow::Borrow::borrow(__mcp_value)
                                }
                                ::core::option::Option::None => #d,
                            };
                            __mcp_value
                        }}
                    }
                    (Some(d), false) => quote!(__mcp_args.#ident.unwrap_or_else(|| #d)),
                });
            }
            ParamKind::Context(c) => {
                let var = format_ident!("__mcp_ctx{}", n);
                n += 1;
                let ty = &c.ty;
                // Spanned at the user's type: a type that is not `FromContext` is reported
                // there.
                let from = quote_spanned!(ty.span()=> <#ty as __mcp::FromContext>::from_context);
                lets.extend(quote!(let #var = #from(&__mcp_cx);));
                args.push(if c.by_ref {
                    quote!(&#var)
                } else {
                    quote!(#var)
                });
            }
        }
    }
    let ident = &func.ident;
    let output = &func.output;
    let awaited = func.is_async.then(|| quote!(.await));
    let call = quote! {
        let __mcp_out: #output = #ident(#(#args),*) #awaited;
    };
    (lets, call)
}

/// The name of the context parameter of the generated handler: `_` when no parameter
/// needs it (no unused-variable warning).
fn cx_param(func: &FnModel) -> TokenStream {
    if func.has_context() {
        quote!(__mcp_cx)
    } else {
        quote!(_)
    }
}

/// `.title(…)`, `.description(…)`, `.icon(…)`, `.meta_json(…)`, `.scopes(…)`,
/// `.scope_policy(…)`, `.layer(…)`.
fn common_builder(common: &Common) -> TokenStream {
    let mut out = TokenStream::new();
    if let Some(t) = &common.title {
        out.extend(quote!(.title(#t)));
    }
    if let Some(d) = &common.description {
        out.extend(quote!(.description(#d)));
    }
    for icon in &common.icons {
        out.extend(quote!(.icon(__mcp::Icon::new(#icon))));
    }
    if let Some(m) = &common.meta {
        out.extend(quote!(.meta_json(#m)));
    }
    if !common.scopes.is_empty() {
        let scopes = &common.scopes;
        out.extend(quote!(.scopes([#(#scopes),*])));
    }
    if common.hidden {
        out.extend(quote!(.scope_policy(__mcp::ScopePolicy::Hide)));
    }
    for layer in &common.layers {
        // Spanned at the expression: one that is not a layer is reported there.
        out.extend(quote_spanned!(layer.span()=> .layer(#layer)));
    }
    out
}

/// `.injects(…)` for every injected parameter: `build()` checks the state it needs. Through
/// autoref specialization (`__mcp::Injected`): a type that is not `FromContext` is reported
/// once, by the handler's extraction, not again here.
pub(super) fn injects(func: &FnModel) -> TokenStream {
    let mut out = TokenStream::new();
    for p in &func.params {
        if let ParamKind::Context(c) = &p.kind {
            let ty = &c.ty;
            out.extend(quote! {
                .injects({
                    #[allow(unused_imports)]
                    use __mcp::{ViaFromContext as _, ViaNothing as _};
                    (&&__mcp::Injected::<#ty>::NEW).state_need()
                })
            });
        }
    }
    out
}

/// `.complete("arg", __mcp::completer(path))` for every `#[complete]` parameter.
fn completers(func: &FnModel) -> TokenStream {
    let mut out = TokenStream::new();
    for (p, a) in func.args() {
        if let Some(path) = &a.completer {
            let name = &p.name;
            let wrapped = quote_spanned!(path.span()=> __mcp::completer(#path));
            out.extend(quote!(.complete(#name, #wrapped)));
        }
    }
    out
}

/// A registered item's claim on its name within the crate: a `#[macro_export]` macro named
/// after it (`__mcp_tool_named_add`), spanned at the name. Exported macros share the crate
/// root's namespace, so a second registered tool or prompt of the same name in the crate
/// is a compile error (E0428) pointing at both; across crates, `build()` reports it.
fn name_claim(kind: &str, common: &Common) -> TokenStream {
    if !common.register {
        return TokenStream::new();
    }
    // Injective: `_` → `__`, `-` → `_1`, `.` → `_2`, anything else but ASCII letters and
    // digits → `_x{hex}_`.
    let mut encoded = String::new();
    for c in common.name.chars() {
        match c {
            '_' => encoded.push_str("__"),
            '-' => encoded.push_str("_1"),
            '.' => encoded.push_str("_2"),
            c if c.is_ascii_alphanumeric() => encoded.push(c),
            c => encoded.push_str(&format!("_x{:x}_", u32::from(c))),
        }
    }
    let ident = Ident::new(&format!("__mcp_{kind}_named_{encoded}"), common.name_span);
    // Spanned at the name: rustc reports the clash there. A tool defined in a function
    // body still claims its name in the crate.
    quote_spanned! {common.name_span=>
        #[doc(hidden)]
        #[macro_export]
        #[allow(non_local_definitions)]
        macro_rules! #ident {
            () => {};
        }
    }
}

fn location() -> TokenStream {
    quote!(.location(__mcp::Location::new(::core::file!(), ::core::line!())))
}

/// Assembles the pieces.
fn assemble(func: &FnModel, inner: &TokenStream) -> TokenStream {
    let item = &func.item;
    let proxy = proxy_struct(func);
    let allow = allow_lints();
    quote! {
        #item
        #proxy
        #allow
        const _: () = {
            #inner
        };
    }
}

/// The spans of the first and last tokens of the return type (of the function's name
/// when it has none): code spanned from one to the other is reported over the whole type.
fn output_span(func: &FnModel) -> (Span, Span) {
    match &func.item.sig.output {
        syn::ReturnType::Type(_, ty) => {
            let tokens: Vec<_> = ty.to_token_stream().into_iter().collect();
            let first = tokens.first().map_or_else(|| ty.span(), |t| t.span());
            let last = tokens.last().map_or(first, |t| t.span());
            (first, last)
        }
        syn::ReturnType::Default => (func.ident.span(), func.ident.span()),
    }
}

/// `Box::pin(async move { body })`, spanned at the function's name: a future that is not
/// `Send` is reported there (the notes then point at the offending `.await`).
fn future(func: &FnModel, body: &TokenStream) -> TokenStream {
    quote_spanned!(func.ident.span()=> ::std::boxed::Box::pin(async move { #body }))
}
