//! The derives made through the runtime's re-exports publish and read what serde and schemars
//! would with direct dependencies.

use mcp_runtime::Client;
use mcp_runtime::serde_json::json;

#[tokio::test(flavor = "current_thread")]
async fn types_derived_through_the_runtime_are_published_validated_and_served() {
    let server = one_dependency::server().expect("a valid server");
    let client = Client::in_process(&server).await.unwrap();
    let tools = client.list_tools().await.unwrap();
    let to = &tools[0]["inputSchema"]["properties"]["to"];
    assert_eq!(to["required"], json!(["streetLine", "postalCode"]));
    assert_eq!(to["properties"]["postalCode"]["minLength"], 3);

    let ship = async |postal_code: &str| {
        let to = json!({"streetLine": "1 Main St", "postalCode": postal_code});
        client
            .call_tool("ship", json!({"order": 7, "to": to}))
            .await
            .unwrap()
    };
    let shipped = ship("12345").await;
    assert_eq!(
        shipped.structured_content,
        Some(json!({"id": "S-7", "label": "1 Main St, 12345"}))
    );
    let refused = ship("1").await;
    assert!(refused.is_error, "{refused:?}");

    let logo = client.call_tool("logo", json!({})).await.unwrap();
    assert_eq!(logo.content[0].to_json()["data"], "iVBORw==");
}
