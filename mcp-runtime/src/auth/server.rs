//! [`ResourceServer`]: how the endpoint is protected (validator, authorization servers, the
//! canonical resource URI, scopes), its Protected Resource Metadata (RFC 9728) and its
//! `WWW-Authenticate` challenges (RFC 6750 §3).

use std::sync::Arc;

use reqwest::Url;
use serde_json::{Value, json};

use super::ScopePolicy;
use super::TokenValidator;

/// The settings of the endpoint as an OAuth 2.1 resource server: who validates tokens, which
/// authorization servers issue them, the resource's canonical URI, and the scopes requests need.
/// Given to `HttpOptions::authorization`.
#[derive(Clone)]
pub struct ResourceServer {
    pub(crate) validator: Arc<dyn TokenValidator>,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) resource: Option<String>,
    pub(crate) policy: ScopePolicy,
    /// Settings refused (a bad scope token, a bad resource URI): serving fails with them.
    pub(crate) faults: Vec<String>,
}

impl ResourceServer {
    /// Tokens validated by `validator`, issued by the authorization server `issuer` (named in
    /// the metadata). The resource URI defaults to `http://<bound address><path>` when served
    /// with [`Server::serve_http_on`](crate::server::Server::serve_http_on) (else from the
    /// request's `Host`): set it with [`ResourceServer::resource`] behind a proxy.
    pub fn new(issuer: impl Into<String>, validator: impl TokenValidator) -> Self {
        ResourceServer {
            validator: Arc::new(validator),
            authorization_servers: vec![issuer.into()],
            resource: None,
            policy: ScopePolicy::default(),
            faults: Vec::new(),
        }
    }

    /// Another authorization server listed in the metadata.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The canonical URI of the resource (RFC 8707: lower-case scheme and host, no trailing
    /// slash, no fragment): the audience tokens must name, and the metadata's `resource`. Behind
    /// a proxy, the public URL of the endpoint (`https://mcp.example.com/mcp`).
    pub fn resource(mut self, uri: impl AsRef<str>) -> Self {
        match canonical_resource(uri.as_ref()) {
            Ok(uri) => self.resource = Some(uri),
            Err(e) => self.faults.push(e),
        }
        self
    }

    scope_methods!(policy);

    /// These settings with `uri` as the resource unless one was set.
    pub(crate) fn default_resource(mut self, uri: &str) -> Self {
        if self.resource.is_none() {
            self.resource = canonical_resource(uri).ok();
        }
        self
    }

    /// These settings with the scopes `server` declared added.
    pub(crate) fn with_declared(mut self, server: &crate::server::Server) -> Self {
        self.policy.merge(&server.options().scopes);
        self
    }

    /// The scope rules.
    pub fn policy(&self) -> &ScopePolicy {
        &self.policy
    }

    /// What is wrong with these settings, if anything (a scope that is not an RFC 6749
    /// scope-token, a resource URI that is not absolute): serving refuses to start with them.
    pub fn check(&self) -> Result<(), String> {
        let faults: Vec<&str> = self
            .faults
            .iter()
            .chain(&self.policy.faults)
            .map(String::as_str)
            .collect();
        if faults.is_empty() {
            Ok(())
        } else {
            Err(faults.join("; "))
        }
    }

    /// The Protected Resource Metadata document (RFC 9728 §2) for `resource`.
    pub fn metadata(&self, resource: &str) -> Value {
        json!({
            "resource": resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.policy.supported(),
            "bearer_methods_supported": ["header"],
        })
    }
}

impl std::fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceServer")
            .field("authorization_servers", &self.authorization_servers)
            .field("resource", &self.resource)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// `uri` in the canonical form of RFC 8707 §2: absolute, lower-case scheme and host (as URL
/// parsing leaves them), no fragment, no trailing slash.
pub fn canonical_resource(uri: &str) -> Result<String, String> {
    let url = Url::parse(uri).map_err(|e| format!("the resource `{uri}` is not a URI: {e}"))?;
    if url.fragment().is_some() {
        return Err(format!("the resource `{uri}` has a fragment"));
    }
    if url.cannot_be_a_base() {
        return Err(format!("the resource `{uri}` is not a URL with a host"));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// The metadata's URL for `resource` (RFC 9728 §3.1: the well-known suffix inserted between
/// the host and the path).
pub(crate) fn metadata_url(resource: &str) -> String {
    match Url::parse(resource) {
        Ok(url) => {
            let path = url.path().trim_end_matches('/');
            let origin = url.origin().ascii_serialization();
            format!("{origin}/.well-known/oauth-protected-resource{path}")
        }
        Err(_) => "/.well-known/oauth-protected-resource".into(),
    }
}

/// A `WWW-Authenticate: Bearer` challenge: the metadata URL, the scopes the request needs, and
/// the error when a token was given.
pub(crate) fn challenge<S: AsRef<str>>(
    metadata: &str,
    scopes: &[S],
    error: Option<(&str, &str)>,
) -> String {
    let mut out = format!("Bearer resource_metadata=\"{}\"", quoted(metadata));
    if !scopes.is_empty() {
        let scopes: Vec<&str> = scopes.iter().map(AsRef::as_ref).collect();
        out.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
    }
    if let Some((error, description)) = error {
        out.push_str(&format!(
            ", error=\"{error}\", error_description=\"{}\"",
            quoted(description)
        ));
    }
    out
}

/// Text safe inside a quoted-string of a header: visible ASCII and space, no `"` or `\`.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if c == ' ' || c.is_ascii_graphic() => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_and_metadata_urls() {
        assert_eq!(
            canonical_resource("HTTPS://MCP.Example.com/mcp/").unwrap(),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical_resource("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080"
        );
        assert!(canonical_resource("https://a/b#c").is_err());
        assert!(canonical_resource("mcp").is_err());
        assert_eq!(
            metadata_url("https://mcp.example.com/tenant/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn challenges() {
        let scopes = vec!["a".to_owned(), "b:c".to_owned()];
        assert_eq!(
            challenge(
                "http://h/m",
                &scopes,
                Some(("invalid_token", "bad \"x\"\n"))
            ),
            "Bearer resource_metadata=\"http://h/m\", scope=\"a b:c\", error=\"invalid_token\", \
             error_description=\"bad 'x'?\""
        );
        assert_eq!(
            challenge::<&str>("u", &[], None),
            "Bearer resource_metadata=\"u\""
        );
    }
}
