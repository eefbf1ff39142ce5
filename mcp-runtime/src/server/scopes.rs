//! [`ScopePolicy`]: which scopes each request needs, and which scope implies which. A server
//! declares them on its `ServerBuilder` (`auth/declare.rs`) and next to each tool, prompt and
//! resource (`scopes = [...]`, read from the tables when it is built); the HTTP endpoint's resource server
//! (feature `auth`) checks them and lists them in its metadata; stdio ignores them (a stdio
//! server takes its credentials from its environment).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::context::principal::Principal;
use crate::prompt::PromptSpec;
use crate::protocol::Incoming;
use crate::resource::ResourceTable;
use crate::tool::ToolTable;

/// Whether `scope` is a scope-token of RFC 6749 §3.3: one or more of `%x21 / %x23-5B / %x5D-7E`
/// (visible ASCII but `"` and `\`; no space).
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

/// The scopes requests need: a server-wide scope every request needs, the scopes of each tool,
/// resource and prompt, and the hierarchy (a broader scope passes a check for a narrower one:
/// `tasks:admin` ⊃ `tasks:write` ⊃ `tasks:read`).
#[derive(Debug, Clone, Default)]
pub struct ScopePolicy {
    required: Vec<String>,
    tools: HashMap<String, Vec<String>>,
    prompts: HashMap<String, Vec<String>>,
    /// URI prefixes and their scopes, longest first when matched.
    resources: Vec<(String, Vec<String>)>,
    implies: HashMap<String, Vec<String>>,
    /// The served resources, when one of them declares `scopes`: a `resources/read` needs those
    /// of the resource its URI resolves to, resolved as the server resolves it.
    declared_resources: Option<DeclaredResources>,
    /// Scopes refused as they were declared (not scope-tokens): serving refuses to start.
    pub(crate) faults: Vec<String>,
}

impl ScopePolicy {
    pub(crate) fn require(&mut self, scope: String) {
        let scopes = self.checked(vec![scope]);
        self.required.extend(scopes);
    }

    pub(crate) fn tool(&mut self, name: String, scopes: Vec<String>) {
        let scopes = self.checked(scopes);
        self.tools.entry(name).or_default().extend(scopes);
    }

    pub(crate) fn prompt(&mut self, name: String, scopes: Vec<String>) {
        let scopes = self.checked(scopes);
        self.prompts.entry(name).or_default().extend(scopes);
    }

    pub(crate) fn resource(&mut self, prefix: String, scopes: Vec<String>) {
        let scopes = self.checked(scopes);
        self.resources.push((prefix, scopes));
        self.resources
            .sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    }

    pub(crate) fn imply(&mut self, broader: String, narrower: String) {
        if self.checked(vec![broader.clone(), narrower.clone()]).len() == 2 {
            self.implies.entry(broader).or_default().push(narrower);
        }
    }

