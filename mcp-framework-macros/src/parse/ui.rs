//! The MCP Apps options: `ui = …` and `visibility = …` of `#[tool]`, `ui(…)` of
//! `#[resource]`, and the checks of a view's URI and type.

use darling::FromMeta;
use darling::util::Flag;
use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, ExprPath, Lit, LitStr};

use super::{Errors, error};
use crate::model::{UiResourceModel, UiToolModel, ViewRef};

/// The URI scheme of views.
pub(crate) const UI_SCHEME: &str = "ui://";
/// The type of HTML views.
pub(crate) const APP_MIME: &str = "text/html;profile=mcp-app";

/// `ui = ViewType` (a view defined with `#[resource]`, checked by the compiler) or
/// `ui = "ui://…"` (checked by `build()`).
pub(crate) struct UiRef(ViewRef);

impl FromMeta for UiRef {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Ok(Self(ViewRef::Uri(s.clone()))),
            Expr::Path(ExprPath { path, qself: None, .. }) => Ok(Self(ViewRef::Type(path.clone()))),
            _ => Err(darling::Error::custom(
                "`ui` names the tool's view: a `#[resource(uri = \"ui://…\")]` (`ui = forecast_view`) \
                 or its URI (`ui = \"ui://…\"`)",
            )
            .with_span(expr)),
        }
    }
}

/// `visibility = "app"`, `visibility = ["model", "app"]`.
pub(crate) struct VisibilityArg(Vec<LitStr>, Span);

impl FromMeta for VisibilityArg {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let wrong = || {
            darling::Error::custom(
                "`visibility` is \"model\", \"app\" or a list of them, such as \
                 `visibility = [\"app\"]`",
            )
            .with_span(expr)
        };
        let lit = |e: &Expr| match e {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.clone()),
            _ => None,
        };
        let items = match expr {
            Expr::Array(a) => a.elems.iter().map(lit).collect::<Option<Vec<_>>>(),
            other => lit(other).map(|s| vec![s]),
        };
        items.map(|i| Self(i, expr.span())).ok_or_else(wrong)
    }
}

/// A list of string literals, such as `["https://api.example.com"]`.
pub(crate) struct Origins(Vec<LitStr>);

