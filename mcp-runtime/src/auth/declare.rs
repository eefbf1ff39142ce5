//! The scopes a server declares on its [`ServerBuilder`], next to its tables: what each tool,
//! prompt and resource needs, a server-wide scope, and which scope implies which. The HTTP
//! endpoint's resource server (feature `auth`) checks them and lists them in its metadata; stdio
//! ignores them (a stdio server takes its credentials from its environment).

use crate::server::ServerBuilder;

impl ServerBuilder {
    /// The scopes `tools/call` of the tool `name` needs.
    pub fn tool_scopes<S: Into<String>>(
        mut self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.options.scopes.tool(name.into(), scopes);
        self
    }

    /// The scopes `prompts/get` of the prompt `name` needs.
    pub fn prompt_scopes<S: Into<String>>(
        mut self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.options.scopes.prompt(name.into(), scopes);
        self
    }

    /// The scopes `resources/read` of a URI starting with `prefix` needs (the longest
    /// matching prefix decides).
    pub fn resource_scopes<S: Into<String>>(
        mut self,
        prefix: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.options.scopes.resource(prefix.into(), scopes);
        self
    }

    /// A scope every request over HTTP needs.
    pub fn require_scope(mut self, scope: impl Into<String>) -> Self {
        self.options.scopes.require(scope.into());
        self
    }

    /// `broader` implies `narrower`: a token holding `broader` passes a check
    /// for `narrower`, transitively (`tasks:admin` ⊃ `tasks:write` ⊃ `tasks:read`).
    pub fn scope_implies(
        mut self,
        broader: impl Into<String>,
        narrower: impl Into<String>,
    ) -> Self {
        self.options.scopes.imply(broader.into(), narrower.into());
        self
    }
}
