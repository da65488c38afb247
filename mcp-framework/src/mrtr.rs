//! Multi round-trip requests (2026-07-28): the sealed `requestState` and the replay rounds
//! that let a handler ask the client questions without the server keeping any memory.
//!
//! A handler that calls `ctx.elicit(…)` (or `sample`, `roots`) is *replayed* on every retry.
//! Questions are keyed by their position (`elicitation-1`, `sampling-2`, …). Answers
//! gathered so far travel inside `requestState`, sealed with XChaCha20-Poly1305 under a
//! server key (with a key id, so keys can rotate) and bound to the method, the tool, prompt
//! or resource name, a digest of the arguments, the principal and an expiry. When a
//! question has no answer yet the handler is stopped and the client receives an
//! `InputRequiredResult` carrying every unanswered question and a new sealed state.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use chacha20poly1305::aead::{Aead, Generate, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::protocol::{ErrorObject, InputRequest};

const FORMAT_VERSION: u8 = 1;
const NONCE_LEN: usize = 24;

/// A key for sealing `requestState`: an id (sent in clear, so the right key is found after
/// rotation) and 32 secret bytes. Replicas behind a load balancer must share it.
#[derive(Clone)]
pub struct StateKey {
    id: String,
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// The longest key id: its length travels in one byte of every sealed state.
const MAX_KEY_ID_BYTES: usize = 255;

impl StateKey {
    /// A key with an id (at most 255 bytes: `build()` refuses a longer one) and 32 secret
    /// bytes.
    pub fn new(id: impl Into<String>, secret: [u8; 32]) -> Self {
        let key: Key = secret.into();
        Self {
            id: id.into(),
            cipher: XChaCha20Poly1305::new(&key),
        }
    }

    /// A random key, private to this process (the default).
    pub fn random() -> Self {
        let key = Key::generate();
        Self {
            id: "local".into(),
            cipher: XChaCha20Poly1305::new(&key),
        }
    }

    /// The key id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Why this key cannot seal states (its id is too long to be written in one).
    pub(crate) fn check(&self) -> Result<(), String> {
        if self.id.len() > MAX_KEY_ID_BYTES {
            return Err(format!(
                "the state key id `{}…` is {} bytes; a key id is at most {MAX_KEY_ID_BYTES} bytes",
                self.id.chars().take(16).collect::<String>(),
                self.id.len()
            ));
        }
        Ok(())
    }

    /// The keys of a key file's text: one `<id> <secret>` per line (the secret 32 bytes as
    /// 64 hex digits or in base64; blank lines and `#` comments skipped). The first key
    /// seals, every one opens: to rotate, put a new key first and keep the old one below
    /// it until the states it sealed have expired (`state_ttl`, 10 minutes by default).
    /// Every replica reads the same file (`--state-key-file`, `MCP_STATE_KEY_FILE`).
    ///
    /// ```
    /// use mcp_framework::StateKey;
    ///
    /// let keys = StateKey::parse_keys(
    ///     "# newest first\n\
    ///      2026-12 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n\
    ///      2026-11 AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n",
    /// )
    /// .unwrap();
    /// assert_eq!(keys.iter().map(StateKey::id).collect::<Vec<_>>(), ["2026-12", "2026-11"]);
    /// ```
    pub fn parse_keys(text: &str) -> Result<Vec<Self>, String> {
        let mut keys: Vec<Self> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |what: &str| format!("line {}: {what}", n + 1);
            let mut parts = line.split_whitespace();
            let (Some(id), Some(secret), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(at("expected `<key id> <secret>`"));
            };
            if id.len() > MAX_KEY_ID_BYTES {
                return Err(at(&format!("a key id is at most {MAX_KEY_ID_BYTES} bytes")));
            }
            if keys.iter().any(|k| k.id == id) {
                return Err(at(&format!("the key id `{id}` is used twice")));
            }
            let bytes = decode_secret(secret).ok_or_else(|| {
                at("the secret is 32 bytes: 64 hex digits, or 44 characters of base64")
            })?;
            keys.push(Self::new(id, bytes));
        }
        if keys.is_empty() {
            return Err("no key: expected lines of `<key id> <secret>`".into());
        }
        Ok(keys)
    }
}

