//! The command line of [`ServerBuilder::run`](crate::ServerBuilder::run): parsed in one pass
//! ([`parse`]), then applied to the builder before it builds ([`apply`]); logging to stderr
//! (and, with the `otel` feature, trace export), and the signals that start a graceful
//! shutdown.

use std::net::SocketAddr;

use super::builder::ServerBuilder;
use crate::error::Error;
#[cfg(feature = "http")]
use crate::transport::http::HttpConfig;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CommandLine {
    pub(crate) command: Command,
    /// `--metrics-bind` (or `MCP_METRICS_BIND`): serve Prometheus metrics there.
    pub(crate) metrics_bind: Option<SocketAddr>,
    /// `--redis-url` (or `MCP_REDIS_URL`): the event bus and task store of the replicas.
    pub(crate) redis_url: Option<String>,
    /// `--state-key-file` (or `MCP_STATE_KEY_FILE`): the keys that seal `requestState`.
    pub(crate) state_key_file: Option<String>,
}

/// The transport to serve.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Stdio,
    #[cfg(feature = "http")]
    Http {
        bind: SocketAddr,
        path: String,
        /// Added to the builder's `HttpConfig`.
        access: Vec<Access>,
    },
    Help(String),
}

/// A deployment option of `http` that adds to the builder's [`HttpConfig`].
#[cfg(feature = "http")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Access {
    /// `--allow-host`.
    Host(String),
    /// `--allow-origin`.
    Origin(String),
    /// `--trust-proxy`.
    Proxy(String),
    /// `--auth-issuer` (or `MCP_AUTH_ISSUER`).
    AuthIssuer(String),
    /// `--auth-audience` (or `MCP_AUTH_AUDIENCE`).
    AuthAudience(String),
    /// `--auth-required-scopes` (or `MCP_AUTH_REQUIRED_SCOPES`), comma- or space-separated.
    AuthScopes(String),
    /// `--max-connections`.
    MaxConnections(usize),
}

/// The authorization the `--auth-*` options (or their variables) ask for: `None` without
/// an issuer; an error when one of issuer and audience is missing or a value is bad.
#[cfg(feature = "http")]
fn authorization(access: &[Access]) -> Result<Option<AuthOptions>, String> {
    let pick = |f: fn(&Access) -> Option<&String>, var: &str| {
        access
            .iter()
            .rev()
            .find_map(f)
            .cloned()
            .or_else(|| std::env::var(var).ok().filter(|v| !v.is_empty()))
    };
    let issuer = pick(
        |a| match a {
            Access::AuthIssuer(v) => Some(v),
            _ => None,
        },
        "MCP_AUTH_ISSUER",
    );
    let audience = pick(
        |a| match a {
            Access::AuthAudience(v) => Some(v),
            _ => None,
        },
        "MCP_AUTH_AUDIENCE",
    );
    let scopes = pick(
        |a| match a {
            Access::AuthScopes(v) => Some(v),
            _ => None,
        },
        "MCP_AUTH_REQUIRED_SCOPES",
    );
    match (issuer, audience) {
        (None, None) if scopes.is_none() => Ok(None),
        (Some(issuer), Some(audience)) => Ok(Some(AuthOptions {
            issuer,
            audience,
            scopes: scopes
                .unwrap_or_default()
                .split([',', ' '])
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect(),
        })),
        _ => Err(
            "authorization needs both `--auth-issuer` and `--auth-audience` (or MCP_AUTH_ISSUER \
             and MCP_AUTH_AUDIENCE)"
                .to_owned(),
        ),
    }
}

/// What `--auth-*` asked for.
#[cfg(feature = "http")]
struct AuthOptions {
    issuer: String,
    audience: String,
    scopes: Vec<String>,
}

#[cfg(feature = "http")]
impl AuthOptions {
    /// Puts the authorization into `config`.
    #[cfg(feature = "auth")]
    fn install(self, config: &mut HttpConfig) -> Result<(), String> {
        let auth = crate::auth::Authorization::jwt(self.issuer, &self.audience)
            .and_then(|a| a.required_scopes(self.scopes))
            .map_err(|e| e.to_string())?;
        config.authorization = Some(std::sync::Arc::new(auth));
        Ok(())
    }

    /// Without the `auth` feature there is nothing to put.
    #[cfg(not(feature = "auth"))]
    fn install(self, _: &mut HttpConfig) -> Result<(), String> {
        let _ = (self.issuer, self.audience, self.scopes);
        Err("`--auth-*` needs mcp-framework's `auth` feature".to_owned())
    }
}

