//! `#[tool_impl]` → the `impl` block as written (minus the macros' attributes), a hidden
//! module holding one `#[tool]` function per `#[tool]` method (its receiver the server's
//! `State<Type>`, the rest its parameters, the call forwarded to the method), and
//! `Type::tool_set()`, those tools as a `ToolSet`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Pat;

use crate::model::ToolImplModel;

pub(crate) fn tool_impl(model: &ToolImplModel) -> TokenStream {
    let ToolImplModel {
        item,
        self_ty,
        type_ident,
        methods,
    } = model;
    let module = format_ident!("__mcp_tools_of_{}", type_ident);
    let allow = super::allow_lints();
    let mut fns = TokenStream::new();
    let mut idents = Vec::new();
    for m in methods {
        let ident = &m.sig.ident;
        let asyncness = &m.sig.asyncness;
        let output = &m.sig.output;
        let generics = &m.sig.generics;
        let params = &m.params;
        let args = &m.args;
        let path = &m.path;
        let docs = &m.docs;
        let names: Option<Vec<_>> = params
            .iter()
            .map(|p| match &*p.pat {
                Pat::Ident(i) => Some(i.ident.clone()),
                _ => None,
            })
            .collect();
        // A parameter that is not a plain name is reported by `#[tool]`; the body then
        // only has to type-check.
        let body = match names {
            Some(names) => {
                let awaited = asyncness.is_some().then(|| quote!(.await));
                quote!(<#self_ty>::#ident(&__mcp_self, #(#names),*) #awaited)
            }
            None => quote!(::core::unimplemented!()),
        };
        fns.extend(quote! {
            #(#docs)*
            #[#path(#args)]
            pub(super) #asyncness fn #ident #generics(
                __mcp_self: ::mcp_framework::__private::State<#self_ty>,
                #(#params),*
            ) #output {
                #body
            }
        });
        idents.push(ident);
    }
    quote! {
        #item

        #[doc(hidden)]
        #allow
        mod #module {
            #[allow(unused_imports)]
            use super::*;

            #fns
        }

        #allow
        impl #self_ty {
            /// The `#[tool]` methods of this type as a `ToolSet`, for
            /// `ServerBuilder::tools` (each takes `&self` from the state registered with
            /// `ServerBuilder::state`).
            pub fn tool_set() -> ::mcp_framework::__private::ToolSet {
                ::mcp_framework::__private::ToolSet::new() #(.with::<#module::#idents>())*
            }
        }
    }
}
