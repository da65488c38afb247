//! A real OAuth 2.1 authorization server for the tests: `oidc-provider` (npm) run by
//! `scripts/interop/oidc/provider.mjs` on 127.0.0.1, installed under `target/interop/` by
//! `scripts/interop-setup` (which `scripts/test-all` runs before `cargo test`).
//!
//! ```no_run
//! # async fn demo() {
//! use tests::oidc::{Provider, SVC};
//! let issuer = Provider::start().await;
//! let resource = "http://127.0.0.1:8080/mcp";
//! let token = issuer.token(SVC.0, SVC.1, "notes:read", resource).await;
//! let (header, claims) = tests::oidc::jwt_parts(&token);
//! assert_eq!(claims["aud"], resource);
//! assert_eq!(header["alg"], "RS256");
//! # }
//! ```
//!
//! The clients (secret = `<id>-secret`; the consts below are `(id, secret)`), for a
//! resource `R` on `http://127.0.0.1:*` or `http://localhost:*`:
//!
//! | client | scopes | access token |
//! | --- | --- | --- |
//! | [`SVC`] `svc` | `profile:read notes:read notes:write` | JWT, RS256, 600 s, `aud` = R |
//! | [`READER`] `reader` | `notes:read` | JWT, RS256, 600 s |
//! | [`SHORT_LIVED`] `short-lived` | all three | JWT, RS256, **2 s** |
//! | [`ES256`] `es256` | all three | JWT, **ES256** (P-256), 600 s |
//! | [`EDDSA`] `eddsa` | all three | JWT, **EdDSA** (Ed25519), 600 s |
//! | [`OPAQUE`] `opaque` | all three | **opaque** (introspectable), 600 s |
//! | [`INTROSPECTOR`] `introspector` | none (no tokens) | calls the introspection endpoint |
//!
//! A token requested without a resource is opaque and has no audience.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

/// `(client_id, client_secret)`: all three scopes, RS256 JWTs of 600 s.
pub const SVC: (&str, &str) = ("svc", "svc-secret");
/// `notes:read` only.
pub const READER: (&str, &str) = ("reader", "reader-secret");
/// All three scopes, RS256 JWTs that expire 2 s after they are issued.
pub const SHORT_LIVED: (&str, &str) = ("short-lived", "short-lived-secret");
/// All three scopes, ES256 (P-256) JWTs.
pub const ES256: (&str, &str) = ("es256", "es256-secret");
/// All three scopes, EdDSA (Ed25519) JWTs.
pub const EDDSA: (&str, &str) = ("eddsa", "eddsa-secret");
/// All three scopes, opaque access tokens (checked by introspection, RFC 7662).
pub const OPAQUE: (&str, &str) = ("opaque", "opaque-secret");
/// Gets no tokens; the resource server's credentials for the introspection endpoint.
pub const INTROSPECTOR: (&str, &str) = ("introspector", "introspector-secret");

/// How long the provider may take to print its ready line.
const READY_TIMEOUT: Duration = Duration::from_secs(30);
/// A bound on every request the helper makes.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// A running `provider.mjs`, stopped (by its PID) when dropped.
pub struct Provider {
    child: Child,
    // Held open: the provider exits when its stdin closes (`--exit-with-stdin`), so it cannot
    // outlive a test process that is killed before it drops this.
    _stdin: Option<ChildStdin>,
    issuer: String,
    pid: u32,
    http: reqwest::Client,
    logs: Arc<Mutex<Vec<String>>>,
}

impl Provider {
    /// Starts the provider on a free port of 127.0.0.1 and waits (at most 30 s) until it
    /// is ready. Panics, saying how to install it, when `scripts/interop-setup` has not run.
    pub async fn start() -> Self {
        Self::start_on(0).await
    }