/// 32 bytes from 64 hex digits or from base64.
fn decode_secret(secret: &str) -> Option<[u8; 32]> {
    let bytes = if secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit()) {
        (0..32)
            .map(|i| u8::from_str_radix(&secret[2 * i..2 * i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?
    } else {
        base64::engine::general_purpose::STANDARD
            .decode(secret)
            .ok()?
    };
    bytes.try_into().ok()
}

/// Seals and opens states: the current key seals, any known key opens.
#[derive(Debug, Clone)]
pub(crate) struct Sealer {
    current: StateKey,
    previous: Vec<StateKey>,
    pub(crate) ttl: Duration,
}

/// What is bound into a state and checked when it comes back: borrowed from the request,
/// so binding a call costs one digest of its arguments and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Binding<'a> {
    pub(crate) method: &'static str,
    pub(crate) name: &'a str,
    pub(crate) arguments: ValueDigest,
    pub(crate) principal: Option<&'a str>,
}

/// One answer: the digest of the question it answers and the client's result.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Answer {
    #[serde(rename = "q")]
    pub(crate) question: String,
    #[serde(rename = "v")]
    pub(crate) value: Value,
}

/// What a sealed `requestState` carries (one-letter keys: it travels on every retry).
/// Borrowed when sealing; owned when opened (`Cow`s: a JSON string with escapes cannot
/// be borrowed from the plaintext).
#[derive(Debug, Serialize, Deserialize)]
struct SealedState<'a> {
    #[serde(rename = "m", borrow)]
    method: Cow<'a, str>,
    #[serde(rename = "n", borrow)]
    name: Cow<'a, str>,
    #[serde(rename = "d", borrow)]
    digest: Cow<'a, str>,
    #[serde(rename = "p", default, borrow, skip_serializing_if = "Option::is_none")]
    principal: Option<Cow<'a, str>>,
    #[serde(rename = "x")]
    expires_ms: u64,
    #[serde(rename = "a", default)]
    answers: Cow<'a, BTreeMap<String, Answer>>,
    /// Questions asked in the last round: key → question digest.
    #[serde(rename = "k", default)]
    pending: BTreeMap<String, String>,
}

/// The answers a state carried, and which questions the client was last asked.
#[derive(Debug, Default)]
pub(crate) struct Opened {
    pub(crate) answers: BTreeMap<String, Answer>,
    pub(crate) pending: BTreeMap<String, String>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn invalid(message: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Invalid requestState: {message}"))
}

impl Sealer {
    pub(crate) fn new(current: StateKey, previous: Vec<StateKey>, ttl: Duration) -> Self {
        Self {
            current,
            previous,
            ttl,
        }
    }

    /// The same, sealing with the first of `keys` and opening with any of them.
    pub(crate) fn seal(
        &self,
        binding: &Binding<'_>,
        answers: &BTreeMap<String, Answer>,
        pending: BTreeMap<String, String>,
    ) -> String {
        let payload = SealedState {
            method: binding.method.into(),
            name: binding.name.into(),
            digest: binding.arguments.encode().into(),
            principal: binding.principal.map(Cow::Borrowed),
            expires_ms: now_ms()
                .saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)),
            answers: Cow::Borrowed(answers),
            pending,
        };
        let plaintext = serde_json::to_vec(&payload).expect("state serializes");
        let kid = self.current.id.as_bytes();
        let kid_len = u8::try_from(kid.len()).expect("key ids are at most 255 bytes");
        let mut header = Vec::with_capacity(2 + kid.len());
        header.push(FORMAT_VERSION);
        header.push(kid_len);
        header.extend_from_slice(kid);
        let nonce = XNonce::generate();
        let ciphertext = self
            .current
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: &plaintext,
                    aad: &header,
                },
            )
            .expect("encryption with a valid key does not fail");
        let mut token = header;
        token.extend_from_slice(&nonce);
        token.extend_from_slice(&ciphertext);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(token)
    }

    /// Opens and verifies a state presented with a request bound as `binding`.
    pub(crate) fn open(&self, token: &str, binding: &Binding<'_>) -> Result<Opened, ErrorObject> {
        let tampered =
            || invalid("it failed verification (tampered, or sealed with an unknown key)");
        let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| tampered())?;
        if raw.len() < 2 || raw[0] != FORMAT_VERSION {
            return Err(tampered());
        }
        let kid_len = usize::from(raw[1]);
        let header_len = 2 + kid_len;
        if raw.len() < header_len + NONCE_LEN + 16 {
            return Err(tampered());
        }
        let kid = &raw[2..header_len];
        let key = std::iter::once(&self.current)
            .chain(&self.previous)
            .find(|k| k.id.as_bytes() == kid)
            .ok_or_else(tampered)?;
        let nonce =
            XNonce::try_from(&raw[header_len..header_len + NONCE_LEN]).map_err(|_| tampered())?;
        let plaintext = key
            .cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: &raw[header_len + NONCE_LEN..],
                    aad: &raw[..header_len],
                },
            )
            .map_err(|_| tampered())?;
        let payload: SealedState<'_> =
            serde_json::from_slice(&plaintext).map_err(|_| tampered())?;
        if payload.expires_ms < now_ms() {
            return Err(invalid("it has expired; send the request again without it"));
        }
        if payload.method != binding.method
            || payload.name != binding.name
            || payload.digest != binding.arguments.encode()
        {
            return Err(invalid("it was issued for a different request"));
        }
        if payload.principal.as_deref() != binding.principal {
            return Err(invalid("it was issued to a different principal"));
        }
        Ok(Opened {
            answers: payload.answers.into_owned(),
            pending: payload.pending,
        })
    }
}