/// Adds the options of the command line to `config` (checked with the rest of it by
/// `build()`).
#[cfg(feature = "http")]
fn add_access(config: &mut HttpConfig, access: &[Access]) -> Result<(), Error> {
    for a in access {
        let taken = std::mem::take(config);
        *config = match a {
            Access::Host(h) => taken.allow_host(h.clone()),
            Access::Origin(o) => taken.allow_origin(o.clone()),
            Access::Proxy(p) => taken.trust_proxy(p.clone()),
            Access::MaxConnections(n) => taken.max_connections(*n),
            Access::AuthIssuer(_) | Access::AuthAudience(_) | Access::AuthScopes(_) => taken,
        };
    }
    if let Some(options) =
        authorization(access).map_err(|e| Error::Usage(format!("{e}\n{USAGE}")))?
    {
        options
            .install(config)
            .map_err(|e| Error::Usage(format!("{e}\n{USAGE}")))?;
    }
    Ok(())
}

const USAGE: &str = "\
usage: <server> [stdio]
       <server> http [--bind ADDR:PORT] [--path /mcp] [--allow-host HOST]...
                     [--allow-origin ORIGIN]... [--trust-proxy ADDR|CIDR]...
                     [--max-connections N]
                     [--auth-issuer URL --auth-audience URI [--auth-required-scopes A,B]]

  stdio   serve newline-delimited JSON-RPC on stdin/stdout (the default)
  http    serve Streamable HTTP (default --bind 127.0.0.1:8080, --path /mcp)

  --allow-host HOST        serve this Host (mcp.example.com, with or without :PORT; * any);
                           replaces the localhost-only check of a loopback address
  --allow-origin ORIGIN    allow browser apps of this origin (https://app.example.com; *
                           any), with CORS; replaces the localhost origins
  --trust-proxy ADDR|CIDR  believe Forwarded / X-Forwarded-Host / X-Forwarded-Proto from
                           this reverse proxy (127.0.0.1, 10.0.0.0/8)
  (each may be repeated, and adds to what the server configures in code)
  --max-connections N      serve at most N connections at once (default: the descriptor
                           limit less 64, at most 10,000); replaces the configured limit

  --auth-issuer URL        require OAuth bearer tokens (JWTs) of this authorization server
                           (its metadata and keys are discovered from it; MCP_AUTH_ISSUER)
  --auth-audience URI      this server's canonical resource URI, the audience its tokens
                           must name (https://mcp.example.com/mcp; MCP_AUTH_AUDIENCE)
  --auth-required-scopes A,B  scopes every token must grant (MCP_AUTH_REQUIRED_SCOPES)
                           (feature `auth`)

  --metrics-bind ADDR:PORT (either command; or MCP_METRICS_BIND) serve Prometheus metrics
                           at http://ADDR:PORT/metrics (feature `metrics`)
  --redis-url URL          (either command; or MCP_REDIS_URL) share change events with the
                           other replicas through Redis pub/sub: redis://HOST:PORT/
                           (feature `redis`)
  --state-key-file PATH    (either command; or MCP_STATE_KEY_FILE) the keys that seal
                           requestState, shared by every replica: lines `<id> <secret>`
                           (32 bytes as 64 hex digits or base64), the first one seals";

/// `flag` without its value.
fn needs_value(flag: &str) -> Error {
    Error::Usage(format!("`{flag}` needs a value\n{USAGE}"))
}

/// Reads the command line in one pass: the options of either command (`--metrics-bind`,
/// `--redis-url`, `--state-key-file`, anywhere on the line, each else from its variable),
/// the command, and the options of `http`. Checks the form of each value; what the
/// values say together is checked by `build()`.
pub(crate) fn parse(args: &[String]) -> Result<CommandLine, Error> {
    let mut metrics_bind = None;
    let mut redis_url = None;
    let mut state_key_file = None;
    let mut command = None;
    let mut it = args.iter().map(String::as_str);
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        let mut value = || {
            inline
                .or_else(|| it.next())
                .map(str::to_owned)
                .ok_or_else(|| needs_value(flag))
        };
        match (flag, &mut command) {
            ("--metrics-bind", _) => metrics_bind = Some(value()?),
            ("--redis-url", _) => redis_url = Some(value()?),
            ("--state-key-file", _) => state_key_file = Some(value()?),
            (_, None) => {
                command = Some(match arg {
                    "stdio" => Command::Stdio,
                    "-h" | "--help" | "help" => Command::Help(USAGE.to_owned()),
                    #[cfg(feature = "http")]
                    "http" => Command::Http {
                        bind: "127.0.0.1:8080".parse().expect("valid default"),
                        path: "/mcp".to_owned(),
                        access: Vec::new(),
                    },
                    other => {
                        return Err(Error::Usage(format!("unknown command `{other}`\n{USAGE}")));
                    }
                });
            }
            (_, Some(Command::Help(_))) => {}
            (_, Some(Command::Stdio)) => {
                return Err(Error::Usage(format!(
                    "unexpected argument `{arg}`\n{USAGE}"
                )));
            }
            #[cfg(feature = "http")]
            (_, Some(Command::Http { bind, path, access })) => {
                http_option(flag, value, bind, path, access)?;
            }
        }
    }
    let or_var = |value: Option<String>, var: &str| {
        value.or_else(|| std::env::var(var).ok().filter(|v| !v.is_empty()))
    };
    let metrics_bind = or_var(metrics_bind, "MCP_METRICS_BIND")
        .map(|v| {
            v.parse().map_err(|_| {
                Error::Usage(format!(
                    "`--metrics-bind {v}`: expected ADDR:PORT such as 127.0.0.1:9464"
                ))
            })
        })
        .transpose()?;
    Ok(CommandLine {
        command: command.unwrap_or(Command::Stdio),
        metrics_bind,
        redis_url: or_var(redis_url, "MCP_REDIS_URL"),
        state_key_file: or_var(state_key_file, "MCP_STATE_KEY_FILE"),
    })
}

