//! `#[resource(uri = …)]` and `#[resource(template = …)]`.

use darling::FromMeta;
use proc_macro2::{Span, TokenStream};
use syn::LitStr;

use super::params::function;
use super::template::template_variables;
use super::ui::{UiArgs, resource_options};
use super::{CommonArgs, Errors, Kind, common, error, parse_args, parse_item};
use crate::model::{CacheScope, HtmlViewModel, ResourceKind, ResourceModel};

/// The arguments of `#[resource(…)]`.
#[derive(FromMeta)]
struct ResourceArgs {
    uri: Option<LitStr>,
    template: Option<LitStr>,
    #[darling(flatten)]
    common: CommonArgs,
    mime: Option<LitStr>,
    size: Option<u64>,
    ttl_ms: Option<u64>,
    cache_scope: Option<LitStr>,
    ui: Option<UiArgs>,
    html: Option<LitStr>,
}

/// `cache_scope = "public" | "private"`.
fn cache_scope(scope: Option<LitStr>, acc: &mut Errors) -> Option<CacheScope> {
    scope.and_then(|s| match s.value().as_str() {
        "public" => Some(CacheScope::Public),
        "private" => Some(CacheScope::Private),
        other => {
            acc.push(error(
                &s,
                format!("cache_scope must be \"public\" or \"private\", not {other:?}"),
            ));
            None
        }
    })
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("resource names cannot be empty".into());
    }
    Ok(())
}

pub(crate) fn resource(args: TokenStream, item: TokenStream) -> syn::Result<ResourceModel> {
    let item = parse_item(Kind::Resource, item)?;
    let mut acc = Errors::new();
    let args = acc.handle(parse_args::<ResourceArgs>(args));
    let func = function(Kind::Resource, item, &mut acc);
    let Some(mut args) = args else {
        return Err(acc.finish().expect_err("the arguments failed to parse"));
    };
    if let Some(html) = &args.html {
        acc.push(error(
            html,
            "`html = \"…\"` goes on a unit struct (`struct ForecastView;`), whose only \
             contents is the file; a function produces its HTML itself",
        ));
    }
    let ui_span = ui_span(&args);
    let ui = resource_options(
        args.uri.as_ref(),
        args.template.as_ref(),
        args.mime.as_ref(),
        args.ui.take(),
        ui_span,
        &mut acc,
    );

    let kind = match (args.uri, args.template) {
        (Some(uri), None) => {
            if !uri.value().contains(':') || uri.value().contains(char::is_whitespace) {
                acc.push(error(
                    &uri,
                    format!(
                        "`{}` is not an absolute URI (such as \"file:///notes.txt\")",
                        uri.value()
                    ),
                ));
            }
            if uri.value().contains(['{', '}']) {
                acc.push(error(
                    &uri,
                    "this URI has `{…}` variables: declare it with `template = \"…\"`",
                ));
            }
            for (p, _) in func.args() {
                acc.push(error(
                    &p.ident,
                    format!(
                        "a static resource (`uri = …`) takes only context parameters; to read \
                         `{0}` from the URI, use `template = \"…{{{0}}}…\"`",
                        p.name
                    ),
                ));
            }
            Some(ResourceKind::Static { uri })
        }
        (None, Some(template)) => {
            match template_variables(&template.value()) {
                Err(e) => acc.push(error(&template, e)),
                Ok(vars) => {
                    for var in &vars {
                        if !func.args().any(|(p, _)| &p.name == var) {
                            acc.push(error(
                                &template,
                                format!(
                                    "template variable `{var}` has no parameter: add \
                                     `{var}: String` (or another type) to the function"
                                ),
                            ));
                        }
                    }
                    for (p, _) in func.args() {
                        if !vars.contains(&p.name) {
                            acc.push(error(
                                &p.ident,
                                format!(
                                    "parameter `{}` is not a variable of the URI template \
                                     \"{}\" (mark context parameters with #[ctx])",
                                    p.name,
                                    template.value()
                                ),
                            ));
                        }
                    }
                }
            }
            Some(ResourceKind::Template { template })
        }
        (Some(_), Some(template)) => {
            acc.push(error(
                &template,
                "a resource has either `uri = …` (one resource) or `template = …` (a URI \
                     template), not both",
            ));
            None
        }
        (None, None) => {
            acc.push(syn::Error::new(
                Span::call_site(),
                "#[resource] needs `uri = \"…\"` (one resource) or `template = \"…\"` (a URI \
                     template)",
            ));
            None
        }
    };

    let cache_scope = cache_scope(args.cache_scope, &mut acc);
    if let Some(mime) = &args.mime
        && !mime.value().contains('/')
    {
        acc.push(error(
            mime,
            "mime must be a MIME type such as \"text/plain\"",
        ));
    }
    if matches!(kind, Some(ResourceKind::Static { .. })) {
        for (p, a) in func.args() {
            if a.completer.is_some() {
                acc.push(error(&p.ident, "#[complete] needs a template variable"));
            }
        }
    }

    let common = common(
        args.common,
        (&func.item.sig.ident, &func.item.attrs),
        &mut acc,
        check_name,
    );
    let Some(kind) = kind else {
        return Err(acc.finish().expect_err("an error was pushed"));
    };
    acc.finish_with(ResourceModel {
        common,
        func,
        kind,
        mime: args.mime.map(|m| m.value()),
        size: args.size,
        ttl_ms: args.ttl_ms,
        cache_scope,
        ui,
    })
}

