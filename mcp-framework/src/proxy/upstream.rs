//! `Upstream`: where a proxied server is — a program started over stdio (started again
//! after it dies, so kept as its parts, not as a spent `Command`) or a Streamable HTTP
//! endpoint — and connecting to it with the client.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::client::handlers::Relay;
use crate::client::{Client, ClientError};
use crate::protocol::ProtocolVersion;
use crate::server::Server;

/// A server to proxy: a program speaking stdio, or a Streamable HTTP endpoint.
#[derive(Clone)]
#[must_use]
pub struct Upstream {
    kind: Kind,
    timeout: Duration,
    /// What every item served from it requires of a caller.
    access: Access,
    /// The legacy revision to speak to it, instead of finding out.
    legacy: Option<ProtocolVersion>,
}

/// The scopes every item of an upstream requires, and what callers without them see.
#[derive(Clone, Default)]
pub(super) struct Access {
    pub(super) scopes: Vec<String>,
    pub(super) policy: Option<crate::principal::ScopePolicy>,
}

#[derive(Clone)]
enum Kind {
    Stdio {
        program: OsString,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        dir: Option<PathBuf>,
    },
    #[cfg(feature = "client-http")]
    Http { url: String, bearer: Option<String> },
    /// A server of this process, over an in-memory pipe.
    Server(Box<Server>),
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Stdio { program, args, .. } => f
                .debug_struct("Upstream::stdio")
                .field("program", program)
                .field("args", args)
                .finish_non_exhaustive(),
            #[cfg(feature = "client-http")]
            Kind::Http { url, .. } => f
                .debug_struct("Upstream::http")
                .field("url", url)
                .finish_non_exhaustive(),
            Kind::Server(server) => f.debug_tuple("Upstream::server").field(server).finish(),
        }
    }
}

impl Upstream {
    /// `program args…`, started as a child process speaking stdio (each line of its stderr
    /// logged under its name, target `mcp_framework::client::stderr`). Started again, with backoff, when it exits.
    pub fn stdio<S: Into<OsString>>(
        program: impl Into<OsString>,
        args: impl IntoIterator<Item = S>,
    ) -> Self {
        Self {
            kind: Kind::Stdio {
                program: program.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
                dir: None,
            },
            timeout: Duration::from_secs(60),
            access: Access::default(),
            legacy: None,
        }
    }

    /// A Streamable HTTP endpoint (`https://…/mcp`).
    #[cfg(feature = "client-http")]
    pub fn http(url: impl Into<String>) -> Self {
        Self {
            kind: Kind::Http {
                url: url.into(),
                bearer: None,
            },
            timeout: Duration::from_secs(60),
            access: Access::default(),
            legacy: None,
        }
    }

    /// A [`Server`] built in this process, reached over an in-memory pipe (what
    /// [`ServerBuilder::mount`](crate::ServerBuilder::mount) serves).
    pub fn server(server: Server) -> Self {
        Self {
            kind: Kind::Server(Box::new(server)),
            timeout: Duration::from_secs(60),
            access: Access::default(),
            legacy: None,
        }
    }

    /// Sets an environment variable of the program (stdio).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        if let Kind::Stdio { env, .. } = &mut self.kind {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// The program's working directory (stdio).
    pub fn current_dir(mut self, path: impl Into<PathBuf>) -> Self {
        if let Kind::Stdio { dir, .. } = &mut self.kind {
            *dir = Some(path.into());
        }
        self
    }

    /// Sends `Authorization: Bearer <token>` to the endpoint (HTTP).
    #[cfg(feature = "client-http")]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Kind::Http { bearer, .. } = &mut self.kind {
            *bearer = Some(token.into());
        }
        self
    }

    /// Requires these scopes of a caller for every item served from this upstream (on top of
    /// the server's own authorization: a caller reaches the upstream only through it), as
    /// [`ToolDefinition::scopes`](crate::ToolDefinition::scopes) does for one item.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.access
            .scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// What callers without the [`scopes`](Self::scopes) see of this upstream's items,
    /// instead of the server's [`ScopePolicy`](crate::ScopePolicy).
    pub fn scope_policy(mut self, policy: crate::principal::ScopePolicy) -> Self {
        self.access.policy = Some(policy);
        self
    }

    /// What every item served from this upstream requires of a caller.
    pub(super) fn access(&self) -> &Access {
        &self.access
    }

    /// Speaks the legacy revision `version` to the upstream (`initialize` first, then its
    /// session), instead of probing with `server/discover` and falling back: for an
    /// upstream whose 2026-07-28 support is broken, or to pin what it is spoken to in.
    pub fn legacy(mut self, version: ProtocolVersion) -> Self {
        self.legacy = Some(version);
        self
    }

    /// How long a forwarded request waits for the upstream's answer (default 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// What messages call an upstream served without a prefix: its program's file name,
    /// or its URL.
    pub(super) fn label(&self) -> String {
        match &self.kind {
            Kind::Stdio { program, .. } => std::path::Path::new(program)
                .file_name()
                .unwrap_or(program)
                .to_string_lossy()
                .into_owned(),
            #[cfg(feature = "client-http")]
            Kind::Http { url, .. } => url.clone(),
            Kind::Server(server) => server.info().name.clone(),
        }
    }

    /// A new connection to the upstream called `name` in logs (its era found out by the
    /// client's probe), its questions passed to `relay`.
    pub(super) async fn connect(&self, name: &str, relay: Relay) -> Result<Client, ClientError> {
        let mut builder = Client::builder()
            .timeout(self.timeout)
            .relay(relay)
            .client_info(crate::protocol::Implementation {
                name: "mcp-framework-proxy".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Default::default()
            });
        if let Some(version) = self.legacy {
            builder = builder.legacy(version);
        }
        match &self.kind {
            Kind::Stdio {
                program,
                args,
                env,
                dir,
            } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
                if let Some(dir) = dir {
                    command.current_dir(dir);
                }
                builder.log_stderr(name).connect_stdio(command).await
            }
            #[cfg(feature = "client-http")]
            Kind::Http { url, bearer } => {
                let builder = match bearer {
                    Some(token) => builder.bearer_token(token.clone()),
                    None => builder,
                };
                builder.connect_http(url).await
            }
            Kind::Server(server) => builder.connect(server).await,
        }
    }
}
