//! What a comparison found: each [`Change`] with its [`Class`], and the [`Report`] of them all,
//! rendered as text, Markdown (a pull request's comment) or JSON.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a change affects the clients of the old contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// Words for people only (a description, a title): nothing a client relies on.
    Info,
    /// Every client of the old contract keeps working.
    Compatible,
    /// Not proven either way (a union, a `$ref`, a changed default): a person must look.
    Unknown,
    /// Some client of the old contract stops working; for an input, [`Change::witness`] shows one.
    Breaking,
}

impl Class {
    /// The word reports print: `BREAKING`, `UNKNOWN`, `compatible`, `info`.
    pub fn label(self) -> &'static str {
        match self {
            Class::Info => "info",
            Class::Compatible => "compatible",
            Class::Unknown => "UNKNOWN",
            Class::Breaking => "BREAKING",
        }
    }
}

/// What kind of entry of the contract changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Kind {
    /// The server's identity (`serverInfo`, the protocol version).
    Server,
    /// A tool, by name.
    Tool,
    /// A resource, by URI.
    Resource,
    /// A resource template, by name.
    ResourceTemplate,
    /// A prompt, by name.
    Prompt,
}

impl Kind {
    /// `tool`, `resource`, `template`, `prompt`, `server`.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Server => "server",
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::ResourceTemplate => "template",
            Kind::Prompt => "prompt",
        }
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Breaking, unknown, compatible or info.
    pub class: Class,
    /// The stable id of the rule that classified it: `input.required-added`, `tool.removed`, …
    pub rule: String,
    /// What kind of entry changed.
    pub kind: Kind,
    /// The entry's name (a resource's URI); empty for the server.
    pub name: String,
    /// Where in the entry, as a JSON Pointer into its normalized form
    /// (`/inputSchema/properties/order_id/maximum`).
    pub pointer: String,
    /// One sentence for people.
    pub message: String,
    /// For a breaking input change: an `arguments` object the old contract accepts and the new
    /// one refuses, when the generator found one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witness: Option<Value>,
}

impl Change {
    /// Where in the entry, as the reports print it: the pointer, or `/` for the whole entry.
    pub fn place(&self) -> &str {
        if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        }
    }
}

/// Every change between two snapshots, most severe first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The changes, sorted by class (breaking first), then entry and pointer.
    pub changes: Vec<Change>,
}

impl Report {
    /// The most severe class present, `None` when nothing changed.
    pub fn worst(&self) -> Option<Class> {
        self.changes.iter().map(|c| c.class).max()
    }

    /// How many changes have `class`.
    pub fn count(&self, class: Class) -> usize {
        self.changes.iter().filter(|c| c.class == class).count()
    }

    /// The exit code a CI gate returns: 1 when something breaks, 3 when nothing breaks but
    /// something is unknown, else 0.
    pub fn exit_code(&self) -> i32 {
        match self.worst() {
            Some(Class::Breaking) => 1,
            Some(Class::Unknown) => 3,
            _ => 0,
        }
    }

    /// Downgrades the changes of the named rules to [`Class::Info`]: differences a project has
    /// chosen to accept (the message says so).
    pub fn allow(&mut self, rules: &[String]) {
        for change in &mut self.changes {
            if rules.contains(&change.rule) && change.class != Class::Info {
                change.message =
                    format!("{} (allowed; was {})", change.message, change.class.label());
                change.class = Class::Info;
                change.witness = None;
            }
        }
        self.sort();
    }

    pub(crate) fn sort(&mut self) {
        self.changes.sort_by(|a, b| {
            (b.class, a.kind, &a.name, &a.pointer, &a.rule)
                .cmp(&(a.class, b.kind, &b.name, &b.pointer, &b.rule))
        });
    }

    /// One line a count: `2 breaking, 0 unknown, 1 compatible, 3 info`.
    pub fn summary(&self) -> String {
        format!(
            "{} breaking, {} unknown, {} compatible, {} info",
            self.count(Class::Breaking),
            self.count(Class::Unknown),
            self.count(Class::Compatible),
            self.count(Class::Info)
        )
    }

    /// Plain text: one line a change (its witness on the next), then the summary.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            let _ = writeln!(
                out,
                "{:<10} {} {} {} [{}]: {}",
                c.class.label(),
                c.kind.label(),
                c.name,
                c.place(),
                c.rule,
                c.message
            );
            if let Some(w) = &c.witness {
                let _ = writeln!(out, "           witness (old accepts, new refuses): {w}");
            }
        }
        if self.changes.is_empty() {
            out.push_str("no change\n");
        }
        let _ = writeln!(out, "{}", self.summary());
        out
    }

    /// Markdown for a pull request's comment: a verdict, then a table of the changes.
    pub fn to_markdown(&self) -> String {
        let verdict = match self.worst() {
            Some(Class::Breaking) => {
                "**Breaking**: some clients of the published contract stop working."
            }
            Some(Class::Unknown) => {
                "**Unknown**: nothing proven breaking, but some changes need a review."
            }
            Some(_) => "**Compatible**: every client of the published contract keeps working.",
            None => "**No change** to the published contract.",
        };
        let mut out = format!("### MCP contract\n\n{verdict} ({})\n", self.summary());
        if !self.changes.is_empty() {
            out.push_str("\n| class | entry | where | rule | change | witness |\n|---|---|---|---|---|---|\n");
            for c in &self.changes {
                let witness = c
                    .witness
                    .as_ref()
                    .map(|w| format!("`{w}`"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "| {} | {} `{}` | `{}` | `{}` | {} | {} |",
                    c.class.label(),
                    c.kind.label(),
                    c.name,
                    c.place(),
                    c.rule,
                    c.message.replace('|', "\\|"),
                    witness.replace('|', "\\|")
                );
            }
        }
        out
    }

    /// JSON: the changes, the summary counts and the exit code. The changes are derived; the
    /// counts and the exit code are computed here, not fields a derive could write.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "changes": self.changes,
            "breaking": self.count(Class::Breaking),
            "unknown": self.count(Class::Unknown),
            "compatible": self.count(Class::Compatible),
            "info": self.count(Class::Info),
            "exitCode": self.exit_code(),
        })
    }
}
