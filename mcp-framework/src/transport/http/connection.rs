//! One accepted connection: HTTP/1.1 or cleartext HTTP/2 (hyper-util's auto builder) over
//! its socket, the peer's address on every request (`ConnectInfo<SocketAddr>`, as axum's
//! `into_make_service_with_connect_info` puts it), and the connection's own timers.
//!
//! The timers follow the connection's [`Phase`]: a new connection must deliver its first
//! request head within the header read timeout; between requests it may idle for the idle
//! timeout; once the first byte of a further HTTP/1.1 request head arrives, the rest of the
//! head must follow within the header read timeout (counted from that byte, so trickling
//! bytes does not stretch it). While a request is in progress (its response not yet
//! finished, long-lived streams included) no connection timer runs: the body read timeout
//! is the handler's ([`super::body`]). hyper's own `header_read_timeout` is not used: it
//! starts when the connection goes idle, so it would also cut idle keep-alive connections.
//!
//! Requests do not wake the connection task: phase changes only record an instant. The
//! task sleeps until the current deadline, but never longer than the shorter of the two
//! timeouts, and reads the phase again when it wakes. A phase that began at `t` falls due
//! at `t` plus one of the timeouts, so it is seen before (or as) it falls due: every
//! timeout is kept exactly, at no cost per request.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{Request, Response, Version};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt as _;

/// How long a connection may wait in each phase.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timeouts {
    /// For a request head (and, on a new connection, from accept to its first head).
    pub(super) header: Duration,
    /// Between requests.
    pub(super) idle: Duration,
}

/// Where a connection is, for its timers.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Accepted, no request yet; `true` once bytes have arrived.
    Fresh(bool),
    /// This many requests whose responses are not finished.
    Busy(usize),
    /// No request since this instant.
    Idle(Instant),
    /// The first byte of an HTTP/1.1 request head arrived at this instant.
    Head(Instant),
}

/// Why a connection is closed by its timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expired {
    Header,
    Idle,
}

/// What the connection task, its socket and its requests share.
#[derive(Debug)]
struct Activity {
    accepted: Instant,
    timeouts: Timeouts,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// HTTP/2: the connection carries frames between requests (pings, window updates), so
    /// only the idle timeout applies after its first request.
    h2: bool,
}

