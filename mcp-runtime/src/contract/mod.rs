//! Contract evolution: a server's published contract as a [`Snapshot`], two snapshots compared
//! into a [`Report`] whose every [`Change`] is [`Class::Breaking`], [`Class::Compatible`],
//! [`Class::Unknown`] or [`Class::Info`], with a stable rule id, a JSON Pointer and a sentence,
//! and for a breaking change to a tool's arguments a witness: an `arguments` object the old
//! contract accepts and the new one refuses, both verdicts given by the runtime's validator.
//!
//! ```no_run
//! # async fn run(server: mcp_runtime::Server) {
//! // In a test: fails on a breaking change unless the server's major version was raised.
//! mcp_runtime::contract::assert_contract(&server, "contract/server.json").await;
//! # }
//! ```
//!
//! `docs/contract-evolution.md` lists every rule; the `mcp-contract` command line takes
//! snapshots of any MCP server (stdio or Streamable HTTP) and diffs them in CI.
//!
//! | file | what it holds |
//! |---|---|
//! | `snapshot.rs` | [`Snapshot`]: the contract in normal form, taken from a client, read from a file |
//! | `normalize.rs` | the normal form: keys sorted, default-equivalent forms removed |
//! | `entries.rs` | entries matched by name and compared: tools, resources, templates, prompts |
//! | `schema/` | two versions of a JSON Schema compared keyword by keyword, as input or output: the walk (`mod.rs`), a value's keywords (`scalar.rs`), an object's (`object.rs`), `$ref`s and optional unions (`view.rs`) |
//! | `witness.rs` | instances generated from a schema; the witness of a breaking input change |
//! | `pattern.rs` | strings matching a `pattern`, for the generator |
//! | `report.rs` | [`Change`], [`Class`], [`Report`] and its text, Markdown and JSON |
//! | `check.rs` | [`assert_contract`] and [`check`]: a committed snapshot as a test's gate |

mod check;
mod entries;
#[doc(hidden)]
pub mod normalize;
mod pattern;
mod report;
mod schema;
mod snapshot;
#[doc(hidden)]
pub mod witness;

#[doc(hidden)]
pub use check::UPDATE_VAR;
pub use check::{Bump, ContractFailure, assert_contract, assert_snapshot, check};
pub use report::{Change, Class, Kind, Report};
#[doc(hidden)]
pub use snapshot::FORMAT;
pub use snapshot::{ServerId, Snapshot};

use crate::client::{Client, ClientError};
use crate::server::Server;

/// The contract `server` publishes, taken through an in-process client (no process, no socket),
/// every page of every list.
pub async fn snapshot(server: &Server) -> Result<Snapshot, ClientError> {
    let client = Client::in_process(server).await?;
    let snapshot = Snapshot::from_client(&client).await;
    client.close().await;
    snapshot
}

/// Every change from `old` to `new`, classified, most severe first; each breaking change to a
/// tool's inputSchema with its witness when the generator finds one. A change to a union or to a
/// keyword not compared is unknown unless such an instance, refused at or below it, proves it
/// breaking.
pub fn diff(old: &Snapshot, new: &Snapshot) -> Report {
    let mut changes = entries::changes(old, new);
    for change in &mut changes {
        let member = if change.pointer.starts_with("/inputSchema") {
            "inputSchema"
        } else if change.pointer.starts_with("/outputSchema") {
            "outputSchema"
        } else {
            continue;
        };
        // A union or a keyword not compared is unknown until an instance proves it breaking.
        let provable = change.class == Class::Unknown
            && (change.rule.ends_with("composition-changed")
                || change.rule.ends_with("keyword-changed"));
        if change.kind != Kind::Tool || !(change.class == Class::Breaking || provable) {
            continue;
        }
        let schema_of = |s: &Snapshot| {
            s.tools
                .iter()
                .find(|t| normalize::key_of(t, "name") == change.name)
                .and_then(|t| t.get(member).cloned())
                .unwrap_or_else(|| serde_json::json!({}))
        };
        let (a, b) = (schema_of(old), schema_of(new));
        let near = witness::instance_pointer(&change.pointer[member.len() + 1..]);
        // The direction that breaks: arguments the old accepted and the new refuses, or results
        // the new may send and the old promised never to.
        let mut found = if member == "inputSchema" {
            witness::witness(&a, &b, &near)
        } else {
            witness::witness(&b, &a, &near)
        };
        if provable {
            // Only an instance refused below this change proves it (at the root, another change
            // of the same schema could be what refused it).
            found = found.filter(|(_, refused)| {
                !near.is_empty() && refused.iter().any(|v| witness::within(&v.path, &near))
            });
            if found.is_none() {
                continue;
            }
            change.class = Class::Breaking;
            if let Some(at) = change.message.find("; not proven") {
                change.message.truncate(at);
            }
            change
                .message
                .push_str("; an instance shows that it breaks");
        }
        // A changed pattern or format may accept more, less, or both: breaking only when an
        // instance shows it, else unknown (never guessed safe).
        let unproven =
            change.rule.ends_with("pattern-changed") || change.rule.ends_with("format-changed");
        if unproven && found.is_none() {
            change.class = Class::Unknown;
            change
                .message
                .push_str(" (no instance found that shows it breaks; not proven either way)");
        }
        if member == "inputSchema" {
            change.witness = found.map(|(w, _)| w);
        }
    }
    let mut report = Report { changes };
    report.sort();
    report
}
