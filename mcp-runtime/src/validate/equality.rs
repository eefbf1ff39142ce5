//! JSON Schema equality, for `enum`, `const` and `uniqueItems`: numbers by value, objects
//! regardless of key order.

use std::cmp::Ordering;
use std::hash::{BuildHasher, DefaultHasher, Hash, Hasher, RandomState};

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

/// How deep [`json_hash`] looks: past it, every array or object hashes alike. No value from the
/// wire is that deep (serde_json refuses more than 128 levels in a whole message); the cap only
/// keeps the recursion bounded for values built in process.
const HASH_DEPTH: usize = super::MAX_DEPTH;

/// A hash consistent with [`json_eq`], over the whole value, keyed by `keys`.
///
/// It is a prefilter for `uniqueItems`: only items with equal hashes are compared. A hash that
/// stopped at a fixed depth, or one a client can predict, lets a client send items that all
/// collide (arrays nested past that depth, differing only below it), and the comparisons of one
/// group are quadratic: 8,000 such items took 1.5 s. With SipHash keyed per call over every level,
/// distinct items collide by chance only, and hashing costs one pass over the array.
fn json_hash(v: &Value, keys: &RandomState) -> u64 {
    let mut h = keys.build_hasher();
    hash_into(v, keys, &mut h, HASH_DEPTH);
    h.finish()
}

fn hash_into(v: &Value, keys: &RandomState, h: &mut DefaultHasher, depth: usize) {
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => h.write_u8(1 + u8::from(*b)),
        // Equal numbers hash alike whatever their representation: an integral float within 64
        // bits as its integer, any other float by its bits (it equals only itself).
        Value::Number(n) => {
            let float = n.as_f64().unwrap_or_default();
            match n.as_i128().or_else(|| integral(float)?.as_i128()) {
                Some(int) => {
                    h.write_u8(2);
                    h.write_i128(int);
                }
                None => {
                    h.write_u8(3);
                    h.write_u64(float.to_bits());
                }
            }
        }
        Value::String(s) => {
            h.write_u8(4);
            s.hash(h);
        }
        Value::Array(_) | Value::Object(_) if depth == 0 => h.write_u8(5),
        Value::Array(items) => {
            h.write_u8(6);
            h.write_usize(items.len());
            for item in items {
                hash_into(item, keys, h, depth - 1);
            }
        }
        Value::Object(map) => {
            // Regardless of key order: the sum of each member's own hash.
            let sum = map.iter().fold(0u64, |sum, (key, value)| {
                let mut member = keys.build_hasher();
                key.hash(&mut member);
                hash_into(value, keys, &mut member, depth - 1);
                sum.wrapping_add(member.finish())
            });
            h.write_u8(7);
            h.write_usize(map.len());
            h.write_u64(sum);
        }
    }
}

pub(super) fn has_duplicates(items: &[Value]) -> bool {
    if items.len() <= 16 {
        return items
            .iter()
            .enumerate()
            .any(|(i, a)| items[i + 1..].iter().any(|b| json_eq(a, b)));
    }
    let keys = RandomState::new();
    let mut hashes: Vec<(u64, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, v)| (json_hash(v, &keys), i))
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

    /// Items alike down to any depth, different below it, are told apart; items equal under
    /// JSON Schema equality (an integral float, keys in another order) are found at any depth.
    #[test]
    fn duplicates_at_any_depth() {
        let nest = |leaf: Value, depth: usize| (0..depth).fold(leaf, |v, _| json!([v]));
        let mut items: Vec<Value> = (0..300).map(|i| nest(json!(i), 40)).collect();
        assert!(!has_duplicates(&items));
        items.push(nest(json!(299.0), 40));
        assert!(has_duplicates(&items));

        let object = |i: usize, flip: bool| {
            let leaf = if flip {
                json!({"b": [i, "x"], "a": null})
            } else {
                json!({"a": null, "b": [i as f64, "x"]})
            };
            nest(leaf, 30)
        };
        let mut items: Vec<Value> = (0..100).map(|i| object(i, false)).collect();
        assert!(!has_duplicates(&items));
        items.push(object(42, true));
        assert!(has_duplicates(&items));

        let mut numbers: Vec<Value> = (0..50).map(|i| json!(f64::from(i) + 0.5)).collect();
        numbers.extend([json!(1e300), json!(-0.0), json!(u64::MAX), json!(i64::MIN)]);
        assert!(!has_duplicates(&numbers));
        for twin in [json!(0), json!(1e300), json!(3.5), json!(i64::MIN as f64)] {
            let mut with = numbers.clone();
            with.push(twin.clone());
            assert!(has_duplicates(&with), "{twin}");
        }
    }
}
