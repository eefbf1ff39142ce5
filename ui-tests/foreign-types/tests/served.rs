//! chrono's and uuid's types, through the runtime's features: published with their formats,
//! checked before the body runs, decoded and encoded by their own serde impls.

use mcp_runtime::Client;
use mcp_runtime::resource::ResourceBody;
use mcp_runtime::serde_json::{Value, json};

const ID: &str = "67e55044-10b1-426f-9247-bb680e5fe0c8";

fn incident(started: &str, due: Value) -> Value {
    json!({"title": "disk full", "started": started, "due": due})
}

#[tokio::test(flavor = "current_thread")]
async fn chrono_and_uuid_types_are_published_checked_and_served() {
    let server = foreign_types::server().expect("a valid server");
    let client = Client::in_process(&server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let input = &tools[0]["inputSchema"];
    assert_eq!(input["properties"]["id"]["format"], "uuid");
    let props = &input["properties"]["incident"]["properties"];
    assert_eq!(props["started"]["format"], "date-time");
    let output = &tools[0]["outputSchema"]["properties"];
    assert_eq!(output["id"]["format"], "uuid");

    let call = async |id: &str, incident: Value| {
        client
            .call_tool("open_incident", json!({"id": id, "incident": incident}))
            .await
            .unwrap()
    };
    let opened = call(ID, incident("2026-12-01T22:00:00Z", json!("2026-12-03"))).await;
    assert!(!opened.is_error, "{opened:?}");
    assert_eq!(
        opened.structured_content,
        Some(
            json!({"id": ID, "title": "disk full", "started": "2026-12-01T22:00:00Z", "hours_to_due": 26})
        )
    );

    // Each refused with the field and the rule, before the body runs.
    for (id, incident, needle) in [
        (
            "not-a-uuid",
            incident("2026-12-01T22:00:00Z", Value::Null),
            "/id: must be a valid uuid",
        ),
        (
            ID,
            incident("yesterday", Value::Null),
            "/incident/started: must be a valid date-time",
        ),
        (
            ID,
            incident("2026-12-01T22:00:00Z", json!("2026-02-30")),
            "/incident/due: must be a valid date",
        ),
    ] {
        let refused = call(id, incident).await;
        assert!(refused.is_error, "{needle}: {refused:?}");
        let text = refused.content[0].to_json()["text"].to_string();
        assert!(text.contains(needle), "{needle}: {text}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn uuid_and_date_are_template_variables() {
    let server = foreign_types::server().expect("a valid server");
    let client = Client::in_process(&server).await.unwrap();
    let read = client
        .read_resource(&format!("incidents://{ID}/2026-12-03"))
        .await
        .unwrap();
    let text = format!("log of {ID} on 03 December 2026");
    assert_eq!(read[0].body, ResourceBody::Text(text));
    // Not a uuid, not a day: invalid params naming the variable.
    for (uri, needle) in [
        (
            "incidents://not-a-uuid/2026-12-03".to_owned(),
            "`id` cannot be \"not-a-uuid\" (-32602)",
        ),
        (
            format!("incidents://{ID}/2026-02-30"),
            "`day` cannot be \"2026-02-30\" (-32602)",
        ),
    ] {
        let err = client.read_resource(&uri).await.expect_err(&uri);
        assert!(err.to_string().contains(needle), "{uri}: {err}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn datetime_version_smolstr_and_url_are_template_variables() {
    let server = foreign_types::server().expect("a valid server");
    let client = Client::in_process(&server).await.unwrap();
    let read = client
        .read_resource("releases://beta/2.1.0-rc.1/2026-12-01T22:30:00Z")
        .await
        .unwrap();
    let text = "beta 2.1.0 (pre \"rc.1\") shipped 01 December 2026 at 22:30 UTC";
    assert_eq!(read[0].body, ResourceBody::Text(text.into()));
    // The offset is read by chrono and the time given in UTC.
    let read = client
        .read_resource("releases://stable/1.0.0/2026-12-02T01:30:00%2B03:00")
        .await
        .unwrap();
    let text = "stable 1.0.0 (pre \"\") shipped 01 December 2026 at 22:30 UTC";
    assert_eq!(read[0].body, ResourceBody::Text(text.into()));
    let read = client
        .read_resource("links://https://example.com/runbooks/disk?full=1")
        .await
        .unwrap();
    let text = "https link to example.com (path /runbooks/disk)";
    assert_eq!(read[0].body, ResourceBody::Text(text.into()));

    // A version semver refuses, a time chrono refuses, a URL the url crate refuses (relative):
    // invalid params naming the variable.
    for (uri, needle) in [
        (
            "releases://beta/2.1/2026-12-01T22:30:00Z",
            "`version` cannot be \"2.1\" (-32602)",
        ),
        (
            "releases://beta/2.1.0/yesterday",
            "`shipped` cannot be \"yesterday\" (-32602)",
        ),
        (
            "releases://beta/2.1.0/2026-02-30T10:00:00Z",
            "`shipped` cannot be \"2026-02-30T10:00:00Z\" (-32602)",
        ),
        (
            "links://runbooks/disk",
            "`target` cannot be \"runbooks/disk\" (-32602)",
        ),
    ] {
        let err = client.read_resource(uri).await.expect_err(uri);
        assert!(err.to_string().contains(needle), "{uri}: {err}");
    }
}
