//! One constant per key name, the keys each attribute accepts, and the error for any other key
//! (with the closest valid key when the unknown one looks like a typo).

use crate::ctxt::Ctxt;

pub(super) const NAME: &str = "name";
pub(super) const TITLE: &str = "title";
pub(super) const DESCRIPTION: &str = "description";
pub(super) const READ_ONLY: &str = "read_only";
pub(super) const DESTRUCTIVE: &str = "destructive";
pub(super) const IDEMPOTENT: &str = "idempotent";
pub(super) const INLINE: &str = "inline";
pub(super) const OPEN_WORLD: &str = "open_world";
pub(super) const CRATE: &str = "crate";
pub(super) const RENAME_ALL: &str = "rename_all";
pub(super) const TASK: &str = "task";
pub(super) const SCOPES: &str = "scopes";

pub(super) const URI: &str = "uri";
pub(super) const MIME_TYPE: &str = "mime_type";
pub(super) const SIZE: &str = "size";
pub(super) const ANNOTATIONS: &str = "annotations";
pub(super) const AUDIENCE: &str = "audience";
pub(super) const PRIORITY: &str = "priority";
pub(super) const LAST_MODIFIED: &str = "last_modified";

pub(super) const PATTERN: &str = "pattern";
pub(super) const FORMAT: &str = "format";
pub(super) const MINIMUM: &str = "minimum";
pub(super) const MIN: &str = "min";
pub(super) const MAXIMUM: &str = "maximum";
pub(super) const MAX: &str = "max";
pub(super) const EXCLUSIVE_MINIMUM: &str = "exclusive_minimum";
pub(super) const EXCLUSIVE_MIN: &str = "exclusive_min";
pub(super) const EXCLUSIVE_MAXIMUM: &str = "exclusive_maximum";
pub(super) const EXCLUSIVE_MAX: &str = "exclusive_max";
pub(super) const MIN_LENGTH: &str = "min_length";
pub(super) const MAX_LENGTH: &str = "max_length";
pub(super) const MIN_ITEMS: &str = "min_items";
pub(super) const MAX_ITEMS: &str = "max_items";
pub(super) const ONE_OF: &str = "one_of";
pub(super) const DEFAULT: &str = "default";
pub(super) const RENAME: &str = "rename";
pub(super) const FLATTEN: &str = "flatten";
pub(super) const COMPLETE: &str = "complete";

/// Every key `#[tool(...)]` accepts, in the order error messages list them.
pub(super) const TOOL_KEYS: &[&str] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    INLINE,
    TASK,
    SCOPES,
    RENAME_ALL,
    CRATE,
];

/// Every key `#[prompt(...)]` accepts.
pub(super) const PROMPT_KEYS: &[&str] = &[NAME, TITLE, DESCRIPTION, SCOPES, RENAME_ALL, CRATE];
/// Every key `#[resource(...)]` accepts.
pub(super) const RESOURCE_KEYS: &[&str] = &[
    URI,
    NAME,
    TITLE,
    DESCRIPTION,
    MIME_TYPE,
    SIZE,
    ANNOTATIONS,
    COMPLETE,
    SCOPES,
    CRATE,
];

/// Every key of `#[resource(annotations(...))]`.
pub(super) const ANNOTATION_KEYS: &[&str] = &[AUDIENCE, PRIORITY, LAST_MODIFIED];

/// Every key `#[toolbox(...)]` accepts: what its `#[tool]` methods share.
pub(super) const TOOLBOX_KEYS: &[&str] = &[SCOPES, RENAME_ALL, CRATE];

/// Every key `#[arg(...)]` accepts, aliases included.
pub(super) const ARG_KEYS: &[&str] = &[
    DESCRIPTION,
    RENAME,
    DEFAULT,
    PATTERN,
    FORMAT,
    MIN_LENGTH,
    MAX_LENGTH,
    MINIMUM,
    MIN,
    MAXIMUM,
    MAX,
    EXCLUSIVE_MINIMUM,
    EXCLUSIVE_MIN,
    EXCLUSIVE_MAXIMUM,
    EXCLUSIVE_MAX,
    MIN_ITEMS,
    MAX_ITEMS,
    ONE_OF,
    FLATTEN,
    COMPLETE,
];

/// The key as written: `name`, or `a::b` for a (wrong) path key.
pub(super) fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The error for a key the attribute does not accept, with the closest valid key as a hint.
pub(super) fn unknown_key(cx: &Ctxt, attr: &str, key: &syn::Path, valid: &[&str]) {
    let written = path_text(key);
    let list = valid
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let hint = match closest(&written, valid) {
        Some(k) => format!("; did you mean `{k}`?"),
        None => String::new(),
    };
    cx.error_spanned_by(
        key,
        format!("unknown `{attr}` key `{written}`{hint}\nexpected one of: {list}"),
    );
}

/// The valid key closest to a misspelt one, when it is close enough to be a typo.
pub(super) fn closest<'a>(written: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid
        .iter()
        .map(|k| (edit_distance(written, k), *k))
        .filter(|(d, k)| *d <= (k.len().max(written.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Edits between two keys, a swap of two neighbouring letters counting as one (`nmae`).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_suggest_the_closest_key() {
        let cases = [
            ("read_onyl", Some(READ_ONLY)),
            ("descripton", Some(DESCRIPTION)),
            ("nmae", Some(NAME)),
            ("open", None),
            ("zzzzzz", None),
        ];
        for (written, expected) in cases {
            assert_eq!(closest(written, TOOL_KEYS), expected, "{written}");
        }
        assert_eq!(closest("min_lenght", ARG_KEYS), Some(MIN_LENGTH));
        assert_eq!(closest("minimun", ARG_KEYS), Some(MINIMUM));
    }
}
