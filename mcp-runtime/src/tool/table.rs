//! The tool table a server serves, in declaration order.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::tool::{Tool, ToolBuildError, ToolSpec};

/// The built tools, in the specs' order (`None` where one cannot be served), and why not.
struct Built {
    tools: Box<[Option<Tool>]>,
    problems: Vec<ToolBuildError>,
}

/// An ordered set of tools. Each tool's contract and validator are built once: by
/// [`crate::ServerBuilder::build`], which reports every tool that cannot be served, or else the
/// first time the table is asked for its tools. A tool that cannot be built is left out of the
/// table (and logged) rather than taking the other tools down with it. Names are known from the
/// start.
#[derive(Clone, Default)]
pub struct ToolTable {
    specs: Arc<[ToolSpec]>,
    index: Arc<HashMap<&'static str, usize>>,
    built: Arc<OnceLock<Built>>,
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
            built: Arc::new(OnceLock::from(Built {
                tools: tools.into_vec().into_iter().map(Some).collect(),
                problems: Vec::new(),
            })),
        }
    }

    fn built(&self) -> &Built {
        self.built.get_or_init(|| {
            let mut problems = Vec::new();
            let tools = self
                .specs
                .iter()
                .map(|&spec| {
                    Tool::try_build(spec)
                        .map_err(|e| {
                            tracing::error!("{e}");
                            problems.push(e);
                        })
                        .ok()
                })
                .collect();
            Built { tools, problems }
        })
    }

    /// Builds every tool's contract and validator now (once), and returns the tools that cannot
    /// be served. [`crate::ServerBuilder::build`] calls this and refuses to build on any problem.
    pub fn check(&self) -> &[ToolBuildError] {
        &self.built().problems
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.index
            .get(name)
            .and_then(|&i| self.built().tools[i].as_ref())
    }

    /// All tools, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.built().tools.iter().flatten()
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

/// True when two lists of published names share one: `tools![…]` asserts the opposite for every
/// pair of its entries, in a constant, so that a name published twice is a compile error.
pub const fn shares_name(a: &[&str], b: &[&str]) -> bool {
    let mut i = 0;
    while i < a.len() {
        let mut j = 0;
        while j < b.len() {
            if same_bytes(a[i], b[j]) {
                return true;
            }
            j += 1;
        }
        i += 1;
    }
    false
}

/// Byte-wise string equality usable in constants.
const fn same_bytes(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
