//! Shared helpers for the end-to-end tests: the normative schema, example binaries, the
//! fixture server and talking to it over the wire.

pub mod fixture;
pub mod issuer;
pub mod oidc;
pub mod redis;
pub mod stdio;
pub mod wire;

use std::path::PathBuf;
use std::sync::OnceLock;

use serde_json::{Value, json};

/// The path of an example binary (`target/debug/<name>`), built first if it is missing.
pub fn example_binary(name: &str) -> PathBuf {
    // target/debug/deps/<test>-… → target/debug/<name>
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe
        .parent()
        .and_then(|p| p.parent())
        .expect("target dir")
        .to_path_buf();
    let bin = dir.join(name);
    if !bin.exists() {
        let status = std::process::Command::new(env!("CARGO"))
            .args(["build", "-p", "examples", "--bin", name])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building examples/{name} failed");
    }
    bin
}

/// The `env.sh` that `scripts/interop-setup` writes: `$INTEROP_DIR/env.sh`, by default
/// `target/interop/env.sh` of the workspace (where the scripts install).
pub fn interop_env_file() -> PathBuf {
    let dir = std::env::var_os("INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/interop"));
    dir.join("env.sh")
}

/// A tool installed by `scripts/interop-setup` (`INTEROP_NODE`, `INTEROP_PYTHON`,
/// `INTEROP_OIDC_PROVIDER`, ...): the environment variable when it is set, else its line
/// `NAME='value'` in [`interop_env_file`]; `None` when neither has it.
pub fn interop_env(name: &str) -> Option<String> {
    if let Some(value) = std::env::var_os(name) {
        return Some(value.to_string_lossy().into_owned());
    }
    let text = std::fs::read_to_string(interop_env_file()).ok()?;
    text.lines().find_map(|line| {
        let value = line.strip_prefix(name)?.strip_prefix('=')?;
        Some(value.trim().trim_matches('\'').to_owned())
    })
}

/// The specification the tests check against, vendored in `mcp-framework/tests/spec/`.
pub fn spec_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mcp-framework/tests/spec")
}

/// `schema.json` of a revision (`2026-07-28`, `2025-11-25`) or of the MCP Apps extension
/// (`apps`).
fn schema(revision: &str) -> &'static Value {
    static MODERN: OnceLock<Value> = OnceLock::new();
    static LEGACY: OnceLock<Value> = OnceLock::new();
    static APPS: OnceLock<Value> = OnceLock::new();
    static CARD: OnceLock<Value> = OnceLock::new();
    let cell = match revision {
        "2026-07-28" => &MODERN,
        "apps" => &APPS,
        "server-card" => &CARD,
        _ => &LEGACY,
    };
    cell.get_or_init(|| {
        let path = spec_dir().join(revision).join("schema.json");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).expect("schema.json parses")
    })
}

/// Validates `value` against `$defs/<def>` of a revision's `schema.json` (or `apps`, the MCP
/// Apps extension's); panics with
/// every problem when it does not conform.
pub fn assert_conforms(revision: &str, def: &str, value: &Value) {
    let defs = &schema(revision)["$defs"];
    assert!(defs.get(def).is_some(), "no $defs/{def} in {revision}");
    let root = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": format!("#/$defs/{def}"),
        "$defs": defs,
    });
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&root)
        .expect("the schema compiles");
    let problems: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{def} ({revision}) does not validate:\n{}\n{}",
        problems.join("\n"),
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// Validates a modern result against `$defs/<def>`.
pub fn assert_modern(def: &str, value: &Value) {
    assert_conforms("2026-07-28", def, value);
}

/// Validates a legacy (2025-11-25) result against `$defs/<def>`.
pub fn assert_legacy(def: &str, value: &Value) {
    assert_conforms("2025-11-25", def, value);
}

