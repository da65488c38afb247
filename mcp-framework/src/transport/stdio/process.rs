//! The process's own standard input and output as the protocol's byte stream.
//!
//! While it serves, the protocol owns both: it reads and writes private duplicates of them,
//! file descriptor 0 reads `/dev/null` and 1 writes to standard error, so a handler (or a
//! library, or a child process it starts) that reads stdin or prints with `println!` can
//! neither take nor corrupt a message; what it prints shows up on stderr. Pipes and sockets
//! (what MCP clients start servers with) are read and written without blocking, on the
//! runtime's own I/O driver: no thread hop per message. Anything else (a terminal, a file)
//! goes through [`threads`](super::threads). Everything is given back when serving ends.

use std::io::{Read, Write};
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::connection::{on_own_task, run, write_loop};
use super::threads;
use crate::error::Error;
use crate::runtime::state::ServerInner;

/// Serves the process's stdin and stdout until stdin ends (or the server shuts down).
pub(crate) async fn serve_stdio(server: Arc<ServerInner>) -> Result<(), Error> {
    on_own_task(serve_taken(server)).await
}

async fn serve_taken(server: Arc<ServerInner>) -> Result<(), Error> {
    let stdio = Taken::take()?;
    let (tx, rx) = mpsc::channel::<Bytes>(1024);
    let writer = match stdio.output() {
        Stream::Polled(out) => Writer::Task(tokio::spawn(write_loop(out, rx))),
        Stream::Blocking(out) => Writer::Thread(threads::writer(out, rx)?),
    };
    let reader: Pin<Box<dyn AsyncRead + Send>> = match stdio.input() {
        Stream::Polled(input) => input,
        Stream::Blocking(input) => Box::pin(threads::reader(input)?),
    };
    let result = run(server, reader, tx, true).await;
    // The writer ends once every sender is gone and it has flushed.
    match writer {
        Writer::Task(task) => drop(task.await),
        Writer::Thread(thread) => drop(tokio::task::spawn_blocking(move || thread.join()).await),
    }
    drop(stdio);
    result
}

/// One direction of the standard streams: polled by the runtime, or served by a thread.
enum Stream<P, B> {
    Polled(P),
    Blocking(B),
}

type Input = Stream<Pin<Box<dyn AsyncRead + Send>>, Box<dyn Read + Send>>;
type Output = Stream<Box<dyn AsyncWrite + Unpin + Send>, Box<dyn Write + Send>>;

enum Writer {
    Task(tokio::task::JoinHandle<()>),
    Thread(std::thread::JoinHandle<()>),
}

/// The real stdin and stdout, taken from the rest of the process; given back on drop.
#[cfg(unix)]
struct Taken {
    input: std::os::fd::OwnedFd,
    output: std::os::fd::OwnedFd,
    /// Their file status flags before serving (polling sets `O_NONBLOCK` on them).
    input_flags: rustix::fs::OFlags,
    output_flags: rustix::fs::OFlags,
}

#[cfg(unix)]
impl Taken {
    fn take() -> std::io::Result<Self> {
        // Whatever the process printed before goes out first, on the real stdout.
        std::io::stdout().flush()?;
        let input = rustix::io::dup(std::io::stdin())?;
        let output = rustix::io::dup(std::io::stdout())?;
        let input_flags = rustix::fs::fcntl_getfl(&input)?;
        let output_flags = rustix::fs::fcntl_getfl(&output)?;
        let null = std::fs::File::open("/dev/null")?;
        rustix::stdio::dup2_stdin(&null)?;
        rustix::stdio::dup2_stdout(std::io::stderr())?;
        Ok(Self {
            input,
            output,
            input_flags,
            output_flags,
        })
    }

    fn input(&self) -> Input {
        use tokio::net::unix::pipe;
        match polled(&self.input, self.input_flags, pipe::Receiver::from_file) {
            Some(Polled::Pipe(p)) => Stream::Polled(Box::pin(p)),
            Some(Polled::Socket(s)) => Stream::Polled(Box::pin(s)),
            None => Stream::Blocking(Box::new(duplicate(&self.input))),
        }
    }

    fn output(&self) -> Output {
        use tokio::net::unix::pipe;
        match polled(&self.output, self.output_flags, pipe::Sender::from_file) {
            Some(Polled::Pipe(p)) => Stream::Polled(Box::new(p)),
            Some(Polled::Socket(s)) => Stream::Polled(Box::new(s)),
            None => Stream::Blocking(Box::new(duplicate(&self.output))),
        }
    }
}

#[cfg(unix)]
enum Polled<P> {
    Pipe(P),
    Socket(tokio::net::UnixStream),
}

/// `fd` registered with the runtime's I/O driver, if it is a pipe or a socket (`pipe` makes
/// the pipe end, checking its direction); `None` (and its flags as they were) otherwise.
#[cfg(unix)]
fn polled<P>(
    fd: &std::os::fd::OwnedFd,
    flags: rustix::fs::OFlags,
    pipe: fn(std::fs::File) -> std::io::Result<P>,
) -> Option<Polled<P>> {
    use std::os::unix::fs::FileTypeExt as _;
    let file = std::fs::File::from(rustix::io::dup(fd).ok()?);
    let kind = file.metadata().ok()?.file_type();
    let made = if kind.is_fifo() {
        pipe(file).map(Polled::Pipe)
    } else if kind.is_socket() {
        let socket = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
        socket
            .set_nonblocking(true)
            .and_then(|()| tokio::net::UnixStream::from_std(socket))
            .map(Polled::Socket)
    } else {
        return None;
    };
    match made {
        Ok(made) => Some(made),
        Err(e) => {
            tracing::debug!(error = %e, "standard stream served by a thread");
            let _ = rustix::fs::fcntl_setfl(fd, flags);
            None
        }
    }
}

/// A blocking handle on `fd` for a thread (a failed `dup` reads EOF / writes nowhere).
#[cfg(unix)]
fn duplicate(fd: &std::os::fd::OwnedFd) -> std::fs::File {
    match rustix::io::dup(fd) {
        Ok(fd) => fd.into(),
        Err(e) => {
            tracing::error!(error = %e, "cannot duplicate a standard stream");
            std::fs::File::open("/dev/null").expect("/dev/null")
        }
    }
}

#[cfg(unix)]
impl Drop for Taken {
    fn drop(&mut self) {
        // Anything printed while serving went to stderr; give the descriptors back as they
        // were.
        let _ = std::io::stdout().flush();
        let _ = rustix::fs::fcntl_setfl(&self.input, self.input_flags);
        let _ = rustix::fs::fcntl_setfl(&self.output, self.output_flags);
        let _ = rustix::stdio::dup2_stdin(&self.input);
        let _ = rustix::stdio::dup2_stdout(&self.output);
    }
}

/// Elsewhere the standard streams are served by threads as they are (stray prints are not
/// redirected).
#[cfg(not(unix))]
struct Taken;

#[cfg(not(unix))]
impl Taken {
    fn take() -> std::io::Result<Self> {
        Ok(Self)
    }

    fn input(&self) -> Input {
        Stream::Blocking(Box::new(std::io::stdin()))
    }

    fn output(&self) -> Output {
        Stream::Blocking(Box::new(std::io::stdout()))
    }
}
