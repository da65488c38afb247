//! Newline-delimited JSON over a pipe, stdio's wire format: the write half (one message a
//! line), the reading task that hands each line to the connection, and the child process
//! when the server is one (started by `Client::builder().stdio(command)`, ended by
//! [`Lines::close`] or when the last `Client` is dropped).

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt as _, AsyncReadExt as _, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use super::sink::Sink;
use crate::client::error::ClientError;

/// How long a child process has to exit after its stdin closed before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The write half of a line-delimited connection, and the child process behind it.
pub(in crate::client) struct Lines {
    /// `None` once closed.
    write: Mutex<Option<Box<dyn AsyncWrite + Send + Unpin>>>,
    child: std::sync::Mutex<Option<tokio::process::Child>>,
}

impl Lines {
    /// Writes to `write`; `child` is the process behind the pipe, if any (killed when
    /// this is dropped).
    pub(in crate::client) fn new(
        write: Box<dyn AsyncWrite + Send + Unpin>,
        child: Option<tokio::process::Child>,
    ) -> Self {
        Self {
            write: Mutex::new(Some(write)),
            child: std::sync::Mutex::new(child),
        }
    }

    /// Writes one message as one line.
    pub(super) async fn write(&self, msg: &Value) -> Result<(), ClientError> {
        let mut bytes = serde_json::to_vec(msg).expect("messages serialize");
        bytes.push(b'\n');
        let mut guard = self.write.lock().await;
        let w = guard.as_mut().ok_or(ClientError::Closed)?;
        w.write_all(&bytes).await.map_err(|_| ClientError::Closed)?;
        w.flush().await.map_err(|_| ClientError::Closed)
    }

    /// Closes the pipe; a child process gets [`EXIT_GRACE`] to exit, then is killed.
    pub(super) async fn close(&self) {
        if let Some(mut w) = self.write.lock().await.take() {
            let _ = w.shutdown().await;
        }
        let child = self.child.lock().expect("child").take();
        if let Some(mut child) = child
            && tokio::time::timeout(EXIT_GRACE, child.wait())
                .await
                .is_err()
        {
            let _ = child.kill().await;
        }
    }
}

/// Reads `read` line by line into the connection until the pipe closes (or a line is over
/// `max_bytes`, or every `Client` is gone); then every waiting request fails with `Closed`.
pub(in crate::client) fn spawn_reader(
    conn: &Arc<dyn Sink>,
    mut read: impl AsyncBufRead + Send + Unpin + 'static,
    max_bytes: usize,
) {
    let weak: Weak<dyn Sink> = Arc::downgrade(conn);
    tokio::spawn(async move {
        let mut line = Vec::new();
        loop {
            line.clear();
            let limit = u64::try_from(max_bytes)
                .unwrap_or(u64::MAX)
                .saturating_add(1);
            match (&mut read).take(limit).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() > max_bytes {
                tracing::warn!(
                    target: "mcp_framework::client",
                    "the server sent a message over {max_bytes} bytes: closing the connection"
                );
                break;
            }
            let Some(conn) = weak.upgrade() else { return };
            match serde_json::from_slice::<Value>(&line) {
                Ok(msg) => conn.deliver(msg),
                Err(e) if !line.trim_ascii().is_empty() => tracing::debug!(
                    target: "mcp_framework::client",
                    "skipping a line that is not JSON: {e}"
                ),
                Err(_) => {}
            }
        }
        if let Some(conn) = weak.upgrade() {
            conn.closed();
        }
    });
}