/// The user guide (`guide/src/`): `cargo test --doc -p tests` compiles every Rust example of
/// every chapter, and runs those not marked `no_run`. Blocks that rely on the automatic
/// collection of `#[tool]`s are marked `standalone_crate`, so that the items of other
/// examples (merged into one test crate) do not join their server.
#[cfg(doctest)]
#[allow(dead_code)]
mod guide {
    #[doc = include_str!("../../guide/src/introduction.md")]
    struct Introduction;
    #[doc = include_str!("../../guide/src/quickstart.md")]
    struct Quickstart;
    #[doc = include_str!("../../guide/src/tools.md")]
    struct Tools;
    #[doc = include_str!("../../guide/src/schemas.md")]
    struct Schemas;
    #[doc = include_str!("../../guide/src/prompts.md")]
    struct Prompts;
    #[doc = include_str!("../../guide/src/resources.md")]
    struct Resources;
    #[doc = include_str!("../../guide/src/completion.md")]
    struct Completion;
    #[doc = include_str!("../../guide/src/context.md")]
    struct TheContext;
    #[doc = include_str!("../../guide/src/transports.md")]
    struct Transports;
    #[doc = include_str!("../../guide/src/command-line.md")]
    struct CommandLine;
    #[doc = include_str!("../../guide/src/caching.md")]
    struct Caching;
    #[doc = include_str!("../../guide/src/runtime-changes.md")]
    struct RuntimeChanges;
    #[doc = include_str!("../../guide/src/legacy.md")]
    struct Legacy;
    #[doc = include_str!("../../guide/src/testing.md")]
    struct Testing;
    #[doc = include_str!("../../guide/src/client.md")]
    struct TheClient;
    #[doc = include_str!("../../guide/src/composition.md")]
    struct Composition;
    #[doc = include_str!("../../guide/src/tasks.md")]
    struct Tasks;
    #[doc = include_str!("../../guide/src/skills.md")]
    struct Skills;
    #[doc = include_str!("../../guide/src/apps.md")]
    struct Apps;
    #[doc = include_str!("../../guide/src/middleware.md")]
    struct Middleware;
    #[doc = include_str!("../../guide/src/authorization.md")]
    struct Authorization;
    #[doc = include_str!("../../guide/src/deploying.md")]
    struct Deploying;
    #[doc = include_str!("../../guide/src/server-card.md")]
    struct ServerCards;
    #[doc = include_str!("../../guide/src/extensions.md")]
    struct Extensions;
    #[doc = include_str!("../../guide/src/events.md")]
    struct Events;
    #[doc = include_str!("../../guide/src/observability.md")]
    struct Observability;
    #[doc = include_str!("../../guide/src/performance.md")]
    struct Performance;
}

/// `everything http --bind 127.0.0.1:<free port> <options>` (the example binary), killed
/// when the child is dropped; returns once it answers.
pub async fn everything(options: &[&str]) -> (tokio::process::Child, wire::Running) {
    everything_on(free_port(), options).await
}

/// [`everything`] on the port `port` (to start it again where it was).
pub async fn everything_on(port: u16, options: &[&str]) -> (tokio::process::Child, wire::Running) {
    let child = tokio::process::Command::new(example_binary("everything"))
        .args(["http", "--bind", &format!("127.0.0.1:{port}")])
        .args(options)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn everything");
    let running = wire::Running::remote(format!("http://127.0.0.1:{port}/mcp"));
    for _ in 0..100 {
        if running.http.get(&running.url).send().await.is_ok() {
            return (child, running);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("everything did not come up on port {port}");
}

/// A tool installed by `scripts/interop-setup` (see [`interop_env`]), or a panic that says
/// how to install it.
pub fn interop_installed(name: &str) -> String {
    interop_env(name).unwrap_or_else(|| {
        panic!(
            "{name} is not set: run scripts/interop-setup (scripts/test-all runs it), which \
             writes it to {}",
            interop_env_file().display()
        )
    })
}

/// Waits (at most 10 s) until something listens on `addr` of 127.0.0.1, or panics.
pub async fn listening(addr: std::net::SocketAddr) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("nothing listens on {addr}");
}

/// The path of `name` on `PATH` (or in `/usr/sbin`, where Debian puts daemons), or a panic
/// saying how to install it (`package`, the Debian package; `scripts/test-all` installs it).
pub fn installed_binary(name: &str, package: &str) -> PathBuf {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain(["/usr/sbin".into(), "/usr/local/sbin".into()])
        .map(|d| d.join(name))
        .find(|p| p.exists())
        .unwrap_or_else(|| {
            panic!(
                "the `{name}` binary is needed (Debian: apt-get install {package}; \
                 scripts/test-all installs it)"
            )
        })
}

/// Writes `text` to `path`, readable by its owner only (a key file).
pub fn write_private(path: &std::path::Path, text: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// A free TCP port of 127.0.0.1 (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A fresh folder under the system's temporary directory for this test process.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
