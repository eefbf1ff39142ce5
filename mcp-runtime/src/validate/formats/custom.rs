//! Formats a server defines: [`Formats`] maps a name to a check, and says whether a format
//! nobody checks may still be published (as an annotation).

use std::collections::BTreeMap;
use std::sync::Arc;

/// A user-defined string format's check: `true` when the string is in the format.
pub type FormatCheck = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The string formats a server asserts beyond JSON Schema's own vocabulary, and what happens to
/// a format nobody checks.
///
/// By default a published `format` that is neither one of JSON Schema 2020-12's nor registered
/// here is a build error naming the tool and the JSON Pointer: a client reading the schema
/// would believe the server checks it. [`Formats::allow_unchecked`] publishes such formats as
/// annotations instead. A check registered under a standard name (`email`, …) replaces the
/// built-in one. [`crate::ServerBuilder::format`] and
/// [`crate::ServerBuilder::allow_unchecked_formats`] set these for a server.
///
/// ```
/// use mcp_runtime::validate::Formats;
/// let formats = Formats::new().with("sku", |s: &str| {
///     s.len() == 9 && s.starts_with("SKU-") && s[4..].bytes().all(|c| c.is_ascii_digit())
/// });
/// assert_eq!(formats.names().collect::<Vec<_>>(), ["sku"]);
/// ```
#[derive(Clone, Default)]
pub struct Formats {
    custom: BTreeMap<String, FormatCheck>,
    unchecked_allowed: bool,
}

impl Formats {
    /// JSON Schema's formats only; an unknown format is an error.
    pub fn new() -> Self {
        Formats::default()
    }

    /// Checks the string format `name` with `check`. A check that panics refuses the value.
    pub fn with(
        mut self,
        name: impl Into<String>,
        check: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.custom.insert(name.into(), Arc::new(check));
        self
    }

    /// Publishes formats nobody checks as annotations instead of refusing the schema.
    pub fn allow_unchecked(mut self) -> Self {
        self.unchecked_allowed = true;
        self
    }

    /// The names registered with [`Formats::with`], in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.custom.keys().map(String::as_str)
    }

    /// Whether formats nobody checks are allowed ([`Formats::allow_unchecked`]).
    pub fn unchecked_allowed(&self) -> bool {
        self.unchecked_allowed
    }

    pub(crate) fn get(&self, name: &str) -> Option<&FormatCheck> {
        self.custom.get(name)
    }
}

impl std::fmt::Debug for Formats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Formats")
            .field("custom", &self.custom.keys().collect::<Vec<_>>())
            .field("unchecked_allowed", &self.unchecked_allowed)
            .finish()
    }
}