impl Activity {
    fn new(timeouts: Timeouts) -> Self {
        Self {
            accepted: Instant::now(),
            timeouts,
            state: Mutex::new(State {
                phase: Phase::Fresh(false),
                h2: false,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived from the peer.
    fn on_read(&self) {
        let mut s = self.state();
        match (s.phase, s.h2) {
            (Phase::Fresh(false), _) => s.phase = Phase::Fresh(true),
            (Phase::Idle(_), false) => s.phase = Phase::Head(Instant::now()),
            _ => {}
        }
    }

    fn request_started(&self, version: Version) {
        let mut s = self.state();
        s.h2 |= version == Version::HTTP_2;
        s.phase = match s.phase {
            Phase::Busy(n) => Phase::Busy(n + 1),
            _ => Phase::Busy(1),
        };
    }

    fn request_finished(&self) {
        let mut s = self.state();
        s.phase = match s.phase {
            Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
            _ => Phase::Idle(Instant::now()),
        };
    }

    /// Whether no request is in progress and none has begun arriving (between requests,
    /// or accepted and silent so far): closing it loses nothing.
    fn is_idle(&self) -> bool {
        matches!(self.state().phase, Phase::Idle(_) | Phase::Fresh(false))
    }

    /// When the current phase runs out, and why.
    fn deadline(&self) -> Option<(Instant, Expired)> {
        let t = self.timeouts;
        let (from, after, why) = match self.state().phase {
            Phase::Busy(_) => return None,
            Phase::Fresh(_) => (self.accepted, t.header, Expired::Header),
            Phase::Head(at) => (at, t.header, Expired::Header),
            Phase::Idle(at) => (at, t.idle, Expired::Idle),
        };
        Some((from.checked_add(after)?, why))
    }
}

/// Serves one connection until it closes, its timers close it, or shutdown has let its
/// requests finish. `shed` asks idle connections to close (the server is full).
pub(super) async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    router: Router,
    timeouts: Timeouts,
    shutdown: CancellationToken,
    shed: Arc<Notify>,
) {
    let activity = Arc::new(Activity::new(timeouts));
    // HTTP/1.1 is served by hyper's own HTTP/1 connection when the first bytes already
    // rule out HTTP/2's preface (a peek, which consumes nothing). The auto builder reads
    // those bytes itself and hands them back in a short first read, which makes hyper
    // double its 8 KiB read buffer on every connection: 8 KiB more per open stream.
    let mut first = [0u8; H2_PREFACE.len()];
    let fresh_until = activity.accepted + timeouts.header;
    let peeked = tokio::select! {
        peeked = stream.peek(&mut first) => peeked,
        () = tokio::time::sleep_until(fresh_until) => {
            tracing::debug!(%peer, "closing a connection: no complete request head in time");
            return;
        }
        () = shutdown.cancelled() => return,
        () = shed.notified() => return, // silent so far: closing it loses nothing
    };
    let n = match peeked {
        Ok(0) => return,
        Ok(n) => n,
        Err(e) => {
            tracing::debug!(%peer, error = %e, "connection ended with an error");
            return;
        }
    };
    let io = TokioIo::new(Watched {
        io: stream,
        activity: activity.clone(),
    });
    let service = ConnService {
        router,
        peer,
        activity: activity.clone(),
    };
    let watch = Watch {
        peer,
        activity: &activity,
        timeouts,
        shutdown: &shutdown,
        shed: &shed,
    };
    if !H2_PREFACE.starts_with(&first[..n]) {
        let mut builder = hyper::server::conn::http1::Builder::new();
        // Off: its timer starts when the connection goes idle (see the module comment).
        builder.header_read_timeout(None);
        let conn = builder.serve_connection(io, service);
        watch.drive(conn, |c| c.graceful_shutdown()).await;
    } else {
        // HTTP/2 (or too few bytes yet to tell): the auto builder decides.
        let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
        builder.http1().header_read_timeout(None);
        let conn = builder.serve_connection(io, service);
        watch.drive(conn, |c| c.graceful_shutdown()).await;
    }
}

/// The client preface of HTTP/2 over cleartext with prior knowledge (RFC 9113, 3.4).
const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What a connection's timers watch, while hyper serves it.
struct Watch<'a> {
    peer: SocketAddr,
    activity: &'a Activity,
    timeouts: Timeouts,
    shutdown: &'a CancellationToken,
    shed: &'a Notify,
}

impl Watch<'_> {
    /// Drives `conn` until it ends, its timers close it, or shutdown has let its requests
    /// finish; `graceful` asks it to close once its requests are done.
    async fn drive<C, E>(self, conn: C, graceful: impl Fn(Pin<&mut C>))
    where
        C: Future<Output = Result<(), E>>,
        E: std::fmt::Display,
    {
        let Self {
            peer,
            activity,
            timeouts,
            shutdown,
            shed,
        } = self;
        let mut conn = pin!(conn);
        let mut ending = Ending::Open;
        let timer = tokio::time::sleep(timeouts.header.min(timeouts.idle));
        let mut timer = pin!(timer);
        loop {
            let deadline = match ending {
                Ending::Open => activity.deadline(),
                Ending::Draining => None,
                Ending::Closing(at) => Some((at, Expired::Idle)),
            };
            // Never past the shorter timeout: see the module comment.
            let check = Instant::now() + timeouts.header.min(timeouts.idle);
            let wake = deadline.map_or(check, |(at, _)| at.min(check));
            if timer.deadline() != wake {
                timer.as_mut().reset(wake);
            }
            let open = matches!(ending, Ending::Open);
            tokio::select! {
                done = conn.as_mut() => {
                    if let Err(e) = done {
                        tracing::debug!(%peer, error = %e, "connection ended with an error");
                    }
                    return;
                }
                () = shutdown.cancelled(), if open => {
                    graceful(conn.as_mut());
                    ending = Ending::Draining;
                }
                () = timer.as_mut() => {
                    if let Ending::Closing(at) = ending {
                        if Instant::now() >= at {
                            return; // the peer did not let it close gracefully
                        }
                        continue;
                    }
                    let Some((at, why)) = activity.deadline() else { continue };
                    if at > Instant::now() {
                        continue;
                    }
                    match why {
                        Expired::Header => {
                            tracing::debug!(%peer, "closing a connection: no complete request head in time");
                            return; // dropping the connection closes the socket
                        }
                        Expired::Idle => {
                            tracing::debug!(%peer, "closing an idle connection");
                            graceful(conn.as_mut());
                            ending = Ending::Closing(Instant::now() + CLOSE_GRACE);
                        }
                    }
                }
                // Busy connections wake too (the phase is not watched), and stay.
                () = shed.notified(), if open => {
                    if activity.is_idle() {
                        tracing::debug!(%peer, "closing an idle connection to make room");
                        graceful(conn.as_mut());
                        ending = Ending::Closing(Instant::now() + CLOSE_GRACE);
                    }
                }
            }
        }
    }
}

/// How long an idle connection told to close (HTTP/2: `GOAWAY`) may take to do so.
const CLOSE_GRACE: Duration = Duration::from_secs(1);

/// How far a connection is from closing.
#[derive(Debug, Clone, Copy)]
enum Ending {
    Open,
    /// The server is shutting down: requests in progress finish, then it closes.
    Draining,
    /// Told to close while idle; dropped at this instant if it has not.
    Closing(Instant),
}

/// The connection's socket, telling its [`Activity`] when bytes arrive.
#[derive(Debug)]
struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.on_read();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// The router as a hyper service for one connection: every request gets the peer's
/// `ConnectInfo`, and counts as in progress until its response is finished.
#[derive(Debug, Clone)]
struct ConnService {
    router: Router,
    peer: SocketAddr,
    activity: Arc<Activity>,
}

impl hyper::service::Service<Request<Incoming>> for ConnService {
    type Response = Response<Tracked>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.activity.request_started(request.version());
        let guard = InProgress(self.activity.clone());
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(self.peer));
        let response = self.router.clone().oneshot(request);
        Box::pin(async move {
            let response = response.await?;
            Ok(response.map(|body| Tracked {
                body,
                _guard: guard,
            }))
        })
    }
}

