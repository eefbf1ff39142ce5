//! A task record as each era writes it: the 2025-11-25 `Task` object (`ttl`, `pollInterval`),
//! and the 2026-07-28 flat shapes (`ttlMs`, `pollIntervalMs`, the result or error inlined).

use serde_json::{Map, Value, json};

use super::{TaskRecord, TaskStatus};

/// `_meta` key tying a message to its task (2025-11-25).
pub(crate) const RELATED_TASK_KEY: &str = "io.modelcontextprotocol/related-task";

/// The 2025-11-25 `Task`: what `tasks/get`, `tasks/cancel`, `tasks/list` and
/// `notifications/tasks/status` carry.
pub(crate) fn task_2025(r: &TaskRecord) -> Value {
    Value::Object(fields(r, "ttl", "pollInterval"))
}

/// The 2026-07-28 `CreateTaskResult`: the task's fields at the top, `resultType: "task"`.
pub(crate) fn created_2026(r: &TaskRecord) -> Value {
    let mut m = base_2026(r);
    m.insert("resultType".into(), "task".into());
    Value::Object(m)
}

/// The 2026-07-28 `DetailedTask` of `tasks/get`: the result, the error or the questions
/// inlined, as the status has them.
pub(crate) fn detailed_2026(r: &TaskRecord) -> Value {
    let mut m = base_2026(r);
    match r.status {
        TaskStatus::Completed => {
            m.insert(
                "result".into(),
                r.result.clone().unwrap_or_else(|| json!({})),
            );
        }
        TaskStatus::Failed => {
            m.insert("error".into(), r.error.clone().unwrap_or_else(|| json!({})));
        }
        TaskStatus::InputRequired => {
            m.insert(
                "inputRequests".into(),
                Value::Object(r.input_requests.clone()),
            );
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    Value::Object(m)
}

fn base_2026(r: &TaskRecord) -> Map<String, Value> {
    fields(r, "ttlMs", "pollIntervalMs")
}

/// The fields both eras share; the eras name the two durations differently.
fn fields(r: &TaskRecord, ttl: &str, poll_interval: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("taskId".into(), r.task_id.clone().into());
    m.insert("status".into(), r.status.as_str().into());
    if let Some(s) = &r.status_message {
        m.insert("statusMessage".into(), s.clone().into());
    }
    m.insert("createdAt".into(), iso_8601(r.created_at_ms).into());
    m.insert(
        "lastUpdatedAt".into(),
        iso_8601(r.last_updated_at_ms).into(),
    );
    m.insert(ttl.into(), r.ttl_ms.into());
    m.insert(poll_interval.into(), r.poll_interval_ms.into());
    m
}

/// `2026-07-28T12:00:00.000Z` for milliseconds since the Unix epoch (UTC, proleptic Gregorian).
pub(crate) fn iso_8601(ms: u64) -> String {
    let (days, rest) = ((ms / 86_400_000) as i64, ms % 86_400_000);
    // Days to a civil date: Howard Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_8601() {
        let cases = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_785_240_000_123, "2026-07-28T12:00:00.123Z"),
        ];
        for (ms, text) in cases {
            assert_eq!(iso_8601(ms), text, "{ms}");
        }
    }
}
