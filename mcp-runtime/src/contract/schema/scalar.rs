//! The keywords of one value: `type`, `enum`/`const`, numeric bounds, `multipleOf`, lengths and
//! counts, `uniqueItems`, `pattern`, `format`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::Walk;

impl Walk<'_> {
    pub(super) fn types(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, ptr: &str) {
        let (old, new) = (types(o), types(n));
        if old == new {
            return;
        }
        let show = |t: &Option<BTreeSet<String>>| match t {
            None => "any type".to_owned(),
            Some(t) => t.iter().cloned().collect::<Vec<_>>().join(" or "),
        };
        let message = format!("type {} became {}", show(&old), show(&new));
        let here = format!("{ptr}/type");
        match (covers_all(&new, &old), covers_all(&old, &new)) {
            (true, true) => {}
            (true, false) => self.loosened(&here, "type-widened", message),
            (false, true) => self.tightened(&here, "type-narrowed", message),
            (false, false) => self.changed(&here, "type-changed", message),
        }
    }

    pub(super) fn values(&mut self, o: &Map<String, Value>, n: &Map<String, Value>, ptr: &str) {
        let (old, new) = (allowed_values(o), allowed_values(n));
        if old == new {
            return;
        }
        let word = if o.contains_key("const") || n.contains_key("const") {
            "const"
        } else {
            "enum"
        };
        let here = format!("{ptr}/{word}");
        match (old, new) {
            (None, Some(new)) => self.tightened(
                &here,
                &format!("{word}-added"),
                format!("now limited to {}", list(&new)),
            ),
            (Some(old), None) => self.loosened(
                &here,
                &format!("{word}-removed"),
                format!("no longer limited to {}", list(&old)),
            ),
            (Some(old), Some(new)) => {
                let removed: Vec<Value> =
                    old.iter().filter(|v| !new.contains(v)).cloned().collect();
                let added: Vec<Value> = new.iter().filter(|v| !old.contains(v)).cloned().collect();
                if word == "const" && !removed.is_empty() && !added.is_empty() {
                    return self.changed(
                        &here,
                        "const-changed",
                        format!("{} became {}", list(&old), list(&new)),
                    );
                }
                if !removed.is_empty() {
                    self.tightened(
                        &here,
                        &format!("{word}-value-removed"),
                        format!("{} no longer allowed", list(&removed)),
                    );
                }
                if !added.is_empty() {
                    self.loosened(
                        &here,
                        &format!("{word}-value-added"),
                        format!("{} now allowed", list(&added)),
                    );
                }
            }
            (None, None) => {}
        }
    }

    pub(super) fn bound(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        which: Bound,
    ) {
        let (old, new) = (bound(o, which), bound(n, which));
        let kw = new.as_ref().or(old.as_ref()).map(|b| b.keyword);
        let Some(kw) = kw else { return };
        let here = format!("{ptr}/{kw}");
        let show = |b: &Option<B>| match b {
            None => "none".to_owned(),
            Some(b) => format!("{} {}", b.keyword, b.text),
        };
        let message = format!("{} became {}", show(&old), show(&new));
        let ordering = match (&old, &new) {
            (None, None) => return,
            (None, Some(_)) => Some(true),
            (Some(_), None) => Some(false),
            (Some(a), Some(b)) => {
                // A lower bound tightens when it rises, an upper one when it falls; at the same
                // value, exclusive is tighter than inclusive.
                let (a_v, b_v) = match which {
                    Bound::Lower => (a.value, b.value),
                    Bound::Upper => (-a.value, -b.value),
                };
                if b_v > a_v || (b_v == a_v && b.exclusive && !a.exclusive) {
                    Some(true)
                } else if b_v < a_v || (b_v == a_v && a.exclusive && !b.exclusive) {
                    Some(false)
                } else {
                    None
                }
            }
        };
        match ordering {
            Some(true) => self.tightened(&here, &format!("{kw}-tightened"), message),
            Some(false) => self.loosened(&here, &format!("{kw}-loosened"), message),
            None => {}
        }
    }

    pub(super) fn multiple_of(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
    ) {
        let get = |m: &Map<String, Value>| m.get("multipleOf").and_then(Value::as_f64);
        let (old, new) = (get(o), get(n));
        let here = format!("{ptr}/multipleOf");
        let message = format!("multipleOf {old:?} became {new:?}");
        let integral = |x: f64| x.is_finite() && (x - x.round()).abs() < 1e-9;
        match (old, new) {
            (None, None) => {}
            (None, Some(_)) => self.tightened(&here, "multipleOf-tightened", message),
            (Some(_), None) => self.loosened(&here, "multipleOf-loosened", message),
            (Some(a), Some(b)) if a == b => {}
            (Some(a), Some(b)) if integral(b / a) => {
                self.tightened(&here, "multipleOf-tightened", message)
            }
            (Some(a), Some(b)) if integral(a / b) => {
                self.loosened(&here, "multipleOf-loosened", message)
            }
            _ => self.changed(&here, "multipleOf-changed", message),
        }
    }

    pub(super) fn count(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        kw: &str,
        higher_is_tighter: bool,
    ) {
        let get = |m: &Map<String, Value>| m.get(kw).and_then(Value::as_f64);
        let (old, new) = (get(o), get(n));
        let here = format!("{ptr}/{kw}");
        let show = |v: Option<f64>| v.map_or("none".to_owned(), |v| v.to_string());
        let message = format!("{kw} {} became {}", show(old), show(new));
        let tighter = match (old, new) {
            (None, None) => return,
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) if a == b => return,
            (Some(a), Some(b)) => (b > a) == higher_is_tighter,
        };
        if tighter {
            self.tightened(&here, &format!("{kw}-tightened"), message);
        } else {
            self.loosened(&here, &format!("{kw}-loosened"), message);
        }
    }

    pub(super) fn flag(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        kw: &str,
    ) {
        let get = |m: &Map<String, Value>| m.get(kw).and_then(Value::as_bool).unwrap_or(false);
        let here = format!("{ptr}/{kw}");
        match (get(o), get(n)) {
            (false, true) => self.tightened(
                &here,
                &format!("{kw}-tightened"),
                format!("{kw} now required"),
            ),
            (true, false) => self.loosened(
                &here,
                &format!("{kw}-loosened"),
                format!("{kw} no longer required"),
            ),
            _ => {}
        }
    }

    pub(super) fn text_rule(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        ptr: &str,
        kw: &str,
    ) {
        let (old, new) = (o.get(kw), n.get(kw));
        let here = format!("{ptr}/{kw}");
        match (old, new) {
            (None, Some(v)) => {
                self.tightened(&here, &format!("{kw}-added"), format!("{kw} {v} added"))
            }
            (Some(v), None) => {
                self.loosened(&here, &format!("{kw}-removed"), format!("{kw} {v} removed"))
            }
            (Some(a), Some(b)) if a != b => self.changed(
                &here,
                &format!("{kw}-changed"),
                format!("{kw} {a} became {b}"),
            ),
            _ => {}
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Bound {
    Lower,
    Upper,
}

struct B {
    value: f64,
    exclusive: bool,
    keyword: &'static str,
    text: String,
}

/// The tighter of `minimum`/`exclusiveMinimum` (or of the maxima).
fn bound(m: &Map<String, Value>, which: Bound) -> Option<B> {
    let (incl, excl) = match which {
        Bound::Lower => ("minimum", "exclusiveMinimum"),
        Bound::Upper => ("maximum", "exclusiveMaximum"),
    };
    let get = |kw: &'static str, exclusive| {
        let v = m.get(kw)?;
        Some(B {
            value: v.as_f64()?,
            exclusive,
            keyword: kw,
            text: v.to_string(),
        })
    };
    match (get(incl, false), get(excl, true)) {
        (Some(a), Some(b)) => {
            let b_tighter = match which {
                Bound::Lower => b.value >= a.value,
                Bound::Upper => b.value <= a.value,
            };
            Some(if b_tighter { b } else { a })
        }
        (a, b) => a.or(b),
    }
}

/// The `type` names (`None`: any type).
fn types(m: &Map<String, Value>) -> Option<BTreeSet<String>> {
    match m.get("type")? {
        Value::String(s) => Some(BTreeSet::from([s.clone()])),
        Value::Array(a) => Some(
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

/// Whether every type of `inner` is one of `outer` (an integer is a number).
fn covers_all(outer: &Option<BTreeSet<String>>, inner: &Option<BTreeSet<String>>) -> bool {
    match (outer, inner) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(o), Some(i)) => i
            .iter()
            .all(|t| o.contains(t) || (t == "integer" && o.contains("number"))),
    }
}

/// The values `enum` or `const` allows (`None`: not limited).
fn allowed_values(m: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(c) = m.get("const") {
        return Some(vec![c.clone()]);
    }
    m.get("enum").and_then(Value::as_array).cloned()
}

fn list(values: &[Value]) -> String {
    values
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