/// Where a misplaced `ui(…)` is reported: at the URI it does not fit.
fn ui_span(args: &ResourceArgs) -> Span {
    args.uri
        .as_ref()
        .or(args.template.as_ref())
        .map_or_else(Span::call_site, LitStr::span)
}

/// `#[resource(uri = "ui://…", html = "file.html", …)] struct View;`: a view whose HTML
/// is the file (relative to the file holding the struct, as `include_str!` resolves),
/// read and checked now, embedded with `include_str!` (so editing it rebuilds the crate).
pub(crate) fn html_view(
    args: TokenStream,
    item: syn::ItemStruct,
    invoking_file: Option<std::path::PathBuf>,
) -> syn::Result<HtmlViewModel> {
    let mut acc = Errors::new();
    let args = acc.handle(parse_args::<ResourceArgs>(args));
    if !matches!(item.fields, syn::Fields::Unit) {
        acc.push(error(
            &item.fields,
            "a view with `html = \"…\"` is a unit struct (`struct ForecastView;`)",
        ));
    }
    if !item.generics.params.is_empty() {
        acc.push(error(&item.generics, "a view cannot be generic"));
    }
    let Some(mut args) = args else {
        return Err(acc.finish().expect_err("the arguments failed to parse"));
    };
    let Some(html) = args.html.take() else {
        acc.push(syn::Error::new(
            item.ident.span(),
            "#[resource] on a struct is a view whose HTML comes from a file: add \
             `html = \"view.html\"` (or put #[resource] on a function)",
        ));
        return Err(acc.finish().expect_err("an error was pushed"));
    };
    if args.template.is_some() || args.uri.is_none() {
        let at = args
            .template
            .as_ref()
            .map_or_else(|| item.ident.span(), LitStr::span);
        acc.push(syn::Error::new(
            at,
            "a view with `html = \"…\"` needs `uri = \"ui://…\"`",
        ));
    }
    let path = crate::paths::relative_to_invoking_file(&html, invoking_file);
    let size = match std::fs::read_to_string(&path) {
        Err(e) => {
            acc.push(error(
                &html,
                format!("cannot read the view's HTML `{}`: {e}", path.display()),
            ));
            0
        }
        Ok(text) if !looks_like_html(&text) => {
            acc.push(error(
                &html,
                format!(
                    "`{}` is not an HTML document: a view starts with `<!DOCTYPE html>` or \
                     `<html>`",
                    path.display()
                ),
            ));
            0
        }
        Ok(text) => text.len() as u64,
    };
    let ui_span = ui_span(&args);
    let ui = resource_options(
        args.uri.as_ref(),
        None,
        args.mime.as_ref(),
        args.ui.take(),
        ui_span,
        &mut acc,
    );
    if let Some(uri) = &args.uri
        && ui.is_none()
    {
        acc.push(error(
            uri,
            "a view with `html = \"…\"` is an MCP Apps view: its URI starts with `ui://`",
        ));
    }
    if args.size.is_some() {
        acc.push(syn::Error::new(
            html.span(),
            "a view's `size` is its file's: leave `size` out",
        ));
    }
    let common = common(
        args.common,
        (&item.ident, &item.attrs),
        &mut acc,
        check_name,
    );
    let cache_scope = cache_scope(args.cache_scope, &mut acc);
    let Some(ui) = ui else {
        return Err(acc.finish().expect_err("an error was pushed"));
    };
    acc.finish_with(HtmlViewModel {
        common,
        item,
        path: path.to_string_lossy().into_owned(),
        size,
        ui,
        ttl_ms: args.ttl_ms,
        cache_scope,
    })
}

