//! The command line of [`Server::run`](crate::Server::run): the transport to serve, logging
//! to stderr (and, with the `otel` feature, trace export), and the signals that start a
//! graceful shutdown.

use std::net::SocketAddr;

use crate::error::Error;
#[cfg(feature = "http")]
use crate::runtime::config::HttpConfig;

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Stdio,
    #[cfg(feature = "http")]
    Http {
        bind: SocketAddr,
        path: String,
        /// Added to the server's `HttpConfig`.
        access: Vec<Access>,
    },
    Help(String),
}

/// A deployment option of `http` that adds to the server's [`HttpConfig`].
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

/// `config` with the options of the command line added.
#[cfg(feature = "http")]
pub(crate) fn with_access(mut config: HttpConfig, access: &[Access]) -> Result<HttpConfig, Error> {
    for a in access {
        config = match a {
            Access::Host(h) => config.allow_host(h.clone()),
            Access::Origin(o) => config.allow_origin(o.clone()),
            Access::Proxy(p) => config.trust_proxy(p.clone()),
            Access::MaxConnections(n) => config.max_connections(*n),
            Access::AuthIssuer(_) | Access::AuthAudience(_) | Access::AuthScopes(_) => config,
        };
    }
    if let Some(options) =
        authorization(access).map_err(|e| Error::Usage(format!("{e}\n{USAGE}")))?
    {
        options
            .install(&mut config)
            .map_err(|e| Error::Usage(format!("{e}\n{USAGE}")))?;
    }
    Ok(config)
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

/// Takes `--NAME VALUE` (or `--NAME=VALUE`, anywhere on the line) out of `args`; without
/// it, the variable `var`. Returns the other arguments and the value.
fn take_option(
    args: &[String],
    name: &str,
    var: &str,
) -> Result<(Vec<String>, Option<String>), Error> {
    let mut rest = Vec::with_capacity(args.len());
    let mut value = std::env::var(var).ok().filter(|v| !v.is_empty());
    let flag = format!("--{name}");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if let Some(v) = arg.strip_prefix(&flag).and_then(|v| v.strip_prefix('=')) {
            value = Some(v.to_owned());
        } else if *arg == flag {
            let v = it
                .next()
                .ok_or_else(|| Error::Usage(format!("`{flag}` needs a value\n{USAGE}")))?;
            value = Some(v.clone());
        } else {
            rest.push(arg.clone());
        }
    }
    Ok((rest, value))
}

/// Takes `--metrics-bind ADDR` (anywhere on the line) out of `args`; without it, the
/// `MCP_METRICS_BIND` variable.
pub(crate) fn take_metrics_bind(
    args: &[String],
) -> Result<(Vec<String>, Option<SocketAddr>), Error> {
    let (rest, bind) = take_option(args, "metrics-bind", "MCP_METRICS_BIND")?;
    let bind = bind
        .map(|v| {
            v.parse().map_err(|_| {
                Error::Usage(format!(
                    "`--metrics-bind {v}`: expected ADDR:PORT such as 127.0.0.1:9464"
                ))
            })
        })
        .transpose()?;
    Ok((rest, bind))
}

/// Takes `--state-key-file PATH` (anywhere on the line) out of `args`; without it, the
/// `MCP_STATE_KEY_FILE` variable. Returns the keys the file holds, newest first.
pub(crate) fn take_state_keys(
    args: &[String],
) -> Result<(Vec<String>, Option<Vec<crate::mrtr::StateKey>>), Error> {
    let (rest, path) = take_option(args, "state-key-file", "MCP_STATE_KEY_FILE")?;
    let Some(path) = path else {
        return Ok((rest, None));
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Error::Usage(format!("`--state-key-file {path}`: {e}")))?;
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(&path) {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o044 != 0 {
            tracing::warn!(%path, "the state key file is readable by others: chmod 600 it");
        }
    }
    let keys = crate::mrtr::StateKey::parse_keys(&text)
        .map_err(|e| Error::Usage(format!("`--state-key-file {path}`, {e}")))?;
    Ok((rest, Some(keys)))
}

/// Takes `--redis-url URL` (anywhere on the line) out of `args`; without it, the
/// `MCP_REDIS_URL` variable.
pub(crate) fn take_redis_url(args: &[String]) -> Result<(Vec<String>, Option<String>), Error> {
    take_option(args, "redis-url", "MCP_REDIS_URL")
}

