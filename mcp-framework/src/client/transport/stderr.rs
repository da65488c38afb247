//! A child server's stderr as this process's log: each line it writes becomes a `tracing`
//! event (target `mcp_framework::client::stderr`, field `server`), so that its output is
//! labelled and filtered with the rest instead of interleaving unmarked with it.

use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, BufReader};

/// The longest line logged; the rest of a longer line is dropped.
const MAX_LINE_BYTES: usize = 8 << 10;

/// Logs one line: a leading RFC 3339 timestamp is dropped (this log has its own) and a
/// leading level word (`ERROR`, `WARN`, `INFO`, `DEBUG`, `TRACE`, as `tracing` and most
/// loggers write them) becomes the event's level; anything else is logged at info.
fn log(server: &str, text: &str) {
    let mut rest = text;
    if let Some((first, after)) = rest.split_once(' ')
        && first.len() >= 20
        && first.as_bytes()[0].is_ascii_digit()
        && first.contains('T')
    {
        rest = after.trim_start();
    }
    let (level, message) = match rest.split_once([' ', ':']) {
        Some((word, after)) => match word {
            "ERROR" => (tracing::Level::ERROR, after),
            "WARN" | "WARNING" => (tracing::Level::WARN, after),
            "INFO" => (tracing::Level::INFO, after),
            "DEBUG" => (tracing::Level::DEBUG, after),
            "TRACE" => (tracing::Level::TRACE, after),
            _ => (tracing::Level::INFO, rest),
        },
        None => (tracing::Level::INFO, rest),
    };
    let message = message.trim_start();
    if message.is_empty() {
        return;
    }
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(target: "mcp_framework::client::stderr", $level, server = %server, "{message}")
        };
    }
    match level {
        tracing::Level::ERROR => event!(tracing::Level::ERROR),
        tracing::Level::WARN => event!(tracing::Level::WARN),
        tracing::Level::DEBUG => event!(tracing::Level::DEBUG),
        tracing::Level::TRACE => event!(tracing::Level::TRACE),
        _ => event!(tracing::Level::INFO),
    }
}

/// Logs each line of `stderr` under `server` until the pipe closes.
pub(in crate::client) fn spawn_logger(
    stderr: impl AsyncRead + Send + Unpin + 'static,
    server: String,
) {
    tokio::spawn(async move {
        let mut read = BufReader::new(stderr);
        let mut line = Vec::new();
        loop {
            line.clear();
            let limit = u64::try_from(MAX_LINE_BYTES).unwrap_or(u64::MAX);
            match (&mut read).take(limit).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line.last() != Some(&b'\n') && line.len() == MAX_LINE_BYTES {
                // Skip what is left of an over-long line.
                let mut rest = Vec::new();
                loop {
                    rest.clear();
                    match (&mut read).take(limit).read_until(b'\n', &mut rest).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) if rest.last() == Some(&b'\n') => break,
                        Ok(_) => {}
                    }
                }
            }
            let text = String::from_utf8_lossy(&line);
            log(&server, text.trim_end());
        }
    });
}
