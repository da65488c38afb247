//! The test authorization server itself (`tests::oidc`, `oidc-provider` run by
//! `scripts/interop/oidc/provider.mjs`, installed by `scripts/interop-setup`): what the
//! token-validation tests rely on, checked against the real thing.

use std::time::Duration;

use serde_json::Value;
use tests::oidc::{
    EDDSA, ES256, INTROSPECTOR, OPAQUE, Provider, READER, SHORT_LIVED, SVC, jwt_parts,
};

const ALL: &str = "profile:read notes:read notes:write";

fn resource() -> String {
    // Any loopback port: the MCP server's port varies from test to test.
    format!("http://127.0.0.1:{}/mcp", 40000 + fastrand::u16(..20000))
}

/// The JWKS entry of `kid`, if it is published.
fn jwk<'a>(jwks: &'a Value, kid: &str) -> Option<&'a Value> {
    jwks["keys"].as_array()?.iter().find(|k| k["kid"] == kid)
}

fn kids(jwks: &Value) -> Vec<String> {
    jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|k| k["kid"].as_str().expect("kid").to_owned())
        .collect()
}

#[tokio::test]
async fn both_metadata_documents_name_the_issuer() {
    let p = Provider::start().await;
    assert!(
        p.issuer().starts_with("http://127.0.0.1:"),
        "{}",
        p.issuer()
    );
    assert!(!p.issuer().ends_with('/'));
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let doc = p.get_json(path).await;
        assert_eq!(doc["issuer"], p.issuer(), "{path}: {doc}");
        assert_eq!(doc["token_endpoint"], p.token_endpoint(), "{path}");
        assert_eq!(doc["jwks_uri"], p.jwks_uri(), "{path}");
        assert_eq!(
            doc["introspection_endpoint"],
            p.introspection_endpoint(),
            "{path}"
        );
        let list = |field: &str| -> Vec<String> {
            doc[field]
                .as_array()
                .unwrap_or_else(|| panic!("{path}: no {field}: {doc}"))
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect()
        };
        assert!(list("grant_types_supported").contains(&"client_credentials".into()));
        for method in ["client_secret_basic", "client_secret_post"] {
            assert!(list("token_endpoint_auth_methods_supported").contains(&method.into()));
        }
        for scope in ALL.split(' ') {
            assert!(list("scopes_supported").contains(&scope.into()), "{scope}");
        }
    }
}

#[tokio::test]
async fn a_token_for_a_resource_is_an_rs256_jwt_with_that_audience() {
    let p = Provider::start().await;
    let r = resource();
    let (status, body) = p.token_response(SVC.0, SVC.1, ALL, Some(&r)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["token_type"], "Bearer");
    assert_eq!(body["expires_in"], 600);
    assert_eq!(body["scope"], ALL);

    let token = body["access_token"].as_str().unwrap();
    let (header, claims) = jwt_parts(token);
    assert_eq!(header["alg"], "RS256", "{header}");
    assert_eq!(header["typ"], "at+jwt", "{header}");
    assert_eq!(claims["aud"], r.as_str(), "{claims}");
    assert_eq!(claims["iss"], p.issuer(), "{claims}");
    assert_eq!(claims["scope"], ALL, "{claims}");
    assert_eq!(claims["client_id"], "svc", "{claims}");
    assert_eq!(claims["sub"], "svc", "{claims}");
    let (iat, exp) = (
        claims["iat"].as_i64().unwrap(),
        claims["exp"].as_i64().unwrap(),
    );
    assert_eq!(exp - iat, 600, "{claims}");
    assert!(claims["jti"].is_string(), "{claims}");

    let jwks = p.jwks().await;
    let kid = header["kid"].as_str().expect("a kid");
    let key = jwk(&jwks, kid).unwrap_or_else(|| panic!("{kid} not in {jwks}"));
    assert_eq!(key["kty"], "RSA", "{key}");
    assert_eq!(key["alg"], "RS256", "{key}");
    for private in ["d", "p", "q", "dp", "dq", "qi"] {
        assert!(key.get(private).is_none(), "the JWKS leaks {private}");
    }

    // A narrower scope, a localhost resource with a path of its own, client_secret_basic
    // through the helper.
    let r2 = "http://localhost:8931/tenants/a/mcp";
    let (_, claims) = jwt_parts(&p.token(SVC.0, SVC.1, "notes:read", r2).await);
    assert_eq!(claims["aud"], r2);
    assert_eq!(claims["scope"], "notes:read");
}

