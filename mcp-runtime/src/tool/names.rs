//! What `tools![…]`, `prompts![…]` and `resources![…]` evaluate in constants: the name two
//! entries both publish, and the compile error that names it. A constant can panic only with a
//! `&str`, so the message is joined into a byte array of exactly its length first.

/// The first name both lists publish, or `""` when they share none: `tools![…]` asserts, for
/// every pair of its entries, that it is empty, and names it in the compile error otherwise.
pub const fn shared_name<'a>(a: &[&'a str], b: &[&str]) -> &'a str {
    let mut i = 0;
    while i < a.len() {
        let mut j = 0;
        while j < b.len() {
            if same_bytes(a[i], b[j]) {
                return a[i];
            }
            j += 1;
        }
        i += 1;
    }
    ""
}

/// The total length of `parts`, the length of [`joined`]'s array.
pub const fn joined_len(parts: &[&str]) -> usize {
    let mut len = 0;
    let mut i = 0;
    while i < parts.len() {
        len += parts[i].len();
        i += 1;
    }
    len
}

/// `parts` one after the other, in an array of `N` bytes (`N` is [`joined_len`] of `parts`).
pub const fn joined<const N: usize>(parts: &[&str]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut i = 0;
    while i < parts.len() {
        let bytes = parts[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() && at < N {
            out[at] = bytes[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// The text [`joined`] wrote (whole `&str`s joined, so always UTF-8).
pub const fn joined_text(bytes: &[u8]) -> &str {
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => "two entries publish the same name",
    }
}

/// Byte-wise string equality usable in constants.
const fn same_bytes(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_name_is_found_and_joined_into_the_message() {
        const NAME: &str = shared_name(&["a", "add"], &["sub", "add"]);
        const PARTS: [&str; 3] = ["`x` and `y` publish `", NAME, "`"];
        const MSG: [u8; joined_len(&PARTS)] = joined(&PARTS);
        assert_eq!(NAME, "add");
        assert_eq!(joined_text(&MSG), "`x` and `y` publish `add`");
        assert_eq!(shared_name(&["a"], &["b", "ab"]), "");
        assert_eq!(shared_name(&[], &["b"]), "");
    }
}
