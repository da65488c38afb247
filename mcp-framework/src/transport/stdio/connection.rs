//! One connection: reads lines, runs requests (the ones that wait as tasks), writes replies
//! through one writer; cancellation, the legacy session, `subscriptions/listen` streams and
//! the drain at the end of input. A line over the size limit is skipped as it is read, not
//! buffered, and answered with an error carrying its id when its first bytes name it.

use std::future::Future;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::{AbortOnDropHandle, TaskTracker};

use crate::dispatch::{Carrier, Reply, dispatch, on_notification, open_session};
use crate::error::Error;
use crate::inflight::InFlight;
use crate::peer::{PeerId, Sink};
use crate::protocol::ErrorObject;
use crate::protocol::jsonrpc::{Incoming, Request, parse_message};
use crate::protocol::prefix::{self, ID_PREFIX_BYTES};
use crate::runtime::state::ServerInner;
use crate::session::legacy::LegacySession;
use crate::subscriptions::ListenEvent;

/// One connection. Messages travel through the writer channel unframed; the writer adds the
/// newline.
struct Connection {
    server: Arc<ServerInner>,
    tx: mpsc::Sender<Bytes>,
    inflight: InFlight,
    /// This connection, for limits per client.
    peer: PeerId,
    session: Mutex<Option<Arc<LegacySession>>>,
    tasks: TaskTracker,
    /// Input ended: open subscriptions stop (nobody can cancel them any more).
    eof: CancellationToken,
}

/// Serves one connection until `reader` ends (or the server shuts down).
pub(crate) async fn serve<R, W>(server: Arc<ServerInner>, reader: R, writer: W) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    on_own_task(async move {
        let (tx, rx) = mpsc::channel::<Bytes>(1024);
        let writer = tokio::spawn(write_loop(writer, rx));
        let result = run(server, reader, tx, false).await;
        let _ = writer.await;
        result
    })
    .await
}

/// Runs `serving` as a task of its own, stopped if the caller stops waiting. The reading loop
/// and the writer task then share a worker thread: `#[tokio::main]` polls the main future on
/// the main thread, so serving there would cross threads twice per message.
pub(super) async fn on_own_task<F>(serving: F) -> Result<(), Error>
where
    F: Future<Output = Result<(), Error>> + Send + 'static,
{
    match AbortOnDropHandle::new(tokio::spawn(serving)).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(Error::Io(std::io::Error::other(e))),
    }
}

/// Serves one connection: reads lines from `reader`, answers through `tx`. The end of
/// `reader` shuts the server down when `eof_shuts_down` (the process's stdin).
pub(super) async fn run<R>(
    server: Arc<ServerInner>,
    reader: R,
    tx: mpsc::Sender<Bytes>,
    eof_shuts_down: bool,
) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let conn = Arc::new(Connection {
        server: server.clone(),
        tx,
        inflight: InFlight::new(server.config.max_concurrent_requests),
        peer: PeerId::new_connection(),
        session: Mutex::new(None),
        tasks: TaskTracker::new(),
        eof: CancellationToken::new(),
    });
    let max = server.config.max_message_bytes;
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut buf = Vec::with_capacity(4096);
    let read_result = loop {
        buf.clear();
        let read = tokio::select! {
            r = read_line(&mut reader, &mut buf, max) => r,
            // Shutdown: stop reading; open subscriptions end with their final result.
            () = server.shutdown.cancelled() => break Ok(()),
        };
        match read {
            Ok(Line::Eof) => {
                // Nobody can cancel subscriptions any more: end them without a word.
                conn.eof.cancel();
                break Ok(());
            }
            Ok(Line::TooLong) => {
                // Answered with the id when the line's first bytes name it: else the client
                // would wait for an answer to that request forever.
                let id = prefix::request_id(&buf);
                let e = ErrorObject::invalid_request(format!("message larger than {max} bytes"))
                    .with_data(serde_json::json!({ "maxMessageBytes": max }));
                let _ = conn.tx.send(Reply::error_message(id.as_ref(), &e)).await;
            }
            Ok(Line::Message) => {
                let trimmed = buf.trim_ascii();
                if !trimmed.is_empty() {
                    on_message(&conn, trimmed).await;
                }
            }
            Err(e) => {
                conn.eof.cancel();
                break Err(Error::Io(e));
            }
        }
    };
    // Let in-flight requests finish for the grace period, then cancel what is left (open
    // subscriptions end with their final result on shutdown; on EOF nobody is reading them
    // any more). After a shutdown, the server's cutoff cuts them (answered with its error).
    conn.tasks.close();
    let grace = server.config.drain_timeout;
    let running = conn.inflight.running();
    if eof_shuts_down && !server.shutdown.is_cancelled() {
        if running > 0 {
            tracing::info!(running, ?grace, "stdin closed: running requests may finish");
        }
        server.begin_shutdown();
    }
    if server.shutdown.is_cancelled() {
        // Cut, and answered, by dispatch at the server's cutoff.
        tokio::select! {
            () = conn.tasks.wait() => {}
            () = server.cutoff.cancelled() => conn.tasks.wait().await,
        }
    } else if tokio::time::timeout(grace, conn.tasks.wait())
        .await
        .is_err()
    {
        // One stream of several ended: nobody reads its answers any more.
        conn.inflight.cancel_all();
        conn.tasks.wait().await;
    }
    if let Some(session) = conn.session.lock().expect("session").take() {
        session.close();
    }
    drop(conn);
    read_result
}

