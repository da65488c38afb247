//! A small authorization server written for the tests, for what oidc-provider
//! ([`crate::oidc`]) cannot be made to do: sign tokens with any header and any claims
//! (a fixed Ed25519 test key, published in its JWKS), and answer RFC 7662 introspection as
//! a test says, counting the POSTs it receives and how many were in flight at once, and
//! holding them until released. Served by axum on 127.0.0.1; stopped when dropped.
//!
//! ```no_run
//! # async fn demo() {
//! use serde_json::json;
//! let issuer = tests::issuer::Issuer::start().await;
//! let token = issuer.sign(Some("at+jwt"), &json!({"iss": issuer.url(), "exp": 4102444800u64}));
//! issuer.answer_introspection(|_token| json!({"active": false}));
//! assert_eq!(issuer.introspections(), 0);
//! # let _ = token;
//! # }
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::State as Extract;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use tokio::sync::watch;

/// The test key's private half: PKCS#8 (`openssl genpkey -algorithm ed25519`), base64 DER.
const PRIVATE_KEY: &str = "MC4CAQAwBQYDK2VwBCIEIFUQVqfRIMEE5kk+ULPVzqu4HV1B1Bo4Fq2OJR/fLyMq";
/// Its public half, the JWK's `x`.
const PUBLIC_X: &str = "zmQHnILVMqLCTdcYV0rysBGV2ZhTmV0GKdjlKEqYVXI";
/// Its key id.
pub const KID: &str = "test-ed25519";

type Answer = Arc<dyn Fn(&str) -> Value + Send + Sync>;

struct State {
    issuer: String,
    answer: Mutex<Answer>,
    posts: AtomicUsize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    /// `true` while introspection requests are held.
    held: watch::Sender<bool>,
}

/// A running test issuer.
pub struct Issuer {
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl Issuer {
    /// Serves one on a free port of 127.0.0.1. Introspection answers `{"active": false}`
    /// until [`answer_introspection`](Self::answer_introspection) says otherwise.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let state = Arc::new(State {
            issuer,
            answer: Mutex::new(Arc::new(|_| json!({"active": false}))),
            posts: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            most_in_flight: AtomicUsize::new(0),
            held: watch::channel(false).0,
        });
        let app = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .route("/introspect", post(introspect))
            .with_state(state.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { state, task }
    }

    /// `http://127.0.0.1:PORT`, its issuer identifier.
    pub fn url(&self) -> &str {
        &self.state.issuer
    }

    /// A compact JWS of `claims` signed by the test key (EdDSA, `kid` [`KID`]), typed `typ`
    /// (`None`: no `typ` header).
    pub fn sign(&self, typ: Option<&str>, claims: &Value) -> String {
        let der = base64::engine::general_purpose::STANDARD
            .decode(PRIVATE_KEY)
            .unwrap();
        let header = jsonwebtoken::Header {
            typ: typ.map(str::to_owned),
            kid: Some(KID.to_owned()),
            ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA)
        };
        jsonwebtoken::encode(
            &header,
            claims,
            &jsonwebtoken::EncodingKey::from_ed_der(&der),
        )
        .unwrap()
    }

    /// From now on, the introspection answer for a token is `answer(token)`.
    pub fn answer_introspection(&self, answer: impl Fn(&str) -> Value + Send + Sync + 'static) {
        *self.state.answer.lock().unwrap() = Arc::new(answer);
    }

    /// The introspection POSTs received so far.
    pub fn introspections(&self) -> usize {
        self.state.posts.load(Ordering::SeqCst)
    }

    /// The introspection requests being answered (or held) now.
    pub fn in_flight(&self) -> usize {
        self.state.in_flight.load(Ordering::SeqCst)
    }

    /// The most introspection requests that were in flight at once.
    pub fn most_in_flight(&self) -> usize {
        self.state.most_in_flight.load(Ordering::SeqCst)
    }

    /// Introspection requests wait, unanswered, until [`release`](Self::release).
    pub fn hold(&self) {
        self.state.held.send_replace(true);
    }

    /// Answers the held introspection requests, and the next ones at once.
    pub fn release(&self) {
        self.state.held.send_replace(false);
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Issuer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

fn json_response(value: &Value) -> Response {
    let mut r = Response::new(Body::from(value.to_string()));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

async fn metadata(Extract(state): Extract<Arc<State>>) -> Response {
    let issuer = &state.issuer;
    json_response(&json!({
        "issuer": issuer,
        "jwks_uri": format!("{issuer}/jwks"),
        "introspection_endpoint": format!("{issuer}/introspect"),
    }))
}

async fn jwks() -> Response {
    json_response(&json!({"keys": [
        {"kty": "OKP", "crv": "Ed25519", "x": PUBLIC_X, "kid": KID, "alg": "EdDSA", "use": "sig"}
    ]}))
}

/// Decrements the in-flight count when the request ends (answered or dropped).
struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn introspect(Extract(state): Extract<Arc<State>>, body: String) -> Response {
    state.posts.fetch_add(1, Ordering::SeqCst);
    let now = state.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    let _in_flight = InFlight(&state.in_flight);
    state.most_in_flight.fetch_max(now, Ordering::SeqCst);
    let Some(token) = body
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
        .map(form_decode)
    else {
        let mut r = json_response(&json!({"error": "invalid_request"}));
        *r.status_mut() = StatusCode::BAD_REQUEST;
        return r;
    };
    let mut held = state.held.subscribe();
    let _ = held.wait_for(|h| !*h).await;
    let answer = state.answer.lock().unwrap().clone();
    json_response(&answer(&token))
}

/// `application/x-www-form-urlencoded` decoding of one value.
fn form_decode(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hex: String = bytes.by_ref().take(2).map(char::from).collect();
                out.push(u8::from_str_radix(&hex, 16).unwrap_or(b'?'));
            }
            b => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
