//! `#[resource]` → `ResourceHandler`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{
    args_struct, assemble, call, common_builder, completers, cx_param, future, location,
    output_span, use_private,
};
use crate::model::{CacheScope, HtmlViewModel, ResourceKind, ResourceModel};

pub(crate) fn resource(model: &ResourceModel) -> TokenStream {
    let ResourceModel {
        common,
        func,
        kind,
        mime,
        size,
        ttl_ms,
        cache_scope,
        ui,
    } = model;
    let ident = &func.ident;
    let name = &common.name;
    let output = &func.output;
    let builder = common_builder(common);
    let injects = super::injects(func);
    let completers = completers(func);
    let location = location();
    let (lets, call) = call(func);
    let cx = cx_param(func);

    let (args_struct, new, decode) = match kind {
        ResourceKind::Static { uri } => (
            TokenStream::new(),
            quote!(__mcp::ResourceDefinition::fixed(#uri, #name)),
            TokenStream::new(),
        ),
        ResourceKind::Template { template } => (
            args_struct(common, func, false),
            quote! {
                __mcp::ResourceDefinition::template(
                    #template,
                    #name,
                    __mcp_input_schema(),
                )
            },
            quote! {
                let __mcp_args = match __mcp::decode_variables(__mcp_arguments(), &__mcp_request) {
                    ::core::result::Result::Ok(__mcp_args) => __mcp_args,
                    ::core::result::Result::Err(__mcp_error) => {
                        return ::core::result::Result::Err(__mcp_error);
                    }
                };
            },
        ),
    };

    let mut options = TokenStream::new();
    if let Some(mime) = mime {
        options.extend(quote!(.mime_type(#mime)));
    }
    if let Some(size) = size {
        options.extend(quote!(.size(#size)));
    }
    options.extend(cache_options(*ttl_ms, *cache_scope));
    let view = ui.as_ref().map(|ui| {
        options.extend(super::ui::resource_builder(ui));
        super::ui::view_impl(ident, ui)
    });

    let (first, last) = output_span(func);
    let convert = quote_spanned!(first=> <#output as __mcp::IntoResourceContents>::);
    let method = quote_spanned!(last=> into_contents);
    let future = future(
        func,
        &quote! {
            #decode
            #lets
            #call
            #convert #method(__mcp_out, &__mcp_request)
        },
    );
    let submit = common
        .register
        .then(|| quote!(__mcp::submit_resource!(#ident);));
    let use_private = use_private(common);
    let inner = quote! {
        #use_private

        #args_struct

        impl __mcp::ResourceHandler for #ident {
            fn definition() -> __mcp::ResourceDefinition {
                #new
                    #builder
                    #injects
                    #options
                    #completers
                    #location
            }

            fn read(
                __mcp_request: __mcp::ResourceRequest,
                #cx: __mcp::Context,
            ) -> __mcp::BoxFuture<__mcp::ReadResult> {
                #future
            }
        }

        #view

        #submit
    };
    assemble(func, &inner)
}

/// `.ttl_ms(…)` and `.cache_scope(…)`.
fn cache_options(ttl_ms: Option<u64>, cache_scope: Option<CacheScope>) -> TokenStream {
    let mut options = TokenStream::new();
    if let Some(ttl) = ttl_ms {
        options.extend(quote!(.ttl_ms(#ttl)));
    }
    if let Some(scope) = cache_scope {
        let variant = match scope {
            CacheScope::Public => quote!(Public),
            CacheScope::Private => quote!(Private),
        };
        options.extend(quote!(.cache_scope(__mcp::CacheScope::#variant)));
    }
    options
}

/// `#[resource(uri = "ui://…", html = "…")] struct View;` → the struct, its
/// `ResourceHandler` (the file's text, embedded) and its `UiView`.
pub(crate) fn html_view(model: &HtmlViewModel) -> TokenStream {
    let HtmlViewModel {
        common,
        item,
        path,
        size,
        ui,
        ttl_ms,
        cache_scope,
    } = model;
    let ident = &item.ident;
    let name = &common.name;
    let uri = &ui.uri;
    let builder = common_builder(common);
    let cache = cache_options(*ttl_ms, *cache_scope);
    let ui_options = super::ui::resource_builder(ui);
    let view = super::ui::view_impl(ident, ui);
    let location = location();
    let use_private = use_private(common);
    let submit = common
        .register
        .then(|| quote!(__mcp::submit_resource!(#ident);));
    let allow = super::allow_lints();
    quote! {
        #item
        #allow
        const _: () = {
            #use_private

            impl __mcp::ResourceHandler for #ident {
                fn definition() -> __mcp::ResourceDefinition {
                    __mcp::ResourceDefinition::fixed(#uri, #name)
                        #builder
                        .size(#size)
                        #cache
                        #ui_options
                        #location
                }

                fn read(
                    __mcp_request: __mcp::ResourceRequest,
                    _: __mcp::Context,
                ) -> __mcp::BoxFuture<__mcp::ReadResult> {
                    const __MCP_HTML: &str = ::core::include_str!(#path);
                    ::std::boxed::Box::pin(::core::future::ready(
                        <&'static str as __mcp::IntoResourceContents>::into_contents(
                            __MCP_HTML,
                            &__mcp_request,
                        ),
                    ))
                }
            }

            #view

            #submit
        };
    }
}
