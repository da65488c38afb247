//! `<server> install CLIENT` / `uninstall CLIENT` (feature `cli`): an entry for this binary
//! (its absolute path and `stdio`, with `--env` variables; or `--url` of a running HTTP
//! server) merged into an MCP client's configuration file at its documented place, keeping
//! everything else in it; the file is copied to `<file>.bak` before it changes; `--dry-run`
//! prints what would be written instead.
//!
//! | client | file | key |
//! | --- | --- | --- |
//! | `claude-desktop` | macOS `~/Library/Application Support/Claude/claude_desktop_config.json`, Windows `%APPDATA%\Claude\…`, Linux `$XDG_CONFIG_HOME/Claude/…` (`~/.config`) | `mcpServers` |
//! | `claude-code` | `~/.claude.json` (user scope); `--project`: `./.mcp.json` | `mcpServers` |
//! | `cursor` | `~/.cursor/mcp.json`; `--project`: `./.cursor/mcp.json` | `mcpServers` |
//! | `vscode` | `./.vscode/mcp.json` (the workspace's) | `servers` |

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::error::Error;

/// The clients `install` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Client {
    /// Claude Desktop
    ClaudeDesktop,
    /// Claude Code
    ClaudeCode,
    /// Cursor
    Cursor,
    /// Visual Studio Code (the workspace's .vscode/mcp.json)
    Vscode,
}

/// What `install` or `uninstall` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Install {
    pub(crate) client: Client,
    /// Remove instead of add.
    pub(crate) remove: bool,
    /// The project's file rather than the user's (where the client has both).
    pub(crate) project: bool,
    /// The entry's name (default: the server's).
    pub(crate) name: Option<String>,
    /// `KEY=VALUE` for the server's environment.
    pub(crate) env: Vec<String>,
    /// A running HTTP server's endpoint instead of this binary.
    pub(crate) url: Option<String>,
    pub(crate) dry_run: bool,
}

/// A variable of the environment, or the error naming it.
fn var(name: &str) -> Result<PathBuf, Error> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| Error::Command(format!("cannot find the configuration: {name} is not set")))
}

impl Client {
    /// The configuration file, and the key its servers are under.
    fn file(self, project: bool) -> Result<(PathBuf, &'static str), Error> {
        let here = || {
            std::env::current_dir()
                .map_err(|e| Error::Command(format!("cannot read the current folder: {e}")))
        };
        Ok(match (self, project) {
            (Self::ClaudeDesktop, _) => (
                desktop_dir()?.join("claude_desktop_config.json"),
                "mcpServers",
            ),
            (Self::ClaudeCode, false) => (var("HOME")?.join(".claude.json"), "mcpServers"),
            (Self::ClaudeCode, true) => (here()?.join(".mcp.json"), "mcpServers"),
            (Self::Cursor, false) => (var("HOME")?.join(".cursor/mcp.json"), "mcpServers"),
            (Self::Cursor, true) => (here()?.join(".cursor/mcp.json"), "mcpServers"),
            (Self::Vscode, _) => (here()?.join(".vscode/mcp.json"), "servers"),
        })
    }

    /// The entry for `command args env`, or for `url`, in this client's words.
    fn entry(
        self,
        command: &str,
        env: &Map<String, Value>,
        url: Option<&str>,
    ) -> Result<Value, Error> {
        let mut entry = match (self, url) {
            (Self::ClaudeDesktop, Some(_)) => {
                return Err(Error::Command(
                    "Claude Desktop starts its servers itself: `--url` is not for it (install \
                     without it, or add a remote connector in its settings)"
                        .into(),
                ));
            }
            (Self::Cursor, Some(url)) => json!({"url": url}),
            (_, Some(url)) => json!({"type": "http", "url": url}),
            (Self::ClaudeDesktop | Self::Cursor, None) => {
                json!({"command": command, "args": ["stdio"]})
            }
            (Self::ClaudeCode | Self::Vscode, None) => {
                json!({"type": "stdio", "command": command, "args": ["stdio"]})
            }
        };
        if !env.is_empty() && url.is_none() {
            entry["env"] = Value::Object(env.clone());
        }
        Ok(entry)
    }
}

/// Claude Desktop's folder on this system.
fn desktop_dir() -> Result<PathBuf, Error> {
    if cfg!(target_os = "macos") {
        Ok(var("HOME")?.join("Library/Application Support/Claude"))
    } else if cfg!(windows) {
        Ok(var("APPDATA")?.join("Claude"))
    } else {
        let config =
            var("XDG_CONFIG_HOME").or_else(|_| Ok::<_, Error>(var("HOME")?.join(".config")))?;
        Ok(config.join("Claude"))
    }
}

/// The configuration in `path` (an empty object when there is none yet).
fn read(path: &Path) -> Result<Map<String, Value>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => return Ok(Map::new()),
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(e) => {
            return Err(Error::Command(format!(
                "cannot read {}: {}",
                path.display(),
                crate::error::io_reason(&e)
            )));
        }
    };
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::Command(format!(
            "{} is not a JSON object: left as it is",
            path.display()
        ))),
        Err(e) => Err(Error::Command(format!(
            "{} is not plain JSON ({e}; comments are not kept): left as it is, edit it by hand",
            path.display()
        ))),
    }
}

/// Runs `install` for the server `server_name`.
pub(crate) fn install(request: &Install, server_name: &str) -> Result<(), Error> {
    let (path, key) = request.client.file(request.project)?;
    let name = request.name.as_deref().unwrap_or(server_name);
    let mut config = read(&path)?;
    let servers = config
        .entry(key.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(Error::Command(format!(
            "`{key}` in {} is not an object: left as it is",
            path.display()
        )));
    };
    let said = if request.remove {
        if servers.remove(name).is_none() {
            println!("{name} is not in {}: nothing to do", path.display());
            return Ok(());
        }
        format!("removed {name} from {}", path.display())
    } else {
        let command = std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .map_err(|e| Error::Command(format!("cannot find this program's path: {e}")))?;
        let mut env = Map::new();
        for pair in &request.env {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            env.insert(k.to_owned(), Value::String(v.to_owned()));
        }
        let entry =
            request
                .client
                .entry(&command.to_string_lossy(), &env, request.url.as_deref())?;
        let verb = if servers.contains_key(name) {
            "updated"
        } else {
            "added"
        };
        servers.insert(name.to_owned(), entry);
        format!("{verb} {name} in {}", path.display())
    };
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&Value::Object(config)).expect("JSON")
    );
    if request.dry_run {
        println!("would write {}:\n{text}", path.display());
        return Ok(());
    }
    write(&path, &text)?;
    println!("{said}");
    Ok(())
}

/// Writes `text` to `path`, after copying what was there to `<path>.bak`.
fn write(path: &Path, text: &str) -> Result<(), Error> {
    let failed = |what: &str, e: std::io::Error| {
        Error::Command(format!(
            "cannot {what} {}: {}",
            path.display(),
            crate::error::io_reason(&e)
        ))
    };
    if path.exists() {
        let mut backup = path.as_os_str().to_owned();
        backup.push(".bak");
        std::fs::copy(path, &backup).map_err(|e| failed("back up", e))?;
    } else if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| failed("create the folder of", e))?;
    }
    std::fs::write(path, text).map_err(|e| failed("write", e))
}
