//! Resumable response streams of legacy sessions (2025-11-25): every message of a request's
//! stream gets a sequence number and stays in a log, so a client that lost the connection
//! (or whose connection the server closed) resumes with `Last-Event-ID`.
//!
//! What the logs keep is bounded twice: per session and across all sessions
//! ([`ReplayBudget`]). When a new message would go over either budget, the session's oldest
//! logged messages are dropped first (the new one still goes out on a live connection); a
//! resume that asks for a dropped message learns so ([`Attach::Gone`]) instead of silently
//! missing it.
//!
//! A stream counts the connections following it ([`Live`]), so that the request behind it
//! learns when nobody has followed it for a while ([`ResumableStream::unfollowed_for`]).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, watch};

/// How many messages a resumable stream keeps for replay.
const STREAM_LOG: usize = 1024;
/// How many resumable streams a session keeps (finished ones are dropped first).
const MAX_STREAMS: usize = 256;
/// What a logged message costs beyond its bytes (its slot, sequence numbers, `Bytes`).
const MESSAGE_OVERHEAD: usize = 64;
/// What a kept stream costs with an empty log.
const STREAM_OVERHEAD: usize = 512;

/// One message of a stream: its sequence number, the message, whether it is the last.
pub(super) type Logged = (u64, Bytes, bool);

/// Bytes of logged messages: used and allowed, for one session or for all of them.
#[derive(Debug)]
pub(crate) struct ReplayBudget {
    used: AtomicUsize,
    limit: usize,
}

impl ReplayBudget {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            used: AtomicUsize::new(0),
            limit,
        }
    }

    fn add(&self, n: usize) {
        self.used.fetch_add(n, Ordering::Relaxed);
    }

    fn sub(&self, n: usize) {
        self.used.fetch_sub(n, Ordering::Relaxed);
    }

    fn over(&self) -> bool {
        self.used.load(Ordering::Relaxed) > self.limit
    }

    /// The bytes in use.
    #[cfg(test)]
    pub(crate) fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// The two budgets a session's logs count against.
#[derive(Debug, Clone)]
struct Budgets {
    session: Arc<ReplayBudget>,
    global: Arc<ReplayBudget>,
}

impl Budgets {
    fn add(&self, n: usize) {
        self.session.add(n);
        self.global.add(n);
    }

    fn sub(&self, n: usize) {
        self.session.sub(n);
        self.global.sub(n);
    }

    fn over(&self) -> bool {
        self.session.over() || self.global.over()
    }
}

/// A response stream that survives its connection.
#[derive(Debug)]
pub(super) struct ResumableStream {
    pub(super) id: u64,
    inner: Mutex<StreamInner>,
    budgets: Budgets,
    /// How many connections follow the stream.
    followers: Arc<watch::Sender<usize>>,
}

#[derive(Debug)]
struct StreamInner {
    /// Logged messages with the session-wide stamp that orders them against other streams.
    log: VecDeque<(u64, Logged)>,
    /// The bytes the log holds (as counted against the budgets).
    bytes: usize,
    next: u64,
    /// The highest sequence number dropped from the log (0: none).
    dropped_through: u64,
    live: Option<mpsc::Sender<Logged>>,
    done: bool,
}

/// What a (re)attached connection gets.
pub(super) enum Attach {
    /// The messages to replay, then the live feed (`None` once the stream is done).
    Follow {
        replay: Vec<Logged>,
        live: Option<Live>,
    },
    /// Messages after the one asked for were dropped to stay within the replay budget;
    /// `oldest` is the first sequence number still kept (if any).
    Gone { oldest: Option<u64> },
}

/// The live feed of a stream for the connection following it, counted as a follower of the
/// stream until dropped.
#[derive(Debug)]
pub(super) struct Live {
    rx: mpsc::Receiver<Logged>,
    _follower: Follower,
}

impl Live {
    /// The next message; `None` when the stream is done or the server closed this feed.
    pub(super) async fn recv(&mut self) -> Option<Logged> {
        self.rx.recv().await
    }
}

/// One follower of a stream, counted while it lives.
#[derive(Debug)]
struct Follower(Arc<watch::Sender<usize>>);