pub(crate) fn parse(args: &[String]) -> Result<Command, Error> {
    let mut it = args.iter().map(String::as_str);
    match it.next() {
        None | Some("stdio") => match it.next() {
            None => Ok(Command::Stdio),
            Some(extra) => Err(Error::Usage(format!(
                "unexpected argument `{extra}`\n{USAGE}"
            ))),
        },
        Some("-h" | "--help" | "help") => Ok(Command::Help(USAGE.to_owned())),
        #[cfg(feature = "http")]
        Some("http") => {
            let mut bind: SocketAddr = "127.0.0.1:8080".parse().expect("valid default");
            let mut path = "/mcp".to_owned();
            let mut access = Vec::new();
            while let Some(flag) = it.next() {
                let (flag, inline) = match flag.split_once('=') {
                    Some((f, v)) => (f, Some(v)),
                    None => (flag, None),
                };
                let mut value = || {
                    inline
                        .or_else(|| it.next())
                        .ok_or_else(|| Error::Usage(format!("`{flag}` needs a value\n{USAGE}")))
                };
                match flag {
                    "--bind" => {
                        let v = value()?;
                        bind = v.parse().map_err(|_| {
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
                        path = v.to_owned();
                    }
                    "--allow-host" => access.push(Access::Host(value()?.to_owned())),
                    "--allow-origin" => access.push(Access::Origin(value()?.to_owned())),
                    "--trust-proxy" => access.push(Access::Proxy(value()?.to_owned())),
                    "--max-connections" => {
                        let v = value()?;
                        let n = v.parse().ok().filter(|&n: &usize| n > 0).ok_or_else(|| {
                            Error::Usage(format!(
                                "`--max-connections {v}`: expected a positive number"
                            ))
                        })?;
                        access.push(Access::MaxConnections(n));
                    }
                    "--auth-issuer" => access.push(Access::AuthIssuer(value()?.to_owned())),
                    "--auth-audience" => access.push(Access::AuthAudience(value()?.to_owned())),
                    "--auth-required-scopes" => {
                        access.push(Access::AuthScopes(value()?.to_owned()));
                    }
                    other => {
                        return Err(Error::Usage(format!("unknown option `{other}`\n{USAGE}")));
                    }
                }
            }
            crate::transport::http::check_config(&with_access(HttpConfig::new(), &access)?)
                .map_err(|e| Error::Usage(format!("{e}\n{USAGE}")))?;
            Ok(Command::Http { bind, path, access })
        }
        Some(other) => Err(Error::Usage(format!("unknown command `{other}`\n{USAGE}"))),
    }
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

    #[test]
    fn parses_commands() {
        assert_eq!(parse(&args("")).unwrap(), Command::Stdio);
        assert_eq!(parse(&args("stdio")).unwrap(), Command::Stdio);
        // A build without the `http` feature refuses `http` (the loop below still holds).
        #[cfg(feature = "http")]
        {
            assert_eq!(
                parse(&args("http --bind 127.0.0.1:9000 --path /x")).unwrap(),
                Command::Http {
                    bind: "127.0.0.1:9000".parse().unwrap(),
                    path: "/x".into(),
                    access: vec![],
                }
            );
            assert_eq!(
                parse(&args("http --bind=127.0.0.1:1")).unwrap(),
                Command::Http {
                    bind: "127.0.0.1:1".parse().unwrap(),
                    path: "/mcp".into(),
                    access: vec![],
                }
            );
            assert_eq!(
                parse(&args(
                    "http --allow-host mcp.example.com --trust-proxy=10.0.0.0/8 \
                     --allow-origin https://app.example.com --allow-host * \
                     --max-connections=20000"
                ))
                .unwrap(),
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
            "http --allow-host user@evil.com",
            "http --allow-origin https://app.example.com/",
            "http --trust-proxy nginx",
            "http --trust-proxy",
            "http --max-connections 0",
            "http --max-connections many",
        ] {
            assert!(matches!(parse(&args(bad)), Err(Error::Usage(_))), "{bad}");
        }
        assert!(parse(&args("http --bind nope")).is_err());
        assert!(parse(&args("http --path x")).is_err());
        assert!(parse(&args("ftp")).is_err());
        assert!(matches!(parse(&args("--help")).unwrap(), Command::Help(_)));
        let (rest, bind) = take_metrics_bind(&args(
            "http --metrics-bind 127.0.0.1:9464 --bind 127.0.0.1:1",
        ))
        .unwrap();
        assert_eq!(rest, args("http --bind 127.0.0.1:1"));
        assert_eq!(bind, Some("127.0.0.1:9464".parse().unwrap()));
        let (_, bind) = take_metrics_bind(&args("--metrics-bind=127.0.0.1:2")).unwrap();
        assert_eq!(bind, Some("127.0.0.1:2".parse().unwrap()));
        assert!(take_metrics_bind(&args("stdio --metrics-bind nope")).is_err());
    }
}
