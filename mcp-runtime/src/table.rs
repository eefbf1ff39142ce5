//! The tool table a server serves, in declaration order.

use std::collections::HashMap;
use std::sync::Arc;

use crate::tool::{Tool, ToolSpec};

/// An ordered set of tools, built once (contracts and validators included).
#[derive(Clone, Default)]
pub struct ToolTable {
    tools: Arc<[Tool]>,
    index: Arc<HashMap<&'static str, usize>>,
}

impl ToolTable {
    /// Builds the table from specs, in order. `tools![…]` calls this.
    ///
    /// # Panics
    /// When two specs share a name; `tools![…]` rejects that at compile time for `#[tool]` functions.
    pub fn from_specs(specs: impl IntoIterator<Item = ToolSpec>) -> Self {
        Self::from_tools(specs.into_iter().map(Tool::build))
    }

    /// Builds the table from built tools, in order (for a tool adjusted after `#[tool]`, such as
    /// [`Tool::with_input_schema`]).
    ///
    /// # Panics
    /// When two tools share a name.
    pub fn from_tools(tools: impl IntoIterator<Item = Tool>) -> Self {
        let tools: Vec<Tool> = tools.into_iter().collect();
        let mut index = HashMap::with_capacity(tools.len());
        for (i, t) in tools.iter().enumerate() {
            if index.insert(t.name(), i).is_some() {
                panic!("two tools are named `{}`", t.name());
            }
        }
        ToolTable {
            tools: tools.into(),
            index: Arc::new(index),
        }
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// All tools, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when the table has no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(Tool::name).collect()
    }
}
