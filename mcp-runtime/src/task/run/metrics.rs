//! What the metrics read of the tasks (feature `metrics`): those running by status, and those
//! that ended by final status (`mcp.server.active_tasks`, `mcp.server.finished_tasks`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::Tasks;
use crate::context::connection::lock;
use crate::metrics::{Recorder, TaskCounts};
use crate::task::TaskStatus;

impl Tasks {
    /// Counts a task that ended with `status`.
    pub(super) fn ended(&self, status: TaskStatus) {
        let ends = &self.ends;
        let counter = match status {
            TaskStatus::Completed => &ends.completed,
            TaskStatus::Failed => &ends.failed,
            _ => &ends.cancelled,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Makes `recorder`'s task gauges read this runner's counts.
    pub(crate) fn watched_by(self: &Arc<Self>, recorder: &Recorder) {
        let tasks = Arc::downgrade(self);
        recorder.watch_tasks(move || tasks.upgrade().map(|t| t.counts()).unwrap_or_default());
    }

    /// The tasks this process runs, by status, and those that ended (completed, failed,
    /// cancelled): what the metrics' task gauges read.
    fn counts(&self) -> (TaskCounts, [u64; 3]) {
        let mut counts = TaskCounts::default();
        for live in lock(&self.running).values() {
            match lock(&live.record).status {
                TaskStatus::InputRequired => counts.input_required += 1,
                _ => counts.working += 1,
            }
        }
        let e = &self.ends;
        let ends = [&e.completed, &e.failed, &e.cancelled].map(|n| n.load(Ordering::Relaxed));
        (counts, ends)
    }
}
