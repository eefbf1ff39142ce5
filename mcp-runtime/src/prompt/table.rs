//! The prompt table `prompts![…]` builds, and the prompts a server serves (every table given to
//! its builder, built once in `ServerBuilder::build`).

use std::collections::HashMap;
use std::panic::Location;
use std::sync::Arc;

use crate::prompt::spec::{Prompt, PromptSpec};
use crate::protocol::Listing;
use crate::validate::Formats;

/// An ordered set of prompts, as `prompts![…]` makes it. Nothing is built until a server is.
#[derive(Clone, Default)]
pub struct PromptTable {
    specs: Arc<[PromptSpec]>,
    /// Where the table was made (the `prompts![…]` invocation), to name it in errors.
    origin: Option<&'static Location<'static>>,
}

impl PromptTable {
    /// The table of these specs, in order. `prompts![…]` calls this.
    #[track_caller]
    pub fn from_specs(specs: impl IntoIterator<Item = PromptSpec>) -> Self {
        PromptTable {
            specs: specs.into_iter().collect(),
            origin: Some(Location::caller()),
        }
    }

    /// The specs `#[prompt]` generated, in order.
    pub fn specs(&self) -> &[PromptSpec] {
        &self.specs
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.specs.iter().map(|s| s.name).collect()
    }

    /// The number of prompts.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// True when the table has no prompt.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    fn origin(&self) -> String {
        self.origin
            .map_or_else(|| "an unknown place".to_owned(), ToString::to_string)
    }
}

/// Why a prompt cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("prompt `{prompt}` cannot be served: {problem}")]
#[non_exhaustive]
pub struct PromptBuildError {
    /// The prompt's published name.
    pub prompt: String,
    /// What is wrong.
    pub problem: String,
}

/// The prompts a server serves, built, in order.
#[derive(Clone, Default)]
pub struct Prompts {
    list: Arc<[Prompt]>,
    index: Arc<HashMap<&'static str, usize>>,
    /// Their `prompts/list` entries, encoded once: what every page is written from.
    listing: Listing,
}

impl Prompts {
    /// Builds every prompt of `tables`; a name published twice, or a prompt that cannot be built,
    /// is a problem (all of them are reported).
    pub fn build(tables: &[PromptTable]) -> Result<Prompts, Vec<PromptBuildError>> {
        Prompts::build_with(tables, &Formats::new().allow_unchecked())
    }

    /// [`Prompts::build`] with a server's own string formats.
    pub(crate) fn build_with(
        tables: &[PromptTable],
        formats: &Formats,
    ) -> Result<Prompts, Vec<PromptBuildError>> {
        let mut problems = Vec::new();
        let mut first_table: HashMap<&'static str, usize> = HashMap::new();
        let mut list = Vec::new();
        let mut index = HashMap::new();
        for (t, table) in tables.iter().enumerate() {
            for &spec in table.specs.iter() {
                if let Some(&first) = first_table.get(spec.name) {
                    problems.push(PromptBuildError {
                        prompt: spec.name.to_owned(),
                        problem: format!(
                            "two prompts publish this name, in the prompt tables made at {} and at {}; give one of them another `#[prompt(name = \"...\")]`",
                            tables[first].origin(),
                            table.origin()
                        ),
                    });
                    continue;
                }
                first_table.insert(spec.name, t);
                match Prompt::try_build_with(spec, formats) {
                    Ok(p) => {
                        index.insert(spec.name, list.len());
                        list.push(p);
                    }
                    Err(problem) => problems.push(PromptBuildError {
                        prompt: spec.name.to_owned(),
                        problem,
                    }),
                }
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Prompts {
            listing: Listing::encode(list.iter().map(Prompt::to_json)),
            list: list.into(),
            index: Arc::new(index),
        })
    }

    /// The prompt with this name.
    pub fn get(&self, name: &str) -> Option<&Prompt> {
        self.index.get(name).map(|&i| &self.list[i])
    }

    /// All prompts, in order.
    pub fn list(&self) -> &[Prompt] {
        &self.list
    }

    /// Their `prompts/list` entries, in order, encoded once when they were built.
    pub(crate) fn listing(&self) -> &Listing {
        &self.listing
    }

    /// True when there is no prompt.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
