//! `gateway`: one MCP endpoint in front of other MCP servers. Each `--upstream` is served
//! under its name: its tools and prompts as `<name>_<tool>`, its resources and templates
//! under their own URIs, through this server's authorization, metrics, caching hints,
//! listen streams and tasks, whatever era the upstream speaks (a legacy server is brought
//! to 2026-07-28 clients, and the other way round).
//!
//! ```sh
//! gateway http --bind 127.0.0.1:8080 \
//!     --upstream 'time=stdio:uvx mcp-server-time' \
//!     --upstream 'ref=stdio:npx -y @modelcontextprotocol/server-everything' \
//!     --upstream 'docs=https://mcp.example.com/mcp'
//! ```
//!
//! Every deployment option of the other examples is here too (`--auth-*`,
//! `--metrics-bind`, `--redis-url`, `--help` lists them).

use mcp_framework::proxy::Upstream;
use mcp_framework::{Error, Server, clap};

/// The gateway's own options.
#[derive(clap::Args)]
struct Gateway {
    /// An upstream server, served under NAME: `NAME=stdio:PROGRAM [ARGS…]` (split as a
    /// shell would: quote an argument with spaces) or `NAME=http://HOST/PATH` (or https); without `NAME=` its names are
    /// served as they are. Repeat for several; one at least.
    #[arg(long = "upstream", value_name = "NAME=SERVER", global = true)]
    upstreams: Vec<String>,
    /// A bearer token sent to every HTTP upstream.
    #[arg(
        long,
        env = "GATEWAY_UPSTREAM_TOKEN",
        value_name = "TOKEN",
        global = true
    )]
    upstream_token: Option<String>,
    /// A scope every item of the upstream NAME requires of a caller (with `--auth-*`):
    /// `NAME=SCOPE`. Repeat for several; callers without them do not see its items.
    #[arg(long = "upstream-scope", value_name = "NAME=SCOPE", global = true)]
    upstream_scopes: Vec<String>,
}

/// `NAME=SERVER` as a name and an upstream.
fn upstream(spec: &str, token: Option<&str>) -> Result<(String, Upstream), Error> {
    let usage = || {
        Error::Usage(format!(
            "--upstream `{spec}`: expected NAME=stdio:PROGRAM [ARGS…] or NAME=http(s)://…"
        ))
    };
    // Without `NAME=`, the upstream's names are served as they are.
    let (name, server) = if spec.starts_with("stdio:") || spec.starts_with("http") {
        ("", spec)
    } else {
        spec.split_once('=').ok_or_else(usage)?
    };
    if let Some(command) = server.strip_prefix("stdio:") {
        let words = shlex::split(command).ok_or_else(|| {
            Error::Usage(format!(
                "--upstream `{spec}`: unbalanced quotes in the command (it is split as a shell would)"
            ))
        })?;
        let mut words = words.into_iter();
        let program = words.next().ok_or_else(usage)?;
        return Ok((name.to_owned(), Upstream::stdio(program, words)));
    }
    if server.starts_with("http://") || server.starts_with("https://") {
        let upstream = Upstream::http(server);
        let upstream = match token {
            Some(token) => upstream.bearer_token(token),
            None => upstream,
        };
        return Ok((name.to_owned(), upstream));
    }
    Err(usage())
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    Server::builder()
        .name("gateway")
        .version(env!("CARGO_PKG_VERSION"))
        .title("MCP gateway")
        .description("Serves other MCP servers' tools, prompts and resources as its own")
        // Only what the upstreams serve: no #[tool] of this binary.
        .tools(mcp_framework::ToolSet::new())
        .prompts(mcp_framework::PromptSet::new())
        .resources(mcp_framework::ResourceSet::new())
        .run_with_async(|args: Gateway, mut builder| async move {
            if args.upstreams.is_empty() {
                return Err(Error::Usage(
                    "no upstream: give one or more --upstream NAME=SERVER".into(),
                ));
            }
            let mut scopes = Vec::new();
            for spec in &args.upstream_scopes {
                let (name, scope) = spec.split_once('=').ok_or_else(|| {
                    Error::Usage(format!("--upstream-scope `{spec}`: expected NAME=SCOPE"))
                })?;
                scopes.push((name.to_owned(), scope.to_owned()));
            }
            if let Some((name, _)) = scopes.iter().find(|(n, _)| {
                !args
                    .upstreams
                    .iter()
                    .any(|u| u.starts_with(&format!("{n}=")))
            }) {
                return Err(Error::Usage(format!(
                    "--upstream-scope names `{name}`, which no --upstream does"
                )));
            }
            for spec in &args.upstreams {
                let (name, upstream) = upstream(spec, args.upstream_token.as_deref())?;
                let mine = scopes.iter().filter(|(n, _)| *n == name).map(|(_, s)| s);
                let upstream = upstream
                    .scopes(mine.cloned())
                    .scope_policy(mcp_framework::ScopePolicy::Hide);
                builder = builder.proxy(name, upstream).await?;
            }
            Ok(builder)
        })
        .await
}