/// One option of `http`, its value taken by `value`.
#[cfg(feature = "http")]
fn http_option(
    flag: &str,
    mut value: impl FnMut() -> Result<String, Error>,
    bind: &mut SocketAddr,
    path: &mut String,
    access: &mut Vec<Access>,
) -> Result<(), Error> {
    match flag {
        "--bind" => {
            let v = value()?;
            *bind = v.parse().map_err(|_| {
                Error::Usage(format!(
                    "`--bind {v}`: expected ADDR:PORT such as 127.0.0.1:8080"
                ))
            })?;
        }
        "--path" => {
            let v = value()?;
            if !v.starts_with('/') {
                return Err(Error::Usage(format!("`--path {v}` must start with `/`")));
            }
            *path = v;
        }
        "--allow-host" => access.push(Access::Host(value()?)),
        "--allow-origin" => access.push(Access::Origin(value()?)),
        "--trust-proxy" => access.push(Access::Proxy(value()?)),
        "--max-connections" => {
            let v = value()?;
            let n = v.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                Error::Usage(format!(
                    "`--max-connections {v}`: expected a positive number"
                ))
            })?;
            access.push(Access::MaxConnections(n));
        }
        "--auth-issuer" => access.push(Access::AuthIssuer(value()?)),
        "--auth-audience" => access.push(Access::AuthAudience(value()?)),
        "--auth-required-scopes" => access.push(Access::AuthScopes(value()?)),
        other => return Err(Error::Usage(format!("unknown option `{other}`\n{USAGE}"))),
    }
    Ok(())
}

/// Applies what `line` asks for to `builder`: the state keys of the key file, the Redis
/// event bus and task store, and (for `http`) the access options, added to the HTTP
/// settings set in code. Nothing is changed after `build()`.
pub(crate) fn apply(
    #[cfg_attr(not(feature = "http"), allow(unused_mut))] mut builder: ServerBuilder,
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
    #[cfg(feature = "http")]
    if let Command::Http { access, .. } = &line.command {
        add_access(builder.http_mut(), access)?;
    }
    Ok(builder)
}

/// The keys of the file at `path`, newest first.
fn read_state_keys(path: &str) -> Result<Vec<crate::mrtr::StateKey>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("`--state-key-file {path}`: {e}")))?;
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o044 != 0 {
            tracing::warn!(%path, "the state key file is readable by others: chmod 600 it");
        }
    }
    crate::mrtr::StateKey::parse_keys(&text)
        .map_err(|e| Error::Usage(format!("`--state-key-file {path}`, {e}")))
}

/// `builder` with change events shared through the Redis at `url`, and its tasks (if it
/// keeps any) kept there.
#[cfg(feature = "redis")]
fn with_redis(builder: ServerBuilder, url: &str) -> Result<ServerBuilder, Error> {
    let bus = crate::scale::RedisEventBus::connect(url).map_err(|e| Error::Usage(e.to_string()))?;
    // Not the URL itself: it may hold a password.
    tracing::info!("change events shared through Redis");
    let url = url.to_owned();
    Ok(builder
        .event_bus(bus)
        .make_task_store(Box::new(move |config| {
            let store = crate::scale::RedisTaskStore::new(&url, config.max_tasks)
                .map_err(|e| Error::Usage(e.to_string()))?;
            tracing::info!("tasks kept in Redis");
            Ok(Box::new(store))
        })))
}

/// Without the `redis` feature, `--redis-url` is refused (without the URL: it may hold a
/// password).
#[cfg(not(feature = "redis"))]
fn with_redis(_: ServerBuilder, _: &str) -> Result<ServerBuilder, Error> {
    Err(Error::Usage(
        "`--redis-url`: this server was built without the `redis` feature".into(),
    ))
}

