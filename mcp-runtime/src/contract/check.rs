//! A committed snapshot as a test's gate, the way insta and expect-test keep theirs: the
//! server's contract is compared with the file, a breaking change fails unless the server's
//! major version was raised (a compatible one unless its minor was), and `MCP_CONTRACT_UPDATE=1`
//! records the new contract once the version allows it.

use std::path::Path;

use super::report::{Class, Report};
use super::snapshot::Snapshot;
use crate::server::Server;

/// The variable that records the contract in its file (any value but `0` or empty).
pub const UPDATE_VAR: &str = "MCP_CONTRACT_UPDATE";

/// The version raise a set of changes needs, or that two versions show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bump {
    /// None (words only, or nothing).
    None,
    /// The patch component (`1.2.3` → `1.2.4`).
    Patch,
    /// The minor component: a compatible change.
    Minor,
    /// The major component: a breaking (or unproven) change.
    Major,
}

impl Bump {
    /// What `report` needs: major for a breaking or unknown change, minor for a compatible one.
    pub fn needed(report: &Report) -> Bump {
        match report.worst() {
            Some(Class::Breaking | Class::Unknown) => Bump::Major,
            Some(Class::Compatible) => Bump::Minor,
            _ => Bump::None,
        }
    }

    /// How `new` raises `old`, read as Cargo reads versions: below 1.0.0 the left-most non-zero
    /// component is the major one (`0.3.1` → `0.4.0` is a major raise, `0.3.1` → `0.3.2` a minor
    /// one). A version that is not `x.y.z` (or that went down) raises nothing.
    pub fn between(old: &str, new: &str) -> Bump {
        let parse = |v: &str| -> Option<[u64; 3]> {
            let core = v.split(['-', '+']).next()?;
            let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
            Some([parts.next()??, parts.next()??, parts.next()??])
        };
        let (Some(a), Some(b)) = (parse(old), parse(new)) else {
            return Bump::None;
        };
        if b <= a {
            return Bump::None;
        }
        let first = a.iter().position(|c| *c != 0).unwrap_or(2);
        let changed = (0..3).find(|i| a[*i] != b[*i]).unwrap_or(2);
        // Components shift down below 1.0.0: the first non-zero one is the major one.
        if changed <= first {
            Bump::Major
        } else if changed == first + 1 {
            Bump::Minor
        } else {
            Bump::Patch
        }
    }
}

/// Why a contract check failed: its text says what changed, the witnesses, and what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct ContractFailure {
    /// The message.
    pub message: String,
    /// The comparison, when there was one.
    pub report: Option<Report>,
}

fn updating() -> bool {
    std::env::var(UPDATE_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Compares `actual` with the snapshot committed at `path`; with `update`, writes `actual`
/// there when the check allows it (the file is missing, or the version was raised enough).
///
/// Fails when the file is missing (without `update`), unreadable, or when the contract changed:
/// a breaking or unknown change without a major version raise, a compatible one without a minor
/// raise, and any other difference that is not recorded yet.
pub fn check(actual: &Snapshot, path: &Path, update: bool) -> Result<(), ContractFailure> {
    let how = format!("{UPDATE_VAR}=1 cargo test");
    let fail = |message: String, report: Option<Report>| Err(ContractFailure { message, report });
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if update {
                return write(path, actual);
            }
            return fail(
                format!(
                    "{}: no contract snapshot yet; {how} writes it, then commit it",
                    path.display()
                ),
                None,
            );
        }
        Err(e) => return fail(format!("{}: {e}", path.display()), None),
    };
    let committed = Snapshot::read(&text).map_err(|e| ContractFailure {
        message: format!("{}: {e}", path.display()),
        report: None,
    })?;
    let actual_text = actual.to_pretty();
    if committed == *actual && text == actual_text {
        return Ok(());
    }
    let report = super::diff(&committed, actual);
    let needed = Bump::needed(&report);
    let (old_v, new_v) = (&committed.server.version, &actual.server.version);
    let raised = Bump::between(old_v, new_v);
    let changes = report.to_text();
    if raised < needed {
        let what = match needed {
            Bump::Major => "a breaking (or unproven) change needs a major version raise",
            _ => "a compatible change needs a minor version raise",
        };
        let message = format!(
            "the contract of `{}` changed: {what}, and the version went from {old_v} to {new_v}\n\
             compared with {}:\n{changes}",
            actual.server.name,
            path.display()
        );
        return fail(message, Some(report));
    }
    if update {
        return write(path, actual);
    }
    let message = format!(
        "the contract of `{}` changed (version {old_v} to {new_v} allows it) but {} is not \
         updated; {how} records it\n{changes}",
        actual.server.name,
        path.display()
    );
    fail(message, Some(report))
}

fn write(path: &Path, actual: &Snapshot) -> Result<(), ContractFailure> {
    let err = |e: std::io::Error| ContractFailure {
        message: format!("{}: {e}", path.display()),
        report: None,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    std::fs::write(path, actual.to_pretty()).map_err(err)
}

/// [`check`] of `actual` against `path`, `MCP_CONTRACT_UPDATE` deciding whether to record;
/// panics with the failure's text.
#[track_caller]
pub fn assert_snapshot(actual: &Snapshot, path: impl AsRef<Path>) {
    if let Err(e) = check(actual, path.as_ref(), updating()) {
        panic!("{e}");
    }
}

/// Takes `server`'s contract in process ([`super::snapshot`]) and asserts it against the snapshot
/// committed at `path` (relative to the test's working directory, the package's root under
/// `cargo test`): see [`check`]. `MCP_CONTRACT_UPDATE=1` records it.
pub async fn assert_contract(server: &Server, path: impl AsRef<Path>) {
    let actual = super::snapshot(server)
        .await
        .unwrap_or_else(|e| panic!("the contract of the server could not be listed: {e}"));
    assert_snapshot(&actual, path);
}