/// A short digest of a JSON value: the first 16 bytes of the SHA-256 of its
/// key-order-independent JSON (objects sorted by key, recursively), hashed as it is
/// written, with no copy of the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ValueDigest([u8; 16]);

impl ValueDigest {
    pub(crate) fn of(value: &Value) -> Self {
        let mut hasher = Hasher(Sha256::new());
        write_canonical(value, &mut hasher);
        let hash = hasher.0.finalize();
        let mut bytes = [0; 16];
        bytes.copy_from_slice(&hash[..16]);
        Self(bytes)
    }

    /// Its base64url text, as a state carries it.
    pub(crate) fn encode(self) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(self.0)
    }
}

/// Feeds what is written into a SHA-256.
struct Hasher(Sha256);

impl std::io::Write for Hasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `value` as key-order-independent JSON: an object's keys in byte order (sorted
/// into a list only when they are not in order already), no whitespace.
fn write_canonical<W: std::io::Write>(value: &Value, out: &mut W) {
    fn object<'v, W: std::io::Write>(
        entries: impl Iterator<Item = (&'v String, &'v Value)>,
        out: &mut W,
    ) {
        out.write_all(b"{").expect("infallible writer");
        for (i, (k, v)) in entries.enumerate() {
            if i > 0 {
                out.write_all(b",").expect("infallible writer");
            }
            serde_json::to_writer(&mut *out, k).expect("a string serializes");
            out.write_all(b":").expect("infallible writer");
            write_canonical(v, out);
        }
        out.write_all(b"}").expect("infallible writer");
    }
    match value {
        Value::Object(map) if map.keys().is_sorted() => object(map.iter(), out),
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_unstable_by_key(|(k, _)| *k);
            object(entries.into_iter(), out);
        }
        Value::Array(items) => {
            out.write_all(b"[").expect("infallible writer");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",").expect("infallible writer");
                }
                write_canonical(item, out);
            }
            out.write_all(b"]").expect("infallible writer");
        }
        scalar => serde_json::to_writer(&mut *out, scalar).expect("a scalar serializes"),
    }
}

/// One question a handler asked: the input request, and its params as JSON (what a legacy
/// session sends, and what the question's digest covers).
#[derive(Debug, Clone)]
pub(crate) struct Question {
    pub(crate) request: InputRequest,
    pub(crate) params: Value,
}

impl Question {
    pub(crate) fn new(request: InputRequest) -> Self {
        let params = match &request {
            InputRequest::CreateMessage(p) => serde_json::to_value(p),
            InputRequest::ListRoots(p) => serde_json::to_value(p),
            InputRequest::Elicit(p) => serde_json::to_value(p),
        }
        .expect("input request params serialize");
        Self { request, params }
    }

    /// The prefix of the question's key (`elicitation-1`).
    pub(crate) fn kind(&self) -> &'static str {
        self.request.key_prefix()
    }

    pub(crate) fn digest(&self) -> String {
        ValueDigest::of(
            &serde_json::json!({"method": self.request.method(), "params": self.params}),
        )
        .encode()
    }
}

/// The replay state of one modern request: known answers, questions asked in this run.
#[derive(Debug, Default)]
pub(crate) struct Round {
    answers: BTreeMap<String, Answer>,
    /// Answers sent without any `requestState` (a client answering a first round ahead of
    /// time): each is taken by the question asked under its key in this run.
    unsolicited: serde_json::Map<String, Value>,
    asked: usize,
    keys: BTreeSet<String>,
    pub(crate) unanswered: BTreeMap<String, (String, Question)>,
}

