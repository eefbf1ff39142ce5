//! An incident desk whose arguments and results hold `DateTime<Utc>`, `NaiveDate` and `Uuid`,
//! in a crate whose dependencies are `mcp-runtime` (features `chrono04`, `uuid1`) and `serde`.

use mcp_runtime::chrono::{DateTime, NaiveDate, Utc};
use mcp_runtime::prelude::*;
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

/// The server of this crate.
pub fn server() -> Result<Server, BuildError> {
    Server::builder("desk", "1.0.0")
        .tools(tools![open_incident])
        .resources(resources![incident_log])
        .build()
}