/// A request in progress: finished when dropped (with its response body, or with the
/// handler's future when the peer goes away first).
#[derive(Debug)]
struct InProgress(Arc<Activity>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A response body that keeps its request in progress until hyper is done with it.
#[derive(Debug)]
struct Tracked {
    body: axum::body::Body,
    _guard: InProgress,
}

impl Body for Tracked {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activity() -> Activity {
        Activity::new(Timeouts {
            header: Duration::from_secs(10),
            idle: Duration::from_secs(75),
        })
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_follows_the_phase() {
        let a = activity();
        let start = a.accepted;
        assert_eq!(
            a.deadline(),
            Some((start + Duration::from_secs(10), Expired::Header))
        );
        assert!(a.is_idle(), "silent so far");
        a.on_read(); // a new connection's bytes do not move its deadline
        assert_eq!(a.deadline().unwrap().0, start + Duration::from_secs(10));
        assert!(!a.is_idle());
        a.request_started(Version::HTTP_11);
        a.request_started(Version::HTTP_11);
        assert_eq!(a.deadline(), None);
        a.request_finished();
        assert_eq!(a.deadline(), None);
        tokio::time::advance(Duration::from_secs(1)).await;
        a.request_finished();
        let idle_at = start + Duration::from_secs(1);
        assert_eq!(
            a.deadline(),
            Some((idle_at + Duration::from_secs(75), Expired::Idle))
        );
        assert!(a.is_idle());
        tokio::time::advance(Duration::from_secs(5)).await;
        a.on_read();
        let head_at = idle_at + Duration::from_secs(5);
        assert_eq!(
            a.deadline(),
            Some((head_at + Duration::from_secs(10), Expired::Header))
        );
        tokio::time::advance(Duration::from_secs(5)).await;
        a.on_read(); // more bytes of the same head do not move it either
        assert_eq!(a.deadline().unwrap().0, head_at + Duration::from_secs(10));
        assert!(!a.is_idle());
    }

    #[tokio::test]
    async fn requests_carry_the_peer_address() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let router = Router::new().route(
            "/",
            axum::routing::get(|ConnectInfo(peer): ConnectInfo<SocketAddr>| async move {
                peer.to_string()
            }),
        );
        let timeouts = activity().timeouts;
        tokio::spawn(async move {
            let (stream, peer) = listener.accept().await.unwrap();
            let shed = Arc::new(Notify::new());
            serve(
                stream,
                peer,
                router,
                timeouts,
                CancellationToken::new(),
                shed,
            )
            .await;
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        let me = client.local_addr().unwrap().to_string();
        client
            .write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        assert!(answer.ends_with(&me), "{answer}");
    }

    /// Serves one connection of `router` on a new listener; returns its address.
    async fn serve_one(router: Router) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let timeouts = activity().timeouts;
        tokio::spawn(async move {
            let (stream, peer) = listener.accept().await.unwrap();
            let shed = Arc::new(Notify::new());
            serve(
                stream,
                peer,
                router,
                timeouts,
                CancellationToken::new(),
                shed,
            )
            .await;
        });
        addr
    }

    #[tokio::test]
    async fn a_head_that_begins_like_the_http2_preface_is_still_http1() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

        // "P" could begin `PRI * HTTP/2.0`: the peek cannot tell, the auto builder does.
        let router = Router::new().route("/", axum::routing::put(|| async { "put" }));
        let mut client = TcpStream::connect(serve_one(router).await).await.unwrap();
        client.write_all(b"P").await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        client
            .write_all(
                b"UT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )
            .await
            .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("put"), "{answer}");
    }

    #[tokio::test]
    async fn a_silent_connection_closes_at_the_header_timeout() {
        use tokio::io::AsyncReadExt as _;

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let timeouts = Timeouts {
            header: Duration::from_millis(100),
            idle: Duration::from_secs(75),
        };
        let served = tokio::spawn(async move {
            let (stream, peer) = listener.accept().await.unwrap();
            let shed = Arc::new(Notify::new());
            serve(
                stream,
                peer,
                Router::new(),
                timeouts,
                CancellationToken::new(),
                shed,
            )
            .await;
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        let mut rest = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(5), client.read_to_end(&mut rest));
        assert_eq!(read.await.expect("closed by the server").unwrap(), 0);
        served.await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn http2_connections_only_idle_between_requests() {
        let a = activity();
        a.request_started(Version::HTTP_2);
        a.request_finished();
        a.on_read(); // a ping, a window update
        assert_eq!(a.deadline().unwrap().1, Expired::Idle);
    }
}
