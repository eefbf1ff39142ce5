//! The tool table a server serves, in declaration order.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::tool::{Tool, ToolSpec};

/// An ordered set of tools. Each tool's contract and validator are built once, the first time
/// the table is asked for its tools (the first `tools/list` or `tools/call`), so that a server
/// answers `initialize` without waiting for its schemas. Names are known from the start.
#[derive(Clone, Default)]
pub struct ToolTable {
    specs: Arc<[ToolSpec]>,
    index: Arc<HashMap<&'static str, usize>>,
    built: Arc<OnceLock<Box<[Tool]>>>,
}

impl ToolTable {
    /// The table of these specs, in order. `tools![…]` calls this.
    ///
    /// # Panics
    /// When two specs share a name; `tools![…]` rejects that at compile time for `#[tool]` functions.
    pub fn from_specs(specs: impl IntoIterator<Item = ToolSpec>) -> Self {
        let specs: Arc<[ToolSpec]> = specs.into_iter().collect();
        ToolTable {
            index: Arc::new(index_of(specs.iter().map(|s| s.name))),
            specs,
            built: Arc::default(),
        }
    }

    /// Builds the table from built tools, in order (for a tool adjusted after `#[tool]`, such as
    /// [`Tool::with_input_schema`]).
    ///
    /// # Panics
    /// When two tools share a name.
    pub fn from_tools(tools: impl IntoIterator<Item = Tool>) -> Self {
        let tools: Box<[Tool]> = tools.into_iter().collect();
        ToolTable {
            index: Arc::new(index_of(tools.iter().map(Tool::name))),
            specs: tools.iter().map(|t| t.spec).collect(),
            built: Arc::new(OnceLock::from(tools)),
        }
    }

    fn tools(&self) -> &[Tool] {
        self.built
            .get_or_init(|| self.specs.iter().copied().map(Tool::build).collect())
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index.get(name).map(|&i| &self.tools()[i])
    }

    /// All tools, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools().iter()
    }

    /// The specs `#[tool]` generated, in order (nothing is built).
    pub fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// True when the table has no tool.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.specs.iter().map(|s| s.name).collect()
    }
}

fn index_of(names: impl Iterator<Item = &'static str>) -> HashMap<&'static str, usize> {
    let mut index = HashMap::new();
    for (i, name) in names.enumerate() {
        if index.insert(name, i).is_some() {
            panic!("two tools are named `{name}`");
        }
    }
    index
}
