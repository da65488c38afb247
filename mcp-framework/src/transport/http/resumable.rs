//! Resumable response streams of legacy sessions (2025-11-25): every message of a request's
//! stream gets a sequence number and stays in a bounded log, so a client that lost the
//! connection (or whose connection the server closed) resumes with `Last-Event-ID`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::sync::mpsc;

/// How many messages a resumable stream keeps for replay.
const STREAM_LOG: usize = 1024;
/// How many resumable streams a session keeps (finished ones are dropped first).
const MAX_STREAMS: usize = 256;

/// One message of a stream: its sequence number, the message, whether it is the last.
pub(super) type Logged = (u64, Bytes, bool);

/// A response stream that survives its connection.
#[derive(Debug)]
pub(super) struct ResumableStream {
    pub(super) id: u64,
    inner: Mutex<StreamInner>,
}

#[derive(Debug)]
struct StreamInner {
    log: VecDeque<Logged>,
    next: u64,
    live: Option<mpsc::Sender<Logged>>,
    done: bool,
}

/// What a (re)attached connection gets: the messages to replay, then the live feed.
pub(super) struct Attached {
    pub(super) replay: Vec<Logged>,
    pub(super) live: Option<mpsc::Receiver<Logged>>,
}

impl ResumableStream {
    /// Records a message (`last`: the final response) and forwards it to the connection.
    pub(super) fn push(&self, message: Bytes, last: bool) {
        let mut s = self.inner.lock().expect("stream");
        s.next += 1;
        let seq = s.next;
        if s.log.len() == STREAM_LOG {
            s.log.pop_front();
        }
        s.log.push_back((seq, message.clone(), last));
        s.done |= last;
        if let Some(live) = &s.live {
            // A connection that does not keep up is dropped; it can resume.
            if live.try_send((seq, message, last)).is_err() {
                s.live = None;
            }
        }
        if last {
            s.live = None;
        }
    }

    /// Attaches a connection, replaying what came after `after`.
    pub(super) fn attach(&self, after: u64) -> Attached {
        let mut s = self.inner.lock().expect("stream");
        let replay: Vec<_> = s
            .log
            .iter()
            .filter(|(seq, ..)| *seq > after)
            .cloned()
            .collect();
        let live = if s.done {
            None
        } else {
            let (tx, rx) = mpsc::channel(256);
            s.live = Some(tx);
            Some(rx)
        };
        Attached { replay, live }
    }

    /// Closes the connection without ending the stream (the client polls back).
    pub(super) fn detach(&self) {
        self.inner.lock().expect("stream").live = None;
    }

    fn is_done(&self) -> bool {
        self.inner.lock().expect("stream").done
    }
}

/// The resumable streams of one session, by id.
#[derive(Debug, Default)]
pub(super) struct Streams {
    map: Mutex<HashMap<u64, Arc<ResumableStream>>>,
    next_id: AtomicU64,
}

impl Streams {
    /// Opens a new stream (making room by dropping finished, then the oldest, streams).
    pub(super) fn open(&self) -> Arc<ResumableStream> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let stream = Arc::new(ResumableStream {
            id,
            inner: Mutex::new(StreamInner {
                log: VecDeque::new(),
                next: 0,
                live: None,
                done: false,
            }),
        });
        let mut streams = self.map.lock().expect("streams");
        if streams.len() >= MAX_STREAMS {
            streams.retain(|_, s| !s.is_done());
            if streams.len() >= MAX_STREAMS
                && let Some(oldest) = streams.keys().min().copied()
            {
                streams.remove(&oldest);
            }
        }
        streams.insert(id, stream.clone());
        stream
    }

    /// A stream by id (for `Last-Event-ID`).
    pub(super) fn get(&self, id: u64) -> Option<Arc<ResumableStream>> {
        self.map.lock().expect("streams").get(&id).cloned()
    }

    /// Forgets a finished stream whose final message was delivered.
    pub(super) fn forget(&self, id: u64) {
        self.map.lock().expect("streams").remove(&id);
    }

    pub(super) fn clear(&self) {
        self.map.lock().expect("streams").clear();
    }
}