/// What [`init_telemetry`] started that must outlive the server (the trace export, which
/// flushes when this is dropped).
#[derive(Debug)]
pub(crate) struct Telemetry {
    #[cfg(feature = "otel")]
    _export: Option<crate::telemetry::export::Export>,
}

/// Logs to stderr, filtered by `RUST_LOG` (default `info`); with the `otel` feature and the
/// standard `OTEL_*` variables asking for it, also exports traces over OTLP (request spans,
/// and whatever else is at `info` or above).
pub(crate) fn init_telemetry(service: &str) -> Telemetry {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    use tracing_subscriber::{EnvFilter, Layer as _};
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    #[cfg(feature = "otel")]
    if crate::telemetry::export::wanted() {
        use tracing_subscriber::filter::Targets;
        match crate::telemetry::export::layer(service) {
            Ok((traces, export)) => {
                let wanted = Targets::new()
                    .with_target(crate::telemetry::span::TARGET, tracing::Level::DEBUG)
                    .with_default(tracing::Level::INFO);
                let _ = tracing_subscriber::registry()
                    .with(logs)
                    .with(traces.with_filter(wanted))
                    .try_init();
                return Telemetry {
                    _export: Some(export),
                };
            }
            Err(e) => eprintln!("{e}; serving without it"),
        }
    }
    let _ = service;
    let _ = tracing_subscriber::registry().with(logs).try_init();
    Telemetry {
        #[cfg(feature = "otel")]
        _export: None,
    }
}

/// Completes on SIGINT or SIGTERM (Ctrl-C elsewhere).
pub(crate) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn command(s: &str) -> Command {
        parse(&args(s)).unwrap().command
    }

    #[test]
    fn parses_commands() {
        assert_eq!(command(""), Command::Stdio);
        assert_eq!(command("stdio"), Command::Stdio);
        // A build without the `http` feature refuses `http` (the loop below still holds).
        #[cfg(feature = "http")]
        {
            assert_eq!(
                command("http --bind 127.0.0.1:9000 --path /x"),
                Command::Http {
                    bind: "127.0.0.1:9000".parse().unwrap(),
                    path: "/x".into(),
                    access: vec![],
                }
            );
            assert_eq!(
                command("http --bind=127.0.0.1:1"),
                Command::Http {
                    bind: "127.0.0.1:1".parse().unwrap(),
                    path: "/mcp".into(),
                    access: vec![],
                }
            );
            assert_eq!(
                command(
                    "http --allow-host mcp.example.com --trust-proxy=10.0.0.0/8 \
                     --allow-origin https://app.example.com --allow-host * \
                     --max-connections=20000"
                ),
                Command::Http {
                    bind: "127.0.0.1:8080".parse().unwrap(),
                    path: "/mcp".into(),
                    access: vec![
                        Access::Host("mcp.example.com".into()),
                        Access::Proxy("10.0.0.0/8".into()),
                        Access::Origin("https://app.example.com".into()),
                        Access::Host("*".into()),
                        Access::MaxConnections(20_000),
                    ],
                }
            );
        }
        for bad in [
            "http --trust-proxy",
            "http --max-connections 0",
            "http --max-connections many",
            "http --bind nope",
            "http --path x",
            "http --nope",
            "stdio extra",
            "ftp",
            "--redis-url",
        ] {
            assert!(matches!(parse(&args(bad)), Err(Error::Usage(_))), "{bad}");
        }
        assert!(matches!(command("--help"), Command::Help(_)));
    }

    #[test]
    fn options_of_either_command_go_anywhere() {
        let line = parse(&args(
            "--redis-url redis://127.0.0.1:1/ stdio --metrics-bind 127.0.0.1:9464 \
             --state-key-file=/keys",
        ))
        .unwrap();
        assert_eq!(
            line,
            CommandLine {
                command: Command::Stdio,
                metrics_bind: Some("127.0.0.1:9464".parse().unwrap()),
                redis_url: Some("redis://127.0.0.1:1/".into()),
                state_key_file: Some("/keys".into()),
            }
        );
        #[cfg(feature = "http")]
        {
            let line = parse(&args(
                "http --metrics-bind 127.0.0.1:9464 --bind 127.0.0.1:1 --redis-url=redis://r/",
            ))
            .unwrap();
            assert_eq!(line.metrics_bind, Some("127.0.0.1:9464".parse().unwrap()));
            assert_eq!(line.redis_url.as_deref(), Some("redis://r/"));
            assert!(matches!(line.command, Command::Http { bind, .. } if bind.port() == 1));
        }
        let line = parse(&args("--metrics-bind=127.0.0.1:2")).unwrap();
        assert_eq!(line.metrics_bind, Some("127.0.0.1:2".parse().unwrap()));
        assert_eq!(line.command, Command::Stdio);
        assert!(parse(&args("stdio --metrics-bind nope")).is_err());
    }
}
