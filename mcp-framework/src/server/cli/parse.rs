//! The command line as clap parses it (feature `cli`): the `stdio`, `http` and tool
//! commands, each feature's options in a struct of its own (so the help lists only what
//! the binary was built with), and the author's own flags flattened in.

#[cfg(feature = "http")]
use std::net::SocketAddr;
#[cfg(feature = "http")]
use std::num::NonZeroUsize;

use clap::{CommandFactory as _, FromArgMatches as _};

use super::line::{Command, CommandLine};
use crate::server::install::{Client, Install};
use crate::server::process::LogFormat;

/// `<server> [OPTIONS] [COMMAND]`, with the author's flags `A`.
#[derive(clap::Parser, Debug)]
#[command(disable_help_subcommand = true)]
struct Cli<A: clap::Args> {
    #[command(subcommand)]
    command: Option<Cmd>,
    /// First: the author's options are listed under "Options", ours under headings.
    #[command(flatten)]
    extra: A,
    #[command(flatten)]
    deployment: Deployment,
}

/// The commands.
#[derive(clap::Subcommand, Debug)]
#[allow(clippy::large_enum_variant)] // one per process
enum Cmd {
    /// Serve newline-delimited JSON-RPC on stdin/stdout (the default)
    Stdio,
    /// Serve Streamable HTTP
    #[cfg(feature = "http")]
    Http(Http),
    /// Show what this server serves: tools, prompts, resources and templates
    Inspect {
        /// Print JSON: the items as they are listed, and what lists do not say
        #[arg(long)]
        json: bool,
        /// Print the Server Card (JSON) served at <endpoint>/server-card
        #[cfg(feature = "http")]
        #[arg(long)]
        card: bool,
    },
    /// Call a tool in-process (no client) and print its result
    Call {
        /// The tool's name
        tool: String,
        /// Arguments as KEY=VALUE (a value is JSON unless the schema says string)
        #[arg(value_name = "KEY=VALUE", value_parser = key_value)]
        args: Vec<String>,
        /// The arguments as one JSON object (KEY=VALUE pairs are added to it)
        #[arg(long, value_name = "ARGS")]
        json: Option<String>,
    },
    /// Get a prompt in-process and print its messages
    GetPrompt {
        /// The prompt's name
        name: String,
        /// Arguments as KEY=VALUE
        #[arg(value_name = "KEY=VALUE", value_parser = key_value)]
        args: Vec<String>,
    },
    /// Read a resource in-process and print its contents
    Read {
        /// The resource's URI
        uri: String,
    },
    /// Add this server to an MCP client's configuration (a backup is kept)
    Install {
        /// The client
        #[arg(value_enum)]
        client: Client,
        #[command(flatten)]
        place: Place,
        /// A variable for the server's environment (repeatable)
        #[arg(long, value_name = "KEY=VALUE", value_parser = key_value)]
        env: Vec<String>,
        /// The endpoint of a running HTTP server, instead of starting this binary
        #[arg(long)]
        url: Option<String>,
    },
    /// Remove this server from an MCP client's configuration (a backup is kept)
    Uninstall {
        /// The client
        #[arg(value_enum)]
        client: Client,
        #[command(flatten)]
        place: Place,
    },
}

/// Where `install` and `uninstall` write.
#[derive(clap::Args, Debug)]
struct Place {
    /// The project's configuration (in the current folder) rather than the user's
    #[arg(long)]
    project: bool,
    /// The entry's name [default: the server's name]
    #[arg(long)]
    name: Option<String>,
    /// Print what would be written, and change nothing
    #[arg(long)]
    dry_run: bool,
}

/// The options of either command (anywhere on the line).
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Deployment")]
struct Deployment {
    /// How log lines are written on stderr (RUST_LOG filters them)
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "FORMAT",
        default_value_t = LogFormat::Text,
        env = "MCP_LOG_FORMAT"
    )]
    log_format: LogFormat,
    /// How long running requests may finish after SIGINT, SIGTERM or the end of stdin
    /// [default: 10s]
    ///
    /// Then they are cancelled; a second SIGINT exits at once (status 130).
    #[arg(
        long,
        global = true,
        value_name = "DURATION",
        value_parser = duration,
        env = "MCP_SHUTDOWN_GRACE"
    )]
    shutdown_grace: Option<std::time::Duration>,
    /// The keys that seal requestState (shared by every replica)
    ///
    /// Lines `<id> <secret>` (32 bytes as 64 hex digits or base64); the first one seals.
    #[arg(long, global = true, value_name = "PATH", env = "MCP_STATE_KEY_FILE")]
    state_key_file: Option<String>,
    #[command(flatten)]
    metrics: Metrics,
    #[command(flatten)]
    redis: Redis,
}