#[tokio::test]
async fn clients_get_only_their_scopes_and_loopback_resources() {
    let p = Provider::start().await;
    let r = resource();
    let (status, body) = p
        .token_response(READER.0, READER.1, "notes:write", Some(&r))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "invalid_scope", "{body}");
    let (status, body) = p
        .token_response(READER.0, READER.1, "notes:read notes:write", Some(&r))
        .await;
    assert_eq!(
        (status, &body["error"]),
        (400, &"invalid_scope".into()),
        "{body}"
    );
    let (_, claims) = jwt_parts(&p.token(READER.0, READER.1, "notes:read", &r).await);
    assert_eq!(claims["scope"], "notes:read");

    for elsewhere in [
        "https://mcp.example.com/mcp",
        "http://10.0.0.1:80/mcp",
        "urn:x",
    ] {
        let (status, body) = p.token_response(SVC.0, SVC.1, ALL, Some(elsewhere)).await;
        assert_eq!(status, 400, "{elsewhere}: {body}");
        assert_eq!(body["error"], "invalid_target", "{elsewhere}: {body}");
    }

    let (status, body) = p.token_response(SVC.0, "wrong", ALL, Some(&r)).await;
    assert_eq!(
        (status, &body["error"]),
        (401, &"invalid_client".into()),
        "{body}"
    );
    let (status, body) = p
        .token_response(INTROSPECTOR.0, INTROSPECTOR.1, "", None)
        .await;
    assert_eq!(
        status, 400,
        "the introspection client gets no tokens: {body}"
    );
}

#[tokio::test]
async fn es256_and_eddsa_clients_get_tokens_signed_with_published_keys() {
    let p = Provider::start().await;
    let r = resource();
    let jwks = p.jwks().await;
    for (client, alg, kty, crv) in [
        (ES256, "ES256", "EC", "P-256"),
        (EDDSA, "EdDSA", "OKP", "Ed25519"),
    ] {
        let (header, claims) = jwt_parts(&p.token(client.0, client.1, ALL, &r).await);
        assert_eq!(header["alg"], alg, "{header}");
        assert_eq!(claims["aud"], r.as_str());
        assert_eq!(claims["iss"], p.issuer());
        let kid = header["kid"].as_str().unwrap();
        let key = jwk(&jwks, kid).unwrap_or_else(|| panic!("{kid} not in {jwks}"));
        assert_eq!(
            (&key["kty"], &key["crv"]),
            (&kty.into(), &crv.into()),
            "{key}"
        );
        assert!(key.get("d").is_none(), "the JWKS leaks a private key");
    }
}

#[tokio::test]
async fn the_short_lived_client_gets_two_second_tokens() {
    let p = Provider::start().await;
    let r = resource();
    let (status, body) = p
        .token_response(SHORT_LIVED.0, SHORT_LIVED.1, "notes:read", Some(&r))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["expires_in"], 2);
    let (header, claims) = jwt_parts(body["access_token"].as_str().unwrap());
    assert_eq!(header["alg"], "RS256");
    let (iat, exp) = (
        claims["iat"].as_i64().unwrap(),
        claims["exp"].as_i64().unwrap(),
    );
    assert_eq!(exp - iat, 2, "{claims}");
}

#[tokio::test]
async fn rotation_signs_new_tokens_with_a_new_key_and_retire_unpublishes_the_old() {
    let p = Provider::start().await;
    let r = resource();
    let kid_of = |token: String| jwt_parts(&token).0["kid"].as_str().unwrap().to_owned();
    let old = kid_of(p.token(SVC.0, SVC.1, ALL, &r).await);
    let old_ec = kid_of(p.token(ES256.0, ES256.1, ALL, &r).await);
    assert_eq!(kids(&p.jwks().await).len(), 3, "one key per algorithm");

    let state = p.rotate().await;
    let new = kid_of(p.token(SVC.0, SVC.1, ALL, &r).await);
    let new_ec = kid_of(p.token(ES256.0, ES256.1, ALL, &r).await);
    assert_ne!(new, old);
    assert_ne!(new_ec, old_ec);
    assert_eq!(state["current_kids"]["RS256"], new.as_str(), "{state}");
    let published = kids(&p.jwks().await);
    for kid in [&old, &new, &old_ec, &new_ec] {
        assert!(published.contains(kid), "{kid} not in {published:?}");
    }
    assert_eq!(published.len(), 6, "{published:?}");
    // The issuer and the clients did not change.
    let doc = p.get_json("/.well-known/oauth-authorization-server").await;
    assert_eq!(doc["issuer"], p.issuer());

    p.retire().await;
    let published = kids(&p.jwks().await);
    assert!(
        published.contains(&new) && published.contains(&new_ec),
        "{published:?}"
    );
    assert!(
        !published.contains(&old) && !published.contains(&old_ec),
        "{published:?}"
    );
    assert_eq!(published.len(), 3, "{published:?}");
    assert_eq!(kid_of(p.token(SVC.0, SVC.1, ALL, &r).await), new);
}

