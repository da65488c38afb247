//! [`ServerBuilder::run`]: the command line is parsed and applied to the builder, the server
//! is built (and so checked, once), and then served as it was built.

use super::builder::ServerBuilder;
use super::cli::{self, Command, CommandLine};
use super::process;
use crate::error::Error;

impl ServerBuilder {
    /// Builds the server with what the command line adds, and serves the transport it
    /// names:
    ///
    /// ```text
    /// <bin> [stdio]
    /// <bin> http [--bind 127.0.0.1:8080] [--path /mcp] [--allow-host HOST]...
    ///            [--allow-origin ORIGIN]... [--trust-proxy ADDR|CIDR]...
    ///            [--max-connections N] [--auth-issuer URL --auth-audience URI]
    /// (either)   [--metrics-bind ADDR:PORT] [--redis-url URL] [--state-key-file PATH]
    /// <bin> --help | --version
    /// ```
    ///
    /// With the `cli` feature (on by default) the line is parsed by clap: `--help` and
    /// `--version` print on stdout and return `Ok(())`, and a usage error prints clap's
    /// message on stderr and exits the process with status 2. The help lists only the
    /// options of the features the binary was built with. Without the feature the server
    /// serves stdio only, and takes the deployment options from their variables
    /// (`MCP_STATE_KEY_FILE`, `MCP_REDIS_URL`, `MCP_METRICS_BIND`).
    ///
    /// The options are applied to this builder before [`build`](Self::build), which checks
    /// them with everything else: the `http` options add to the
    /// [`HttpConfig`](crate::HttpConfig) set in code (each calls
    /// [`allow_host`](crate::HttpConfig::allow_host),
    /// [`allow_origin`](crate::HttpConfig::allow_origin),
    /// [`trust_proxy`](crate::HttpConfig::trust_proxy) once per value, `--max-connections`
    /// [`max_connections`](crate::HttpConfig::max_connections)), `--auth-*` set the
    /// `authorization` (feature `auth`), `--redis-url` the event bus and the task
    /// store, `--state-key-file` the state keys. A server built from them does not change
    /// afterwards.
    ///
    /// Logs go to stderr (`RUST_LOG` filters them). SIGINT/SIGTERM shut down gracefully.
    /// A value that does not parse (a host, an origin) fails the build with
    /// [`Error::Config`](crate::Error::Config); an address that cannot be bound is
    /// [`Error::Bind`](crate::Error::Bind).
    pub async fn run(self) -> Result<(), Error> {
        #[cfg(feature = "cli")]
        {
            self.run_with(|_: (), builder| builder).await
        }
        #[cfg(not(feature = "cli"))]
        {
            let args: Vec<String> = std::env::args().skip(1).collect();
            self.run_with_args(&args).await
        }
    }

    /// [`run`](Self::run) with the author's own flags: `A` is any `#[derive(clap::Args)]`
    /// struct, whose options are accepted on the command line next to the built-in ones
    /// (anywhere on it, unless required) and listed by `--help`; `configure` gets their
    /// values and the builder, before the command line's options are applied and the
    /// server is built.
    ///
    /// ```rust,no_run
    /// use mcp_framework::{Server, clap};
    ///
    /// #[derive(clap::Args)]
    /// struct Notes {
    ///     /// Where the notes are kept
    ///     #[arg(long, env = "NOTES_DIR", default_value = "notes")]
    ///     notes_dir: std::path::PathBuf,
    /// }
    ///
    /// #[tokio::main]
    /// async fn main() -> Result<(), mcp_framework::Error> {
    ///     Server::builder()
    ///         .name("notes")
    ///         .version(env!("CARGO_PKG_VERSION"))
    ///         .run_with(|args: Notes, builder| builder.state(args.notes_dir))
    ///         .await
    /// }
    /// ```
    #[cfg(feature = "cli")]
    pub async fn run_with<A: clap::Args>(
        self,
        configure: impl FnOnce(A, Self) -> Self,
    ) -> Result<(), Error> {
        self.run_with_async(|args, builder| std::future::ready(Ok(configure(args, builder))))
            .await
    }