impl Drop for Follower {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

fn cost(message: &Bytes) -> usize {
    message.len() + MESSAGE_OVERHEAD
}

impl StreamInner {
    /// Drops the oldest logged message, giving its bytes back to `budgets`.
    fn drop_front(&mut self, budgets: &Budgets) {
        if let Some((_, (seq, message, _))) = self.log.pop_front() {
            let n = cost(&message);
            self.bytes -= n;
            self.dropped_through = seq;
            budgets.sub(n);
        }
    }
}

impl ResumableStream {
    /// Attaches a connection, replaying what came after `after`.
    pub(super) fn attach(&self, after: u64) -> Attach {
        let mut s = self.inner.lock().expect("stream");
        if after < s.dropped_through {
            return Attach::Gone {
                oldest: s.log.front().map(|(_, (seq, ..))| *seq),
            };
        }
        let replay: Vec<_> = s
            .log
            .iter()
            .filter(|(_, (seq, ..))| *seq > after)
            .map(|(_, logged)| logged.clone())
            .collect();
        let live = if s.done {
            None
        } else {
            let (tx, rx) = mpsc::channel(256);
            s.live = Some(tx);
            self.followers.send_modify(|n| *n += 1);
            Some(Live {
                rx,
                _follower: Follower(self.followers.clone()),
            })
        };
        Attach::Follow { replay, live }
    }

    /// Resolves once no connection has followed the stream for `timeout` on end; a
    /// connection that takes it up within that time starts the count again when it goes.
    pub(super) async fn unfollowed_for(&self, timeout: Duration) {
        let mut followers = self.followers.subscribe();
        loop {
            // The sender lives as long as `self`: waiting cannot fail.
            let _ = followers.wait_for(|n| *n == 0).await;
            tokio::select! {
                () = tokio::time::sleep(timeout) => return,
                _ = followers.wait_for(|n| *n > 0) => {}
            }
        }
    }

    /// Closes the connection without ending the stream (the client polls back).
    pub(super) fn detach(&self) {
        self.inner.lock().expect("stream").live = None;
    }

    fn is_done(&self) -> bool {
        self.inner.lock().expect("stream").done
    }

    /// The stamp of the oldest logged message.
    fn oldest_stamp(&self) -> Option<u64> {
        self.inner
            .lock()
            .expect("stream")
            .log
            .front()
            .map(|(stamp, _)| *stamp)
    }

