//! Building a server: its identity, state, tools and options, checked once in
//! [`ServerBuilder::build`].

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::build_error::BuildError;
use super::options::ServerOptions;
use super::resources::ResourceUpdates;
use super::{RootsChangedFn, Server, ServerInner};
use crate::context::roots::RootsChanged;
use crate::prompt::{PromptTable, Prompts};
use crate::protocol::Implementation;
use crate::protocol::stateless::ServerStamp;
use crate::resource::ResourceTable;
use crate::task::run::Tasks;
use crate::task::{MemoryTaskStore, TaskStore};
use crate::tool::TaskSupport;
use crate::tool::call::UnknownToolPolicy;
use crate::tool::state::StateMap;
use crate::tool::table::ToolTable;
use crate::validate::Formats;

/// Builds a [`Server`]: `Server::builder("tasks", "1.0.0").tools(table).build()?`.
pub struct ServerBuilder {
    info: Implementation,
    instructions: Option<String>,
    tools: Vec<ToolTable>,
    prompts: Vec<PromptTable>,
    resources: Vec<ResourceTable>,
    resource_updates: ResourceUpdates,
    state: StateMap,
    pub(crate) options: ServerOptions,
    task_store: Option<Arc<dyn TaskStore>>,
    formats: Formats,
    on_roots_changed: Option<RootsChangedFn>,
}

impl Server {
    /// A builder for a server named `name` at `version` (its `serverInfo`).
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            info: Implementation {
                name: name.into(),
                version: version.into(),
                title: None,
                description: None,
            },
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            resource_updates: ResourceUpdates::default(),
            state: StateMap::new(),
            options: ServerOptions::default(),
            task_store: None,
            formats: Formats::default(),
            on_roots_changed: None,
        }
    }
}

