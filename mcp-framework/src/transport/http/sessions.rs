//! Legacy sessions by `Mcp-Session-Id`: each kept with what HTTP needs beside it (its
//! resumable response streams, when it was last used, who opened it). Idle sessions expire.
//! The store is bounded without letting one client push others out: when it is full, only
//! a session that has been idle for a while (and has nothing running or attached) is closed
//! to make room, else the new session is refused; a peer holds a bounded share, made room
//! in the same way among its own sessions. The places of the requests that sessions run
//! detached from their connections are bounded here too, across all sessions.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::config::HttpConfig;
use super::resumable::{ReplayBudget, Streams};
use crate::session::legacy::LegacySession;

/// Longest a session must have been idle before it may be closed early to make room.
const EVICTABLE_AFTER: Duration = Duration::from_secs(60);

/// Why a new session was not kept.
#[derive(Debug, Clone, Copy)]
pub(super) enum Refused {
    /// The store is full of sessions in use.
    Full(usize),
    /// This peer holds its share already.
    PeerFull(usize),
}

/// One legacy session of the HTTP transport.
#[derive(Debug)]
pub(super) struct HttpSession {
    pub(super) id: Arc<str>,
    pub(super) session: Arc<LegacySession>,
    /// The resumable streams of its requests.
    pub(super) streams: Streams,
    last_seen: Mutex<Instant>,
    /// The address of the client that opened it (when the transport knows it).
    peer: Option<IpAddr>,
    /// Connections following one of its streams right now.
    attached: AtomicUsize,
}

/// A connection following a session's stream: the session is in use while it lives.
#[derive(Debug)]
pub(super) struct Attachment(Arc<HttpSession>);

impl Drop for Attachment {
    fn drop(&mut self) {
        self.0.attached.fetch_sub(1, Ordering::AcqRel);
        self.0.touch();
    }
}

impl HttpSession {
    /// Marks the session in use until the returned guard is dropped.
    pub(super) fn attachment(self: &Arc<Self>) -> Attachment {
        self.attached.fetch_add(1, Ordering::AcqRel);
        Attachment(self.clone())
    }

    /// Whether nothing runs or follows a stream on it.
    fn is_quiet(&self) -> bool {
        self.attached.load(Ordering::Acquire) == 0 && self.session.inflight.running() == 0
    }

    fn touch(&self) {
        *self.last_seen.lock().expect("last_seen") = Instant::now();
    }

    fn idle_for(&self) -> Duration {
        self.last_seen.lock().expect("last_seen").elapsed()
    }

    fn close(&self) {
        self.session.close();
        self.streams.clear();
    }
}

/// Legacy sessions by `Mcp-Session-Id`.
#[derive(Debug)]
pub(crate) struct Sessions {
    map: Mutex<HashMap<Arc<str>, Arc<HttpSession>>>,
    idle: Duration,
    max: usize,
    max_per_peer: usize,
    /// The replay bytes every session's streams count against.
    replay: Arc<ReplayBudget>,
    replay_per_session: usize,
    /// The places of requests running detached, in all sessions.
    detached: Arc<Semaphore>,
    max_detached: usize,
}

/// A place among the requests that sessions run detached (see
/// [`Sessions::detached_place`]); given back when dropped.
#[derive(Debug)]
pub(super) struct DetachedPlace {
    _permit: OwnedSemaphorePermit,
}

impl Sessions {
    pub(crate) fn new(config: &HttpConfig) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            idle: config.session_idle_timeout,
            max: config.max_sessions,
            max_per_peer: config.max_sessions_per_peer,
            replay: Arc::new(ReplayBudget::new(config.replay_bytes_total)),
            replay_per_session: config.replay_bytes_per_session,
            detached: Arc::new(Semaphore::new(
                config.max_detached_requests.min(Semaphore::MAX_PERMITS),
            )),
            max_detached: config.max_detached_requests,
        }
    }

    /// A place for one more request running detached from its connection, unless every
    /// place is taken (then `Err` with the limit).
    pub(super) fn detached_place(&self) -> Result<DetachedPlace, usize> {
        self.detached
            .clone()
            .try_acquire_owned()
            .map(|permit| DetachedPlace { _permit: permit })
            .map_err(|_| self.max_detached)
    }

    /// A new session of a client at `peer` (not kept yet: see [`insert`](Self::insert)).
    pub(super) fn open(&self, session: Arc<LegacySession>, peer: Option<IpAddr>) -> HttpSession {
        HttpSession {
            id: new_session_id(),
            session,
            streams: Streams::new(
                Arc::new(ReplayBudget::new(self.replay_per_session)),
                self.replay.clone(),
            ),
            last_seen: Mutex::new(Instant::now()),
            peer,
            attached: AtomicUsize::new(0),
        }
    }

    /// The live session with this id (an expired one is closed and forgotten).
    pub(super) fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        let mut map = self.map.lock().expect("sessions");
        let session = map.get(id)?.clone();
        if session.idle_for() > self.idle {
            map.remove(id);
            session.close();
            return None;
        }
        session.touch();
        Some(session)
    }

    /// Keeps a new session: expired ones are closed first; when the store is full, the
    /// least recently used quiet session idle for a while is closed to make room, else the
    /// new one is refused (and closed).
    pub(super) fn insert(&self, session: Arc<HttpSession>) -> Result<(), Refused> {
        let mut map = self.map.lock().expect("sessions");
        map.retain(|_, s| {
            let keep = s.idle_for() <= self.idle;
            if !keep {
                s.close();
            }
            keep
        });
        let refused = self.refusal(&mut map, &session);
        if let Some(refused) = refused {
            drop(map);
            session.close();
            return Err(refused);
        }
        map.insert(session.id.clone(), session);
        Ok(())
    }

    /// Why `session` cannot be kept (after making room if a quiet idle session can go: the
    /// peer's own when it holds its share, any when the store is full).
    fn refusal(
        &self,
        map: &mut HashMap<Arc<str>, Arc<HttpSession>>,
        session: &HttpSession,
    ) -> Option<Refused> {
        let evictable = EVICTABLE_AFTER.min(self.idle / 2);
        if let Some(peer) = session.peer {
            let held = map.values().filter(|s| s.peer == Some(peer)).count();
            if held >= self.max_per_peer && !evict(map, evictable, |s| s.peer == Some(peer)) {
                return Some(Refused::PeerFull(self.max_per_peer));
            }
        }
        if map.len() < self.max || evict(map, evictable, |_| true) {
            None
        } else {
            Some(Refused::Full(self.max))
        }
    }

    /// Closes and forgets a session (`DELETE`); `false` if there was none.
    pub(super) fn remove(&self, id: &str) -> bool {
        let removed = self.map.lock().expect("sessions").remove(id);
        removed.map(|s| s.close()).is_some()
    }
}

/// Closes the least recently used of the sessions `which` picks that is quiet and has been
/// idle for `after`; whether there was one.
fn evict(
    map: &mut HashMap<Arc<str>, Arc<HttpSession>>,
    after: Duration,
    which: impl Fn(&HttpSession) -> bool,
) -> bool {
    let victim = map
        .iter()
        .filter(|(_, s)| which(s) && s.is_quiet() && s.idle_for() >= after)
        .max_by_key(|(_, s)| s.idle_for())
        .map(|(k, _)| k.clone());
    match victim.and_then(|k| map.remove(&k)) {
        Some(old) => {
            old.close();
            true
        }
        None => false,
    }
}

fn new_session_id() -> Arc<str> {
    Arc::from(crate::unguessable::hex_id())
}
