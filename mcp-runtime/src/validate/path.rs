//! Where the walk is in the arguments, and its JSON Pointer (RFC 6901) for a violation; a key
//! longer than [`QUOTE_LIMIT`] characters is cut there with `…`.

use std::fmt::Write as _;

/// Strings longer than this many characters are cut (with `…`) when quoted in a message, and
/// keys when they are a segment of a violation's pointer.
pub(super) const QUOTE_LIMIT: usize = 40;

/// Where the value under check is: a linked list on the stack, turned into a JSON Pointer only
/// when a violation is reported.
#[derive(Clone, Copy)]
pub(super) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
    pub(super) depth: usize,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    pub(super) const ROOT: Path<'static> = Path {
        parent: None,
        seg: Seg::Root,
        depth: 0,
    };

    #[inline]
    pub(super) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Key(key),
            depth: self.depth + 1,
        }
    }

    #[inline]
    pub(super) fn index(&'a self, i: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Index(i),
            depth: self.depth + 1,
        }
    }

    /// "argument" for the keys of the arguments object itself, "property" below it.
    #[inline]
    pub(super) fn noun(&self) -> &'static str {
        if self.depth == 0 {
            "argument"
        } else {
            "property"
        }
    }

    /// RFC 6901: `~` is written `~0` and `/` is written `~1`.
    pub(super) fn pointer(&self) -> String {
        let mut out = String::new();
        self.write_pointer(&mut out);
        out
    }

    /// Appends the pointer, the root's segment first. Recursive: the walk is at most
    /// [`super::MAX_DEPTH`] levels deep, and each level's frame here is small (collecting the
    /// segments into a `Vec` first cost every violation an allocation).
    fn write_pointer(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.write_pointer(out);
        }
        match self.seg {
            Seg::Root => {}
            Seg::Index(i) => {
                let _ = write!(out, "/{i}");
            }
            Seg::Key(k) => {
                out.push('/');
                // A key is cut as messages cut a quoted string: a pointer under a long key
                // repeated in every violation below it would make the text the product of the
                // key's length and their number.
                for (i, c) in k.chars().enumerate() {
                    match c {
                        _ if i == QUOTE_LIMIT => {
                            out.push('…');
                            break;
                        }
                        '~' => out.push_str("~0"),
                        '/' => out.push_str("~1"),
                        c => out.push(c),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::tests::run;
    use serde_json::json;

    #[test]
    fn pointer_and_noun() {
        let root = Path::ROOT;
        assert_eq!(root.pointer(), "");
        assert_eq!(root.noun(), "argument");
        let key = root.key("a~/b");
        let item = key.index(3);
        assert_eq!(item.pointer(), "/a~0~1b/3");
        assert_eq!(key.noun(), "property");
        assert_eq!(item.depth, 2);
    }

    #[test]
    fn long_keys_are_cut() {
        let root = Path::ROOT;
        let exact = "~/".repeat(QUOTE_LIMIT / 2);
        assert_eq!(
            root.key(&exact).pointer(),
            format!("/{}", "~0~1".repeat(20))
        );
        let long = format!("{}é{}", "k".repeat(QUOTE_LIMIT - 1), "x".repeat(1000));
        let under = root.key(&long);
        assert_eq!(
            under.index(7).pointer(),
            format!("/{}é…/7", "k".repeat(QUOTE_LIMIT - 1))
        );
        let schema = json!({"additionalProperties": {"items": {"type": "integer"}}});
        let got = run(schema, json!({ long.clone(): ["a", 1, "b"] }));
        let cut = format!("/{}é…", "k".repeat(QUOTE_LIMIT - 1));
        assert_eq!(
            got,
            [
                format!("{cut}/0: must be an integer (got string)"),
                format!("{cut}/2: must be an integer (got string)")
            ]
        );
    }

    #[test]
    fn json_pointer_escaping() {
        let schema = json!({"additionalProperties": {"type": "integer"}});
        let got = run(schema, json!({"a/b": "x", "m~n": "y", "": "z", "é ü": "w"}));
        assert_eq!(
            got,
            [
                "/a~1b: must be an integer (got string)",
                "/m~0n: must be an integer (got string)",
                "/: must be an integer (got string)",
                "/é ü: must be an integer (got string)"
            ]
        );
    }
}