/// Whether `text` starts (after a byte-order mark, blanks and comments) with a doctype or
/// an `<html>` element.
fn looks_like_html(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    while let Some(after) = rest.strip_prefix("<!--") {
        match after.find("-->") {
            Some(end) => rest = after[end + 3..].trim_start(),
            None => return false,
        }
    }
    let head: String = rest
        .chars()
        .take(14)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    fn errors(args: TokenStream, item: TokenStream) -> String {
        match resource(args, item) {
            Ok(_) => panic!("expected errors"),
            Err(e) => e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    #[test]
    fn static_resource() {
        let m = resource(
            quote!(
                uri = "test://static-text",
                mime = "text/plain",
                size = 123,
                ttl_ms = 60000,
                cache_scope = "public"
            ),
            quote! {
                /// A static text.
                fn static_text(cx: Context) -> String { todo!() }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.common.name, "static_text");
        assert!(
            matches!(m.kind, ResourceKind::Static { ref uri } if uri.value() == "test://static-text")
        );
        assert_eq!(m.mime.as_deref(), Some("text/plain"));
        assert_eq!(m.size, Some(123));
        assert_eq!(m.ttl_ms, Some(60000));
        assert_eq!(m.cache_scope, Some(CacheScope::Public));
        assert_eq!(
            m.common.description.unwrap().as_text(),
            Some("A static text.")
        );
    }

    #[test]
    fn template_resource() {
        let m = resource(
            quote!(template = "test://template/{id}/data{?page}", name = "data"),
            quote! {
                async fn data(#[complete(ids)] id: u32, page: Option<u32>, #[ctx] h: ServerHandle) -> String { todo!() }
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(m.kind, ResourceKind::Template { .. }));
        assert_eq!(m.func.args().count(), 2);
        assert!(m.func.args().next().unwrap().1.completer.is_some());
    }

    #[test]
    fn uri_and_template_are_exclusive() {
        let e = errors(
            quote!(uri = "a:b", template = "a:{b}"),
            quote!(
                fn r() {}
            ),
        );
        assert!(e.contains("not both"), "{e}");
        let e = errors(
            quote!(name = "x"),
            quote!(
                fn r() {}
            ),
        );
        assert!(e.contains("needs `uri"), "{e}");
    }

    #[test]
    fn template_variables_must_match_parameters() {
        let e = errors(
            quote!(template = "test://{id}/{section}"),
            quote!(
                fn r(id: String, extra: u8) -> String {
                    todo!()
                }
            ),
        );
        assert!(
            e.contains("template variable `section` has no parameter"),
            "{e}"
        );
        assert!(
            e.contains("parameter `extra` is not a variable of the URI template"),
            "{e}"
        );
        let e = errors(
            quote!(template = "test://{id"),
            quote!(
                fn r(id: String) {}
            ),
        );
        assert!(e.contains("unclosed"), "{e}");
    }

    #[test]
    fn static_resources_take_only_context() {
        let e = errors(
            quote!(uri = "test://x"),
            quote!(
                fn r(id: String) {}
            ),
        );
        assert!(e.contains("takes only context parameters"), "{e}");
        assert!(e.contains("template = \"…{id}…\""), "{e}");
    }

    #[test]
    fn bad_cache_scope() {
        let e = errors(
            quote!(uri = "test://x", cache_scope = "shared"),
            quote!(
                fn r() {}
            ),
        );
        assert_eq!(
            e,
            "cache_scope must be \"public\" or \"private\", not \"shared\""
        );
    }
}
