//! A server started as a child process and spoken to over stdio, line by line: the
//! transport as MCP clients use it.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, Command};

/// `everything stdio` (or another example) as a child process, spoken to line by line.
pub struct Proc {
    /// The process.
    pub child: Child,
    /// Its stdin (`None` once closed).
    pub stdin: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    /// Its stdout, line by line.
    pub out: Lines<BufReader<Box<dyn AsyncRead + Unpin + Send>>>,
}

/// What the server's stdin and stdout are.
#[derive(Clone, Copy, Debug)]
pub enum Wiring {
    /// Pipes (as Python and Rust clients start servers).
    Pipes,
    /// One Unix socket pair for each (what libuv, so Node, gives a child).
    Sockets,
}

/// The `_meta` of a 2026-07-28 request.
pub fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})
}

impl std::fmt::Debug for Proc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proc")
            .field("child", &self.child)
            .finish_non_exhaustive()
    }
}

impl Proc {
    /// `everything stdio` over pipes.
    pub fn spawn() -> Self {
        Self::spawn_with(Wiring::Pipes)
    }

    /// `everything stdio` over `wiring`.
    pub fn spawn_with(wiring: Wiring) -> Self {
        Self::spawn_args(wiring, &[])
    }

    /// `everything stdio <args>` over `wiring`.
    pub fn spawn_args(wiring: Wiring, args: &[&str]) -> Self {
        let mut command = Command::new(crate::example_binary("everything"));
        command
            .arg("stdio")
            .args(args)
            .env("RUST_LOG", "debug")
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        match wiring {
            Wiring::Pipes => {
                command.stdin(Stdio::piped()).stdout(Stdio::piped());
                let mut child = command.spawn().expect("spawn everything");
                let stdin: Box<dyn AsyncWrite + Unpin + Send> =
                    Box::new(child.stdin.take().expect("stdin"));
                let out: Box<dyn AsyncRead + Unpin + Send> =
                    Box::new(child.stdout.take().expect("stdout"));
                Self {
                    child,
                    stdin: Some(stdin),
                    out: BufReader::new(out).lines(),
                }
            }
            Wiring::Sockets => {
                let (ours_in, theirs_in) = std::os::unix::net::UnixStream::pair().unwrap();
                let (ours_out, theirs_out) = std::os::unix::net::UnixStream::pair().unwrap();
                command
                    .stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs_in)))
                    .stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs_out)));
                let child = command.spawn().expect("spawn everything");
                drop(command); // our copies of the child's ends: EOF must come from `ours_in`
                let socket = |s: std::os::unix::net::UnixStream| {
                    s.set_nonblocking(true).unwrap();
                    tokio::net::UnixStream::from_std(s).unwrap()
                };
                let stdin: Box<dyn AsyncWrite + Unpin + Send> = Box::new(socket(ours_in));
                let out: Box<dyn AsyncRead + Unpin + Send> = Box::new(socket(ours_out));
                Self {
                    child,
                    stdin: Some(stdin),
                    out: BufReader::new(out).lines(),
                }
            }
        }
    }

    /// Writes `bytes` and a newline.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Writes one message.
    pub async fn send(&mut self, msg: Value) {
        self.send_raw(msg.to_string().as_bytes()).await;
    }

    /// Writes a request (with a 2026-07-28 `_meta` unless `params` has one).
    pub async fn request(&mut self, id: i64, method: &str, mut params: Value) {
        if params.get("_meta").is_none() {
            params["_meta"] = meta();
        }
        self.send(json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))
            .await;
    }

    /// The next line of stdout, which must be one JSON-RPC message.
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.out.next_line())
            .await
            .expect("an answer within 10 s")
            .unwrap()
            .expect("stdout open");
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line {line:?}: {e}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        v
    }

    /// Reads until the response with `id`, returning it and what came before.
    pub async fn until(&mut self, id: i64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let v = self.next().await;
            if v["id"] == id && v.get("method").is_none() {
                return (v, before);
            }
            before.push(v);
        }
    }
}
