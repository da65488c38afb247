//! The MCP Apps options → builder calls: a tool's `.ui(…)`/`.visibility(…)`, a view's
//! `.ui(UiResourceMeta …)` and its `UiView` impl.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Ident;
use syn::spanned::Spanned as _;

use crate::model::{UiResourceModel, UiToolModel, ViewRef};

/// `.ui(…)` and `.visibility(…)` of a tool.
pub(super) fn tool_builder(ui: &UiToolModel) -> TokenStream {
    let mut out = TokenStream::new();
    match &ui.view {
        // Spanned at the path: something that is not a view is reported there.
        Some(ViewRef::Type(path)) => {
            let uri = quote_spanned!(path.span()=> <#path as __mcp::UiView>::URI);
            out.extend(quote!(.ui(#uri)));
        }
        Some(ViewRef::Uri(uri)) => out.extend(quote!(.ui(#uri))),
        None => {}
    }
    if let Some(who) = &ui.visibility {
        let variants = who
            .iter()
            .map(|v| Ident::new(v, proc_macro2::Span::call_site()));
        out.extend(quote!(.visibility([#(__mcp::Visibility::#variants),*])));
    }
    out
}

/// `.ui(__mcp::UiResourceMeta::new()…)` of a view.
pub(super) fn resource_builder(ui: &UiResourceModel) -> TokenStream {
    let UiResourceModel {
        connect_domains,
        resource_domains,
        frame_domains,
        base_uri_domains,
        ..
    } = ui;
    let mut calls = quote! {
        #(.connect_domain(#connect_domains))*
        #(.resource_domain(#resource_domains))*
        #(.frame_domain(#frame_domains))*
        #(.base_uri_domain(#base_uri_domains))*
    };
    for (on, method) in [
        (ui.camera, quote!(camera)),
        (ui.microphone, quote!(microphone)),
        (ui.geolocation, quote!(geolocation)),
        (ui.clipboard_write, quote!(clipboard_write)),
    ] {
        if on {
            calls.extend(quote!(.#method()));
        }
    }
    if let Some(d) = &ui.domain {
        calls.extend(quote!(.domain(#d)));
    }
    if let Some(b) = ui.prefers_border {
        calls.extend(quote!(.prefers_border(#b)));
    }
    quote!(.ui(__mcp::UiResourceMeta::new() #calls))
}

/// `impl UiView for #ident`: tools name the view by this type.
pub(super) fn view_impl(ident: &Ident, ui: &UiResourceModel) -> TokenStream {
    let uri = &ui.uri;
    quote! {
        impl __mcp::UiView for #ident {
            const URI: &'static str = #uri;
        }
    }
}