impl ServerBuilder {
    /// A human-readable name for the server (`serverInfo.title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.info.title = Some(title.into());
        self
    }

    /// What the server does, for people (`serverInfo.description`, 2025-11-25): clients show it
    /// beside the name, and `--help` of a `cli` binary (feature `cli`) starts with it.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.info.description = Some(description.into());
        self
    }

    /// Checks the string `format` named `name` with `check` wherever a tool's inputSchema
    /// publishes it (`#[schemars(extend("format" = "sku"))]` on a field, or a hand-written
    /// schema): a value `check` refuses is answered `must be a valid sku (got "…")`. JSON
    /// Schema's own formats are checked without this; a check registered under one of their
    /// names replaces the built-in one. See [`Formats`].
    pub fn format(
        mut self,
        name: impl Into<String>,
        check: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.formats = std::mem::take(&mut self.formats).with(name, check);
        self
    }

    /// Publishes formats nobody checks as annotations, instead of refusing to build: by default
    /// a tool whose inputSchema names a format that is neither JSON Schema's nor registered with
    /// [`ServerBuilder::format`] is a [`BuildError::Tool`] naming the format and its pointer.
    pub fn allow_unchecked_formats(mut self) -> Self {
        self.formats = std::mem::take(&mut self.formats).allow_unchecked();
        self
    }

    /// Guidance for the model about the server as a whole (`instructions`).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// A value tools borrow as `&T`. One value per type; call once per type.
    pub fn state<T: std::any::Any + Send + Sync>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// A shared value tools borrow as `&T`.
    pub fn state_arc<T: std::any::Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.state.insert_arc(value);
        self
    }

    /// Tools to serve (the table `tools![…]` builds). Each call adds its tools after those of
    /// the calls before it, so tools from several modules compose:
    /// `.tools(inventory::tools()).tools(tools![ping])`. A name published twice across the tables
    /// fails [`ServerBuilder::build`] with [`BuildError::DuplicateTool`], naming where each table
    /// was made (two tools with one name in a single `tools![…]` do not compile).
    pub fn tools(mut self, tools: ToolTable) -> Self {
        self.tools.push(tools);
        self
    }

    /// Prompts to serve (the table `prompts![…]` builds); each call adds its prompts after those
    /// of the calls before it. A name published twice fails [`ServerBuilder::build`] with
    /// [`BuildError::Prompt`]. The `prompts` capability is declared when there is a prompt, and
    /// `completions` when an argument completes.
    pub fn prompts(mut self, prompts: PromptTable) -> Self {
        self.prompts.push(prompts);
        self
    }

    /// Resources and resource templates to serve (the table `resources![…]` builds). Like
    /// [`ServerBuilder::tools`], each call adds its table after the others; a URI published by two
    /// tables fails [`ServerBuilder::build`] with [`BuildError::DuplicateResource`]. With at least
    /// one resource the server declares the `resources` capability (`subscribe: true`;
    /// `listChanged: false` unless [`ServerBuilder::resources_list_changes`]).
    pub fn resources(mut self, resources: ResourceTable) -> Self {
        self.resources.push(resources);
        self
    }

    /// The handle that tells subscribed clients a resource changed, available before the server
    /// is built so that state given to [`ServerBuilder::state`] can keep a clone; the built
    /// server's [`Server::resource_updates`] is the same handle.
    pub fn resource_updates(&self) -> ResourceUpdates {
        self.resource_updates.clone()
    }

    /// Declares `resources.listChanged: true`: the application tells clients when the set of
    /// resources changes, with [`ResourceUpdates::list_changed`] (the table is fixed once built,
    /// but what its templates reach, such as the files behind `file:///{path}`, may not be).
    /// 2025-era sessions then get `notifications/resources/list_changed`, and a
    /// `subscriptions/listen` that asks for `resourcesListChanged` has it acknowledged and
    /// delivered. Without it the server declares `listChanged: false` and sends none. Needs
    /// resources ([`ServerBuilder::resources`]): [`ServerBuilder::build`] refuses it otherwise.
    pub fn resources_list_changes(mut self) -> Self {
        self.options.resources_list_changed = true;
        self
    }

    setters! {
        /// Tools (and prompts) per `tools/list` (`prompts/list`) page (default: all in one page).
        pub fn page_size(n: usize) => options.page_size = Some(n);

        /// What an unknown tool name gets (default: an `isError` result listing the valid names).
        pub fn unknown_tool(policy: UnknownToolPolicy) => options.unknown_tool = policy;

        /// The longest a tool may run; past it the call gets the `isError` result
        /// `Error executing tool <name>: timed out after <duration>` and the tool is dropped.
        pub fn call_timeout(timeout: Duration) => options.call_timeout = Some(timeout);

        /// How many tool calls may run at once; further calls wait for a slot (none is refused).
        /// A call that runs no user code (an unknown tool, arguments the schema refuses) is
        /// answered without one.
        pub fn max_concurrent_calls(n: usize) => options.max_concurrent_calls = Some(n);

        /// The longest incoming message, in bytes (default 4 MiB). Longer lines get an error response.
        pub fn max_message_bytes(n: usize) => options.max_message_bytes = n;

        /// The longest the server waits for the client's answer to a request it sent, such as an
        /// elicitation (default 10 minutes); the tool then gets a timed-out error.
        pub fn client_request_timeout(timeout: Duration) => options.client_request_timeout = timeout;

        /// How many responses a stdio (or in-process) connection holds unwritten before it stops
        /// reading requests (default 1,024): the bound on what a client that does not read costs.
        pub fn max_queued_responses(n: usize) => options.max_queued_responses = n;

        /// How many answers a stdio (or in-process) connection lets become ready before it writes
        /// them and only then reads the next request (default 16; each later write of the same
        /// burst waits for twice as many). Requests that arrive together are otherwise all read
        /// and run before the first answer goes out; fewer means earlier answers, more writes.
        pub fn write_after_answers(n: usize) => options.write_after_answers = n;

        /// `ttlMs` of stateless `tools/list` and `server/discover` results (default 0).
        pub fn list_ttl(ttl: Duration) => options.list_ttl = ttl;

        /// How long calls in flight and running tasks get to finish once a serve call drains
        /// (default 30 s); past it they end with a retryable error ([`Shutdown`](super::Shutdown)).
        pub fn drain_timeout(timeout: Duration) => options.drain_timeout = timeout;

        /// The `ttl` of a task whose client asked for none (default 1 hour).
        pub fn task_ttl(ttl: Duration) => options.tasks.default_ttl = ttl;

        /// The longest `ttl` a task is granted; a longer request is capped (default 24 hours).
        pub fn max_task_ttl(ttl: Duration) => options.tasks.max_ttl = ttl;

        /// The poll interval suggested to clients of a task (default 500 ms).
        pub fn task_poll_interval(interval: Duration) => options.tasks.poll_interval = interval;

        /// How many unexpired tasks the server keeps (default 1,024); a call past it is refused.
        pub fn max_tasks(n: usize) => options.tasks.max_tasks = n;

        /// How many unexpired tasks one session keeps (default 64).
        pub fn max_tasks_per_session(n: usize) => options.tasks.max_tasks_per_session = n;

        /// How many `subscriptions/listen` streams one connection (a stdio client) may have open
        /// (default 16); one more is answered -32600 until the client cancels one.
        pub fn max_listens_per_connection(n: usize) => options.max_listens_per_connection = n;

        /// How many `subscriptions/listen` streams the server keeps open in all, over every
        /// connection and transport (default 1,024); one more is answered -32600. Over HTTP each listen is a request of its own, so this is its bound.
        pub fn max_listens(n: usize) => options.max_listens = n;

        /// How many URIs one `subscriptions/listen` may list in `resourceSubscriptions` (default
        /// 256); more is answered -32602.
        pub fn max_listen_uris(n: usize) => options.max_listen_uris = n;

        /// The longest resource URI, in bytes, that `resources/read`, `resources/subscribe` and
        /// `unsubscribe`, a `subscriptions/listen` filter or a completion's `ref/resource` may name
        /// (default 64 KiB); a longer one is answered -32602, naming the limit, before it is matched against any template.
        pub fn max_uri_bytes(n: usize) => options.max_uri_bytes = n;

        /// The backtracking steps one match of a `pattern` that needs backtracking (look-around,
        /// backreferences: the build warns about each) may take before the value is refused with
        /// a message naming the pattern (default 100,000, about 10 ms).
        /// Every other pattern runs in time linear in the value and has no budget.
        pub fn pattern_backtrack_limit(n: usize) => options.pattern_backtrack_limit = n;

        /// How many values decoding a call's arguments may decode, beyond 8 per value of the
        /// arguments, when a tool's input holds an untagged enum that holds itself (default
        /// 100,000, about 10 ms).
        /// serde decodes such an enum by trying its variants in order, and a value that takes a
        /// later variant at every level is decoded again for each earlier one: a call that would
        /// cost more is refused, naming the value, before it is decoded. The build warns about
        /// each such tool. `u64::MAX` turns the count off (and lets serde take its time).
        pub fn untagged_decode_limit(n: u64) => options.untagged_decode_limit = n;
    }

    /// Runs `f` (on a task of its own) each time a client of the handshake era says its roots
    /// changed (`notifications/roots/list_changed`); [`RootsChanged::roots`] reads the new list.
    /// Without it the notification is only logged. A stateless (2026-07-28) client has no session
    /// to send it on: a tool asks [`crate::Context::roots`] on each call instead.
    pub fn on_roots_changed<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(RootsChanged) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        self.on_roots_changed = Some(Arc::new(move |changed| Box::pin(f(changed))));
        self
    }

    /// Where task records live (default: a [`MemoryTaskStore`] of this server's own).
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.task_store = Some(store);
        self
    }

    /// Declares the `prompts`, `resources` and `completions` capabilities and answers
    /// `prompts/list`, `resources/list`, `resources/templates/list` and `completion/complete`
    /// with empty lists (`prompts/get` and `resources/read` then answer -32602). For clients that list everything a server may offer
    /// and treat -32601 as a failure; a tools-only server does not need it otherwise.
    pub fn empty_prompts_and_resources(mut self) -> Self {
        self.options.empty_prompts_and_resources = true;
        self
    }

    /// Whether `serve_stdio` and `serve_http` install a `tracing` subscriber writing to stderr
    /// when the application set no global one (default `true`), so that hidden failures and
    /// startup problems reach the operator with no setup. `RUST_LOG` filters it (`warn`,
    /// `info,my_app=debug`; default `info`). `false` leaves logging entirely to the application.
    pub fn install_log_subscriber(mut self, install: bool) -> Self {
        self.options.install_log_subscriber = install;
        self
    }

    /// Builds the server: builds every tool's contract and validator, and fails with every problem
    /// found (a state type a tool borrows that was not given, a contract that cannot be served, an
    /// option that cannot work).
    pub fn build(mut self) -> Result<Server, BuildError> {
        let mut problems = Vec::new();
        let tools = match self.tools.len() {
            0 => ToolTable::default(),
            1 => self.tools.remove(0),
            _ => ToolTable::merge(&self.tools).unwrap_or_else(|duplicates| {
                problems.extend(duplicates.into_iter().map(BuildError::DuplicateTool));
                ToolTable::default()
            }),
        };
        let prompts = Prompts::build_with(&self.prompts, &self.formats).unwrap_or_else(|found| {
            problems.extend(found.into_iter().map(BuildError::Prompt));
            Prompts::default()
        });
        let resources = ResourceTable::merge(&self.resources).unwrap_or_else(|duplicates| {
            problems.extend(duplicates.into_iter().map(BuildError::DuplicateResource));
            ResourceTable::default()
        });
        problems.extend(resources.check().into_iter().map(BuildError::Resource));
        let borrowers = tools.specs().iter().map(|s| (s.name, (s.state)()));
        let prompt_borrowers = self.prompts.iter().flat_map(|t| t.specs());
        let prompt_borrowers = prompt_borrowers.map(|s| (s.name, (s.state)()));
        let resource_borrowers = resources.specs().into_iter();
        let resource_borrowers = resource_borrowers.map(|s| (s.name, (s.state)()));
        let borrowers = borrowers.chain(prompt_borrowers).chain(resource_borrowers);
        for (name, reqs) in borrowers {
            for req in reqs {
                if !self.state.contains(req.type_id) {
                    problems.push(BuildError::MissingState {
                        tool: name.to_owned(),
                        type_name: req.type_name.to_owned(),
                    });
                }
            }
        }
        // Every contract and validator is built here, so nothing in the request path can fail
        // to build.
        problems.extend(tools.check().iter().cloned().map(BuildError::Tool));
        let (tools, unchecked) = super::formats::bind(tools, &self.formats);
        problems.extend(unchecked.into_iter().map(BuildError::Tool));
        if self.options.page_size == Some(0) {
            problems.push(BuildError::InvalidOption(
                "page_size must be at least 1".into(),
            ));
        }
        if self.options.max_concurrent_calls == Some(0) {
            problems.push(BuildError::InvalidOption(
                "max_concurrent_calls must be at least 1".into(),
            ));
        }
        for (name, n) in [
            ("max_queued_responses", self.options.max_queued_responses),
            ("write_after_answers", self.options.write_after_answers),
            ("max_message_bytes", self.options.max_message_bytes),
            (
                "max_listens_per_connection",
                self.options.max_listens_per_connection,
            ),
            ("max_listens", self.options.max_listens),
            ("max_listen_uris", self.options.max_listen_uris),
            ("max_uri_bytes", self.options.max_uri_bytes),
            (
                "pattern_backtrack_limit",
                self.options.pattern_backtrack_limit,
            ),
            (
                "untagged_decode_limit",
                usize::try_from(self.options.untagged_decode_limit).unwrap_or(usize::MAX),
            ),
        ] {
            if n == 0 {
                problems.push(BuildError::InvalidOption(format!(
                    "{name} must be at least 1"
                )));
            }
        }
        if self.options.resources_list_changed && resources.is_empty() {
            problems.push(BuildError::InvalidOption(
                "resources_list_changes() needs resources: the server serves none, so it \
                 declares no `resources` capability to list changes of"
                    .into(),
            ));
        }
        problems.extend(
            self.options
                .tasks
                .problems()
                .into_iter()
                .map(BuildError::InvalidOption),
        );
        match problems.len() {
            0 => {}
            1 => return Err(problems.remove(0)),
            _ => return Err(BuildError::Several(problems)),
        }
        let prompt_specs = self.prompts.iter().flat_map(|t| t.specs());
        self.options
            .scopes
            .declare(&tools, prompt_specs, &resources);
        let tools = super::budgets::apply(tools, &self.options);
        let call_slots = self
            .options
            .max_concurrent_calls
            .map(|n| Arc::new(Semaphore::new(n)));
        let tasks = tools
            .iter()
            .any(|t| t.task_support() != TaskSupport::Forbidden)
            .then(|| {
                let store = self.task_store.take();
                let store = store.unwrap_or_else(|| Arc::new(MemoryTaskStore::new()));
                Arc::new(Tasks::new(store, self.options.tasks))
            });
        #[cfg(feature = "metrics")]
        if let (Some(recorder), Some(tasks)) = (&self.options.metrics, &tasks) {
            tasks.watched_by(recorder);
        }
        let capabilities = capabilities(&self.options, &prompts, &resources);
        self.resource_updates
            .declare_list_changes(self.options.resources_list_changed);
        Ok(Server {
            inner: Arc::new(ServerInner {
                tools,
                prompts,
                resources,
                resource_updates: self.resource_updates,
                state: Arc::new(self.state),
                server_info: ServerStamp::of(&self.info),
                info: self.info,
                instructions: self.instructions,
                options: self.options,
                call_slots,
                capabilities,
                tasks,
                on_roots_changed: self.on_roots_changed,
            }),
        })
    }
}

/// The capabilities `initialize` and `server/discover` declare.
fn capabilities(options: &ServerOptions, prompts: &Prompts, resources: &ResourceTable) -> Value {
    let mut caps = json!({"tools": {"listChanged": false}, "logging": {}});
    if options.empty_prompts_and_resources {
        caps["prompts"] = json!({});
        caps["resources"] = json!({});
        caps["completions"] = json!({});
    }
    if !prompts.is_empty() {
        caps["prompts"] = json!({"listChanged": false});
    }
    if !resources.is_empty() {
        let list_changed = options.resources_list_changed;
        caps["resources"] = json!({"subscribe": true, "listChanged": list_changed});
    }
    if prompts.list().iter().any(|p| p.completes()) || resources.completes() {
        caps["completions"] = json!({});
    }
    caps
}
