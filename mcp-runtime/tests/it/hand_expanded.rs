//! What `#[tool]` expands to, written by hand: pins the `__private` API the macro targets.
//! The generated code silences the same lints: autoref specialization needs the explicit borrows
//! and imports both kind traits whichever one applies.
#![allow(unused_imports, clippy::needless_borrow)]

use std::sync::Arc;

use mcp_runtime::__private as p;
use mcp_runtime::prelude::*;
use test_support::call_detached;
use test_support::tasks::{Priority, Store, Task};

// -- user code, after #[tool] removed its helper attributes --
async fn add_task(
    store: &Store,
    title: String,
    priority: Priority,
    note: Option<String>,
) -> Result<Task, ToolError> {
    let _ = note;
    if title == "boom" {
        panic!("secret panic text");
    }
    if title == "nope" {
        return Err(ToolError::new("no nope"));
    }
    Ok(store.add(title, priority))
}

// -- generated --
#[allow(non_camel_case_types)]
struct add_task {}

impl p::ToolDef for add_task {
    fn spec() -> p::ToolSpec {
        fn input(b: &mut p::InputSchema) {
            {
                use p::{OptionArgKind as _, PlainArgKind as _};
                let probe = p::ArgProbe::<String>::new();
                (&probe).__mcp_arg_kind().declare(
                    &probe,
                    b,
                    p::ArgSpec {
                        name: "title",
                        description: Some("The task's title."),
                        default: None,
                        constraints: p::Constraints {
                            min_length: Some(3),
                            max_length: Some(80),
                            ..Default::default()
                        },
                    },
                );
            }
            {
                use p::{OptionArgKind as _, PlainArgKind as _};
                let probe = p::ArgProbe::<Priority>::new();
                (&probe).__mcp_arg_kind().declare(
                    &probe,
                    b,
                    p::ArgSpec {
                        name: "priority",
                        description: None,
                        default: Some(p::to_json::<Priority>(&Priority::Normal)),
                        constraints: Default::default(),
                    },
                );
            }
            {
                use p::{OptionArgKind as _, PlainArgKind as _};
                let probe = p::ArgProbe::<Option<String>>::new();
                (&probe).__mcp_arg_kind().declare(
                    &probe,
                    b,
                    p::ArgSpec {
                        name: "note",
                        ..Default::default()
                    },
                );
            }
        }
        fn output(g: &mut p::schemars::SchemaGenerator) -> Option<p::OutputSchema> {
            use p::{PlainRetKind as _, ResultRetKind as _};
            let probe = p::RetProbe::<Result<Task, ToolError>>::new();
            (&probe).__mcp_ret_kind().output_schema(&probe, g)
        }
        fn state() -> Vec<p::StateReq> {
            [p::state_req::<Store>()].into_iter().flatten().collect()
        }
        fn handler(
            mut parts: p::CallParts,
        ) -> p::BoxFuture<'static, Result<p::ToolOutput, ToolError>> {
            p::boxed(async move {
                use p::{
                    OptionArgKind as _, PlainArgKind as _, PlainRetKind as _, ResultRetKind as _,
                };
                let title: String = match p::take_arg(&mut parts, "title")? {
                    Some(v) => v,
                    None => {
                        let probe = p::ArgProbe::<String>::new();
                        (&probe).__mcp_arg_kind().absent(&probe, &parts, "title")?
                    }
                };
                let priority: Priority = match p::take_arg(&mut parts, "priority")? {
                    Some(v) => v,
                    None => Priority::Normal,
                };
                let note: Option<String> = match p::take_arg(&mut parts, "note")? {
                    Some(v) => v,
                    None => {
                        let probe = p::ArgProbe::<Option<String>>::new();
                        (&probe).__mcp_arg_kind().absent(&probe, &parts, "note")?
                    }
                };
                let store: &Store = p::inject::<Store>(&parts)?;
                let out = add_task(store, title, priority, note).await;
                let probe = p::RetProbe::<Result<Task, ToolError>>::new();
                (&probe).__mcp_ret_kind().convert(out)
            })
        }
        p::ToolSpec {
            name: "add_task",
            title: None,
            description: "Add an open task and return it with its new ID.",
            annotations: p::Annotations::NONE,
            input,
            output,
            state,
            handler,
            task: p::TaskSupport::Forbidden,
            scopes: &[],
        }
    }
}

#[tokio::test]
async fn hand_expanded_tool_round_trip() {
    let table = ToolTable::from_specs([<add_task as p::ToolDef>::spec()]);
    let mut state = StateMap::new();
    state.insert(Store(Default::default()));
    let state = Arc::new(state);
    let listing = table.get("add_task").unwrap().to_json().clone();
    println!("{}", serde_json::to_string_pretty(&listing).unwrap());
    assert_eq!(
        listing["inputSchema"]["required"],
        serde_json::json!(["title"])
    );
    assert_eq!(
        listing["inputSchema"]["properties"]["priority"]["default"],
        "normal"
    );
    assert_eq!(
        listing["inputSchema"]["properties"]["note"]["anyOf"][1],
        serde_json::json!({"type": "null"})
    );

    let call = async |arguments| call_detached(&table, &state, "add_task", arguments).await;
    let ok = call(serde_json::json!({"title": "Tag v1.2", "priority": "high"})).await;
    assert!(!ok.is_error);
    assert_eq!(ok.structured_content.unwrap()["id"], "T-1");

    let err = call(serde_json::json!({"title": "nope"})).await;
    assert_eq!(
        err.first_text(),
        Some("Error executing tool add_task: no nope")
    );

    let boom = call(serde_json::json!({"title": "boom"})).await;
    assert!(boom.is_error);
    assert_eq!(boom.first_text(), Some("Error executing tool add_task"));
    assert!(boom.meta.unwrap()["errorId"].is_string());
}
