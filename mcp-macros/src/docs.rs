//! Doc comments become descriptions: the fn's comment describes the tool, a parameter's comment
//! describes the argument.
//!
//! Only `#[doc = "…"]` with a literal is read as text. Each line loses one leading space (the one
//! after `///`) and its trailing whitespace, blank lines at both ends are dropped, and line breaks
//! stay as written. A `#[doc = include_str!(…)]` is kept as an expression and spliced into a
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

/// Cleans doc lines: one leading space off each line, trailing whitespace off, blank lines at both
/// ends dropped, line breaks kept.
pub fn join_lines(attrs: &[&str]) -> String {
    let lines: Vec<&str> = attrs
        .iter()
        .flat_map(|a| a.split('\n'))
        .map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end())
        .collect();
    let start = lines.iter().position(|l| !l.is_empty());
    let end = lines.iter().rposition(|l| !l.is_empty());
    match (start, end) {
        (Some(s), Some(e)) => lines[s..=e].join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::join_lines;

    #[test]
    fn doc_lines_are_cleaned_like_rustdoc() {
        let cases: &[(&[&str], &str)] = &[
            (&[" One line."], "One line."),
            (&[" First.", " Second."], "First.\nSecond."),
            (&["", " Text.", "", ""], "Text."),
            (&[" Para one.", "", " Para two."], "Para one.\n\nPara two."),
            (&["   Indented code."], "  Indented code."),
            (&["No space."], "No space."),
            (&[" trailing   "], "trailing"),
            (
                &["\n Block line one.\n Block line two.\n"],
                "Block line one.\nBlock line two.",
            ),
            (&["", "  ", ""], ""),
            (&[], ""),
        ];
        for (input, expected) in cases {
            assert_eq!(join_lines(input), *expected, "input: {input:?}");
        }
    }
}
