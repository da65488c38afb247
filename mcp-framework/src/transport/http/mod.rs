//! Streamable HTTP (axum): one endpoint, one POST per message.
//!
//! Modern (2026-07-28) requests are stateless: headers are checked against the body
//! (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), the answer is JSON,
//! or an SSE stream when the handler sends request-scoped notifications first ([`modern`]).
//! `subscriptions/listen` answers with a long-lived SSE stream ([`listen`]). Closing a
//! response stream cancels its request. Legacy peers (`initialize`) get a `Mcp-Session-Id`
//! and the 2025-11-25 behaviour on the same endpoint ([`legacy`], [`sessions`],
//! [`resumable`]). Before any of that, [`checks`] guard the endpoint (the host, through a
//! trusted [`proxy`], the origin, media types, sizes), and [`cors`] answers browsers'
//! preflights.

mod checks;
mod cors;
mod endpoint;
mod fields;
mod legacy;
mod listen;
mod modern;
mod proxy;
mod response;
mod resumable;
mod sessions;
mod sse;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::Response;

pub(crate) use sessions::Sessions;

pub(crate) use self::checks::ConfigError;
use self::checks::{Guard, Rejected, media};
use self::endpoint::{Endpoint, session_of};
use self::response::{accepted, error_response, method_not_allowed, session_not_found};
use crate::dispatch::on_notification;
use crate::error::Error;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{Incoming, parse_message};
use crate::protocol::meta::read_request_meta;
use crate::runtime::config::HttpConfig;
use crate::runtime::state::ServerInner;
use crate::session::legacy::LegacySession;

/// Whether the hosts, origins and proxies of `config` parse (what
/// [`router`] needs of them).
pub(crate) fn check_config(config: &HttpConfig) -> Result<(), ConfigError> {
    Guard::new(config, None).map(drop)
}

/// The MCP endpoint at `path`, with the checks and CORS of `config` (the server's
/// settings, or those plus the command line's; checked by [`check_config`] beforehand).
/// `bound` is the address it is served on, when known (a loopback address turns on the
/// loopback-only `Host` check).
pub(crate) fn router(
    server: Arc<ServerInner>,
    sessions: Arc<Sessions>,
    path: &str,
    bound: Option<SocketAddr>,
    config: &HttpConfig,
) -> Router {
    let guard = Guard::new(config, bound).expect("HttpConfig is checked before it is served");
    let cors = cors::layer(config, &guard.origins);
    let endpoint = Arc::new(Endpoint {
        server,
        sessions,
        guard,
    });
    let route = axum::routing::any(handle);
    let route = match cors {
        Some(cors) => route.layer(cors),
        None => route,
    };
    Router::new().route(path, route).with_state(endpoint)
}

/// Serves the endpoint on a bound listener until the server shuts down; every request
/// carries its peer's address (`ConnectInfo<SocketAddr>`, for trusted proxies).
pub(crate) async fn serve(
    server: Arc<ServerInner>,
    sessions: Arc<Sessions>,
    listener: tokio::net::TcpListener,
    path: &str,
    config: &HttpConfig,
) -> Result<(), Error> {
    let local = listener.local_addr()?;
    let shutdown = server.shutdown.clone();
    let router = router(server, sessions, path, Some(local), config);
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move { shutdown.cancelled().await })
    .await?;
    Ok(())
}

async fn handle(State(ep): State<Arc<Endpoint>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(rejected) = ep.guard.check(&parts) {
        return rejected.into_response();
    }
    match parts.method {
        Method::POST => post(ep, parts, body).await,
        Method::GET => legacy::get(&ep, &parts),
        Method::DELETE => legacy::delete(&ep, &parts),
        _ => method_not_allowed(),
    }
}

async fn post(ep: Arc<Endpoint>, parts: Parts, body: Body) -> Response {
    let answer = match media::negotiate(&parts.headers)
        .and_then(|answer| media::check_content_type(&parts.headers).map(|()| answer))
    {
        Ok(answer) => answer,
        Err(e) => return Rejected::from(e).into_response(),
    };
    let config = &ep.server.config;
    let limit = config
        .http
        .max_body_bytes
        .unwrap_or(config.max_message_bytes);
    if checks::declared_too_large(&parts.headers, limit) {
        return Rejected::TooLarge(limit).into_response();
    }
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return Rejected::TooLarge(limit).into_response();
    };
    let message = match parse_message(&bytes) {
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
                .is_ok_and(|(m, _)| m.protocol_version.as_deref().and_then(ProtocolVersion::parse).is_some_and(ProtocolVersion::is_modern)));
            if !modern {
                return session_not_found();
            }
            None
        }
        None => None,
    };
    match message {
        Incoming::Notification(n) => {
            if let Some(s) = &session {
                on_notification(&n, &s.session.inflight);
            }
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
