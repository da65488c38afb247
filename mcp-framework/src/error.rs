//! Errors: [`Error`] for building and running a server, [`ToolError`] for tool failures
//! that the model should see, [`ContextError`] for questions a handler asks the client.

use std::fmt;

use crate::location::Location;
use crate::protocol::ErrorObject;
use crate::schema_profile::{SchemaProfile, SchemaViolation};

/// An error building or running a server.
///
/// Its `Debug` is its `Display` (one line a person can read, naming the cause and its
/// subject), so that a `main() -> Result<(), Error>` ending with it prints
/// `Error: cannot bind 127.0.0.1:8080: address already in use` rather than a structure.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two definitions share a name (or a URI).
    #[error("duplicate {kind} `{name}`: defined at {first} and at {second}")]
    Duplicate {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// The clashing name or URI.
        name: String,
        /// Where the first definition is.
        first: Location,
        /// Where the second definition is.
        second: Location,
    },
    /// A handler takes a `State<T>` whose `T` was never registered with
    /// [`ServerBuilder::state`](crate::ServerBuilder::state).
    #[error(
        "{kind} `{name}` ({location}) takes `State<{type_name}>`, but no state of that type is \
         registered: add `.state(…)` with a `{type_name}` to the server builder"
    )]
    MissingState {
        /// `tool`, `prompt` or `resource`.
        kind: &'static str,
        /// Its name.
        name: String,
        /// Where it is defined.
        location: Location,
        /// The state's type.
        type_name: &'static str,
    },
    /// A definition is not valid (bad schema, bad `x-mcp-header`, bad URI template…).
    #[error("invalid {kind} `{name}` ({location}): {reason}")]
    Definition {
        /// `tool`, `prompt`, `resource` or `resource template`.
        kind: &'static str,
        /// Its name.
        name: String,
        /// Where it is defined.
        location: Location,
        /// What is wrong.
        reason: String,
    },
    /// A tool has constructs its schema profile refuses (see
    /// [`SchemaRule`](crate::SchemaRule)).
    #[error(
        "tool `{name}` ({location}) does not fit the `{profile}` schema profile:{}",
        list(violations)
    )]
    Schema {
        /// The tool's name.
        name: String,
        /// Where it is defined.
        location: Location,
        /// The profile it was shaped with.
        profile: SchemaProfile,
        /// What the profile refuses, each with where and how to fix it.
        violations: Vec<SchemaViolation>,
    },
    /// Skills that break the rules of the Agent Skills format or of the extension (every
    /// problem of every skill, each naming the skill's folder or path).
    #[error("invalid skills:{}", problems.iter().map(|p| format!("\n  - {p}")).collect::<String>())]
    Skills {
        /// What is wrong, one line each.
        problems: Vec<String>,
    },
    /// Invalid server configuration.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// An upstream server of a proxy could not be reached or listed.
    #[error("upstream `{name}`: {message}")]
    Upstream {
        /// The upstream's name (its prefix).
        name: String,
        /// What went wrong.
        message: String,
    },
    /// Invalid command line (see [`ServerBuilder::run`](crate::ServerBuilder::run)).
    #[error("{0}")]
    Usage(String),
    /// An address could not be bound (in use, not this machine's, not permitted).
    #[error("cannot bind {addr}: {}", io_reason(source))]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// A command of the command line failed (`call`, `get-prompt`, `read`): the server's
    /// error, or a tool result with `isError`.
    #[error("{0}")]
    Command(String),
    /// An I/O error (reading stdin…).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What an I/O error says, without the `(os error N)` its `Display` ends with and with a
/// lower-case start: `address already in use`, to follow `cannot bind ADDR: `.
pub(crate) fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if !chars.as_str().starts_with(char::is_uppercase) => {
            first.to_lowercase().chain(chars).collect()
        }
        _ => text.to_owned(),
    }
}

fn list(violations: &[SchemaViolation]) -> String {
    violations.iter().map(|v| format!("\n  - {v}")).collect()
}

/// A tool failure reported to the model as a result with `isError: true`.
///
/// Any `std::error::Error` converts into it, so `?` works in tools returning
/// `Result<T, ToolError>`. Tools may also return `Result<T, E>` for any `E: Display`.
pub struct ToolError {
    pub(crate) message: String,
}

impl ToolError {
    /// A tool error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message the model will see.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolError").field(&self.message).finish()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(e: E) -> Self {
        Self::new(e.to_string())
    }
}

/// An error while asking the client for something.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// The client answered with a JSON-RPC error.
    #[error("the client returned an error: {0}")]
    Client(ErrorObject),
    /// The client did not answer in time.
    #[error("the client did not answer in time")]
    Timeout,
    /// The request was cancelled.
    #[error("the request was cancelled")]
    Cancelled,
    /// The connection to the client is gone.
    #[error("the connection to the client is closed")]
    Closed,
    /// The client's answer does not have the expected shape.
    #[error("the client's answer is invalid: {0}")]
    InvalidResponse(String),
}
