//! `setters!`: the builders' methods that only store their argument.

/// Builder methods that store their argument in a field, one line each:
/// `$(#[doc])* pub fn name(arg: Type) => field.path = expression;`.
macro_rules! setters {
    ($(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $store:expr;
    )*) => {
        $(
            $(#[$attr])*
            $vis fn $name(mut self, $arg: $ty) -> Self {
                self.$($field).+ = $store;
                self
            }
        )*
    };
}

/// The scope methods of a builder that holds a [`ScopePolicy`](crate::auth::ScopePolicy) at
/// `field.path` (`ServerBuilder` and `ResourceServer` both declare scopes): `tool_scopes`,
/// `prompt_scopes`, `resource_scopes`, `require_scope`, `scope_implies`.
macro_rules! scope_methods {
    ($($field:ident).+) => {
        /// The scopes `tools/call` of the tool `name` needs (all of them).
        pub fn tool_scopes<S: Into<String>>(
            mut self,
            name: impl Into<String>,
            scopes: impl IntoIterator<Item = S>,
        ) -> Self {
            let scopes = scopes.into_iter().map(Into::into).collect();
            self.$($field).+.tool(name.into(), scopes);
            self
        }

        /// The scopes `prompts/get` of the prompt `name` needs.
        pub fn prompt_scopes<S: Into<String>>(
            mut self,
            name: impl Into<String>,
            scopes: impl IntoIterator<Item = S>,
        ) -> Self {
            let scopes = scopes.into_iter().map(Into::into).collect();
            self.$($field).+.prompt(name.into(), scopes);
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
            self.$($field).+.resource(prefix.into(), scopes);
            self
        }

        /// A scope every request over HTTP needs.
        pub fn require_scope(mut self, scope: impl Into<String>) -> Self {
            self.$($field).+.require(scope.into());
            self
        }

        /// `broader` implies `narrower`: a token holding `broader` passes a check for
        /// `narrower`, transitively (`tasks:admin` ⊃ `tasks:write` ⊃ `tasks:read`).
        pub fn scope_implies(
            mut self,
            broader: impl Into<String>,
            narrower: impl Into<String>,
        ) -> Self {
            self.$($field).+.imply(broader.into(), narrower.into());
            self
        }
    };
}
