//! The answers of the verifier, kept per token until the token expires, so that a token is
//! checked once and not on every request. Keyed by the token's SHA-256 (the tokens are not
//! kept); bounded: when full, expired answers go first, then an arbitrary half.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::principal::Principal;

/// The longest an answer is kept, whatever the token's expiry (a revoked opaque token is
/// refused again within this time).
const MAX_KEEP: Duration = Duration::from_secs(300);

#[derive(Debug)]
pub(crate) struct TokenCache {
    entries: Mutex<HashMap<[u8; 32], (Principal, Instant)>>,
    capacity: usize,
}

impl TokenCache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
        }
    }

    fn key(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    /// The principal of `token`, when an answer for it is kept and has not expired.
    pub(crate) fn get(&self, token: &str) -> Option<Principal> {
        let key = Self::key(token);
        let mut entries = self.entries.lock().expect("token cache");
        match entries.get(&key) {
            Some((principal, until)) if *until > Instant::now() => Some(principal.clone()),
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps the answer for `token` until `expires_at` (at most five minutes).
    pub(crate) fn put(&self, token: &str, principal: Principal, expires_at: SystemTime) {
        let Ok(left) = expires_at.duration_since(SystemTime::now()) else {
            return;
        };
        let until = Instant::now() + left.min(MAX_KEEP);
        let mut entries = self.entries.lock().expect("token cache");
        if entries.len() >= self.capacity {
            let now = Instant::now();
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
        entries.insert(Self::key(token), (principal, until));
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
        assert!(cache.entries.lock().unwrap().len() <= 4);
    }
}
