//! `#[toolbox]` shapes that must compile without a warning, under strict lints.
#![deny(warnings, missing_docs, unused, nonstandard_style)]

use std::sync::{Arc, Mutex};

use mcp_runtime::prelude::*;

/// A note.
#[derive(Clone, Serialize, Deserialize, JsonSchema)]
pub struct Note {
    /// Its title.
    pub title: String,
}

/// Public state with public tools.
#[derive(Default)]
pub struct Notes(Mutex<Vec<Note>>);

#[toolbox(rename_all = "camelCase")]
impl Notes {
    /// Adds a note.
    #[tool(idempotent = false)]
    pub async fn add_note(&self, ctx: &Context, #[arg(min_length = 1)] note_title: String) -> Note {
        let _ = ctx.tool_name();
        let note = Note { title: note_title };
        self.0.lock().unwrap().push(note.clone());
        note
    }

    /// Counts notes, from a shared handle.
    #[mcp_runtime::tool(read_only, inline)]
    fn count(self: Arc<Self>) -> usize {
        self.0.lock().unwrap().len()
    }

    /// The first note.
    #[tool]
    fn first(&self) -> Result<Option<Note>, ToolError> {
        Ok(self.0.lock().unwrap().first().cloned())
    }

    /// An associated fn: no state at all.
    #[tool(name = "notes.version")]
    fn version() -> String {
        "1".into()
    }

    /// Not a tool.
    pub fn clear(&self) {
        self.0.lock().unwrap().clear();
    }
}

#[toolbox]
impl Note {
    /// `Self` in an argument and in the return type names the impl's type.
    #[tool]
    fn retitle(note: Self, title: String) -> Self {
        Note {
            title: format!("{} / {title}", note.title),
        }
    }
}

/// A concrete instance of a generic type.
pub struct Wrapper<T>(T);

#[toolbox]
impl Wrapper<u8> {
    /// Reads the byte.
    #[tool]
    fn byte(&self) -> u8 {
        self.0
    }
}

mod nested {
    use mcp_runtime::prelude::*;

    /// A toolbox two modules down, listed by path.
    pub struct Deep;

    #[toolbox(crate = crate::rt)]
    impl Deep {
        /// Says hello.
        #[tool]
        fn hello(&self) -> String {
            "hello".into()
        }
    }
}

mod rt {
    pub use mcp_runtime::*;
}

/// A free function beside the toolboxes.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {
    let table = tools![add, Notes, Wrapper<u8>, nested::Deep, Note];
    assert_eq!(
        table.names(),
        [
            "add",
            "add_note",
            "count",
            "first",
            "notes.version",
            "byte",
            "hello",
            "retitle"
        ]
    );
    let props = &table.get("add_note").unwrap().input_schema()["properties"];
    assert!(props.get("noteTitle").is_some());
    Notes::default().clear();
    assert_eq!(Wrapper(7u8).byte(), 7);
    assert_eq!(Notes::version(), "1");
    let note = Note::retitle(Note { title: "a".into() }, "b".into());
    assert_eq!(note.title, "a / b");
}
