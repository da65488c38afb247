//! Blocking standard streams (a terminal, a file, anything the runtime cannot poll): one
//! thread reads and one writes, and the async side sees channels.

use std::io::{Read, Write};
use std::thread::JoinHandle;

use bytes::Bytes;
use tokio::io::AsyncRead;
use tokio::sync::mpsc;

/// Starts the thread that reads `source` in chunks; the returned reader yields them.
pub(super) fn reader(mut source: impl Read + Send + 'static) -> std::io::Result<ChannelReader> {
    let (chunks, rx) = mpsc::channel::<std::io::Result<Bytes>>(16);
    std::thread::Builder::new()
        .name("mcp-stdin".into())
        .spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                let chunk = match source.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => Ok(Bytes::copy_from_slice(&buf[..n])),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let failed = chunk.is_err();
                if chunks.blocking_send(chunk).is_err() || failed {
                    return;
                }
            }
        })?;
    Ok(ChannelReader {
        rx,
        current: Bytes::new(),
    })
}

/// Starts the thread that writes every message from `rx` to `sink`, newline-framed, batching
/// what is already queued into one flush. It ends once every sender is gone.
pub(super) fn writer(
    sink: impl Write + Send + 'static,
    mut rx: mpsc::Receiver<Bytes>,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("mcp-stdout".into())
        .spawn(move || {
            let mut out = std::io::BufWriter::with_capacity(64 * 1024, sink);
            while let Some(first) = rx.blocking_recv() {
                let mut batch = |m: &[u8]| out.write_all(m).and_then(|()| out.write_all(b"\n"));
                if batch(&first).is_err() {
                    return;
                }
                while let Ok(next) = rx.try_recv() {
                    if batch(&next).is_err() {
                        return;
                    }
                }
                if out.flush().is_err() {
                    return;
                }
            }
            let _ = out.flush();
        })
}

/// An `AsyncRead` over the chunks the reader thread sends.
pub(super) struct ChannelReader {
    rx: mpsc::Receiver<std::io::Result<Bytes>>,
    current: Bytes,
}

impl AsyncRead for ChannelReader {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        while self.current.is_empty() {
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Ok(chunk))) => self.current = chunk,
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
                Poll::Ready(None) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = self.current.len().min(buf.remaining());
        buf.put_slice(&self.current.split_to(n));
        Poll::Ready(Ok(()))
    }
}
