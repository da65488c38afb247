//! [`ServerBuilder::run`]: the command line is parsed and applied to the builder, the server
//! is built (and so checked, once), and then served as it was built.

use super::builder::ServerBuilder;
use super::cli::{self, Command};
use crate::error::Error;

impl ServerBuilder {
    /// Builds the server with what the command line adds, and serves the transport it
    /// names:
    ///
    /// ```text
    /// <bin> stdio
    /// <bin> http [--bind 127.0.0.1:8080] [--path /mcp] [--allow-host HOST]...
    ///            [--allow-origin ORIGIN]... [--trust-proxy ADDR|CIDR]...
    ///            [--max-connections N] [--auth-issuer URL --auth-audience URI]
    /// (either)   [--metrics-bind ADDR:PORT] [--redis-url URL] [--state-key-file PATH]
    /// ```
    ///
    /// The options are applied to this builder before [`build`](Self::build), which checks
    /// them with everything else: the `http` options add to the
    /// [`HttpConfig`](crate::HttpConfig) set in code (each calls
    /// [`allow_host`](crate::HttpConfig::allow_host),
    /// [`allow_origin`](crate::HttpConfig::allow_origin),
    /// [`trust_proxy`](crate::HttpConfig::trust_proxy) once per value, `--max-connections`
    /// [`max_connections`](crate::HttpConfig::max_connections)), `--auth-*` set the
    /// [`authorization`](Self::authorization), `--redis-url` the event bus and the task
    /// store, `--state-key-file` the state keys. A server built from them does not change
    /// afterwards.
    ///
    /// Without arguments it serves stdio. Logs go to stderr (`RUST_LOG` filters them).
    /// SIGINT/SIGTERM shut down gracefully. A bad command line is
    /// [`Error::Usage`](crate::Error::Usage); a value that does not parse (a host, an
    /// origin) fails the build with [`Error::Config`](crate::Error::Config).
    pub async fn run(self) -> Result<(), Error> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        self.run_with_args(&args).await
    }

    /// [`run`](Self::run) with explicit arguments (without the program name).
    pub async fn run_with_args(self, args: &[String]) -> Result<(), Error> {
        let _telemetry = cli::init_telemetry(self.server_name());
        let line = cli::parse(args)?;
        if let Command::Help(text) = &line.command {
            eprintln!("{text}");
            return Ok(());
        }
        #[cfg(not(feature = "metrics"))]
        if let Some(bind) = line.metrics_bind {
            return Err(Error::Usage(format!(
                "`--metrics-bind {bind}`: this server was built without the `metrics` feature"
            )));
        }
        let server = cli::apply(self, &line)?.build()?;
        #[cfg(feature = "metrics")]
        if let Some(bind) = line.metrics_bind {
            super::metrics::serve(bind, server.inner.shutdown.clone()).await?;
        }
        let shutdown = server.inner.shutdown.clone();
        tokio::spawn(async move {
            cli::shutdown_signal().await;
            shutdown.cancel();
        });
        match line.command {
            Command::Help(_) => Ok(()),
            Command::Stdio => {
                let info = server.info();
                tracing::info!(name = %info.name, version = %info.version, "serving stdio");
                server.serve_stdio().await
            }
            #[cfg(feature = "http")]
            Command::Http { bind, path, .. } => {
                let listener = tokio::net::TcpListener::bind(bind).await?;
                tracing::info!(addr = %listener.local_addr()?, %path, "serving Streamable HTTP");
                server.serve_http_listener(listener, &path).await
            }
        }
    }
}
