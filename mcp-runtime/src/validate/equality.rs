//! JSON Schema equality, for `enum`, `const` and `uniqueItems`: numbers by value, objects
//! regardless of key order.

use std::cmp::Ordering;

use serde_json::Value;

use super::numbers::{Num, integral};

/// JSON Schema equality: numbers by value (`1 == 1.0`), objects regardless of key order.
/// Iterative, so deep values cannot overflow the stack.
pub(super) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Num::of(x).cmp(Num::of(y)) == Ordering::Equal,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_)) => {
            let mut stack = vec![(a, b)];
            while let Some((a, b)) = stack.pop() {
                match (a, b) {
                    (Value::Array(x), Value::Array(y)) => {
                        if x.len() != y.len() {
                            return false;
                        }
                        stack.extend(x.iter().zip(y));
                    }
                    (Value::Object(x), Value::Object(y)) => {
                        if x.len() != y.len() {
                            return false;
                        }
                        for (k, va) in x {
                            match y.get(k) {
                                Some(vb) => stack.push((va, vb)),
                                None => return false,
                            }
                        }
                    }
                    (Value::Array(_) | Value::Object(_), _)
                    | (_, Value::Array(_) | Value::Object(_)) => return false,
                    (a, b) => {
                        if !json_eq(a, b) {
                            return false;
                        }
                    }
                }
            }
            true
        }
        _ => false,
    }
}

/// A hash consistent with [`json_eq`]; only a prefilter, so it stops at a fixed depth.
fn json_hash(v: &Value, depth: usize) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |h: u64, x: u64| (h ^ x).wrapping_mul(K).rotate_left(29);
    match v {
        Value::Null => 1,
        Value::Bool(b) => 2 + *b as u64,
        Value::Number(n) => {
            let x = match Num::of(n) {
                Num::U(u) => u,
                Num::I(i) => i as u64,
                Num::F(f) => match integral(f) {
                    Some(i) => i.as_u64().or(i.as_i64().map(|i| i as u64)).unwrap_or(0),
                    None => f.to_bits(),
                },
            };
            mix(4, x)
        }
        Value::String(s) => s
            .bytes()
            .fold(5, |h, b| h.wrapping_mul(0x100_0000_01B3) ^ b as u64),
        Value::Array(_) | Value::Object(_) if depth == 0 => 6,
        Value::Array(a) => a.iter().fold(7, |h, x| mix(h, json_hash(x, depth - 1))),
        Value::Object(o) => o.iter().fold(8u64, |h, (k, x)| {
            // Order-independent: a sum of per-entry hashes.
            h.wrapping_add(mix(
                json_hash(&Value::String(k.clone()), 0),
                json_hash(x, depth - 1),
            ))
        }),
    }
}

pub(super) fn has_duplicates(items: &[Value]) -> bool {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .any(|(i, a)| items[i + 1..].iter().any(|b| json_eq(a, b)));
    }
    let mut hashes: Vec<(u64, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, v)| (json_hash(v, 8), i))
        .collect();
    hashes.sort_unstable();
    hashes.chunk_by(|a, b| a.0 == b.0).any(|group| {
        group.iter().enumerate().any(|(i, a)| {
            group[i + 1..]
                .iter()
                .any(|b| json_eq(&items[a.1], &items[b.1]))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicates_in_long_arrays() {
        let mut items: Vec<Value> = (0..1000).map(|i| json!({"i": i, "s": [i]})).collect();
        assert!(!has_duplicates(&items));
        items.push(json!({"s": [7.0], "i": 7}));
        assert!(has_duplicates(&items));
    }
}
