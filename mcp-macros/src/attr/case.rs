//! `rename_all = "…"`: serde's case names, applied to an argument's snake_case binding the way
//! serde applies them to a field, so that a type and a tool renamed alike publish alike.

use syn::Meta;

use super::keys::path_text;
use super::slot::Sp;
use super::value::parse_lit_str;
use crate::ctxt::Ctxt;

/// One of serde's case conventions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// Every case name as serde spells it, in the order errors list them; `RULES` in the same order.
const NAMES: [&str; 8] = [
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];
const RULES: [RenameRule; 8] = [
    RenameRule::Lower,
    RenameRule::Upper,
    RenameRule::Pascal,
    RenameRule::Camel,
    RenameRule::Snake,
    RenameRule::ScreamingSnake,
    RenameRule::Kebab,
    RenameRule::ScreamingKebab,
];

impl RenameRule {
    /// The published name of an argument bound as `field` (snake_case, as Rust names bindings).
    pub(crate) fn apply(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.apply(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// `rename_all = "camelCase"`; any other string is an error at the literal listing serde's names.
pub(super) fn parse_rename_rule(cx: &Ctxt, meta: &Meta) -> Option<Sp<RenameRule>> {
    let lit = parse_lit_str(cx, meta)?;
    let written = lit.value.value();
    match NAMES.iter().position(|name| *name == written) {
        Some(i) => Some(Sp::new(RULES[i], lit.span)),
        None => {
            let list = NAMES
                .iter()
                .map(|name| format!("\"{name}\""))
                .collect::<Vec<_>>()
                .join(", ");
            cx.error_at(
                lit.span,
                format!(
                    "unknown case `{written}` for `{}`\nexpected one of: {list}",
                    path_text(meta.path())
                ),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_renames_like_serde() {
        let cases = [
            (RenameRule::Lower, "dry_run", "dry_run"),
            (RenameRule::Upper, "dry_run", "DRY_RUN"),
            (RenameRule::Pascal, "dry_run", "DryRun"),
            (RenameRule::Camel, "dry_run", "dryRun"),
            (RenameRule::Snake, "dry_run", "dry_run"),
            (RenameRule::ScreamingSnake, "dry_run", "DRY_RUN"),
            (RenameRule::Kebab, "dry_run", "dry-run"),
            (RenameRule::ScreamingKebab, "dry_run", "DRY-RUN"),
            (RenameRule::Camel, "query", "query"),
            (RenameRule::Camel, "max_items_2", "maxItems2"),
            (RenameRule::Pascal, "a", "A"),
        ];
        for (rule, field, expected) in cases {
            assert_eq!(rule.apply(field), expected, "{rule:?} {field}");
        }
    }

    #[test]
    fn each_name_is_paired_with_its_rule() {
        for (name, rule) in NAMES.iter().zip(RULES) {
            let bare = name.to_lowercase().replace(['_', '-'], "");
            let variant = format!("{rule:?}").to_lowercase();
            assert_eq!(bare.strip_suffix("case"), Some(variant.as_str()), "{name}");
        }
    }
}
