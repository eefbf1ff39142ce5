//! The hostile-token battery: each case's status and challenge, then the server still serving a
//! valid call, and the JWKS fetched at most a few times for the whole battery.

use std::time::Duration;

use mcp_runtime::auth::Algorithm;
use serde_json::{Value, json};

use super::idp::{self, forge, hs256, mint, now};
use super::{call, call_with, claims, serve_jwt};

/// What a case expects: the status and the challenge's `error`.
struct Case {
    name: &'static str,
    authorization: Vec<String>,
    tool: &'static str,
    status: u16,
    error: Option<&'static str>,
}

fn bearer(name: &'static str, token: String, status: u16, error: Option<&'static str>) -> Case {
    Case {
        name,
        authorization: vec![format!("Bearer {token}")],
        tool: "list_tasks",
        status,
        error,
    }
}

const INVALID: Option<&str> = Some("invalid_token");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_tokens_are_refused_with_the_right_challenge() {
    let idp = idp::start(&["rsa", "ec", "ed"]).await;
    let iss = idp.issuer.clone();
    // A long refresh interval: the unknown kids below may cost one fetch, not one each.
    let served = serve_jwt(&iss, Duration::from_secs(60), Duration::from_secs(600)).await;
    let url = served.url.clone();
    let ok = claims(&iss, &url, "tasks:read");
    let with = |f: &dyn Fn(&mut Value)| {
        let mut c = ok.clone();
        f(&mut c);
        c
    };
    let rs = |c: &Value| mint(Algorithm::RS256, "rsa", Some("rsa-1"), Some("at+jwt"), c);
    let rsa_jwk = idp::public_jwks()["rsa"].clone();
    let none_header = json!({"alg": "none", "typ": "at+jwt"});
    let hs_header = json!({"alg": "HS256", "typ": "at+jwt", "kid": "rsa-1"});
    let good = rs(&ok);
    let (h, p, _) = {
        let mut parts = good.split('.');
        (
            parts.next().unwrap().to_owned(),
            parts.next().unwrap().to_owned(),
            (),
        )
    };

    let mut cases = vec![
        bearer("RS256 valid", good.clone(), 200, None),
        bearer(
            "ES256 valid",
            mint(Algorithm::ES256, "ec", Some("ec-1"), Some("at+jwt"), &ok),
            200,
            None,
        ),
        bearer(
            "EdDSA valid",
            mint(Algorithm::EdDSA, "ed", Some("ed-1"), Some("at+jwt"), &ok),
            200,
            None,
        ),
        bearer(
            "PS256 valid",
            mint(Algorithm::PS256, "rsa", Some("rsa-1"), Some("at+jwt"), &ok),
            200,
            None,
        ),
        bearer(
            "typ JWT",
            mint(Algorithm::RS256, "rsa", Some("rsa-1"), Some("JWT"), &ok),
            200,
            None,
        ),
        bearer(
            "typ application/at+jwt",
            mint(
                Algorithm::RS256,
                "rsa",
                Some("rsa-1"),
                Some("application/at+jwt"),
                &ok,
            ),
            200,
            None,
        ),
        bearer(
            "no kid, one fitting key",
            mint(Algorithm::ES256, "ec", None, Some("at+jwt"), &ok),
            200,
            None,
        ),
        bearer(
            "scp array",
            rs(&with(&|c| {
                c["scope"] = Value::Null;
                c.as_object_mut().unwrap().remove("scope");
                c["scp"] = json!(["tasks:read"]);
            })),
            200,
            None,
        ),
        bearer(
            "aud array with us",
            rs(&with(&|c| c["aud"] = json!(["other", url.clone()]))),
            200,
            None,
        ),
        bearer(
            "expired within leeway",
            rs(&with(&|c| c["exp"] = json!(now() - 20))),
            200,
            None,
        ),
        bearer(
            "broader scope implies narrower",
            rs(&with(&|c| c["scope"] = json!("tasks:admin"))),
            200,
            None,
        ),
        bearer("alg none", forge(&none_header, &ok, ""), 401, INVALID),
        bearer(
            "alg none with a signature",
            forge(&none_header, &ok, "c2ln"),
            401,
            INVALID,
        ),
        bearer(
            "alg None",
            forge(&json!({"alg": "None", "typ": "JWT"}), &ok, "c2ln"),
            401,
            INVALID,
        ),
        bearer(
            "HS256 with the RSA public key (JWK text)",
            hs256(&hs_header, &ok, rsa_jwk.to_string().as_bytes()),
            401,
            INVALID,
        ),
        bearer(
            "HS256 with the RSA modulus",
            hs256(&hs_header, &ok, rsa_jwk["n"].as_str().unwrap().as_bytes()),
            401,
            INVALID,
        ),
        bearer(
            "HS512",
            forge(
                &json!({"alg": "HS512", "typ": "JWT", "kid": "rsa-1"}),
                &ok,
                "c2ln",
            ),
            401,
            INVALID,
        ),
        bearer(
            "expired",
            rs(&with(&|c| c["exp"] = json!(now() - 3600))),
            401,
            INVALID,
        ),
        bearer(
            "exp missing",
            rs(&with(&|c| {
                c.as_object_mut().unwrap().remove("exp");
            })),
            401,
            INVALID,
        ),
        bearer(
            "exp not a number",
            rs(&with(&|c| c["exp"] = json!("soon"))),
            401,
            INVALID,
        ),
        bearer(
            "nbf in the future",
            rs(&with(&|c| c["nbf"] = json!(now() + 3600))),
            401,
            INVALID,
        ),
        bearer(
            "iat in the future",
            rs(&with(&|c| c["iat"] = json!(now() + 3600))),
            401,
            INVALID,
        ),
        bearer(
            "wrong iss",
            rs(&with(&|c| c["iss"] = json!("http://127.0.0.1:1"))),
            401,
            INVALID,
        ),
        bearer(
            "iss with a trailing slash",
            rs(&with(&|c| c["iss"] = json!(format!("{iss}/")))),
            401,
            INVALID,
        ),
        bearer(
            "iss missing",
            rs(&with(&|c| {
                c.as_object_mut().unwrap().remove("iss");
            })),
            401,
            INVALID,
        ),
        bearer(
            "aud missing",
            rs(&with(&|c| {
                c.as_object_mut().unwrap().remove("aud");
            })),
            401,
            INVALID,
        ),
        bearer(
            "aud wrong",
            rs(&with(&|c| c["aud"] = json!("http://127.0.0.1:1/mcp"))),
            401,
            INVALID,
        ),
        bearer(
            "aud array without us",
            rs(&with(&|c| c["aud"] = json!(["a", "b"]))),
            401,
            INVALID,
        ),
        bearer(
            "aud is the issuer",
            rs(&with(&|c| c["aud"] = json!(iss.clone()))),
            401,
            INVALID,
        ),
        bearer(
            "unknown kid",
            mint(Algorithm::RS256, "rsa", Some("nope"), Some("at+jwt"), &ok),
            401,
            INVALID,
        ),
        bearer(
            "signed by a key not published",
            mint(Algorithm::RS256, "rsa2", Some("rsa-1"), Some("at+jwt"), &ok),
            401,
            INVALID,
        ),
        bearer(
            "ES256 header, RSA kid",
            mint(Algorithm::ES256, "ec", Some("rsa-1"), Some("at+jwt"), &ok),
            401,
            INVALID,
        ),
        bearer(
            "RS256 header, EC kid",
            mint(Algorithm::RS256, "rsa", Some("ec-1"), Some("at+jwt"), &ok),
            401,
            INVALID,
        ),
        bearer(
            "typ JOSE",
            mint(Algorithm::RS256, "rsa", Some("rsa-1"), Some("JOSE"), &ok),
            401,
            INVALID,
        ),
        bearer(
            "typ missing",
            mint(Algorithm::RS256, "rsa", Some("rsa-1"), None, &ok),
            401,
            INVALID,
        ),
        bearer(
            "unknown crit header",
            {
                let header = json!({"alg": "RS256", "typ": "at+jwt", "kid": "rsa-1", "crit": ["exp"], "exp": 1});
                let signing = forge(&header, &ok, "");
                let signing = signing.trim_end_matches('.');
                let sig = idp::sign(Algorithm::RS256, "rsa", signing.as_bytes());
                format!("{signing}.{sig}")
            },
            401,
            INVALID,
        ),
        bearer("signature stripped", format!("{h}.{p}."), 401, INVALID),
        bearer("two parts", format!("{h}.{p}"), 401, INVALID),
        bearer("four parts", format!("{good}.x"), 401, INVALID),
        bearer(
            "signature of another token",
            format!(
                "{h}.{}.{}",
                forge(&json!({}), &with(&|c| c["sub"] = json!("mallory")), "")
                    .split('.')
                    .nth(1)
                    .unwrap(),
                good.split('.').nth(2).unwrap()
            ),
            401,
            INVALID,
        ),
        bearer(
            "broken base64 header",
            format!("ey~J.{p}.c2ln"),
            401,
            INVALID,
        ),
        bearer(
            "broken base64 payload",
            format!("{h}.e~y.c2ln"),
            401,
            INVALID,
        ),
        bearer(
            "broken base64 signature",
            format!("{h}.{p}.c2~ln"),
            401,
            INVALID,
        ),
        bearer(
            "header not JSON",
            format!("{}.{p}.c2ln", idp_b64("{not json")),
            401,
            INVALID,
        ),
        bearer(
            "payload not JSON",
            format!("{h}.{}.c2ln", idp_b64("{")),
            401,
            INVALID,
        ),
        bearer("20 KB token", "a".repeat(20 * 1024), 401, INVALID),
        Case {
            name: "no Authorization",
            authorization: vec![],
            tool: "list_tasks",
            status: 401,
            error: None,
        },
        Case {
            name: "Basic scheme",
            authorization: vec!["Basic dXNlcjpwYXNz".into()],
            tool: "list_tasks",
            status: 401,
            error: None,
        },
        Case {
            name: "Bearer without a token",
            authorization: vec!["Bearer".into()],
            tool: "list_tasks",
            status: 400,
            error: Some("invalid_request"),
        },
        Case {
            name: "Bearer with two words",
            authorization: vec![format!("Bearer {good} x")],
            tool: "list_tasks",
            status: 400,
            error: Some("invalid_request"),
        },
        Case {
            name: "two Authorization headers",
            authorization: vec![format!("Bearer {good}"), format!("Bearer {good}")],
            tool: "list_tasks",
            status: 400,
            error: Some("invalid_request"),
        },
        Case {
            name: "bearer in lower case",
            authorization: vec![format!("bearer {good}")],
            tool: "list_tasks",
            status: 200,
            error: None,
        },
        Case {
            name: "BEARER in upper case",
            authorization: vec![format!("BEARER {good}")],
            tool: "list_tasks",
            status: 200,
            error: None,
        },
        Case {
            name: "a scope missing",
            authorization: vec![format!("Bearer {good}")],
            tool: "add_task",
            status: 403,
            error: Some("insufficient_scope"),
        },
    ];
    // A flood of random kids: refused, and not one fetch each.
    for i in 0..30 {
        cases.push(bearer(
            "random kid",
            mint(
                Algorithm::RS256,
                "rsa",
                Some(&format!("kid-{i}")),
                Some("at+jwt"),
                &ok,
            ),
            401,
            INVALID,
        ));
    }
    let metadata = format!(
        "resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\"",
        served.addr
    );
    eprintln!("hostile-token battery: {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let auth: Vec<&str> = case.authorization.iter().map(String::as_str).collect();
        let answer = call_with(&url, &auth, case.tool, json!({"title": "t"})).await;
        let challenge_ok = match case.status {
            401 | 403 => answer
                .challenge
                .as_deref()
                .is_some_and(|c| c.starts_with("Bearer ") && c.contains(&metadata)),
            _ => true,
        };
        if answer.status != case.status || answer.error() != case.error || !challenge_ok {
            failures.push(format!(
                "{}: got {} {:?} {:?}",
                case.name, answer.status, answer.challenge, answer.body
            ));
        }
        let scope = match (case.status, case.tool) {
            (403, _) => Some("scope=\"tasks:write\""),
            (401, "list_tasks") => Some("scope=\"tasks:read\""),
            _ => None,
        };
        if let Some(scope) = scope
            && !answer.challenge.as_deref().unwrap_or("").contains(scope)
        {
            failures.push(format!(
                "{}: no {scope} in {:?}",
                case.name, answer.challenge
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 80, "{} cases", cases.len());
    // Alive, and the JWKS fetched once at start and at most once for every unknown kid.
    let answer = call(&url, &good, "list_tasks").await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        idp.jwks_fetches() <= 2,
        "the JWKS was fetched {} times",
        idp.jwks_fetches()
    );
    // A 1 MB token: over the header limit, refused before it is read; the server serves on.
    let mut headers = test_support::http::json_headers(None);
    headers.push(format!("Authorization: Bearer {}", "a".repeat(1024 * 1024)));
    let body = test_support::http::stateless_call(1, "list_tasks", json!({})).to_string();
    let request = test_support::http::post_bytes(served.addr, &headers, body.as_bytes());
    let answer = test_support::http::exchange(served.addr, &request).await;
    assert_eq!(answer.status, 431, "{answer:?}");
    assert_eq!(call(&url, &good, "list_tasks").await.status, 200);
    // The token in the query string.
    let answer = reqwest::Client::new()
        .post(format!("{url}?access_token={good}"))
        .header("content-type", "application/json")
        .body(test_support::http::stateless_call(1, "list_tasks", json!({})).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
}

fn idp_b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}