impl Round {
    /// Starts a round from the retry's `requestState` (opened) and `inputResponses`. With a
    /// state, only answers to the questions it says were asked count; without one, answers
    /// wait for a question under their key. Anything else is ignored.
    pub(crate) fn new(
        opened: Option<Opened>,
        mut responses: serde_json::Map<String, Value>,
    ) -> Self {
        let Some(opened) = opened else {
            return Self {
                unsolicited: responses,
                ..Self::default()
            };
        };
        let mut answers = opened.answers;
        for (key, question) in opened.pending {
            if let Some(value) = responses.remove(&key) {
                answers.insert(key, Answer { question, value });
            }
        }
        Self {
            answers,
            ..Self::default()
        }
    }

    /// Asks the next question, under `key` or its position (`elicitation-1`, …): its key
    /// and the answer, or no answer (the question is then recorded). Two questions under
    /// one key are an error of the handler.
    pub(crate) fn ask(
        &mut self,
        question: Question,
        key: Option<String>,
    ) -> Result<(String, Option<Value>), ErrorObject> {
        self.asked += 1;
        let key = key.unwrap_or_else(|| format!("{}-{}", question.kind(), self.asked));
        if !self.keys.insert(key.clone()) {
            return Err(ErrorObject::internal(format!(
                "two questions of this request use the input key {key:?}"
            )));
        }
        let d = question.digest();
        if let Some(a) = self.answers.get(&key).filter(|a| a.question == d) {
            return Ok((key, Some(a.value.clone())));
        }
        if let Some(value) = self.unsolicited.remove(&key) {
            self.answers.insert(
                key.clone(),
                Answer {
                    question: d,
                    value: value.clone(),
                },
            );
            return Ok((key, Some(value)));
        }
        self.unanswered.insert(key.clone(), (d, question));
        Ok((key, None))
    }