    /// The scopes the tables declare next to each item (`#[tool(scopes = [...])]`, the same key
    /// on `#[toolbox]`, `#[prompt]` and `#[resource]`), added to those of the builder.
    pub(crate) fn declare<'a>(
        &mut self,
        tools: &ToolTable,
        prompts: impl IntoIterator<Item = &'a PromptSpec>,
        resources: &ResourceTable,
    ) {
        let owned = |scopes: &[&str]| scopes.iter().map(|s| (*s).to_owned()).collect();
        for spec in tools.specs().iter().filter(|s| !s.scopes.is_empty()) {
            self.tool(spec.name.to_owned(), owned(spec.scopes));
        }
        for spec in prompts.into_iter().filter(|s| !s.scopes.is_empty()) {
            self.prompt(spec.name.to_owned(), owned(spec.scopes));
        }
        if resources.specs().iter().any(|s| !s.scopes.is_empty()) {
            self.declared_resources = Some(DeclaredResources(resources.clone()));
        }
    }

    /// `other`'s rules added to these.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn merge(&mut self, other: &ScopePolicy) {
        self.required.extend(other.required.iter().cloned());
        for (name, scopes) in &other.tools {
            self.tools
                .entry(name.clone())
                .or_default()
                .extend(scopes.iter().cloned());
        }
        for (name, scopes) in &other.prompts {
            self.prompts
                .entry(name.clone())
                .or_default()
                .extend(scopes.iter().cloned());
        }
        for (prefix, scopes) in &other.resources {
            self.resource(prefix.clone(), scopes.clone());
        }
        for (broader, narrower) in &other.implies {
            self.implies
                .entry(broader.clone())
                .or_default()
                .extend(narrower.iter().cloned());
        }
        if other.declared_resources.is_some() {
            self.declared_resources
                .clone_from(&other.declared_resources);
        }
        self.faults.extend(other.faults.iter().cloned());
    }

    /// The scope-tokens of `scopes`; the others recorded as faults.
    fn checked(&mut self, scopes: Vec<String>) -> Vec<String> {
        let (good, bad): (Vec<String>, Vec<String>) =
            scopes.into_iter().partition(|s| is_scope_token(s));
        for scope in bad {
            self.faults.push(format!(
                "`{scope}` is not a scope token (RFC 6749 §3.3: visible ASCII but `\"` and `\\`, no space)"
            ));
        }
        good
    }

    /// Every scope named anywhere, sorted, without `offline_access` (never a resource's scope).
    pub fn supported(&self) -> Vec<String> {
        let mut all = BTreeSet::new();
        all.extend(self.required.iter().cloned());
        for scopes in self.tools.values().chain(self.prompts.values()) {
            all.extend(scopes.iter().cloned());
        }
        for (_, scopes) in &self.resources {
            all.extend(scopes.iter().cloned());
        }
        for (broader, narrower) in &self.implies {
            all.insert(broader.clone());
            all.extend(narrower.iter().cloned());
        }
        if let Some(DeclaredResources(table)) = &self.declared_resources {
            for spec in table.specs() {
                all.extend(spec.scopes.iter().map(|s| (*s).to_owned()));
            }
        }
        all.remove("offline_access");
        all.into_iter().collect()
    }

    /// The scopes every request needs, whatever it names.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn required(&self) -> &[String] {
        &self.required
    }

    /// The scopes a request body needs (one JSON-RPC message or a batch): the server-wide ones,
    /// and those of each tool called, prompt got and resource read. Without a body (`GET`,
    /// `DELETE`), the server-wide ones.
    pub fn needed(&self, body: Option<&Value>) -> Vec<String> {
        let messages: Vec<Named<'_>> = match body {
            Some(Value::Array(items)) => items.iter().map(Named::of).collect(),
            Some(one) => vec![Named::of(one)],
            None => Vec::new(),
        };
        self.needed_by(&messages)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// [`needed`](Self::needed) for the names already read from each message of a body.
    /// Borrowed from the policy: a request's check copies no scope.
    pub(crate) fn needed_by<'s>(&'s self, messages: &[Named<'_>]) -> Vec<&'s str> {
        let mut needed: Vec<&str> = self.required.iter().map(String::as_str).collect();
        let mut add = |scope: &'s str| {
            if !needed.contains(&scope) {
                needed.push(scope);
            }
        };
        for message in messages {
            let (name, uri) = (message.name.as_deref(), message.uri.as_deref());
            let listed = match message.method.as_deref() {
                Some("tools/call") => name.and_then(|n| self.tools.get(n)),
                Some("prompts/get") => name.and_then(|n| self.prompts.get(n)),
                Some("resources/read") => uri.and_then(|uri| {
                    self.resources
                        .iter()
                        .find(|(prefix, _)| uri.starts_with(prefix.as_str()))
                        .map(|(_, scopes)| scopes)
                }),
                _ => None,
            };
            listed.into_iter().flatten().for_each(|s| add(s));
            if message.method.as_deref() == Some("resources/read")
                && let Some((table, uri)) = self.declared_resources.as_ref().zip(uri)
                && let Some((spec, _)) = table.0.find(uri)
            {
                spec.scopes.iter().for_each(|s| add(s));
            }
        }
        needed
    }

    /// The scopes of `needed` that `principal` lacks, the hierarchy applied.
    pub fn missing<S: AsRef<str>>(&self, principal: &Principal, needed: &[S]) -> Vec<String> {
        // The common case, every scope held as the token lists it, needs no closure.
        if needed.iter().all(|s| principal.has_scope(s.as_ref())) {
            return Vec::new();
        }
        let mut held: BTreeSet<&str> = BTreeSet::new();
        let mut stack: Vec<&str> = principal.scopes().iter().map(String::as_str).collect();
        while let Some(scope) = stack.pop() {
            if held.insert(scope)
                && let Some(narrower) = self.implies.get(scope)
            {
                stack.extend(narrower.iter().map(String::as_str));
            }
        }
        needed
            .iter()
            .map(AsRef::as_ref)
            .filter(|s| !held.contains(s))
            .map(str::to_owned)
            .collect()
    }
}

