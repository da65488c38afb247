//! Client-side extensions (SEP-3371): a [`ClientExtension`] is declared in the client's
//! capabilities (`extensions`, with its settings) and contributes to the launch of a
//! server started over stdio ([`Launch`]: environment variables and arguments, say a
//! credential the server-side half of the extension reads at start-up). Contributions of
//! several extensions are combined; two that set one variable to different values — or an
//! extension and the application's own command — fail the connection with
//! [`ClientError::Launch`](super::ClientError::Launch) naming both, never overwrite each
//! other.

use std::collections::BTreeMap;
use std::ffi::OsString;

use crate::protocol::JsonObject;

/// An extension of the client: registered with
/// [`ClientBuilder::extension`](super::ClientBuilder::extension).
///
/// ```
/// use mcp_framework::client::{ClientExtension, Launch};
///
/// /// Hands a stdio server its token the way the specification asks: in its environment.
/// struct Token(String);
///
/// impl ClientExtension for Token {
///     fn id(&self) -> &str { "com.example/token" }
///     fn launch(&self, launch: &mut Launch) {
///         launch.env("EXAMPLE_TOKEN", &self.0);
///     }
/// }
/// ```
pub trait ClientExtension: Send + Sync + 'static {
    /// The identifier (`vendor-prefix/name`).
    fn id(&self) -> &str;

    /// The settings declared for it under the client's `capabilities.extensions` (`{}` by
    /// default).
    fn settings(&self) -> JsonObject {
        JsonObject::new()
    }

    /// What it adds to the launch of a stdio server (nothing by default).
    fn launch(&self, launch: &mut Launch) {
        let _ = launch;
    }
}

/// What extensions add to a stdio server's launch: environment variables and arguments
/// (after the application's own).
#[derive(Debug, Default)]
pub struct Launch {
    /// The extension contributing now.
    current: String,
    env: BTreeMap<OsString, (OsString, String)>,
    args: Vec<OsString>,
    conflicts: Vec<String>,
}

impl Launch {
    /// Sets the environment variable `key` of the server's process.
    pub fn env(&mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> &mut Self {
        let (key, value) = (key.into(), value.into());
        match self.env.get(&key) {
            Some((other, owner)) if *other != value => self.conflicts.push(format!(
                "`{}` and `{owner}` set {} to different values",
                self.current,
                key.to_string_lossy()
            )),
            Some(_) => {}
            None => {
                self.env.insert(key, (value, self.current.clone()));
            }
        }
        self
    }

    /// Adds an argument to the server's command line (after the application's).
    pub fn arg(&mut self, arg: impl Into<OsString>) -> &mut Self {
        self.args.push(arg.into());
        self
    }
}

/// Applies every extension's contributions to `command`: `Err` names each conflict.
pub(super) fn apply(
    extensions: &[std::sync::Arc<dyn ClientExtension>],
    command: &mut tokio::process::Command,
) -> Result<(), String> {
    if extensions.is_empty() {
        return Ok(());
    }
    let mut launch = Launch::default();
    for ext in extensions {
        launch.current = ext.id().to_owned();
        ext.launch(&mut launch);
    }
    let own: BTreeMap<OsString, Option<OsString>> = command
        .as_std()
        .get_envs()
        .map(|(k, v)| (k.to_owned(), v.map(ToOwned::to_owned)))
        .collect();
    for (key, (value, owner)) in &launch.env {
        if let Some(Some(mine)) = own.get(key)
            && mine != value
        {
            launch.conflicts.push(format!(
                "`{owner}` sets {} to another value than the application's command does",
                key.to_string_lossy()
            ));
        }
    }
    if !launch.conflicts.is_empty() {
        return Err(launch.conflicts.join("; "));
    }
    for (key, (value, _)) in launch.env {
        command.env(key, value);
    }
    command.args(launch.args);
    Ok(())
}
