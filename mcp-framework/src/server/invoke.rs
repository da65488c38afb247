//! `<server> call TOOL [KEY=VALUE…] [--json ARGS]`, `get-prompt NAME [KEY=VALUE…]` and
//! `read URI` (feature `cli`): one request served in-process, without a client, over the
//! same stdio wire format (`serve_stream` on an in-memory pipe), as a 2026-07-28 client
//! that declares no capabilities (a question for the user, such as an elicitation, fails
//! as it does for such a client). The result goes to stdout (structured content as JSON,
//! else the text), progress and log messages to stderr; an error, or a tool result with
//! `isError`, is an [`Error::Command`] (one line, status 1).

use std::io::IsTerminal as _;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

use super::Server;
use crate::error::Error;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Invocation {
    /// `call TOOL KEY=VALUE… [--json ARGS]`.
    Call {
        tool: String,
        pairs: Vec<String>,
        json: Option<String>,
    },
    /// `get-prompt NAME KEY=VALUE…`.
    GetPrompt { name: String, pairs: Vec<String> },
    /// `read URI`.
    Read { uri: String },
}

/// `KEY=VALUE` split, or a usage error.
fn pair(text: &str) -> Result<(&str, &str), Error> {
    text.split_once('=')
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| Error::Usage(format!("`{text}`: expected KEY=VALUE")))
}

/// The type a tool's input schema gives the property `key` (`None`: not said).
fn declared_type<'a>(schema: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    schema.get("properties")?.get(key)?.get("type")
}

/// A tool argument from the command line: a string where the schema says so, else the
/// value as JSON when it parses (`3`, `true`, `[1,2]`), else a string.
fn tool_value(schema: &Map<String, Value>, key: &str, value: &str) -> Value {
    let string = match declared_type(schema, key) {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().all(|t| t == "string" || t == "null"),
        _ => false,
    };
    if string {
        return Value::String(value.to_owned());
    }
    serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()))
}

impl Invocation {
    /// The request's method, the name it names, and its params (without `_meta`).
    fn request(&self, server: &Server) -> Result<(&'static str, &str, Value), Error> {
        match self {
            Self::Call { tool, pairs, json } => {
                let mut arguments = match json {
                    Some(text) => match serde_json::from_str(text) {
                        Ok(Value::Object(map)) => map,
                        _ => {
                            return Err(Error::Usage(
                                "`--json`: expected the arguments as a JSON object".into(),
                            ));
                        }
                    },
                    None => Map::new(),
                };
                let catalog = server.inner.catalog.load();
                let empty = Map::new();
                let schema = catalog.tool(tool).map_or(&empty, |t| &t.tool.input_schema);
                for p in pairs {
                    let (k, v) = pair(p)?;
                    arguments.insert(k.to_owned(), tool_value(schema, k, v));
                }
                Ok((
                    "tools/call",
                    tool,
                    json!({"name": tool, "arguments": arguments}),
                ))
            }
            Self::GetPrompt { name, pairs } => {
                let mut arguments = Map::new();
                for p in pairs {
                    let (k, v) = pair(p)?;
                    arguments.insert(k.to_owned(), Value::String(v.to_owned()));
                }
                Ok((
                    "prompts/get",
                    name,
                    json!({"name": name, "arguments": arguments}),
                ))
            }
            Self::Read { uri } => Ok(("resources/read", uri, json!({"uri": uri}))),
        }
    }
}

