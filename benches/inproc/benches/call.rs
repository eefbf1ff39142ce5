//! The cost of validation, valid and invalid, and of a whole call through `ToolTable::call` with
//! a spec written the way `#[tool]` expands (as in `tests/it/hand_expanded.rs`).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_runtime::__private as p;
use mcp_runtime::prelude::*;
use mcp_runtime::validate::Validator;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    Normal,
    High,
}

#[allow(non_camel_case_types)]
struct add_task {}

impl p::ToolDef for add_task {
    fn spec() -> p::ToolSpec {
        fn input(b: &mut p::InputSchema) {
            b.arg::<String>(p::ArgSpec {
                name: "title",
                description: Some("The task's title."),
                constraints: p::Constraints {
                    min_length: Some(3),
                    max_length: Some(80),
                    ..Default::default()
                },
                ..Default::default()
            });
            b.arg::<String>(p::ArgSpec {
                name: "task_id",
                constraints: p::Constraints {
                    pattern: Some(r"^T-\d+$"),
                    ..Default::default()
                },
                ..Default::default()
            });
            b.arg::<Priority>(p::ArgSpec {
                name: "priority",
                default: Some(json!("normal")),
                ..Default::default()
            });
            b.arg::<u32>(p::ArgSpec {
                name: "estimate",
                constraints: p::Constraints {
                    maximum: Some(p::Num::Int(9999)),
                    ..Default::default()
                },
                ..Default::default()
            });
            b.option_arg::<Vec<String>>(p::ArgSpec {
                name: "tags",
                constraints: p::Constraints {
                    max_items: Some(5),
                    ..Default::default()
                },
                ..Default::default()
            });
        }
        fn output(g: &mut p::schemars::SchemaGenerator) -> Option<p::OutputSchema> {
            p::PlainRet.output_schema(&p::RetProbe::<String>::new(), g)
        }
        fn state() -> Vec<p::StateReq> {
            Vec::new()
        }
        fn handler(
            mut parts: p::CallParts,
        ) -> p::BoxFuture<'static, Result<p::ToolOutput, ToolError>> {
            p::boxed(async move {
                let title: String = p::take_arg(&mut parts, "title")?.unwrap_or_default();
                let task_id: String = p::take_arg(&mut parts, "task_id")?.unwrap_or_default();
                let priority: Priority =
                    p::take_arg(&mut parts, "priority")?.unwrap_or(Priority::Normal);
                let estimate: u32 = p::take_arg(&mut parts, "estimate")?.unwrap_or_default();
                let tags: Option<Vec<String>> = p::take_arg(&mut parts, "tags")?.flatten();
                let text = format!(
                    "{task_id} {title} {priority:?} {estimate} {}",
                    tags.map_or(0, |t| t.len())
                );
                p::PlainRet.convert(text)
            })
        }
        p::ToolSpec {
            name: "add_task",
            title: None,
            description: "Add an open task.",
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

/// Builds one call's arguments afresh (validation takes them mutably).
type Args = fn() -> Value;

fn valid_args() -> Value {
    json!({
        "title": "Tag the release",
        "task_id": "T-1042",
        "priority": "high",
        "estimate": 30.0,
        "tags": ["release", "ops"]
    })
}

fn invalid_args() -> Value {
    json!({
        "title": "ab",
        "task_id": "T-١",
        "priority": "urgent",
        "estimate": "30",
        "tags": ["a", "b", "c", "d", "e", "f"],
        "colour": "red"
    })
}

fn bench(c: &mut Criterion) {
    let table = ToolTable::from_specs([<add_task as p::ToolDef>::spec()]);
    let schema = table.get("add_task").unwrap().input_schema().clone();
    let validator = Validator::compile(&schema).unwrap();
    assert!(validator.validate(&mut valid_args()).is_empty());
    assert_eq!(validator.validate(&mut invalid_args()).len(), 6);

    // (the `validate/` name, the `ToolTable::call/` name, the arguments)
    let cases: [(&str, &str, Args); 2] = [
        ("valid", "valid", valid_args),
        ("invalid (6 violations)", "invalid", invalid_args),
    ];
    for (name, _, args) in cases {
        c.bench_function(&format!("validate/{name}"), |b| {
            b.iter_batched_ref(
                args,
                |args| black_box(validator.validate(args)),
                criterion::BatchSize::SmallInput,
            )
        });
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let state = Arc::new(StateMap::new());
    let call = |args: Value| {
        runtime.block_on(table.call(
            &state,
            Context::detached("add_task"),
            "add_task",
            Some(args),
        ))
    };
    assert!(!call(valid_args()).unwrap().is_error);
    for (_, name, args) in cases {
        c.bench_function(&format!("ToolTable::call/{name}"), |b| {
            b.iter_batched(args, &call, criterion::BatchSize::SmallInput)
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
