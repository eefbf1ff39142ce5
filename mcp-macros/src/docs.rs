//! Doc comments become descriptions: the fn's comment describes the tool, a parameter's comment
//! describes the argument.
//!
//! Only `#[doc = "…"]` with a literal is read as text. Each line loses one leading space (the one
//! after `///`) and its trailing whitespace, blank lines at both ends are dropped, and the lines are
//! joined into paragraphs as rustdoc renders them (`join_lines`): a line break inside a paragraph
//! is a space, a blank line separates paragraphs, lists, headings, tables and code keep their lines. A `#[doc = include_str!(…)]` is kept as an expression and spliced into a
//! `concat!`, so the text it names is published as it is.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{Attribute, Expr, Lit, Meta};

/// One `#[doc]` attribute.
enum Piece {
    Text(String),
    Expr(Expr),
}

/// The doc comment of one item.
pub struct Docs {
    pieces: Vec<Piece>,
    /// The span of the first doc attribute, for errors about the whole comment.
    pub span: Option<Span>,
}

/// A description as the generated code publishes it.
#[derive(Clone)]
pub enum Description {
    /// Text known at expansion time.
    Text(String),
    /// A `concat!` of text and expressions such as `include_str!(…)`.
    Concat(TokenStream),
}

impl Docs {
    pub fn from_attrs(attrs: &[Attribute]) -> Docs {
        let mut pieces = Vec::new();
        let mut span = None;
        for attr in attrs {
            let Meta::NameValue(nv) = &attr.meta else {
                continue;
            };
            if !nv.path.is_ident("doc") {
                continue;
            }
            span.get_or_insert_with(|| syn::spanned::Spanned::span(attr));
            match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => pieces.push(Piece::Text(s.value())),
                other => pieces.push(Piece::Expr(other.clone())),
            }
        }
        Docs { pieces, span }
    }

    /// The description, `None` when there is no doc comment.
    pub fn description(&self) -> Option<Description> {
        if self.pieces.is_empty() {
            return None;
        }
        if self.pieces.iter().all(|p| matches!(p, Piece::Text(_))) {
            let lines: Vec<&str> = self
                .pieces
                .iter()
                .filter_map(|p| match p {
                    Piece::Text(t) => Some(t.as_str()),
                    Piece::Expr(_) => None,
                })
                .collect();
            return Some(Description::Text(join_lines(&lines)));
        }
        // Mixed text and expressions: consecutive literal lines are cleaned as one block.
        let mut parts: Vec<TokenStream> = Vec::new();
        let mut block: Vec<&str> = Vec::new();
        let flush = |block: &mut Vec<&str>, parts: &mut Vec<TokenStream>| {
            if !block.is_empty() {
                let text = join_lines(block);
                parts.push(quote!(#text));
                block.clear();
            }
        };
        for p in &self.pieces {
            match p {
                Piece::Text(t) => block.push(t),
                Piece::Expr(e) => {
                    flush(&mut block, &mut parts);
                    parts.push(e.to_token_stream());
                }
            }
        }
        flush(&mut block, &mut parts);
        let mut joined = TokenStream::new();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                joined.extend(quote!("\n",));
            }
            joined.extend(quote!(#part,));
        }
        Some(Description::Concat(quote!(::core::concat!(#joined))))
    }
}

/// Cleans doc lines and joins them the way rustdoc renders them: one leading space off each line,
/// blank lines at both ends dropped; the lines of a paragraph joined by a space (a line break in a
/// doc comment is a soft break in Markdown), paragraphs separated by a blank line; a line that
/// starts a block of its own (a list item, a heading, a quote, a table row, indented code) and a
/// line after a hard break (two trailing spaces or a `\`) begin a new line; fenced code blocks kept
/// line for line.
pub fn join_lines(attrs: &[&str]) -> String {
    let lines: Vec<&str> = attrs
        .iter()
        .flat_map(|a| a.split('\n'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(start), Some(end)) = (start, end) else {
        return String::new();
    };
    let mut out = String::new();
    // What the last line written asks of the next one: nothing, a line break, a paragraph break.
    let mut brk = "";
    let mut fence: Option<&str> = None;
    for raw in &lines[start..=end] {
        let line = raw.trim_end();
        let lead = line.trim_start();
        if let Some(marker) = fence {
            out.push('\n');
            out.push_str(line);
            if lead.starts_with(marker) {
                fence = None;
                brk = "\n";
            }
            continue;
        }
        if lead.is_empty() {
            brk = "\n\n";
            continue;
        }
        let opens_fence = ["```", "~~~"].into_iter().find(|m| lead.starts_with(m));
        let code = line.starts_with("    ") || line.starts_with('\t');
        let own_line = opens_fence.is_some() || code || starts_block(lead);
        if !out.is_empty() {
            out.push_str(match brk {
                "" if own_line => "\n",
                "" => " ",
                other => other,
            });
        }
        out.push_str(if brk.is_empty() && !own_line {
            lead
        } else {
            line
        });
        fence = opens_fence;
        let hard = raw.ends_with("  ") || line.ends_with('\\');
        // A heading, a table row and a line of code end their line; a list item's text, a quote's
        // and a paragraph's go on until a blank line.
        let ends_line = code || lead.starts_with('#') || lead.starts_with('|');
        brk = if hard || ends_line || fence.is_some() {
            "\n"
        } else {
            ""
        };
    }
    out
}

/// A line that starts a Markdown block of its own: a list item (`-`, `*`, `+`, `1.`, `1)`), a
/// heading, a quote or a table row.
fn starts_block(lead: &str) -> bool {
    if lead.starts_with('#') || lead.starts_with('>') || lead.starts_with('|') {
        return true;
    }
    if ["- ", "* ", "+ "].iter().any(|m| lead.starts_with(m)) || ["-", "*", "+"].contains(&lead) {
        return true;
    }
    let digits = lead.bytes().take_while(u8::is_ascii_digit).count();
    (1..=9).contains(&digits)
        && matches!(lead.as_bytes().get(digits), Some(b'.' | b')'))
        && matches!(lead.as_bytes().get(digits + 1), None | Some(b' '))
}

#[cfg(test)]
mod tests {
    use super::join_lines;

    #[test]
    fn doc_lines_are_cleaned_like_rustdoc() {
        let cases: &[(&[&str], &str)] = &[
            (&[" One line."], "One line."),
            (&[" First.", " Second."], "First. Second."),
            (&["", " Text.", "", ""], "Text."),
            (&[" Para one.", "", " Para two."], "Para one.\n\nPara two."),
            (
                &[" Para one", " goes on.", "", "", " Para two."],
                "Para one goes on.\n\nPara two.",
            ),
            (&["     Indented code."], "    Indented code."),
            (
                &[" Text:", "     code one", "     code two", " after."],
                "Text:\n    code one\n    code two\nafter.",
            ),
            (&["No space."], "No space."),
            (&[" trailing   "], "trailing"),
            (
                &["\n Block line one.\n Block line two.\n"],
                "Block line one. Block line two.",
            ),
            (
                &[
                    " Items:",
                    " - one",
                    "   continued",
                    " - two",
                    " 1. three",
                    "",
                    " After.",
                ],
                "Items:\n- one continued\n- two\n1. three\n\nAfter.",
            ),
            (
                &[" # Heading", " Text", " more.", " > quoted", " > still"],
                "# Heading\nText more.\n> quoted\n> still",
            ),
            (
                &[" | a | b |", " |---|---|", " | 1 | 2 |"],
                "| a | b |\n|---|---|\n| 1 | 2 |",
            ),
            (
                &[
                    " Run:",
                    " ```",
                    " let x = 1;",
                    "",
                    " x + 1",
                    " ```",
                    " Then",
                    " stop.",
                ],
                "Run:\n```\nlet x = 1;\n\nx + 1\n```\nThen stop.",
            ),
            (
                &[" Hard  ", " break", " soft\\", " too"],
                "Hard\nbreak soft\\\ntoo",
            ),
            (&[" 2026 was", " a year."], "2026 was a year."),
            (&["", "  ", ""], ""),
            (&[], ""),
        ];
        for (input, expected) in cases {
            assert_eq!(join_lines(input), *expected, "input: {input:?}");
        }
    }
}
