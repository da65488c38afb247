//! Streamable HTTP (axum): one endpoint, one POST per message.
//!
//! Modern (2026-07-28) requests are stateless: headers are checked against the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), the answer is JSON,
//! or an SSE stream when the handler sends request-scoped notifications first ([`modern`]).
//! `subscriptions/listen` answers with a long-lived SSE stream ([`listen`]). Closing a
//! response stream cancels its request. Legacy peers (`initialize`) get a `Mcp-Session-Id`
//! and the 2025-11-25 behaviour on the same endpoint ([`legacy`], [`sessions`],
//! [`resumable`]). Before any of that, [`checks`] guard the endpoint (the host, through a
//! trusted [`proxy`], the origin, media types, sizes), [`cors`] answers browsers'
//! preflights, and [`body`] receives a POST body within its limits; a request refused before
//! its body was read [`linger`]s on the rest of it, so that the client reads the answer. [`serve`] runs the
//! endpoint on a listener: [`accept`] and [`connection`] own the connections and their
//! timers. Every router and listener of one server reads its [`Http`]: the [`HttpConfig`]
//! it was built with (checked once, by [`Http::new`]), its legacy sessions and its body
//! budget.

mod accept;
mod auth;
mod body;
mod budget;
mod card;
mod challenge;
mod checks;
pub(crate) mod config;
mod connection;
mod cors;
mod endpoint;
mod fields;
mod legacy;
mod linger;
mod listen;
mod modern;
mod proxy;
mod response;
mod resumable;
mod sessions;
mod sse;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use futures_util::future::{Either, Ready, ready};

use self::body::BodyLimits;
use self::checks::{Guard, Rejected, media};
pub(crate) use self::config::HttpConfig;
pub(crate) use self::endpoint::Http;
use self::endpoint::{Endpoint, session_of};
use self::linger::{Linger, Unread};
use self::response::{accepted, error_response, method_not_allowed, session_not_found};
use crate::dispatch::on_notification;
use crate::error::Error;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{Incoming, parse_message};
use crate::protocol::meta::{RequestedVersion, read_request_meta};
use crate::runtime::state::ServerInner;
use crate::session::legacy::LegacySession;

/// The MCP endpoint at `path`, with the checks and CORS of the server's settings. `bound`
/// is the address it is served on, when known (a loopback address turns on the
/// loopback-only `Host` check).
pub(crate) fn router(
    server: Arc<ServerInner>,
    http: Arc<Http>,
    path: &str,
    bound: Option<SocketAddr>,
) -> Router {
    let config = &http.config;
    let guard = Guard::new(config, bound).expect("checked by Http::new");
    let cors = cors::layer(config, &guard.origins);
    #[cfg(feature = "auth")]
    let authorization = config.authorization.clone();
    let endpoint = Arc::new(Endpoint {
        server,
        http,
        guard,
        #[cfg(feature = "auth")]
        auth: authorization.clone(),
    });
    let route = axum::routing::any(handle);
    let route = match cors {
        Some(cors) => route.layer(cors),
        None => route,
    };
    #[allow(unused_mut)]
    let mut router = Router::new().route(path, route);
    // What extensions serve beside the endpoint (SEP-3371's transport hook).
    for (at, route) in &endpoint.server.extensions.routes {
        router = router.route(at, route.clone().with_state(()));
    }
    if let Some(card) = &endpoint.http.card {
        let at: Arc<str> = Arc::from(path);
        let on = at.clone();
        router = router.route(
            &card::card_path(path),
            axum::routing::any(move |State(ep): State<Arc<Endpoint>>, request: Request| {
                std::future::ready(card::card(&ep, &on, request))
            }),
        );
        if card.catalog_identifier.is_some() {
            router = router.route(
                "/.well-known/ai-catalog.json",
                axum::routing::any(move |State(ep): State<Arc<Endpoint>>, request: Request| {
                    std::future::ready(card::catalog(&ep, &at, request))
                }),
            );
        }
    }
    #[cfg(feature = "auth")]
    if let Some(auth) = authorization {
        for at in auth.metadata_paths() {
            if at != path {
                let auth = auth.clone();
                router = router.route(
                    &at,
                    axum::routing::get(move || std::future::ready(auth::metadata(&auth))),
                );
            }
        }
    }
    router.with_state(endpoint)
}

/// Serves the endpoint on a bound listener until the server shuts down and the connections
/// have finished their requests; every request carries its peer's address
/// (`ConnectInfo<SocketAddr>`, for trusted proxies).
pub(crate) async fn serve(
    server: Arc<ServerInner>,
    http: Arc<Http>,
    listener: tokio::net::TcpListener,
    path: &str,
) -> Result<(), Error> {
    let local = listener.local_addr()?;
    let shutdown = server.shutdown.clone();
    let router = router(server, http.clone(), path, Some(local));
    accept::serve(listener, router, &http.config, shutdown).await;
    Ok(())
}