    pub(crate) fn answers(&self) -> &BTreeMap<String, Answer> {
        &self.answers
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn key_files() {
        let hex = "00".repeat(32);
        let keys = super::StateKey::parse_keys(&format!("\n# c\na {hex}\n  b {hex}  \n")).unwrap();
        assert_eq!(
            keys.iter().map(super::StateKey::id).collect::<Vec<_>>(),
            ["a", "b"]
        );
        for (text, why) in [
            ("", "no key"),
            ("a", "line 1: expected"),
            (&format!("a {hex} extra") as &str, "expected"),
            ("a 00", "the secret is 32 bytes"),
            (
                &format!("a {hex}\na {hex}"),
                "line 2: the key id `a` is used twice",
            ),
        ] {
            let e = super::StateKey::parse_keys(text).unwrap_err();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }

    use super::*;
    use serde_json::json;

    fn binding() -> Binding<'static> {
        Binding {
            method: "tools/call",
            name: "ask",
            arguments: ValueDigest::of(&json!({"b": 1, "a": [1, 2]})),
            principal: None,
        }
    }

    fn digest(v: &Value) -> String {
        ValueDigest::of(v).encode()
    }

    fn sealer() -> Sealer {
        Sealer::new(
            StateKey::new("k1", [7; 32]),
            vec![],
            Duration::from_secs(60),
        )
    }

    #[test]
    fn digests_ignore_key_order() {
        assert_eq!(
            digest(&json!({"a": 1, "b": {"c": 2, "d": 3}})),
            digest(&json!({"b": {"d": 3, "c": 2}, "a": 1}))
        );
        assert_ne!(digest(&json!({"a": 1})), digest(&json!({"a": 2})));
    }

    /// The digest is part of every sealed state: it must not change between releases (a
    /// state sealed by an older replica still opens during a rolling deploy). The value is
    /// SHA-256 over `{"":{},"a":-3,"b":{"a":"é\n\"x","z":[1,2.5,null,true]}}`, computed
    /// independently.
    #[test]
    fn digests_are_stable() {
        let v = json!({"b": {"z": [1, 2.5, null, true], "a": "é\n\"x"}, "a": -3, "": {}});
        assert_eq!(digest(&v), "KpzcZRG0h9ALiHa3EN1MZQ");
    }

    #[test]
    fn seals_and_opens() {
        let s = sealer();
        let mut pending = BTreeMap::new();
        pending.insert("elicitation-1".to_owned(), "q".to_owned());
        let token = s.seal(&binding(), &BTreeMap::new(), pending);
        let opened = s.open(&token, &binding()).unwrap();
        assert_eq!(opened.pending["elicitation-1"], "q");
    }

    #[test]
    fn rejects_tampering_other_requests_and_expiry() {
        let s = sealer();
        let token = s.seal(&binding(), &BTreeMap::new(), BTreeMap::new());
        // Flip one character.
        let mut chars: Vec<char> = token.chars().collect();
        let i = chars.len() / 2;
        chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
        let tampered: String = chars.into_iter().collect();
        assert!(s.open(&tampered, &binding()).is_err());
        assert!(s.open("garbage", &binding()).is_err());
        let mut other = binding();
        other.arguments = ValueDigest::of(&json!({"b": 2}));
        let err = s.open(&token, &other).unwrap_err();
        assert!(err.message.contains("different request"), "{err}");
        let mut principal = binding();
        principal.principal = Some("mallory");
        assert!(s.open(&token, &principal).is_err());
        let expired = Sealer::new(StateKey::new("k1", [7; 32]), vec![], Duration::ZERO);
        let token = expired.seal(&binding(), &BTreeMap::new(), BTreeMap::new());
        std::thread::sleep(Duration::from_millis(2));
        assert!(
            expired
                .open(&token, &binding())
                .unwrap_err()
                .message
                .contains("expired")
        );
    }

    #[test]
    fn rotation_and_foreign_keys() {
        let old = sealer();
        let token = old.seal(&binding(), &BTreeMap::new(), BTreeMap::new());
        let rotated = Sealer::new(
            StateKey::new("k2", [9; 32]),
            vec![StateKey::new("k1", [7; 32])],
            Duration::from_secs(60),
        );
        assert!(rotated.open(&token, &binding()).is_ok());
        let stranger = Sealer::new(
            StateKey::new("k1", [8; 32]),
            vec![],
            Duration::from_secs(60),
        );
        assert!(stranger.open(&token, &binding()).is_err());
    }

    #[test]
    fn rounds_replay_answers_in_order() {
        let q1 = Question::new(
            crate::protocol::ElicitRequestParams::form("name?", serde_json::Map::new()).into(),
        );
        let q2 =
            Question::new(crate::protocol::CreateMessageRequestParams::new(Vec::new(), 1).into());
        let mut first = Round::default();
        assert_eq!(
            first.ask(q1.clone(), None).unwrap(),
            ("elicitation-1".into(), None)
        );
        let (d1, _) = first.unanswered["elicitation-1"].clone();
        let mut pending = BTreeMap::new();
        pending.insert("elicitation-1".to_owned(), d1);
        let mut responses = serde_json::Map::new();
        responses.insert(
            "elicitation-1".into(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        );
        responses.insert("bogus".into(), json!(1));
        let opened = Opened {
            answers: BTreeMap::new(),
            pending,
        };
        let mut second = Round::new(Some(opened), responses);
        let (_, answer) = second.ask(q1, None).unwrap();
        assert_eq!(answer.unwrap()["content"]["name"], "Ada");
        assert_eq!(second.ask(q2, None).unwrap().1, None);
        assert!(second.unanswered.contains_key("sampling-2"));
        assert!(!second.answers().contains_key("bogus"));
    }

    #[test]
    fn named_keys_and_answers_without_state() {
        let q = Question::new(
            crate::protocol::ElicitRequestParams::form("name?", serde_json::Map::new()).into(),
        );
        let mut responses = serde_json::Map::new();
        responses.insert("user_name".into(), json!({"action": "decline"}));
        responses.insert("other".into(), json!({"action": "accept"}));
        // No requestState: an answer is taken by the question asked under its key.
        let mut round = Round::new(None, responses.clone());
        let (key, answer) = round.ask(q.clone(), Some("user_name".into())).unwrap();
        assert_eq!(
            (key.as_str(), answer),
            ("user_name", Some(json!({"action": "decline"})))
        );
        assert!(round.answers().contains_key("user_name"));
        assert!(!round.answers().contains_key("other"));
        // One key, two questions: the handler's mistake, reported.
        assert!(round.ask(q.clone(), Some("user_name".into())).is_err());
        // With a state that asked nothing, unsolicited answers are ignored.
        let mut strict = Round::new(Some(Opened::default()), responses);
        assert_eq!(strict.ask(q, Some("user_name".into())).unwrap().1, None);
    }
}
