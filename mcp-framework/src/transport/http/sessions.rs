//! Legacy sessions by `Mcp-Session-Id`: each kept with what HTTP needs beside it (its
//! resumable response streams, when it was last used). Idle sessions expire; when the store
//! is full, the least recently used one is closed to make room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::resumable::Streams;
use crate::runtime::config::HttpConfig;
use crate::session::legacy::LegacySession;

/// One legacy session of the HTTP transport.
#[derive(Debug)]
pub(super) struct HttpSession {
    pub(super) id: Arc<str>,
    pub(super) session: Arc<LegacySession>,
    /// The resumable streams of its requests.
    pub(super) streams: Streams,
    last_seen: Mutex<Instant>,
}

impl HttpSession {
    pub(super) fn new(session: Arc<LegacySession>) -> Self {
        Self {
            id: new_session_id(),
            session,
            streams: Streams::default(),
            last_seen: Mutex::new(Instant::now()),
        }
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
}

impl Sessions {
    pub(crate) fn new(config: &HttpConfig) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            idle: config.session_idle_timeout,
            max: config.max_sessions,
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

    pub(super) fn insert(&self, session: Arc<HttpSession>) {
        let mut map = self.map.lock().expect("sessions");
        map.retain(|_, s| {
            let keep = s.idle_for() <= self.idle;
            if !keep {
                s.close();
            }
            keep
        });
        while map.len() >= self.max {
            let Some(oldest) = map
                .iter()
                .max_by_key(|(_, s)| s.idle_for())
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(s) = map.remove(&oldest) {
                s.close();
            }
        }
        map.insert(session.id.clone(), session);
    }

    /// Closes and forgets a session (`DELETE`); `false` if there was none.
    pub(super) fn remove(&self, id: &str) -> bool {
        let removed = self.map.lock().expect("sessions").remove(id);
        removed.map(|s| s.close()).is_some()
    }
}

fn new_session_id() -> Arc<str> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Arc::from(hex)
}
