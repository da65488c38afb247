//! `#[resource]` → `ResourceHandler`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{
    args_ident, args_struct, assemble, call, common_builder, completers, cx_param, future,
    location, output_span, use_private,
};
use crate::model::{CacheScope, ResourceKind, ResourceModel};

pub(crate) fn resource(model: &ResourceModel) -> TokenStream {
    let ResourceModel {
        common,
        func,
        kind,
        mime,
        size,
        ttl_ms,
        cache_scope,
    } = model;
    let ident = &func.ident;
    let name = &common.name;
    let args = args_ident(func);
    let output = &func.output;
    let builder = common_builder(common);
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
                    __mcp::input_schema_for::<#args>(),
                )
            },
            quote! {
                let __mcp_args: #args = match __mcp::decode_variables(&__mcp_request) {
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

        #submit
    };
    assemble(func, &inner)
}
