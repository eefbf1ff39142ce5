//! The tool table a server serves, in declaration order.

use std::collections::HashMap;
use std::panic::Location;
use std::sync::{Arc, OnceLock};

use crate::protocol::Listing;
use crate::tool::{Tool, ToolBuildError, ToolSpec};

/// The built tools, in the specs' order (`None` where one cannot be served), and why not.
struct Built {
    tools: Box<[Option<Tool>]>,
    problems: Vec<ToolBuildError>,
    /// The served tools' `tools/list` entries, encoded once: what every page is written from.
    listing: Listing,
}

impl Built {
    fn new(tools: Box<[Option<Tool>]>, problems: Vec<ToolBuildError>) -> Built {
        let listing = Listing::encode(tools.iter().flatten().map(Tool::to_json));
        Built {
            tools,
            problems,
            listing,
        }
    }
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
    /// Where the table was made (the `tools![…]` invocation), to name it in errors.
    origin: Option<&'static Location<'static>>,
}

/// A published name found in two tool tables that a server serves together.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "two tools are published as `{name}`: one in the tool table made at {first}, one in the table made at {second}; give one of them another `#[tool(name = \"...\")]`"
)]
pub struct DuplicateTool {
    /// The published name.
    pub name: &'static str,
    /// Where the first table was made (`file:line:column` of its `tools![…]`).
    pub first: String,
    /// Where the second table was made.
    pub second: String,
}

impl ToolTable {
    /// The table of these specs, in order. `tools![…]` calls this.
    ///
    /// # Panics
    /// When two specs share a name; `tools![…]` rejects that at compile time for `#[tool]` functions.
    #[track_caller]
    pub fn from_specs(specs: impl IntoIterator<Item = ToolSpec>) -> Self {
        let specs: Arc<[ToolSpec]> = specs.into_iter().collect();
        ToolTable {
            index: Arc::new(index_of(specs.iter().map(|s| s.name))),
            specs,
            built: Arc::default(),
            origin: Some(Location::caller()),
        }
    }

    /// Builds the table from built tools, in order (for a tool adjusted after `#[tool]`, such as
    /// [`Tool::with_input_schema`]).
    ///
    /// # Panics
    /// When two tools share a name.
    #[track_caller]
    pub fn from_tools(tools: impl IntoIterator<Item = Tool>) -> Self {
        let tools: Box<[Tool]> = tools.into_iter().collect();
        ToolTable {
            index: Arc::new(index_of(tools.iter().map(Tool::name))),
            specs: tools.iter().map(|t| t.spec).collect(),
            built: Arc::new(OnceLock::from(Built::new(
                tools.into_vec().into_iter().map(Some).collect(),
                Vec::new(),
            ))),
            origin: Some(Location::caller()),
        }
    }

    /// The tools of several tables, in order: what a server serves when its builder is given
    /// more than one (`.tools(a).tools(b)`). A name published by two tables is refused with both
    /// places; every table's tools are built.
    pub fn merge(tables: &[ToolTable]) -> Result<ToolTable, Vec<DuplicateTool>> {
        // Each name: its table, and its position among all specs.
        let mut index: HashMap<&'static str, (usize, usize)> = HashMap::new();
        let mut duplicates = Vec::new();
        let mut at = 0;
        for (t, table) in tables.iter().enumerate() {
            for &name in table.index.keys() {
                if let Some(&(first, _)) = index.get(name) {
                    duplicates.push(DuplicateTool {
                        name,
                        first: tables[first].origin(),
                        second: table.origin(),
                    });
                }
            }
            for (i, spec) in table.specs.iter().enumerate() {
                index.entry(spec.name).or_insert((t, at + i));
            }
            at += table.specs.len();
        }
        if !duplicates.is_empty() {
            duplicates.sort_by_key(|d| d.name);
            return Err(duplicates);
        }
        let mut tools = Vec::with_capacity(at);
        let mut problems = Vec::new();
        for table in tables {
            let built = table.built();
            tools.extend(built.tools.iter().cloned());
            problems.extend(built.problems.iter().cloned());
        }
        Ok(ToolTable {
            specs: tables
                .iter()
                .flat_map(|t| t.specs.iter().copied())
                .collect(),
            index: Arc::new(index.into_iter().map(|(name, (_, i))| (name, i)).collect()),
            built: Arc::new(OnceLock::from(Built::new(tools.into(), problems))),
            origin: None,
        })
    }

    /// Where the table was made, as `file:line:column`.
    fn origin(&self) -> String {
        self.origin
            .map_or_else(|| "an unknown place".to_owned(), ToString::to_string)
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
            Built::new(tools, problems)
        })
    }

    /// Builds every tool's contract and validator now (once), and returns the tools that cannot
    /// be served. [`crate::ServerBuilder::build`] calls this and refuses to build on any problem.
    pub fn check(&self) -> &[ToolBuildError] {
        &self.built().problems
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        // A few names are compared in order: cheaper than hashing one with SipHash (callgrind).
        let i = if self.specs.len() <= SCAN_TOOLS {
            self.specs.iter().position(|s| s.name == name)
        } else {
            self.index.get(name).copied()
        };
        i.and_then(|i| self.built().tools[i].as_ref())
    }

    /// All tools, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.built().tools.iter().flatten()
    }

    /// The tools' `tools/list` entries, in order, encoded once when the tools were built.
    pub(crate) fn listing(&self) -> &Listing {
        &self.built().listing
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

/// Tables of up to this many tools are searched by comparing names rather than hashing.
const SCAN_TOOLS: usize = 8;

fn index_of(names: impl Iterator<Item = &'static str>) -> HashMap<&'static str, usize> {
    let mut index = HashMap::new();
    for (i, name) in names.enumerate() {
        if index.insert(name, i).is_some() {
            panic!("two tools are named `{name}`");
        }
    }
    index
}
