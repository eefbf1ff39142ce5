//! `task` / `task = "optional" | "required" | "forbidden"`: whether a tool can be called as a
//! task (the spec's `execution.taskSupport`).

use syn::Meta;

use super::keys::{closest, path_text};
use super::slot::Sp;
use super::value::parse_lit_str;
use crate::ctxt::Ctxt;

/// The values of `execution.taskSupport`, as published.
pub(crate) const TASK_VALUES: [&str; 3] = ["optional", "required", "forbidden"];

/// `execution.taskSupport`, as the key gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskKey {
    Optional,
    Required,
    Forbidden,
}

impl TaskKey {
    /// The runtime's `TaskSupport` variant this value names.
    pub(crate) fn variant(self) -> &'static str {
        match self {
            TaskKey::Optional => "Optional",
            TaskKey::Required => "Required",
            TaskKey::Forbidden => "Forbidden",
        }
    }
}

/// A bare `task` is `"optional"`: the tool runs as a task when the client can take one.
pub(super) fn parse_task(cx: &Ctxt, meta: &Meta) -> Option<Sp<TaskKey>> {
    if let Meta::Path(p) = meta {
        return Some(Sp::spanned(TaskKey::Optional, p));
    }
    let lit = parse_lit_str(cx, meta)?;
    let written = lit.value.value();
    let key = match written.as_str() {
        "optional" => TaskKey::Optional,
        "required" => TaskKey::Required,
        "forbidden" => TaskKey::Forbidden,
        _ => {
            let hint = closest(&written, &TASK_VALUES)
                .map(|v| format!("; did you mean \"{v}\"?"))
                .unwrap_or_default();
            cx.error_at(
                lit.span,
                format!(
                    "unknown `{}` value `{written}`{hint}\nexpected `task`, `task = \"optional\"`, `task = \"required\"` or `task = \"forbidden\"`",
                    path_text(meta.path())
                ),
            );
            return None;
        }
    };
    Some(Sp::new(key, lit.span))
}