/// `KEY=VALUE`, kept whole.
fn key_value(text: &str) -> Result<String, String> {
    match text.split_once('=') {
        Some((key, _)) if !key.is_empty() => Ok(text.to_owned()),
        _ => Err("expected KEY=VALUE".to_owned()),
    }
}

/// A duration such as `10s`, `500ms` or `1m`.
fn duration(text: &str) -> Result<std::time::Duration, String> {
    humantime::parse_duration(text).map_err(|e| format!("{e} (a duration such as 10s or 500ms)"))
}

/// `--metrics-bind` (feature `metrics`).
#[cfg(feature = "metrics")]
#[derive(clap::Args, Debug)]
struct Metrics {
    /// Serve Prometheus metrics at http://ADDR:PORT/metrics
    #[arg(
        long,
        global = true,
        value_name = "ADDR:PORT",
        env = "MCP_METRICS_BIND"
    )]
    metrics_bind: Option<SocketAddr>,
}

/// Without the `metrics` feature, no `--metrics-bind`.
#[cfg(not(feature = "metrics"))]
#[derive(clap::Args, Debug)]
struct Metrics {}

/// `--redis-url` (feature `redis`).
#[cfg(feature = "redis")]
#[derive(clap::Args, Debug)]
struct Redis {
    /// Share change events and tasks with the other replicas through Redis
    ///
    /// redis://HOST:PORT/ (the value is not shown: it may hold a password).
    #[arg(
        long,
        global = true,
        value_name = "URL",
        env = "MCP_REDIS_URL",
        hide_env_values = true
    )]
    redis_url: Option<String>,
}

/// Without the `redis` feature, no `--redis-url`.
#[cfg(not(feature = "redis"))]
#[derive(clap::Args, Debug)]
struct Redis {}

/// The options of `http`.
#[cfg(feature = "http")]
#[derive(clap::Args, Debug)]
struct Http {
    /// The address to listen on
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// The path of the MCP endpoint
    #[arg(long, default_value = "/mcp", value_parser = endpoint_path)]
    path: String,
    /// Serve this Host (mcp.example.com[:PORT], * any; repeatable)
    ///
    /// Replaces the localhost-only check of a loopback address; adds to the hosts set in
    /// code.
    #[arg(long, value_name = "HOST")]
    allow_host: Vec<String>,
    /// Allow browser apps of this origin, with CORS (https://app.example.com, * any;
    /// repeatable)
    ///
    /// Replaces the localhost origins; adds to the origins set in code.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// Trust the Forwarded headers of this reverse proxy (127.0.0.1, 10.0.0.0/8;
    /// repeatable)
    ///
    /// `Forwarded`, `X-Forwarded-Host` and `X-Forwarded-Proto` from it are believed.
    #[arg(long, value_name = "ADDR|CIDR")]
    trust_proxy: Vec<String>,
    /// Serve at most N connections at once
    ///
    /// The default: the descriptor limit less 64, at most 10,000.
    #[arg(long, value_name = "N", env = "MCP_MAX_CONNECTIONS")]
    max_connections: Option<NonZeroUsize>,
    #[command(flatten)]
    auth: Auth,
}

/// `--path` starts with `/`.
#[cfg(feature = "http")]
fn endpoint_path(path: &str) -> Result<String, String> {
    if path.starts_with('/') {
        Ok(path.to_owned())
    } else {
        Err("the path must start with `/`".to_owned())
    }
}