    /// Starts the provider on `127.0.0.1:port` (0 = any free port): for a provider that
    /// comes back at the same issuer after [`stop`](Self::stop).
    pub async fn start_on(port: u16) -> Self {
        let (node, script) = match (
            crate::interop_env("INTEROP_NODE"),
            crate::interop_env("INTEROP_OIDC_PROVIDER"),
        ) {
            (Some(node), Some(script)) if std::path::Path::new(&script).exists() => (node, script),
            _ => panic!(
                "the test authorization server (oidc-provider) is not installed: run \
                 scripts/interop-setup (scripts/test-all runs it), which writes \
                 INTEROP_NODE and INTEROP_OIDC_PROVIDER to {}",
                crate::interop_env_file().display()
            ),
        };
        let mut child = Command::new(&node)
            .arg(&script)
            .args(["--port", &port.to_string(), "--exit-with-stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {node} {script}: {e}"));
        let stdin = child.stdin.take();
        let logs = Arc::new(Mutex::new(Vec::new()));
        if let Some(stderr) = child.stderr.take() {
            let logs = logs.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    logs.lock().unwrap().push(line);
                }
            });
        }
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let ready = tokio::time::timeout(READY_TIMEOUT, lines.next_line()).await;
        let line = match ready {
            Ok(Ok(Some(line))) => line,
            other => {
                let _ = child.kill().await;
                // Give the stderr reader a moment to collect the reason.
                tokio::time::sleep(Duration::from_millis(100)).await;
                panic!(
                    "provider.mjs printed no ready line ({}):\n{}",
                    match other {
                        Err(_) => format!("not within {READY_TIMEOUT:?}"),
                        Ok(Ok(None)) => "it exited".into(),
                        Ok(Err(e)) => e.to_string(),
                        Ok(Ok(Some(_))) => unreachable!(),
                    },
                    logs.lock().unwrap().join("\n")
                );
            }
        };
        let ready: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("provider.mjs ready line {line:?}: {e}"));
        let issuer = ready["issuer"].as_str().expect("issuer").to_owned();
        let pid = ready["pid"].as_u64().expect("pid") as u32;
        assert_eq!(Some(pid), child.id(), "the ready line names the child");
        // Nothing else is printed on stdout; drain it so that the pipe never fills.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .no_proxy()
            .build()
            .expect("an HTTP client");
        Self {
            child,
            _stdin: stdin,
            issuer,
            pid,
            http,
            logs,
        }
    }

    /// `http://127.0.0.1:PORT` (no path, no trailing slash).
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The provider's port.
    pub fn port(&self) -> u16 {
        self.issuer
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("the issuer has a port")
    }

    /// The process id of the `node` process.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// `ISSUER/jwks`.
    pub fn jwks_uri(&self) -> String {
        format!("{}/jwks", self.issuer)
    }

    /// `ISSUER/token`.
    pub fn token_endpoint(&self) -> String {
        format!("{}/token", self.issuer)
    }

    /// `ISSUER/token/introspection` (RFC 7662).
    pub fn introspection_endpoint(&self) -> String {
        format!("{}/token/introspection", self.issuer)
    }

    /// What the provider logged on stderr so far.
    pub fn logs(&self) -> String {
        self.logs.lock().unwrap().join("\n")
    }

    /// A client-credentials access token for `resource` (its `aud`), with `scope`
    /// (space-separated; `""` asks for none). Panics when the provider refuses.
    pub async fn token(
        &self,
        client_id: &str,
        secret: &str,
        scope: &str,
        resource: &str,
    ) -> String {
        let (status, body) = self
            .token_response(client_id, secret, scope, Some(resource))
            .await;
        assert_eq!(status, 200, "token request of {client_id} refused: {body}");
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access_token: {body}"))
            .to_owned()
    }

    /// The raw token response (status, JSON body) of a client-credentials request with
    /// Basic authentication; `resource: None` sends no resource indicator.
    pub async fn token_response(
        &self,
        client_id: &str,
        secret: &str,
        scope: &str,
        resource: Option<&str>,
    ) -> (u16, Value) {
        let mut form = vec![("grant_type", "client_credentials")];
        if !scope.is_empty() {
            form.push(("scope", scope));
        }
        if let Some(resource) = resource {
            form.push(("resource", resource));
        }
        let response = self
            .http
            .post(self.token_endpoint())
            .basic_auth(client_id, Some(secret))
            .form(&form)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {}: {e}", self.token_endpoint()));
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(Value::Null);
        (status, body)
    }

    /// Introspects `token` (RFC 7662) as `client`; the JSON answer.
    pub async fn introspect(&self, client: (&str, &str), token: &str) -> Value {
        let response = self
            .http
            .post(self.introspection_endpoint())
            .basic_auth(client.0, Some(client.1))
            .form(&[("token", token)])
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {}: {e}", self.introspection_endpoint()));
        response.json().await.expect("an introspection answer")
    }

    /// The JWKS (`{"keys": [...]}`, public keys only).
    pub async fn jwks(&self) -> Value {
        self.get_json(&self.jwks_uri()).await
    }

    /// A GET of `ISSUER<path>`, as JSON (`path` starts with `/`).
    pub async fn get_json(&self, path_or_url: &str) -> Value {
        let url = if path_or_url.starts_with('/') {
            format!("{}{path_or_url}", self.issuer)
        } else {
            path_or_url.to_owned()
        };
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        assert!(
            response.status().is_success(),
            "GET {url}: {}",
            response.status()
        );
        response.json().await.expect("JSON")
    }

    /// New signing keys (one per algorithm) sign every token issued from now on; the JWKS
    /// lists them first and still the previous ones. Returns the provider's state
    /// (`current_kids` by algorithm, `jwks_kids`).
    pub async fn rotate(&self) -> Value {
        self.control("rotate").await
    }

    /// The JWKS lists only the current keys (tokens signed before [`rotate`](Self::rotate)
    /// no longer verify against it).
    pub async fn retire(&self) -> Value {
        self.control("retire").await
    }

    /// For `duration`, every request (but the test controls) is answered 503
    /// `temporarily_unavailable`; `Duration::ZERO` ends an outage.
    pub async fn outage(&self, duration: Duration) -> Value {
        self.control(&format!("outage?seconds={}", duration.as_secs_f64()))
            .await
    }

    /// For `duration`, every request's connection is closed without an answer.
    pub async fn outage_dropping(&self, duration: Duration) -> Value {
        self.control(&format!(
            "outage?seconds={}&mode=drop",
            duration.as_secs_f64()
        ))
        .await
    }

    /// The current kids, the published kids and the outage, if any.
    pub async fn state(&self) -> Value {
        self.get_json("/_test/state").await
    }

    async fn control(&self, what: &str) -> Value {
        let url = format!("{}/_test/{what}", self.issuer);
        let response = self
            .http
            .post(&url)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {url}: {e}"));
        assert!(
            response.status().is_success(),
            "POST {url}: {}",
            response.status()
        );
        response.json().await.expect("the provider's state")
    }

    /// Stops the provider (its process, by PID) and waits until it has exited; its port
    /// then refuses connections. Idempotent.
    pub async fn stop(&mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("issuer", &self.issuer)
            .field("pid", &self.pid)
            .finish_non_exhaustive()
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// The JSON header and claims of a compact JWS (not verified). Panics when `token` is not
/// three base64url parts with JSON in the first two.
pub fn jwt_parts(token: &str) -> (Value, Value) {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "not a compact JWS: {token}");
    let decode = |part: &str| -> Value {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap_or_else(|e| panic!("base64url part {part:?}: {e}"));
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("JSON part {part:?}: {e}"))
    };
    (decode(parts[0]), decode(parts[1]))
}
