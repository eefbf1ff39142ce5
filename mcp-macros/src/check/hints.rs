//! The annotation hints a client reads: no pair of them that contradicts itself; `inline` and
//! `task`, which each fit one kind of body.

use crate::ctxt::Ctxt;
use crate::model::ToolFn;

/// `readOnlyHint: true` says the tool changes nothing, `destructiveHint: true` that it may destroy
/// data; a client cannot honour both.
pub(super) fn check_hints(cx: &Ctxt, tool: &ToolFn) {
    let (Some(ro), Some(de)) = (tool.attrs.read_only.get(), tool.attrs.destructive.get()) else {
        return;
    };
    if ro.value && de.value {
        let key = tool.attrs.destructive.key_span().unwrap_or(de.span);
        cx.error_at(
            key,
            "a tool cannot be both `read_only` and `destructive`: a read-only tool changes nothing, so it destroys nothing; remove one",
        );
    }
}

/// `inline` moves a synchronous body off the blocking pool; an async body is polled on the
/// request's task already, so the key would say nothing.
pub(super) fn check_inline(cx: &Ctxt, tool: &ToolFn) {
    if let Some(inline) = tool.attrs.inline.get()
        && inline.value
        && tool.is_async()
    {
        let key = tool.attrs.inline.key_span().unwrap_or(inline.span);
        cx.error_at(
            key,
            "`inline` applies to synchronous tools: an async tool is already polled on the task that serves the request; remove `inline`",
        );
    }
}

/// A task is cancelled by dropping its future and asks the client for input by awaiting; a
/// synchronous body runs to its end on the blocking pool, so it could do neither.
pub(super) fn check_task(cx: &Ctxt, tool: &ToolFn) {
    if let Some(task) = tool.attrs.task.get()
        && task.value != crate::attr::TaskKey::Forbidden
        && !tool.is_async()
    {
        let key = tool.attrs.task.key_span().unwrap_or(task.span);
        cx.error_at(
            key,
            "`task` applies to async tools: a task is cancelled by dropping its future and waits for the client's input by awaiting; make the fn `async`",
        );
    }
}
