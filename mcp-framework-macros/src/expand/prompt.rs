//! `#[prompt]` → `PromptHandler`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{
    args_struct, assemble, call, common_builder, completers, cx_param, future, location,
    output_span, use_private,
};
use crate::model::PromptModel;

pub(crate) fn prompt(model: &PromptModel) -> TokenStream {
    let PromptModel { common, func } = model;
    let ident = &func.ident;
    let name = &common.name;
    // Extra prompt arguments are ignored, not refused.
    let args_struct = args_struct(common, func, false);
    let output = &func.output;
    let builder = common_builder(common);
    let injects = super::injects(func);
    let completers = completers(func);
    let location = location();
    let (lets, call) = call(func);
    let cx = cx_param(func);
    let (first, last) = output_span(func);
    let convert = quote_spanned!(first=> <#output as __mcp::IntoPromptResult>::);
    let method = quote_spanned!(last=> into_prompt_result);
    let future = future(
        func,
        &quote! {
            let __mcp_args = match __mcp::decode_prompt_arguments(__mcp_arguments(), __mcp_value) {
                ::core::result::Result::Ok(__mcp_args) => __mcp_args,
                ::core::result::Result::Err(__mcp_error) => {
                    return ::core::result::Result::Err(__mcp_error);
                }
            };
            #lets
            #call
            #convert #method(__mcp_out)
        },
    );
    let claim = super::name_claim("prompt", common);
    let submit = common
        .register
        .then(|| quote!(__mcp::submit_prompt!(#ident);));
    let use_private = use_private(common);
    let inner = quote! {
        #use_private

        #args_struct

        impl __mcp::PromptHandler for #ident {
            fn definition() -> __mcp::PromptDefinition {
                __mcp::PromptDefinition::new(#name, __mcp_input_schema())
                    #builder
                    #injects
                    #completers
                    #location
            }

            fn get(
                __mcp_value: __mcp::Value,
                #cx: __mcp::Context,
            ) -> __mcp::BoxFuture<__mcp::PromptResult> {
                #future
            }
        }

        #submit

        #claim
    };
    assemble(func, &inner)
}
