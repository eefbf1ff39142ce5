//! `scopes = ["tasks:write", ...]` on `#[tool]`, `#[toolbox]`, `#[prompt]` and `#[resource]`: the
//! OAuth scopes a request for the item needs when the server is behind authorization. Each is
//! checked here as an RFC 6749 §3.3 scope-token; an empty list is allowed (a `#[tool]` inside a
//! `#[toolbox]` that sets scopes for its methods then needs none of them).

use syn::{Expr, ExprLit, Lit, Meta};

use super::keys::path_text;
use super::slot::Sp;
use super::value::value_of;
use crate::ctxt::Ctxt;

/// Whether `scope` is a scope-token of RFC 6749 §3.3: one or more of `%x21 / %x23-5B / %x5D-7E`
/// (visible ASCII but `"` and `\`; no space). The runtime's `is_scope_token` is the same rule.
fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b))
}

/// `scopes = ["a", "b"]`: string literals, each a scope-token, none twice.
pub(super) fn parse_scopes(cx: &Ctxt, meta: &Meta) -> Option<Sp<Vec<String>>> {
    let key = path_text(meta.path());
    let form = format!("{key} = [\"tasks:read\", \"tasks:write\"]");
    let array = match value_of(cx, meta, &form)? {
        Expr::Array(a) => a,
        other => return cx.refuse(other, format!("expected a list of scopes: `{form}`")),
    };
    let mut scopes: Vec<String> = Vec::new();
    let mut ok = true;
    for element in &array.elems {
        let Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) = element
        else {
            cx.error_spanned_by(element, format!("a scope is a string literal: `{form}`"));
            ok = false;
            continue;
        };
        let scope = s.value();
        if !is_scope_token(&scope) {
            let what = match scope.is_empty() {
                true => "an empty string".to_owned(),
                false => format!("`{scope}`"),
            };
            cx.error_spanned_by(
                s,
                format!(
                    "{what} is not an OAuth scope: a scope is one or more visible ASCII \
                     characters but `\"` and `\\`, with no space (RFC 6749 §3.3); list several \
                     scopes as several strings: `{form}`"
                ),
            );
            ok = false;
        } else if scopes.contains(&scope) {
            cx.error_spanned_by(
                s,
                format!("the scope `{scope}` is listed twice; remove one"),
            );
            ok = false;
        } else {
            scopes.push(scope);
        }
    }
    ok.then(|| Sp::spanned(scopes, array))
}

#[cfg(test)]
mod tests {
    use super::is_scope_token;

    #[test]
    fn scope_tokens() {
        for good in ["tasks:write", "!", "#[]~", "https://api.example.com/read"] {
            assert!(is_scope_token(good), "{good}");
        }
        for bad in ["", "a b", "a\"b", "a\\b", "é", "tab\there"] {
            assert!(!is_scope_token(bad), "{bad}");
        }
    }
}