/// `--auth-*` (feature `auth`).
#[cfg(feature = "auth")]
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Authorization")]
struct Auth {
    /// Require OAuth bearer tokens (JWTs) of this authorization server
    ///
    /// Its metadata and keys are discovered from it.
    #[arg(
        long,
        value_name = "URL",
        env = "MCP_AUTH_ISSUER",
        requires = "auth_audience"
    )]
    auth_issuer: Option<String>,
    /// The audience tokens must name: this server's URI (https://mcp.example.com/mcp)
    #[arg(
        long,
        value_name = "URI",
        env = "MCP_AUTH_AUDIENCE",
        requires = "auth_issuer"
    )]
    auth_audience: Option<String>,
    /// Scopes every token must grant, comma- or space-separated
    #[arg(
        long,
        value_name = "A,B",
        env = "MCP_AUTH_REQUIRED_SCOPES",
        requires = "auth_issuer"
    )]
    auth_required_scopes: Option<String>,
}

/// Without the `auth` feature, no `--auth-*`.
#[cfg(all(feature = "http", not(feature = "auth")))]
#[derive(clap::Args, Debug)]
struct Auth {}

/// Parses `args` (without the program's name) for the server `name` `version`, as
/// the program `bin`: the command line and the author's flags, or clap's error (help
/// and version are errors of their own kinds, to print on stdout).
pub(crate) fn parse<A: clap::Args>(
    bin: &str,
    version: &str,
    about: Option<&str>,
    args: &[String],
) -> Result<(CommandLine, A), clap::Error> {
    let mut command = Cli::<A>::command()
        .about(None::<&'static str>)
        .long_about(None::<&'static str>)
        .name(bin.to_owned())
        .bin_name(bin.to_owned())
        .version(version.to_owned())
        .no_binary_name(true);
    if let Some(about) = about {
        command = command.about(about.to_owned());
    }
    // The author's flags go anywhere on the line, like the deployment options, unless
    // they are required or positional (clap refuses those as global).
    command = command.mut_args(|arg| {
        if arg.is_positional() || arg.is_required_set() {
            arg
        } else {
            arg.global(true)
        }
    });
    let mut matches = command.clone().try_get_matches_from(args)?;
    let cli = Cli::<A>::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command))?;
    Ok((cli.line(), cli.extra))
}

impl<A: clap::Args> Cli<A> {
    /// What the parsed line asks for.
    fn line(&self) -> CommandLine {
        use crate::server::invoke::Invocation;
        let command = match &self.command {
            None | Some(Cmd::Stdio) => Command::Stdio,
            #[cfg(feature = "http")]
            Some(Cmd::Http(http)) => http.command(),
            #[cfg(feature = "http")]
            Some(Cmd::Inspect { json, card }) => Command::Inspect {
                json: *json,
                card: *card,
            },
            #[cfg(not(feature = "http"))]
            Some(Cmd::Inspect { json }) => Command::Inspect {
                json: *json,
                card: false,
            },
            Some(Cmd::Call { tool, args, json }) => Command::Invoke(Invocation::Call {
                tool: tool.clone(),
                pairs: args.clone(),
                json: json.clone(),
            }),
            Some(Cmd::GetPrompt { name, args }) => Command::Invoke(Invocation::GetPrompt {
                name: name.clone(),
                pairs: args.clone(),
            }),
            Some(Cmd::Read { uri }) => Command::Invoke(Invocation::Read { uri: uri.clone() }),
            Some(Cmd::Install {
                client,
                place,
                env,
                url,
            }) => Command::Install(Install {
                client: *client,
                remove: false,
                project: place.project,
                name: place.name.clone(),
                env: env.clone(),
                url: url.clone(),
                dry_run: place.dry_run,
            }),
            Some(Cmd::Uninstall { client, place }) => Command::Install(Install {
                client: *client,
                remove: true,
                project: place.project,
                name: place.name.clone(),
                env: Vec::new(),
                url: None,
                dry_run: place.dry_run,
            }),
        };
        CommandLine {
            command,
            #[cfg(feature = "metrics")]
            metrics_bind: self.deployment.metrics.metrics_bind,
            #[cfg(not(feature = "metrics"))]
            metrics_bind: None,
            #[cfg(feature = "redis")]
            redis_url: self.deployment.redis.redis_url.clone(),
            #[cfg(not(feature = "redis"))]
            redis_url: None,
            state_key_file: self.deployment.state_key_file.clone(),
            shutdown_grace: self.deployment.shutdown_grace,
            log_format: self.deployment.log_format,
        }
    }
}