#[tokio::test]
async fn opaque_tokens_are_introspected() {
    let p = Provider::start().await;
    let r = resource();
    let token = p
        .token(OPAQUE.0, OPAQUE.1, "notes:read notes:write", &r)
        .await;
    assert!(!token.contains('.'), "not a JWT: {token}");

    let answer = p.introspect(INTROSPECTOR, &token).await;
    assert_eq!(answer["active"], true, "{answer}");
    assert_eq!(answer["scope"], "notes:read notes:write", "{answer}");
    assert_eq!(answer["aud"], r.as_str(), "{answer}");
    assert_eq!(answer["iss"], p.issuer(), "{answer}");
    assert_eq!(answer["client_id"], "opaque", "{answer}");
    assert_eq!(answer["token_type"], "Bearer", "{answer}");
    let (iat, exp) = (
        answer["iat"].as_i64().unwrap(),
        answer["exp"].as_i64().unwrap(),
    );
    assert_eq!(exp - iat, 600, "{answer}");

    let garbage = p.introspect(INTROSPECTOR, "not-a-token-at-all").await;
    assert_eq!(garbage, serde_json::json!({"active": false}));

    // Without a resource indicator the token is opaque and has no audience.
    let (status, body) = p.token_response(SVC.0, SVC.1, "notes:read", None).await;
    assert_eq!(status, 200, "{body}");
    let unbound = p
        .introspect(INTROSPECTOR, body["access_token"].as_str().unwrap())
        .await;
    assert_eq!(unbound["active"], true, "{unbound}");
    assert!(unbound.get("aud").is_none(), "{unbound}");

    // Tokens survive a key rotation (one store for the provider's lifetime).
    p.rotate().await;
    assert_eq!(p.introspect(INTROSPECTOR, &token).await["active"], true);

    // JWT access tokens are not introspectable (oidc-provider's rule).
    let jwt = p.token(SVC.0, SVC.1, ALL, &r).await;
    let answer = p.introspect(INTROSPECTOR, &jwt).await;
    assert_eq!(answer["error"], "unsupported_token_type", "{answer}");
}

#[tokio::test]
async fn an_outage_fails_requests_for_its_duration_then_the_issuer_recovers() {
    let mut p = Provider::start().await;
    let r = resource();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let jwks = p.jwks_uri();
    assert_eq!(http.get(&jwks).send().await.unwrap().status(), 200);

    let state = p.outage(Duration::from_millis(1500)).await;
    assert_eq!(state["outage"]["mode"], "503", "{state}");
    let response = http.get(&jwks).send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    let (status, body) = p.token_response(SVC.0, SVC.1, ALL, Some(&r)).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], "temporarily_unavailable", "{body}");
    tokio::time::sleep(Duration::from_millis(1700)).await;
    assert_eq!(http.get(&jwks).send().await.unwrap().status(), 200);
    p.token(SVC.0, SVC.1, ALL, &r).await;

    // Dropped connections, ended early.
    p.outage_dropping(Duration::from_secs(60)).await;
    let err = http
        .get(&jwks)
        .send()
        .await
        .expect_err("no answer during the outage");
    assert!(!err.is_timeout(), "dropped, not stalled: {err}");
    p.outage(Duration::ZERO).await;
    assert_eq!(http.get(&jwks).send().await.unwrap().status(), 200);

    // Stopped: connections are refused; restarted on the same port: the same issuer.
    let (issuer, port) = (p.issuer().to_owned(), p.port());
    p.stop().await;
    assert!(http.get(&jwks).send().await.is_err(), "stopped");
    let p = Provider::start_on(port).await;
    assert_eq!(p.issuer(), issuer);
    assert_eq!(http.get(&jwks).send().await.unwrap().status(), 200);
}
