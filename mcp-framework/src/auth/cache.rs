//! Answers of the verifier kept per token, so that a token is checked once and not on
//! every request: the principals of valid tokens until the token expires (at most five
//! minutes), and, for introspection, the refusals of inactive tokens for a while. Keyed by
//! the token's SHA-256 (the tokens are not kept); bounded: when full, expired answers go
//! first, then an arbitrary half.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::principal::Principal;

/// The longest an answer is kept, whatever the token's expiry (a revoked opaque token is
/// refused again within this time).
const MAX_KEEP: Duration = Duration::from_secs(300);

#[derive(Debug)]
pub(crate) struct TokenCache<V> {
    entries: Mutex<HashMap<[u8; 32], (V, Instant)>>,
    capacity: usize,
}

impl<V: Clone> TokenCache<V> {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    fn key(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    /// The answer kept for `token`, when there is one that has not expired.
    pub(crate) fn get(&self, token: &str) -> Option<V> {
        let key = Self::key(token);
        let mut entries = self.entries.lock().expect("token cache");
        match entries.get(&key) {
            Some((value, until)) if *until > Instant::now() => Some(value.clone()),
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps `value` for `token` during `keep`.
    pub(crate) fn keep(&self, token: &str, value: V, keep: Duration) {
        if self.capacity == 0 || keep.is_zero() {
            return;
        }
        let now = Instant::now();
        let Some(until) = now.checked_add(keep) else {
            return;
        };
        let mut entries = self.entries.lock().expect("token cache");
        if entries.len() >= self.capacity {
            entries.retain(|_, (_, until)| *until > now);
            if entries.len() >= self.capacity {
                let drop: Vec<_> = entries
                    .keys()
                    .take(entries.len() / 2 + 1)
                    .copied()
                    .collect();
                for k in drop {
                    entries.remove(&k);
                }
            }
        }
        entries.insert(Self::key(token), (value, until));
    }

    /// How many answers are kept (expired ones included).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.lock().expect("token cache").len()
    }
}

impl TokenCache<Principal> {
    /// Keeps the principal of `token` until `expires_at` (at most five minutes).
    pub(crate) fn put(&self, token: &str, principal: Principal, expires_at: SystemTime) {
        if let Ok(left) = expires_at.duration_since(SystemTime::now()) {
            self.keep(token, principal, left.min(MAX_KEEP));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_expire_and_the_cache_stays_bounded() {
        let cache = TokenCache::new(4);
        let later = SystemTime::now() + Duration::from_secs(60);
        cache.put("a", Principal::new("ada"), later);
        assert_eq!(cache.get("a").unwrap().subject(), "ada");
        assert!(cache.get("b").is_none());
        cache.put(
            "old",
            Principal::new("x"),
            SystemTime::now() - Duration::from_secs(1),
        );
        assert!(cache.get("old").is_none());
        for i in 0..100 {
            cache.put(&format!("t{i}"), Principal::new("p"), later);
        }
        assert!(cache.len() <= 4);
    }

    #[test]
    fn refusals_are_kept_for_their_time_and_bounded() {
        let cache: TokenCache<&str> = TokenCache::new(3);
        cache.keep("junk", "inactive", Duration::from_secs(60));
        assert_eq!(cache.get("junk"), Some("inactive"));
        cache.keep("brief", "inactive", Duration::from_nanos(1));
        let deadline = Instant::now() + Duration::from_secs(5);
        while cache.get("brief").is_some() {
            assert!(Instant::now() < deadline, "a refusal outlived its time");
            std::thread::yield_now();
        }
        for i in 0..1000 {
            cache.keep(&format!("j{i}"), "inactive", Duration::from_secs(60));
        }
        assert!(cache.len() <= 3);
        // Off: nothing kept.
        let off: TokenCache<&str> = TokenCache::new(0);
        off.keep("junk", "inactive", Duration::from_secs(60));
        assert_eq!(off.get("junk"), None);
        // Keys are digests, never the token.
        let cache: TokenCache<&str> = TokenCache::new(3);
        cache.keep("secret-token", "x", Duration::from_secs(60));
        let entries = cache.entries.lock().unwrap();
        let key = entries.keys().next().unwrap();
        assert_eq!(key, &<[u8; 32]>::from(Sha256::digest(b"secret-token")));
    }
}