/// Every request to the endpoint. Not an `async fn`: the checks that need no waiting run
/// before the future exists, and a POST's future is [`post`]'s own (axum boxes it; a
/// wrapper around it would be one more copy of its state per request).
fn handle(
    State(ep): State<Arc<Endpoint>>,
    request: Request,
) -> impl Future<Output = Response> + Send {
    let (parts, body) = request.into_parts();
    if let Err(rejected) = ep.guard.check(&parts) {
        let answer = refuse(&ep, &parts, body, rejected.into_response());
        return Either::Left(ready(answer));
    }
    // Before the body is read: a client without a valid token holds nothing.
    #[cfg(feature = "auth")]
    if ep.auth.is_some() {
        let checked: Authenticated = Box::pin(authenticated(ep, parts, body));
        return Either::Right(Either::Left(checked));
    }
    Either::Right(Either::<Authenticated, _>::Right(by_method(
        ep, parts, body,
    )))
}

/// The future of a request whose token is checked first (boxed: endpoints without
/// authorization do not carry its state).
type Authenticated = Pin<Box<dyn Future<Output = Response> + Send>>;

/// The token check of an endpoint with authorization, then [`by_method`].
#[cfg(feature = "auth")]
async fn authenticated(ep: Arc<Endpoint>, mut parts: Parts, body: Body) -> Response {
    if let Some(authorization) = &ep.auth
        && let Err(refused) =
            auth::authenticate(authorization, &ep.server.config.scope_rules, &mut parts).await
    {
        return refuse(&ep, &parts, body, refused);
    }
    by_method(ep, parts, body).await
}

/// The settings of the endpoint's lingering close.
fn linger_of(ep: &Endpoint) -> Linger {
    Linger::of(&ep.http.config)
}

/// `answer` refuses a request before its body was read (see [`linger`]).
fn refuse(ep: &Endpoint, parts: &Parts, body: Body, answer: Response) -> Response {
    linger::refuse(parts, Unread::whole(body), linger_of(ep), answer)
}

fn by_method(
    ep: Arc<Endpoint>,
    parts: Parts,
    body: Body,
) -> Either<Ready<Response>, impl Future<Output = Response> + Send> {
    let answer = match parts.method {
        Method::POST => return Either::Right(post(ep, parts, body)),
        Method::GET => legacy::get(&ep, &parts),
        Method::DELETE => legacy::delete(&ep, &parts),
        _ => method_not_allowed(),
    };
    Either::Left(ready(answer))
}

async fn post(ep: Arc<Endpoint>, parts: Parts, body: Body) -> Response {
    let answer = match media::negotiate(&parts.headers)
        .and_then(|answer| media::check_content_type(&parts.headers).map(|()| answer))
    {
        Ok(answer) => answer,
        Err(e) => return refuse(&ep, &parts, body, Rejected::from(e).into_response()),
    };
    let config = &ep.http.config;
    let limits = BodyLimits {
        max_bytes: config
            .max_body_bytes
            .unwrap_or(ep.server.config.max_message_bytes),
        timeout: config.body_read_timeout,
    };
    let (bytes, reservation) = match body::read(&ep.http.budget, limits, &parts.headers, body).await
    {
        Ok(received) => received,
        Err(refused) => {
            tracing::debug!(error = %refused.error, "request body refused");
            let answer = refused.error.into_response();
            return match refused.unread {
                Some(unread) => linger::refuse(&parts, unread, linger_of(&ep), answer),
                None => answer,
            };
        }
    };
    let parsed = parse_message(&bytes);
    // The body is no longer buffered once parsed.
    drop((bytes, reservation));
    let message = match parsed {
        Ok(m) => m,
        Err(rejected) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                rejected.id.as_ref(),
                &rejected.error,
            );
        }
    };
    let session = match session_of(&ep, &parts.headers) {
        Some(Ok(s)) => Some(s),
        Some(Err(())) => {
            // A stray session id on a modern request is ignored; on anything else it names
            // a session that is gone.
            let modern = matches!(&message, Incoming::Request(r) if read_request_meta(r.params.as_deref())
                .is_ok_and(|(m, _)| m.protocol_version.as_ref().and_then(RequestedVersion::known).is_some_and(ProtocolVersion::is_modern)));
            if !modern {
                return session_not_found();
            }
            None
        }
        None => None,
    };
    match message {
        Incoming::Notification(n) => {
            // A modern notification has no session: only an extension's can mean anything.
            on_notification(
                &ep.server,
                &n,
                session.as_ref().map(|s| &s.session.inflight),
            );
            accepted()
        }
        Incoming::Response(r) => {
            if let Some(s) = &session {
                s.session.deliver(r);
            }
            accepted()
        }
        Incoming::Request(request) if LegacySession::is_handshake(&request) => {
            legacy::initialize(&ep, &parts, &request, answer)
        }
        Incoming::Request(request) => {
            modern::serve_request(ep, parts, request, session, answer).await
        }
    }
}