    /// Drops the oldest logged message; whether the stream is now done with nothing left.
    fn drop_oldest(&self) -> bool {
        let mut s = self.inner.lock().expect("stream");
        s.drop_front(&self.budgets);
        s.done && s.log.is_empty()
    }
}

impl Drop for ResumableStream {
    fn drop(&mut self) {
        let bytes = self.inner.get_mut().map_or(0, |s| s.bytes);
        self.budgets.sub(bytes + STREAM_OVERHEAD);
    }
}

/// The resumable streams of one session, by id.
#[derive(Debug)]
pub(super) struct Streams {
    map: Mutex<HashMap<u64, Arc<ResumableStream>>>,
    next_id: AtomicU64,
    /// Orders logged messages across the session's streams (oldest dropped first).
    next_stamp: AtomicU64,
    budgets: Budgets,
}

impl Streams {
    /// The streams of a new session, counted against `session` and `global`.
    pub(super) fn new(session: Arc<ReplayBudget>, global: Arc<ReplayBudget>) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            next_stamp: AtomicU64::new(0),
            budgets: Budgets { session, global },
        }
    }

    /// Opens a new stream (making room by dropping finished, then the oldest, streams).
    pub(super) fn open(&self) -> Arc<ResumableStream> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        self.budgets.add(STREAM_OVERHEAD);
        let stream = Arc::new(ResumableStream {
            id,
            inner: Mutex::new(StreamInner {
                log: VecDeque::new(),
                bytes: 0,
                next: 0,
                dropped_through: 0,
                live: None,
                done: false,
            }),
            budgets: self.budgets.clone(),
            followers: Arc::new(watch::Sender::new(0)),
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

    /// Records a message of `stream` (`last`: the final response) and forwards it to the
    /// connection following it; then drops the session's oldest messages while a budget
    /// is exceeded.
    pub(super) fn push(&self, stream: &ResumableStream, message: Bytes, last: bool) {
        {
            let mut s = stream.inner.lock().expect("stream");
            s.next += 1;
            let seq = s.next;
            if s.log.len() == STREAM_LOG {
                s.drop_front(&self.budgets);
            }
            let n = cost(&message);
            s.bytes += n;
            self.budgets.add(n);
            let stamp = self.next_stamp.fetch_add(1, Ordering::Relaxed);
            s.log.push_back((stamp, (seq, message.clone(), last)));
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
        if self.budgets.over() {
            self.trim();
        }
    }

    /// Drops the session's oldest logged messages until it is within its budgets (or has
    /// nothing left to drop); a finished stream left with nothing is forgotten.
    fn trim(&self) {
        let mut streams = self.map.lock().expect("streams");
        while self.budgets.over() {
            let Some((id, oldest)) = streams
                .iter()
                .filter_map(|(id, s)| Some((*id, s.oldest_stamp()?, s)))
                .min_by_key(|(_, stamp, _)| *stamp)
                .map(|(id, _, s)| (id, s.clone()))
            else {
                return;
            };
            if oldest.drop_oldest() {
                streams.remove(&id);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn streams(session: usize, global: &Arc<ReplayBudget>) -> Streams {
        Streams::new(Arc::new(ReplayBudget::new(session)), global.clone())
    }

    fn message(n: usize) -> Bytes {
        Bytes::from(vec![b'x'; n])
    }

    #[test]
    fn the_oldest_messages_of_the_session_are_dropped_first() {
        let global = Arc::new(ReplayBudget::new(usize::MAX));
        let s = streams(2 * STREAM_OVERHEAD + 3 * (1000 + MESSAGE_OVERHEAD), &global);
        let a = s.open();
        let b = s.open();
        s.push(&a, message(1000), false);
        s.push(&b, message(1000), false);
        s.push(&a, message(1000), false);
        // The fourth message goes over: the oldest (a's first) goes.
        s.push(&b, message(1000), false);
        assert!(matches!(a.attach(0), Attach::Gone { oldest: Some(2) }));
        match a.attach(1) {
            Attach::Follow { replay, .. } => assert_eq!(replay.len(), 1),
            Attach::Gone { .. } => panic!("message 2 is kept"),
        }
        match b.attach(0) {
            Attach::Follow { replay, .. } => assert_eq!(replay.len(), 2),
            Attach::Gone { .. } => panic!("b lost nothing"),
        }
    }

    #[test]
    fn budgets_are_given_back_when_streams_go() {
        let global = Arc::new(ReplayBudget::new(usize::MAX));
        let s = streams(usize::MAX, &global);
        let a = s.open();
        s.push(&a, message(10_000), true);
        assert!(global.used() >= 10_000);
        s.forget(a.id);
        drop(a);
        assert_eq!(global.used(), 0);
    }

    #[test]
    fn the_global_budget_bounds_every_session_together() {
        let global = Arc::new(ReplayBudget::new(64 * 1024));
        let sessions: Vec<_> = (0..8).map(|_| streams(usize::MAX, &global)).collect();
        for s in &sessions {
            let stream = s.open();
            for _ in 0..100 {
                s.push(&stream, message(1000), false);
            }
        }
        assert!(global.used() <= 64 * 1024 + 8 * STREAM_OVERHEAD + 1000 + MESSAGE_OVERHEAD);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_is_unfollowed_once_nobody_has_followed_it_for_the_timeout() {
        let global = Arc::new(ReplayBudget::new(usize::MAX));
        let s = streams(usize::MAX, &global);
        let a = s.open();
        let follow = |a: &ResumableStream| match a.attach(0) {
            Attach::Follow { live, .. } => live.expect("not done"),
            Attach::Gone { .. } => panic!("nothing dropped"),
        };
        let first = follow(&a);
        let unfollowed = a.unfollowed_for(Duration::from_secs(10));
        tokio::pin!(unfollowed);
        let wait = |secs| tokio::time::sleep(Duration::from_secs(secs));
        tokio::select! {
            () = &mut unfollowed => panic!("followed"),
            () = wait(60) => {}
        }
        // Gone for less than the timeout, then taken up again (twice at once, one stays).
        drop(first);
        tokio::select! {
            () = &mut unfollowed => panic!("not for 10 s yet"),
            () = wait(5) => {}
        }
        let (second, third) = (follow(&a), follow(&a));
        drop(second);
        tokio::select! {
            () = &mut unfollowed => panic!("followed"),
            () = wait(60) => {}
        }
        drop(third);
        let start = tokio::time::Instant::now();
        unfollowed.await;
        assert_eq!(start.elapsed(), Duration::from_secs(10));
    }

    #[test]
    fn a_finished_stream_dropped_whole_is_forgotten() {
        let global = Arc::new(ReplayBudget::new(usize::MAX));
        let s = streams(STREAM_OVERHEAD * 2 + 100, &global);
        let a = s.open();
        s.push(&a, message(1000), true);
        assert!(s.get(a.id).is_none());
    }
}