    /// [`run_with`](Self::run_with) for a configuration that has to wait for something
    /// (connecting to a proxy's upstream, `ServerBuilder::proxy`; reading a remote file) or can
    /// fail: `configure` returns a future of the builder, and its error ends `run`
    /// ([`Error::Usage`] as a usage error: printed, exit status 2).
    #[cfg(feature = "cli")]
    pub async fn run_with_async<A, F, Fut>(self, configure: F) -> Result<(), Error>
    where
        A: clap::Args,
        F: FnOnce(A, Self) -> Fut,
        Fut: std::future::Future<Output = Result<Self, Error>>,
    {
        let mut argv = std::env::args_os();
        let bin = argv
            .next()
            .as_deref()
            .map(std::path::Path::new)
            .and_then(std::path::Path::file_stem)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.server_name().to_owned());
        let args: Vec<String> = argv.map(|a| a.to_string_lossy().into_owned()).collect();
        match self.parse::<A>(&bin, &args) {
            Ok(Some((line, extra))) => {
                // Logging starts before `configure`: what it does (connecting to upstreams,
                // reading files) logs too.
                let telemetry = self.telemetry(&line);
                match configure(extra, self).await {
                    Ok(builder) => builder.serve_line(line, telemetry).await,
                    // The author's own flags were wrong: a usage error, as clap's are.
                    Err(Error::Usage(message)) => {
                        eprintln!("error: {message}\n\nFor more information, try '--help'.");
                        std::process::exit(2)
                    }
                    Err(e) => Err(e),
                }
            }
            Ok(None) => Ok(()),
            Err(e) => e.exit(),
        }
    }

    /// [`run`](Self::run) with explicit arguments (without the program name). Help and
    /// version print on stdout and return `Ok(())`; a usage error is returned as
    /// [`Error::Usage`](crate::Error::Usage) (clap's message), not printed.
    pub async fn run_with_args(self, args: &[String]) -> Result<(), Error> {
        #[cfg(feature = "cli")]
        {
            let bin = self.server_name().to_owned();
            match self.parse::<()>(&bin, args) {
                Ok(Some((line, _))) => {
                    let telemetry = self.telemetry(&line);
                    self.serve_line(line, telemetry).await
                }
                Ok(None) => Ok(()),
                Err(e) => Err(Error::Usage(e.render().to_string().trim_end().to_owned())),
            }
        }
        #[cfg(not(feature = "cli"))]
        {
            let line = cli::parse_plain(args)?;
            let telemetry = self.telemetry(&line);
            self.serve_line(line, telemetry).await
        }
    }

    /// The command line, or `None` once help or the version was printed.
    #[cfg(feature = "cli")]
    fn parse<A: clap::Args>(
        &self,
        bin: &str,
        args: &[String],
    ) -> Result<Option<(CommandLine, A)>, clap::Error> {
        let info = self.identity();
        let about = info.title.as_deref().or(info.description.as_deref());
        match cli::parse::<A>(bin, &info.version, about, args) {
            Ok(parsed) => Ok(Some(parsed)),
            Err(e) if e.exit_code() == 0 => {
                // Help and version: on stdout (clap's `print` picks it by the kind).
                let _ = e.print();
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Logs and traces as `line` asks, until the value returned is dropped. Commands that
    /// do not serve log only warnings unless `RUST_LOG` says otherwise.
    fn telemetry(&self, line: &CommandLine) -> process::Telemetry {
        let quiet = !matches!(line.command, Command::Stdio);
        #[cfg(all(feature = "http", feature = "cli"))]
        let quiet = quiet && !matches!(line.command, Command::Http { .. });
        process::init_telemetry(self.server_name(), line.log_format, quiet)
    }

    /// Applies `line`, builds, and serves what it names (`_telemetry`: the logging it
    /// started, kept until serving ends).
    async fn serve_line(
        self,
        line: CommandLine,
        _telemetry: process::Telemetry,
    ) -> Result<(), Error> {
        #[cfg(not(feature = "metrics"))]
        if line.metrics_bind.is_some() {
            return Err(Error::Usage(
                "MCP_METRICS_BIND: this server was built without the `metrics` feature".into(),
            ));
        }
        #[cfg(feature = "cli")]
        if let Command::Install(install) = &line.command {
            return super::install::install(install, self.server_name());
        }
        let server = cli::apply(self, &line)?.build()?;
        #[cfg(feature = "cli")]
        match &line.command {
            Command::Inspect { card: true, .. } => {
                println!("{}", super::inspect::card(&server)?);
                return Ok(());
            }
            Command::Inspect { json, .. } => {
                print!("{}", super::inspect::inspect(&server, *json));
                return Ok(());
            }
            Command::Invoke(invocation) => {
                return super::invoke::invoke(&server, invocation).await;
            }
            _ => {}
        }
        #[cfg(feature = "metrics")]
        if let Some(bind) = line.metrics_bind {
            super::metrics::serve(bind, server.inner.shutdown.clone()).await?;
        }
        let inner = &server.inner;
        process::on_signals(inner.clone());
        let serving = async {
            match line.command {
                Command::Stdio => {
                    let info = server.info();
                    tracing::info!(name = %info.name, version = %info.version, "serving stdio");
                    server.serve_stdio().await
                }
                #[cfg(all(feature = "http", feature = "cli"))]
                Command::Http { bind, path, .. } => {
                    let listener = super::bind(bind).await?;
                    tracing::info!(addr = %bind_addr(&listener, bind), %path, "serving Streamable HTTP");
                    server.serve_http_listener(listener, &path).await
                }
                #[cfg(feature = "cli")]
                Command::Inspect { .. } | Command::Invoke(_) | Command::Install(_) => Ok(()),
            }
        };
        // Once the grace period is over, what was cut has a moment to send its answer; a
        // connection that does not close by then is dropped with the process.
        let cut = async {
            inner.cutoff.cancelled().await;
            tokio::time::sleep(AFTER_CUTOFF).await;
            tracing::warn!("connections still open after the shutdown were dropped");
        };
        tokio::select! {
            served = serving => served,
            () = cut => Ok(()),
        }
    }
}

/// How long the transports may still take to finish after the requests were cut.
const AFTER_CUTOFF: std::time::Duration = std::time::Duration::from_secs(2);

/// The address `listener` is bound to (the port the system chose for `:0`).
#[cfg(all(feature = "http", feature = "cli"))]
fn bind_addr(
    listener: &tokio::net::TcpListener,
    asked: std::net::SocketAddr,
) -> std::net::SocketAddr {
    listener.local_addr().unwrap_or(asked)
}
