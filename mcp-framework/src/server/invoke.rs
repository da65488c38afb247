//! `<server> call TOOL [KEY=VALUE…] [--json ARGS]`, `get-prompt NAME [KEY=VALUE…]` and
//! `read URI` (feature `cli`): one request served in-process, without a client, over the
//! same stdio wire format (`serve_stream` on an in-memory pipe), as a 2026-07-28 client.
//! When stdin is a terminal it declares form elicitation and asks the user each field on
//! the terminal (the `input_required` rounds of MRTR); otherwise it declares no capability
//! and a question for the user fails as it does for such a client, with a hint. The result
//! goes to stdout (structured content as JSON, else the text), progress and log messages to
//! stderr; an error, or a tool result with `isError`, is an [`Error::Command`] (one line,
//! status 1).

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

/// The most `input_required` rounds one invocation answers.
const MAX_ROUNDS: u64 = 16;

/// Runs `invocation` against `server` and prints its result.
pub(crate) async fn invoke(server: &Server, invocation: &Invocation) -> Result<(), Error> {
    let (method, name, mut params) = invocation.request(server)?;
    let terminal = std::io::stdin().is_terminal();
    let capabilities = if terminal {
        json!({"elicitation": {"form": {}}})
    } else {
        json!({})
    };
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "progressToken": "cli",
    });
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (their_read, their_write) = tokio::io::split(theirs);
    let serving = {
        let server = server.clone();
        tokio::spawn(async move { server.serve_stream(their_read, their_write).await })
    };
    let (our_read, mut our_write) = tokio::io::split(ours);
    let mut lines = BufReader::new(our_read).lines();
    let progress = Progress::new();
    let mut round = 0;
    let answer = loop {
        round += 1;
        let request = json!({"jsonrpc": "2.0", "id": round, "method": method, "params": params});
        our_write
            .write_all(format!("{request}\n").as_bytes())
            .await?;
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
                None if message.get("id") == Some(&json!(round)) => break message,
                None => {}
            }
        };
        progress.done();
        let result = &answer["result"];
        if !terminal
            || round >= MAX_ROUNDS
            || result.get("resultType").and_then(Value::as_str) != Some("input_required")
        {
            break answer;
        }
        let responses = ask_all(method, name, result.get("inputRequests")).await?;
        params["inputResponses"] = Value::Object(responses);
        match result.get("requestState") {
            Some(state) => params["requestState"] = state.clone(),
            None => {
                if let Some(p) = params.as_object_mut() {
                    p.remove("requestState");
                }
            }
        }
    };
    drop(our_write);
    drop(lines);
    let _ = serving.await;
    if let Some(error) = answer.get("error") {
        let hint = if error["code"]
            == json!(crate::protocol::codes::MISSING_REQUIRED_CLIENT_CAPABILITY)
            && !terminal
        {
            " (`call` answers elicitation only when stdin is a terminal)"
        } else {
            ""
        };
        return Err(Error::Command(format!(
            "{method} {name}: {} ({}){hint}",
            error["message"].as_str().unwrap_or("error"),
            error["code"]
        )));
    }
    print(method, name, &answer["result"])
}

/// The answers to a round's input requests, asked on the terminal: form elicitation only.
async fn ask_all(
    method: &str,
    name: &str,
    requests: Option<&Value>,
) -> Result<Map<String, Value>, Error> {
    let mut responses = Map::new();
    for (key, request) in requests.and_then(Value::as_object).into_iter().flatten() {
        let asked = request["method"].as_str().unwrap_or("?");
        let params = &request["params"];
        if asked != "elicitation/create" || params.get("url").is_some() {
            return Err(Error::Command(format!(
                "{method} {name}: it asks for `{asked}`, which `call` cannot answer: run it \
                 from an MCP client"
            )));
        }
        let params = params.clone();
        let answer = tokio::task::spawn_blocking(move || ask_form(&params))
            .await
            .map_err(|e| Error::Command(e.to_string()))?;
        responses.insert(key.clone(), answer);
    }
    Ok(responses)
}

/// One line from the terminal (`None` at its end).
fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
    }
}

/// A form elicitation asked field by field on the terminal: the message, then each
/// property of `requestedSchema` (its default on an empty line); the end of input cancels.
fn ask_form(params: &Value) -> Value {
    use std::io::Write as _;
    eprintln!(
        "{}",
        params["message"].as_str().unwrap_or("The server asks:")
    );
    let schema = &params["requestedSchema"];
    let mut content = Map::new();
    for (field, property) in schema["properties"].as_object().into_iter().flatten() {
        let ty = property["type"].as_str().unwrap_or("string");
        let choices = property["enum"]
            .as_array()
            .map(|e| {
                let names: Vec<String> = e
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect();
                format!(" ({})", names.join("/"))
            })
            .unwrap_or_default();
        let default = property
            .get("default")
            .map(|d| {
                format!(
                    " [{}]",
                    d.as_str().map_or_else(|| d.to_string(), str::to_owned)
                )
            })
            .unwrap_or_default();
        let label = property["title"].as_str().unwrap_or(field);
        eprint!("  {label}{choices}{default}: ");
        let _ = std::io::stderr().flush();
        let Some(line) = read_line() else {
            eprintln!();
            return json!({"action": "cancel"});
        };
        let value = if line.is_empty() {
            match property.get("default") {
                Some(d) => d.clone(),
                None => continue,
            }
        } else {
            match ty {
                "integer" | "number" => serde_json::from_str(&line).unwrap_or(Value::String(line)),
                "boolean" => Value::Bool(matches!(
                    line.to_ascii_lowercase().as_str(),
                    "y" | "yes" | "true" | "1"
                )),
                _ => Value::String(line),
            }
        };
        content.insert(field.clone(), value);
    }
    json!({"action": "accept", "content": content})
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