#[cfg(feature = "http")]
impl Http {
    /// The `http` command.
    fn command(&self) -> Command {
        #[cfg(feature = "auth")]
        let auth = self
            .auth
            .auth_issuer
            .clone()
            .zip(self.auth.auth_audience.clone())
            .map(|(issuer, audience)| {
                let scopes = self.auth.auth_required_scopes.as_deref().unwrap_or("");
                let scopes = scopes
                    .split([',', ' '])
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                (issuer, audience, scopes)
            });
        #[cfg(not(feature = "auth"))]
        let auth = {
            let Auth {} = self.auth;
            None
        };
        Command::Http {
            bind: self.bind,
            path: self.path.clone(),
            access: super::line::Access {
                hosts: self.allow_host.clone(),
                origins: self.allow_origin.clone(),
                proxies: self.trust_proxy.clone(),
                max_connections: self.max_connections.map(NonZeroUsize::get),
                auth,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::parse as parse_as;

    fn parse(s: &str) -> Result<CommandLine, clap::Error> {
        let args: Vec<String> = s.split_whitespace().map(str::to_owned).collect();
        parse_as::<()>("srv", "1.0.0", None, &args).map(|(line, _)| line)
    }

    fn command(s: &str) -> Command {
        parse(s).unwrap().command
    }

    #[test]
    fn the_definition_is_sound() {
        use clap::CommandFactory as _;
        super::Cli::<()>::command().debug_assert();
    }

    #[test]
    fn parses_commands() {
        assert_eq!(command(""), Command::Stdio);
        assert_eq!(command("stdio"), Command::Stdio);
        #[cfg(feature = "http")]
        {
            assert_eq!(
                command("http --bind 127.0.0.1:9000 --path /x"),
                Command::Http {
                    bind: "127.0.0.1:9000".parse().unwrap(),
                    path: "/x".into(),
                    access: Access::default(),
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
                    access: Access {
                        hosts: vec!["mcp.example.com".into(), "*".into()],
                        origins: vec!["https://app.example.com".into()],
                        proxies: vec!["10.0.0.0/8".into()],
                        max_connections: Some(20_000),
                        auth: None,
                    },
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
            "--state-key-file",
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}: {e}");
        }
        assert_eq!(
            parse("--help").unwrap_err().kind(),
            clap::error::ErrorKind::DisplayHelp
        );
        assert_eq!(
            parse("-V").unwrap_err().kind(),
            clap::error::ErrorKind::DisplayVersion
        );
    }

    #[test]
    fn options_of_either_command_go_anywhere() {
        let line = parse("stdio --state-key-file=/keys").unwrap();
        assert_eq!(line.state_key_file.as_deref(), Some("/keys"));
        let line = parse("--state-key-file /keys stdio").unwrap();
        assert_eq!(line.state_key_file.as_deref(), Some("/keys"));
        #[cfg(feature = "metrics")]
        {
            let line = parse("http --metrics-bind 127.0.0.1:9464 --bind 127.0.0.1:1").unwrap();
            assert_eq!(line.metrics_bind, Some("127.0.0.1:9464".parse().unwrap()));
            assert!(matches!(line.command, Command::Http { bind, .. } if bind.port() == 1));
            assert!(parse("stdio --metrics-bind nope").is_err());
        }
    }

    #[cfg(feature = "auth")]
    #[test]
    fn authorization_needs_an_issuer_and_an_audience() {
        let e = parse("http --auth-issuer https://as.example.com").unwrap_err();
        assert!(e.to_string().contains("--auth-audience"), "{e}");
        let line = parse(
            "http --auth-issuer https://as --auth-audience https://mcp/mcp \
             --auth-required-scopes a,b",
        )
        .unwrap();
        let Command::Http { access, .. } = line.command else {
            panic!("http")
        };
        assert_eq!(
            access.auth,
            Some((
                "https://as".into(),
                "https://mcp/mcp".into(),
                vec!["a".into(), "b".into()]
            ))
        );
    }
}
