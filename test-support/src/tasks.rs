//! The task-tracker fixture several tool tests share: a priority, a task and the store that
//! keeps them. Their names and doc comments are part of the schemas some golden files hold
//! (a doc comment on a variant would turn the priority's `enum` into a `oneOf`): change them with
//! the golden files.
#![allow(missing_docs)]

use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    Normal,
    High,
}

/// One task in the tracker.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    /// Task ID such as T-1.
    pub id: String,
    pub title: String,
    pub priority: Priority,
}

/// The tasks added so far, in order.
#[derive(Default)]
pub struct Store(pub Mutex<Vec<Task>>);

impl Store {
    /// Adds a task with the next ID (`T-` and its position, from 1) and returns it.
    pub fn add(&self, title: String, priority: Priority) -> Task {
        let mut v = self.0.lock().unwrap();
        let t = Task {
            id: format!("T-{}", v.len() + 1),
            title,
            priority,
        };
        v.push(t.clone());
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_count_from_one_in_order() {
        let store = Store::default();
        assert_eq!(store.add("a".into(), Priority::Low).id, "T-1");
        let t = store.add("b".into(), Priority::High);
        assert_eq!(
            (t.id.as_str(), t.title.as_str(), t.priority),
            ("T-2", "b", Priority::High)
        );
        assert_eq!(store.0.lock().unwrap().len(), 2);
    }
}
