//! An incident desk whose arguments and results hold `DateTime<Utc>`, `NaiveDate` and `Uuid`,
//! and whose resource templates read those, `Url`, `semver::Version` and `SmolStr` from the URI,
//! in a crate whose dependencies are `mcp-runtime` (features `chrono04`, `uuid1`, `url2`,
//! `semver1`, `smol_str02`) and `serde`.

use mcp_runtime::chrono::{DateTime, NaiveDate, Utc};
use mcp_runtime::prelude::*;
use mcp_runtime::semver::Version;
use mcp_runtime::smol_str::SmolStr;
use mcp_runtime::url::Url;
use mcp_runtime::uuid::Uuid;
use serde::{Deserialize, Serialize};

/// An incident to open.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewIncident {
    /// What happened.
    pub title: String,
    /// When it started.
    pub started: DateTime<Utc>,
    /// The day it is due to be closed, if any.
    pub due: Option<NaiveDate>,
}

/// An opened incident.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Incident {
    /// Its id: the one the caller chose.
    pub id: Uuid,
    /// What happened.
    pub title: String,
    /// When it started.
    pub started: DateTime<Utc>,
    /// Hours from the start to the due day's midnight, when there is one.
    pub hours_to_due: Option<i64>,
}

/// Open an incident under an id the caller chose.
#[tool]
pub fn open_incident(id: Uuid, incident: NewIncident) -> Incident {
    let hours_to_due = incident.due.map(|d| {
        let midnight = d.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc();
        (midnight - incident.started).num_hours()
    });
    Incident {
        id,
        title: incident.title,
        started: incident.started,
        hours_to_due,
    }
}

/// An incident's log, by its id (a `Uuid` read from the URI) and day (a `NaiveDate`).
#[resource(uri = "incidents://{id}/{day}", mime_type = "text/plain")]
pub fn incident_log(id: Uuid, day: NaiveDate) -> String {
    format!("log of {} on {}", id.hyphenated(), day.format("%d %B %Y"))
}

/// A release's note, by its channel (a `SmolStr`), version (a `semver::Version`) and the time it
/// shipped (a `DateTime<Utc>`), each read from the URI.
#[resource(
    uri = "releases://{channel}/{version}/{shipped}",
    mime_type = "text/plain"
)]
pub fn release_note(channel: SmolStr, version: Version, shipped: DateTime<Utc>) -> String {
    format!(
        "{channel} {}.{}.{} (pre {:?}) shipped {}",
        version.major,
        version.minor,
        version.patch,
        version.pre.as_str(),
        shipped.format("%d %B %Y at %H:%M UTC")
    )
}

/// What the desk knows of a link (a `Url` read from the URI, reserved expansion).
#[resource(uri = "links://{+target}", mime_type = "text/plain")]
pub fn link_info(target: Url) -> String {
    format!(
        "{} link to {} (path {})",
        target.scheme(),
        target.host_str().unwrap_or("no host"),
        target.path()
    )
}

/// The server of this crate.
pub fn server() -> Result<Server, BuildError> {
    Server::builder("desk", "1.0.0")
        .tools(tools![open_incident])
        .resources(resources![incident_log, release_note, link_info])
        .build()
}
