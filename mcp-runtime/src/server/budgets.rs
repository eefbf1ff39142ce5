//! The validator's budgets, given to every tool's schema when the server is built, and the
//! warnings about the schemas that need them: patterns that run by backtracking, and untagged
//! enums that hold themselves (whose decoding by serde is counted before it runs).

use std::sync::Arc;

use super::options::ServerOptions;
use crate::tool::table::ToolTable;
use crate::validate::{DEFAULT_PATTERN_BACKTRACK_LIMIT, DEFAULT_UNTAGGED_DECODE_LIMIT};

/// Warns about every pattern that runs by backtracking rather than in linear time and every
/// input that holds a recursive untagged enum, and gives their schemas the server's budgets: a
/// table is rebuilt only when it has such a schema and a budget is not the default.
pub(super) fn apply(tools: ToolTable, options: &ServerOptions) -> ToolTable {
    let patterns = options.pattern_backtrack_limit;
    let decoding = options.untagged_decode_limit;
    let mut found = false;
    for tool in tools.iter() {
        for p in tool.validator.non_linear_patterns() {
            found = true;
            tracing::warn!(
                tool = tool.name(),
                pattern = %p.pattern,
                at = %p.at,
                "this pattern uses {} and so runs by backtracking, not in linear time: a value that \
                 takes more than {patterns} steps is refused (pattern_backtrack_limit)",
                p.why
            );
        }
        if tool.validator.counts_untagged_decoding() {
            found = true;
            tracing::warn!(
                tool = tool.name(),
                "this tool's input holds an untagged enum that holds itself: serde decodes it by \
                 trying its variants in order, which can cost 2^depth, so a call that would decode \
                 more than {decoding} values beyond 8 per value is refused before it is decoded \
                 (untagged_decode_limit); a tagged enum decodes in linear time"
            );
        }
    }
    let defaults =
        patterns == DEFAULT_PATTERN_BACKTRACK_LIMIT && decoding == DEFAULT_UNTAGGED_DECODE_LIMIT;
    if !found || defaults {
        return tools;
    }
    ToolTable::from_tools(tools.iter().cloned().map(|mut t| {
        let v = Arc::make_mut(&mut t.validator);
        v.set_pattern_backtrack_limit(patterns);
        v.set_untagged_decode_limit(decoding);
        t
    }))
}
