//! The notes server of seed 001: one tool with structured output and a helpful ToolError, written
//! as a method of the note store (`#[toolbox]`), whose `&self` is the server's state, taking its
//! arguments as one struct (`#[arg(flatten)]`: the struct's fields are the tool's arguments, so the
//! contract is the seed's `get_note(title)`). One prompt, `summarize_note`, embeds a note and asks
//! for its summary; its `title` argument completes from the titles of the notes. Each note is
//! also a resource, `notes://{title}` (a template whose `title` completes the same way), and
//! `notes://index` lists the titles.
//! Each of them needs the OAuth scope `notes:read` over HTTP behind `--auth-issuer` (`scopes = [...]`
//! on the toolbox, the prompt and the resources; docs/auth.md); stdio ignores it.
//!
//! Run over stdio: `cargo run -p examples --bin notes`.

use std::collections::BTreeMap;

use examples::py_list;
use examples::py_repr;
use mcp_runtime::prelude::*;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Note {
    pub title: String,
    pub body: String,
    pub words: i64,
}

/// What `get_note` is asked: its fields are the tool's top-level arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoteQuery {
    pub title: String,
}

/// The notes, by title.
pub struct Notes(pub BTreeMap<String, String>);

impl Default for Notes {
    fn default() -> Self {
        Notes(BTreeMap::from([(
            "groceries".to_owned(),
            "milk, eggs".to_owned(),
        )]))
    }
}

#[toolbox(scopes = ["notes:read"])]
impl Notes {
    /// Return one note by its exact title.
    #[tool]
    pub fn get_note(&self, #[arg(flatten)] query: NoteQuery) -> Result<Note, ToolError> {
        let NoteQuery { title } = query;
        let Some(body) = self.0.get(&title) else {
            let known: Vec<&str> = self.0.keys().map(String::as_str).collect();
            return Err(ToolError::new(format!(
                "No note {}. Known titles: {}",
                py_repr(&title),
                py_list(&known)
            )));
        };
        Ok(Note {
            words: body.split_whitespace().count() as i64,
            body: body.clone(),
            title,
        })
    }
}

/// Ask for a one-sentence summary of a note, the note embedded.
#[prompt(title = "Summarize a note", scopes = ["notes:read"])]
pub fn summarize_note(
    notes: &Notes,
    /// The exact title of the note.
    #[arg(complete = note_titles)]
    title: String,
) -> Result<Vec<PromptMessage>, ToolError> {
    let Some(body) = notes.0.get(&title) else {
        return Err(ToolError::invalid_params(format!(
            "No note {}",
            py_repr(&title)
        )));
    };
    Ok(vec![
        PromptMessage::user(Content::embedded_text(
            format!("notes://{title}"),
            "text/plain",
            body.clone(),
        )),
        PromptMessage::user("Summarize the note above in one sentence."),
    ])
}

/// The titles of the notes that start with what was typed.
fn note_titles(request: &CompleteRequest) -> Vec<String> {
    let notes = request.state::<Notes>().map(|n| &n.0);
    let titles = notes.into_iter().flat_map(|n| n.keys());
    titles
        .filter(|t| t.starts_with(request.value()))
        .cloned()
        .collect()
}

/// One note's text, by its exact title.
#[resource(
    uri = "notes://{title}",
    name = "note",
    mime_type = "text/plain",
    complete(title = note_titles),
    scopes = ["notes:read"]
)]
pub fn note(notes: &Notes, title: String) -> Result<String, ToolError> {
    notes
        .0
        .get(&title)
        .cloned()
        .ok_or_else(ToolError::resource_not_found)
}

/// The titles of every note, one per line.
#[resource(
    uri = "notes://index",
    name = "index",
    mime_type = "text/plain",
    scopes = ["notes:read"]
)]
pub fn index(notes: &Notes) -> String {
    let titles: Vec<&str> = notes.0.keys().map(String::as_str).collect();
    titles.join("\n")
}

/// The server: `Notes`, whose methods are its tools, its prompt and its resources.
pub fn server() -> Server {
    Server::builder("Notes", "1.0.0")
        .state(Notes::default())
        .tools(tools![Notes])
        .prompts(prompts![summarize_note])
        .resources(resources![note, index])
        .build()
        .unwrap_or_else(|e| panic!("the server cannot be built: {e}"))
}

fn main() -> std::process::ExitCode {
    examples::init_logging();
    mcp_runtime::cli::run(server())
}
