//! A value written as a literal (`5`, `"text"`, `vec![a, b]`), read as far as the macro can, for
//! the rules that compare `one_of` and `default` values.

use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, Token, UnOp};

use crate::attr::Num;

/// A value written as a literal, as far as the macro can read one.
pub(super) enum Literal {
    Num(Num),
    Str(String),
    /// A list literal (`vec![…]`, `[…]`) with this many items.
    Items(usize),
}

impl Literal {
    /// The value as the messages show it: `5`, `"text"`.
    pub(super) fn shown(&self) -> String {
        match self {
            Literal::Num(n) => n.to_string(),
            Literal::Str(s) => format!("{s:?}"),
            Literal::Items(n) => format!("a list of {n}"),
        }
    }

    pub(super) fn same_value(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::Num(a), Literal::Num(b)) => {
                a.partial_cmp(*b) == Some(std::cmp::Ordering::Equal)
            }
            (Literal::Str(a), Literal::Str(b)) => a == b,
            _ => false,
        }
    }
}

/// Reads `5`, `-0.5`, `"text"`, `"text".to_string()` (or `.to_owned()`, `.into()`),
/// `String::from("text")`, `vec![a, b]` and `[a, b]`; anything else is not a literal here.
pub(super) fn literal_of(expr: &Expr) -> Option<Literal> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Int(i) => match i.base10_parse::<i64>() {
                Ok(n) => Some(Literal::Num(Num::Int(n))),
                Err(_) => i
                    .base10_parse::<u64>()
                    .ok()
                    .map(|n| Literal::Num(Num::UInt(n))),
            },
            Lit::Float(f) => f
                .base10_parse::<f64>()
                .ok()
                .map(|x| Literal::Num(Num::Float(x))),
            Lit::Str(s) => Some(Literal::Str(s.value())),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match literal_of(&u.expr)? {
            Literal::Num(Num::Int(n)) => Some(Literal::Num(Num::Int(n.checked_neg()?))),
            Literal::Num(Num::UInt(n)) => {
                let n = i64::try_from(-i128::from(n)).ok()?;
                Some(Literal::Num(Num::Int(n)))
            }
            Literal::Num(Num::Float(x)) => Some(Literal::Num(Num::Float(-x))),
            _ => None,
        },
        Expr::Paren(p) => literal_of(&p.expr),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && matches!(
                    m.method.to_string().as_str(),
                    "to_string" | "to_owned" | "into"
                ) =>
        {
            literal_of(&m.receiver).filter(|l| matches!(l, Literal::Str(_)))
        }
        Expr::Call(c) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else {
                return None;
            };
            let segments: Vec<String> = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let is_from = segments.ends_with(&["String".to_owned(), "from".to_owned()]);
            if is_from {
                literal_of(&c.args[0]).filter(|l| matches!(l, Literal::Str(_)))
            } else {
                None
            }
        }
        Expr::Array(a) => Some(Literal::Items(a.elems.len())),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .ok()
            .map(|items| Literal::Items(items.len())),
        _ => None,
    }
}