enum Line {
    Message,
    TooLong,
    Eof,
}

/// Reads one line into `buf` (without the newline), refusing lines over `max` bytes: they
/// are skipped to their end, and only their first [`ID_PREFIX_BYTES`] stay in `buf` (to
/// read the id from).
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                Line::Message
            });
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.truncate(ID_PREFIX_BYTES);
                let keep = (ID_PREFIX_BYTES - buf.len()).min(chunk.len());
                buf.extend_from_slice(&chunk[..keep]);
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = done.unwrap_or(available.len());
        reader.consume(consumed);
        if done.is_some() {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Message
            });
        }
    }
}

pub(super) async fn write_loop<W: AsyncWrite + Unpin>(writer: W, mut rx: mpsc::Receiver<Bytes>) {
    let mut out = BufWriter::with_capacity(64 * 1024, writer);
    while let Some(first) = rx.recv().await {
        if write_framed(&mut out, &first).await.is_err() {
            return;
        }
        // Batch whatever else is already queued, then flush once.
        while let Ok(next) = rx.try_recv() {
            if write_framed(&mut out, &next).await.is_err() {
                return;
            }
        }
        if out.flush().await.is_err() {
            return;
        }
    }
    let _ = out.flush().await;
}

async fn write_framed<W: AsyncWrite + Unpin>(
    out: &mut BufWriter<W>,
    message: &[u8],
) -> std::io::Result<()> {
    out.write_all(message).await?;
    out.write_all(b"\n").await
}

async fn on_message(conn: &Arc<Connection>, bytes: &[u8]) {
    match parse_message(bytes) {
        Err(rejected) => {
            let _ = conn
                .tx
                .send(Reply::error_message(rejected.id.as_ref(), &rejected.error))
                .await;
        }
        Ok(Incoming::Notification(n)) => on_notification(&conn.server, &n, Some(&conn.inflight)),
        Ok(Incoming::Response(r)) => {
            let session = conn.session.lock().expect("session").clone();
            if let Some(session) = session {
                session.deliver(r);
            }
        }
        Ok(Incoming::Request(request)) if LegacySession::is_handshake(&request) => {
            let opened = open_session(
                &conn.server,
                request.params.as_deref(),
                Some(conn.tx.clone()),
            );
            let reply = match opened {
                Ok((session, result)) => {
                    if let Some(old) = conn.session.lock().expect("session").replace(session) {
                        old.close();
                    }
                    Reply::result_message(&request.id, &result)
                }
                Err(e) => Reply::error_message(Some(&request.id), &e),
            };
            let _ = conn.tx.send(reply).await;
        }
        Ok(Incoming::Request(request)) => {
            // Independent tokens: a child token would lock its parent on creation and drop.
            let cancel = CancellationToken::new();
            let started = if conn.server.extensions.streams(&request.method) {
                Ok(conn
                    .inflight
                    .start_stream(request.id.clone(), cancel.clone()))
            } else {
                conn.inflight.start(request.id.clone(), cancel.clone())
            };
            let ticket = match started {
                Ok(ticket) => ticket,
                Err(busy) => {
                    let _ = conn
                        .tx
                        .send(Reply::error_message(Some(&request.id), &busy.error()))
                        .await;
                    return;
                }
            };
            let owned = conn.clone();
            let mut request = Box::pin(async move {
                serve_request(&owned, request, cancel).await;
                owned.inflight.finish(&ticket);
            });
            // Polled here first: a request that finishes without waiting costs no task (a
            // spawn may wake another worker thread). One that waits is spawned and polled
            // again there, with the task's waker (the no-op one given now is never woken).
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            if request.as_mut().poll(&mut cx).is_pending() {
                conn.tasks.spawn(request);
            }
        }
    }
}

async fn serve_request(conn: &Arc<Connection>, request: Request, cancel: CancellationToken) {
    let id = request.id.clone();
    let session = conn.session.lock().expect("session").clone();
    let carrier = Carrier {
        cancel: cancel.clone(),
        sink: Some(Sink::new(conn.tx.clone(), cancel.clone())),
        session,
        http: None,
        head: None,
        close_stream: None,
        peer: Some(conn.peer.clone()),
        session_principal: conn.server.stdio_principal.clone(),
    };
    let reply = dispatch(&conn.server, request, carrier).await;
    let out = match reply {
        Reply::Listen(mut listen) => {
            if conn.tx.send(listen.acknowledgement()).await.is_err() {
                return;
            }
            loop {
                let event = tokio::select! {
                    biased;
                    () = cancel.cancelled() => return,
                    () = conn.eof.cancelled() => return,
                    e = listen.next() => e,
                };
                match event {
                    ListenEvent::Notify(n) => {
                        if cancel.is_cancelled() || conn.tx.send(n).await.is_err() {
                            return;
                        }
                    }
                    ListenEvent::End(result) => break Reply::result_message(&id, &result),
                    ListenEvent::Lagged => {
                        break listen.teardown("the subscriber fell behind; listen again");
                    }
                }
            }
        }
        reply => match reply.into_message(&id) {
            Some(message) => message,
            None => return,
        },
    };
    let _ = conn.tx.send(out).await;
}