/// Runs `invocation` against `server` and prints its result.
pub(crate) async fn invoke(server: &Server, invocation: &Invocation) -> Result<(), Error> {
    let (method, name, mut params) = invocation.request(server)?;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "progressToken": "cli",
    });
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (their_read, their_write) = tokio::io::split(theirs);
    let serving = {
        let server = server.clone();
        tokio::spawn(async move { server.serve_stream(their_read, their_write).await })
    };
    let (our_read, mut our_write) = tokio::io::split(ours);
    our_write
        .write_all(format!("{request}\n").as_bytes())
        .await?;
    let mut lines = BufReader::new(our_read).lines();
    let progress = Progress::new();
    let answer = loop {
        let Some(line) = lines.next_line().await? else {
            return Err(Error::Command(format!(
                "{method} {name}: the server closed without answering"
            )));
        };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match message.get("method").and_then(Value::as_str) {
            Some("notifications/progress") => progress.show(&message["params"]),
            Some("notifications/message") => progress.log(&message["params"]),
            Some(_) => {}
            None if message.get("id") == Some(&json!(1)) => break message,
            None => {}
        }
    };
    progress.done();
    drop(our_write);
    drop(lines);
    let _ = serving.await;
    if let Some(error) = answer.get("error") {
        return Err(Error::Command(format!(
            "{method} {name}: {} ({})",
            error["message"].as_str().unwrap_or("error"),
            error["code"]
        )));
    }
    print(method, name, &answer["result"])
}

/// Prints a result on stdout; a tool result with `isError` is an error.
fn print(method: &str, name: &str, result: &Value) -> Result<(), Error> {
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Err(Error::Command(format!(
            "{method} {name}: it asks for input (elicitation, sampling or roots), which \
             `call` cannot give: run it from an MCP client"
        )));
    }
    let texts = |items: Option<&Vec<Value>>| -> String {
        items
            .into_iter()
            .flatten()
            .map(|c| match c.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => serde_json::to_string_pretty(c).expect("JSON"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    match method {
        "tools/call" => {
            let text = texts(result.get("content").and_then(Value::as_array));
            if result.get("isError") == Some(&Value::Bool(true)) {
                return Err(Error::Command(format!("tool `{name}` failed: {text}")));
            }
            match result.get("structuredContent") {
                Some(structured) => println!(
                    "{}",
                    serde_json::to_string_pretty(structured).expect("JSON")
                ),
                None => println!("{text}"),
            }
        }
        "prompts/get" => {
            for m in result
                .get("messages")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let content = m.get("content").map(|c| vec![c.clone()]);
                println!(
                    "[{}]\n{}",
                    m["role"].as_str().unwrap_or("?"),
                    texts(content.as_ref())
                );
            }
        }
        _ => {
            for c in result
                .get("contents")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match (c.get("text"), c.get("blob")) {
                    (Some(Value::String(text)), _) => println!("{text}"),
                    (_, Some(_)) => eprintln!(
                        "{}: binary contents ({}), not printed",
                        c["uri"].as_str().unwrap_or(name),
                        c["mimeType"].as_str().unwrap_or("no type")
                    ),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// Progress and log messages on stderr: one line updated in place on a terminal, a line
/// each otherwise.
struct Progress {
    terminal: bool,
    shown: std::cell::Cell<bool>,
}

impl Progress {
    fn new() -> Self {
        Self {
            terminal: std::io::stderr().is_terminal(),
            shown: std::cell::Cell::new(false),
        }
    }

    fn show(&self, params: &Value) {
        let done = params["progress"].as_f64().unwrap_or(0.0);
        let of = params["total"]
            .as_f64()
            .map(|t| format!("/{t}"))
            .unwrap_or_default();
        let message = params["message"]
            .as_str()
            .map(|m| format!(" {m}"))
            .unwrap_or_default();
        if self.terminal {
            eprint!("\r\x1b[2Kprogress {done}{of}{message}");
            self.shown.set(true);
        } else {
            eprintln!("progress {done}{of}{message}");
        }
    }

    fn log(&self, params: &Value) {
        self.done();
        let data = match &params["data"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        eprintln!("{}: {data}", params["level"].as_str().unwrap_or("log"));
    }

    /// Ends the line updated in place.
    fn done(&self) {
        if self.shown.replace(false) {
            eprintln!();
        }
    }
}