/// What one message names that scopes attach to: its `method`, and the `name` (a tool, a
/// prompt) or `uri` (a resource) of its `params`.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Named<'a> {
    pub(crate) method: Option<Cow<'a, str>>,
    pub(crate) name: Option<Cow<'a, str>>,
    pub(crate) uri: Option<Cow<'a, str>>,
}

impl<'a> Named<'a> {
    /// The names of a message read as a `Value` (a member of another type names nothing).
    pub(crate) fn of(message: &'a Value) -> Named<'a> {
        let params = message.get("params");
        let method = message.get("method").and_then(Value::as_str);
        Named::from_parts(method, |key| params.and_then(|p| p.get(key)))
    }

    /// The names of a message the endpoint has read.
    #[cfg_attr(not(feature = "auth"), allow(dead_code))]
    pub(crate) fn of_incoming(message: &'a Incoming) -> Named<'a> {
        let (method, params) = match message {
            Incoming::Request(r) => (Some(r.method.as_str()), r.params.as_deref()),
            Incoming::Notification(n) => (Some(n.method.as_str()), n.params.as_deref()),
            Incoming::Response(_) => (None, None),
        };
        Named::from_parts(method, |key| params.and_then(|p| p.get(key)))
    }

    /// `method`, and the `name` and `uri` that `member` finds in the params when they are
    /// strings.
    fn from_parts(method: Option<&'a str>, member: impl Fn(&str) -> Option<&'a Value>) -> Self {
        let text = |key: &str| member(key).and_then(Value::as_str).map(Cow::Borrowed);
        Named {
            method: method.map(Cow::Borrowed),
            name: text("name"),
            uri: text("uri"),
        }
    }
}

/// The served resource table, held for the scopes of its resources.
#[derive(Clone)]
struct DeclaredResources(ResourceTable);

impl std::fmt::Debug for DeclaredResources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scoped = self.0.specs().into_iter().filter(|s| !s.scopes.is_empty());
        f.debug_map()
            .entries(scoped.map(|s| (s.uri, s.scopes)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{Principal, ScopePolicy, is_scope_token};
    use serde_json::json;

    #[test]
    fn scope_tokens() {
        assert!(is_scope_token("tasks:write"));
        assert!(is_scope_token("!#[]~"));
        assert!(!is_scope_token(""));
        assert!(!is_scope_token("a b"));
        assert!(!is_scope_token("a\"b"));
        assert!(!is_scope_token("a\\b"));
        assert!(!is_scope_token("é"));
    }

    #[test]
    fn hierarchy_and_needs() {
        let mut policy = ScopePolicy::default();
        policy.tool("add_task".into(), vec!["tasks:write".into()]);
        policy.tool("list_tasks".into(), vec!["tasks:read".into()]);
        policy.resource("notes://".into(), vec!["notes:read".into()]);
        policy.imply("tasks:admin".into(), "tasks:write".into());
        policy.imply("tasks:write".into(), "tasks:read".into());
        // A cycle does not loop.
        policy.imply("tasks:read".into(), "tasks:admin".into());
        let call = json!({"method": "tools/call", "params": {"name": "list_tasks"}});
        let needed = policy.needed(Some(&call));
        assert_eq!(needed, ["tasks:read"]);
        let admin =
            Principal::from_claims(json!({"scope": "tasks:admin"}).as_object().unwrap().clone());
        assert!(policy.missing(&admin, &needed).is_empty());
        let none = Principal::from_claims(json!({"scope": "other"}).as_object().unwrap().clone());
        assert_eq!(policy.missing(&none, &needed), ["tasks:read"]);
        let batch = json!([call, {"method": "resources/read", "params": {"uri": "notes://a"}}]);
        assert_eq!(policy.needed(Some(&batch)), ["tasks:read", "notes:read"]);
        assert_eq!(
            policy.supported(),
            ["notes:read", "tasks:admin", "tasks:read", "tasks:write"]
        );
    }
}
