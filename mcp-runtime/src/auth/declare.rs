//! The scopes a server declares on its [`ServerBuilder`], next to its tables: what each tool,
//! prompt and resource needs, a server-wide scope, and which scope implies which. The HTTP
//! endpoint's resource server (feature `auth`) checks them and lists them in its metadata; stdio
//! ignores them (a stdio server takes its credentials from its environment).

use crate::server::ServerBuilder;

impl ServerBuilder {
    scope_methods!(options.scopes);
}
