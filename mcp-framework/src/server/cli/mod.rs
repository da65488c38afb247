//! The command line of [`ServerBuilder::run`](crate::ServerBuilder::run): with the `cli`
//! feature, parsed by clap (derive) into a [`CommandLine`] and the author's own flags (any
//! `clap::Args`), help and version on stdout, usage errors clap's; without it, `[stdio]`
//! and the deployment variables only. Then applied to the builder before it builds
//! ([`apply`]).

use super::builder::ServerBuilder;
#[cfg(not(feature = "cli"))]
use super::process::LogFormat;
use crate::error::Error;
#[cfg(all(feature = "http", feature = "cli"))]
use crate::transport::http::HttpConfig;

mod line;

#[cfg(all(feature = "http", feature = "cli"))]
use line::Access;
pub(crate) use line::{Command, CommandLine};

#[cfg(feature = "cli")]
pub(crate) use parse::parse;

/// The command line parsed by clap.
#[cfg(feature = "cli")]
mod parse;

/// Without the `cli` feature: `[stdio]`, and the deployment options from their variables
/// only (`MCP_STATE_KEY_FILE`, `MCP_REDIS_URL`, `MCP_METRICS_BIND`).
#[cfg(not(feature = "cli"))]
pub(crate) fn parse_plain(args: &[String]) -> Result<CommandLine, Error> {
    match args {
        [] => {}
        [one] if one == "stdio" => {}
        [other, ..] => {
            return Err(Error::Usage(format!(
                "unexpected argument `{other}`: this server was built without the `cli` \
                 feature and serves stdio only"
            )));
        }
    }
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let metrics_bind = var("MCP_METRICS_BIND")
        .map(|v| {
            v.parse().map_err(|_| {
                Error::Usage(format!(
                    "MCP_METRICS_BIND `{v}`: expected ADDR:PORT such as 127.0.0.1:9464"
                ))
            })
        })
        .transpose()?;
    Ok(CommandLine {
        command: Command::Stdio,
        metrics_bind,
        redis_url: var("MCP_REDIS_URL"),
        state_key_file: var("MCP_STATE_KEY_FILE"),
        shutdown_grace: None,
        log_format: if var("MCP_LOG_FORMAT").as_deref() == Some("json") {
            LogFormat::Json
        } else {
            LogFormat::Text
        },
    })
}

/// Adds the options of the command line to `config` (checked with the rest of it by
/// `build()`).
#[cfg(all(feature = "http", feature = "cli"))]
fn add_access(config: &mut HttpConfig, access: &Access) -> Result<(), Error> {
    let mut taken = std::mem::take(config);
    for host in &access.hosts {
        taken = taken.allow_host(host.clone());
    }
    for origin in &access.origins {
        taken = taken.allow_origin(origin.clone());
    }
    for proxy in &access.proxies {
        taken = taken.trust_proxy(proxy.clone());
    }
    if let Some(max) = access.max_connections {
        taken = taken.max_connections(max);
    }
    *config = taken;
    #[cfg(feature = "auth")]
    if let Some((issuer, audience, scopes)) = &access.auth {
        let auth = crate::auth::Authorization::jwt(issuer.clone(), audience)
            .and_then(|a| a.required_scopes(scopes.clone()))
            .map_err(|e| Error::Usage(format!("`--auth-issuer {issuer}`: {e}")))?;
        config.authorization = Some(std::sync::Arc::new(auth));
    }
    Ok(())
}

/// Applies what `line` asks for to `builder`: the state keys of the key file, the Redis
/// event bus and task store, and (for `http`) the access options, added to the HTTP
/// settings set in code. Nothing is changed after `build()`.
pub(crate) fn apply(
    #[cfg_attr(not(all(feature = "http", feature = "cli")), allow(unused_mut))]
    mut builder: ServerBuilder,
    line: &CommandLine,
) -> Result<ServerBuilder, Error> {
    if let Some(path) = &line.state_key_file {
        let keys = read_state_keys(path)?;
        let ids: Vec<&str> = keys.iter().map(crate::mrtr::StateKey::id).collect();
        tracing::info!(keys = ?ids, "requestState keys from the key file (the first seals)");
        builder = builder.state_keys(keys);
    }
    if let Some(url) = &line.redis_url {
        builder = with_redis(builder, url)?;
    }
    if let Some(grace) = line.shutdown_grace {
        builder = builder.shutdown_grace(grace);
    }
    #[cfg(all(feature = "http", feature = "cli"))]
    if let Command::Http { access, .. } = &line.command {
        add_access(builder.http_mut(), access)?;
    }
    Ok(builder)
}

/// The keys of the file at `path`, newest first.
fn read_state_keys(path: &str) -> Result<Vec<crate::mrtr::StateKey>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Usage(format!(
            "cannot read the state key file {path}: {}",
            crate::error::io_reason(&e)
        ))
    })?;
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o044 != 0 {
            tracing::warn!(%path, "the state key file is readable by others: chmod 600 it");
        }
    }
    crate::mrtr::StateKey::parse_keys(&text)
        .map_err(|e| Error::Usage(format!("the state key file {path}: {e}")))
}

/// `builder` with change events shared through the Redis at `url`, its tasks (if it
/// keeps any) kept there, and the URL named to its extensions (the Events extension keeps
/// its occurrences there).
#[cfg(feature = "redis")]
fn with_redis(builder: ServerBuilder, url: &str) -> Result<ServerBuilder, Error> {
    let bus = crate::scale::RedisEventBus::connect(url).map_err(|e| Error::Usage(e.to_string()))?;
    // Not the URL itself: it may hold a password.
    tracing::info!("change events shared through Redis");
    let url = url.to_owned();
    Ok(builder
        .shared_redis(&url)
        .event_bus(bus)
        .make_task_store(Box::new(move |config| {
            let store = crate::scale::RedisTaskStore::new(&url, config.max_tasks)
                .map_err(|e| Error::Usage(e.to_string()))?;
            tracing::info!("tasks kept in Redis");
            Ok(Box::new(store))
        })))
}

/// Without the `redis` feature, `MCP_REDIS_URL` is refused (without the URL: it may hold a
/// password).
#[cfg(not(feature = "redis"))]
fn with_redis(_: ServerBuilder, _: &str) -> Result<ServerBuilder, Error> {
    Err(Error::Usage(
        "MCP_REDIS_URL: this server was built without the `redis` feature".into(),
    ))
}