impl FromMeta for Origins {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let wrong = || {
            darling::Error::custom("a list of origins, such as `[\"https://api.example.com\"]`")
                .with_span(expr)
        };
        let Expr::Array(array) = expr else {
            return Err(wrong());
        };
        array
            .elems
            .iter()
            .map(|e| match e {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Ok(s.clone()),
                _ => Err(wrong()),
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }
}

/// `csp(connect_domains = […], resource_domains = […], frame_domains = […],
/// base_uri_domains = […])`.
#[derive(FromMeta, Default)]
pub(crate) struct CspArgs {
    connect_domains: Option<Origins>,
    resource_domains: Option<Origins>,
    frame_domains: Option<Origins>,
    base_uri_domains: Option<Origins>,
}

/// `permissions(camera, microphone, geolocation, clipboard_write)`.
#[derive(FromMeta, Default)]
pub(crate) struct PermissionArgs {
    camera: Flag,
    microphone: Flag,
    geolocation: Flag,
    clipboard_write: Flag,
}

/// `ui(csp(…), permissions(…), domain = "…", prefers_border = bool)` of a view.
#[derive(FromMeta, Default)]
pub(crate) struct UiArgs {
    csp: Option<CspArgs>,
    permissions: Option<PermissionArgs>,
    domain: Option<LitStr>,
    prefers_border: Option<bool>,
}

/// A tool's `ui` and `visibility`, checked.
pub(crate) fn tool_options(
    ui: Option<UiRef>,
    visibility: Option<VisibilityArg>,
    acc: &mut Errors,
) -> UiToolModel {
    let view = ui.map(|u| u.0);
    if let Some(ViewRef::Uri(uri)) = &view
        && !is_view_uri(&uri.value())
    {
        acc.push(error(
            uri,
            format!(
                "a view's URI starts with `ui://` (MCP Apps views are `ui://` resources), \
                 not `{}`",
                uri.value()
            ),
        ));
    }
    let visibility = visibility.map(|VisibilityArg(items, span)| {
        if items.is_empty() {
            acc.push(syn::Error::new(
                span,
                "visibility names no one: give \"model\", \"app\" or both",
            ));
        }
        let mut out: Vec<&'static str> = Vec::new();
        for item in &items {
            let variant = match item.value().as_str() {
                "model" => "Model",
                "app" => "App",
                other => {
                    acc.push(error(
                        item,
                        format!("unknown visibility {other:?}: use \"model\" or \"app\""),
                    ));
                    continue;
                }
            };
            if !out.contains(&variant) {
                out.push(variant);
            }
        }
        out
    });
    UiToolModel { view, visibility }
}

/// A resource's `ui(…)`, checked against its URI (`None`: not a view) and type.
pub(crate) fn resource_options(
    uri: Option<&LitStr>,
    template: Option<&LitStr>,
    mime: Option<&LitStr>,
    ui: Option<UiArgs>,
    ui_span: Span,
    acc: &mut Errors,
) -> Option<UiResourceModel> {
    if let Some(t) = template
        && is_view_uri(&t.value())
    {
        acc.push(error(
            t,
            "an MCP Apps view is one fixed `ui://` resource (tools name it by its URI): \
             use `uri = …`, not a template",
        ));
        return None;
    }
    let Some(uri) = uri.filter(|u| is_view_uri(&u.value())) else {
        if ui.is_some() {
            acc.push(syn::Error::new(
                ui_span,
                "`ui(…)` describes an MCP Apps view, whose URI is `ui://…`",
            ));
        }
        return None;
    };
    if let Some(m) = mime
        && !is_app_mime(&m.value())
    {
        acc.push(error(
            m,
            format!(
                "`{}` is an MCP Apps view: its type is `{APP_MIME}` (leave `mime` out)",
                uri.value()
            ),
        ));
    }
    let ui = ui.unwrap_or_default();
    let csp = ui.csp.unwrap_or_default();
    let origins = |o: Option<Origins>, acc: &mut Errors| -> Vec<String> {
        let list = o.map(|o| o.0).unwrap_or_default();
        for origin in &list {
            let v = origin.value();
            if v.is_empty() || v.contains(char::is_whitespace) || v.contains(['\'', ';', ',']) {
                acc.push(error(
                    origin,
                    "an origin is one CSP source such as \"https://api.example.com\" or \
                     \"https://*.example.com\" (one per string)",
                ));
            }
        }
        list.iter().map(LitStr::value).collect()
    };
    let permissions = ui.permissions.unwrap_or_default();
    Some(UiResourceModel {
        uri: uri.value(),
        connect_domains: origins(csp.connect_domains, acc),
        resource_domains: origins(csp.resource_domains, acc),
        frame_domains: origins(csp.frame_domains, acc),
        base_uri_domains: origins(csp.base_uri_domains, acc),
        camera: permissions.camera.is_present(),
        microphone: permissions.microphone.is_present(),
        geolocation: permissions.geolocation.is_present(),
        clipboard_write: permissions.clipboard_write.is_present(),
        domain: ui.domain.map(|d| d.value()),
        prefers_border: ui.prefers_border,
    })
}

/// Whether `uri` is a view's (`ui://…`), as the runtime decides.
fn is_view_uri(uri: &str) -> bool {
    uri.get(..UI_SCHEME.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(UI_SCHEME))
}

/// Whether `mime` is `text/html;profile=mcp-app` (case and spaces aside).
fn is_app_mime(mime: &str) -> bool {
    let compact: String = mime.chars().filter(|c| !c.is_whitespace()).collect();
    compact.eq_ignore_ascii_case(APP_MIME)
        || compact.eq_ignore_ascii_case("text/html;profile=\"mcp-app\"")
}
