//! Legacy sessions by `Mcp-Session-Id`: each kept with what HTTP needs beside it (its
//! resumable response streams, when it was last used, who opened it). Idle sessions expire.
//! The store is bounded without letting one client push others out: when it is full, only
//! a session that has been idle for a while (and has nothing running or attached) is closed
//! to make room, else the new session is refused; a peer may hold a bounded share.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::resumable::{ReplayBudget, Streams};
use crate::runtime::config::HttpConfig;
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
    max_per_peer: Option<usize>,
    /// The replay bytes every session's streams count against.
    replay: Arc<ReplayBudget>,
    replay_per_session: usize,
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
        }
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

    /// Why `session` cannot be kept (after making room if a quiet idle session can go).
    fn refusal(
        &self,
        map: &mut HashMap<Arc<str>, Arc<HttpSession>>,
        session: &HttpSession,
    ) -> Option<Refused> {
        if let (Some(limit), Some(peer)) = (self.max_per_peer, session.peer) {
            let held = map.values().filter(|s| s.peer == Some(peer)).count();
            if held >= limit {
                return Some(Refused::PeerFull(limit));
            }
        }
        if map.len() < self.max {
            return None;
        }
        let evictable = EVICTABLE_AFTER.min(self.idle / 2);
        let victim = map
            .iter()
            .filter(|(_, s)| s.is_quiet() && s.idle_for() >= evictable)
            .max_by_key(|(_, s)| s.idle_for())
            .map(|(k, _)| k.clone());
        match victim.and_then(|k| map.remove(&k)) {
            Some(old) => {
                old.close();
                None
            }
            None => Some(Refused::Full(self.max)),
        }
    }

    /// Closes and forgets a session (`DELETE`); `false` if there was none.
    pub(super) fn remove(&self, id: &str) -> bool {
        let removed = self.map.lock().expect("sessions").remove(id);
        removed.map(|s| s.close()).is_some()
    }
}

fn new_session_id() -> Arc<str> {
    Arc::from(crate::unguessable::hex_id())
}
