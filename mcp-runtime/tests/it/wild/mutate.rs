//! Near misses of the samples: every value inside a sample's arguments replaced by values of
//! other types and at integer bounds, every object key dropped or joined by an unknown one,
//! every array grown and shrunk. On each, our verdict must equal jsonschema's.

use serde_json::{Value, json};

/// The values every node is replaced with in turn. (Integral floats beyond 2^53, which we refuse
/// for integer types on purpose, are the differential test's business.)
fn replacements() -> [Value; 19] {
    [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(256),
        json!(-129),
        json!(4294967296u64),
        json!(-9223372036854775808i64),
        json!(1e10),
        json!(""),
        json!("x"),
        json!("é"),
        json!("127.0.0.1"),
        json!("fe80::1"),
        json!([]),
        json!(["a", "a"]),
        json!({}),
        json!({"zz": [1]}),
    ]
}

/// Every near miss of `v`.
pub fn mutations(v: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = replacements().into_iter().collect();
    match v {
        Value::Object(o) => {
            for (k, child) in o {
                let mut dropped = o.clone();
                dropped.remove(k);
                out.push(Value::Object(dropped));
                for m in mutations(child) {
                    let mut changed = o.clone();
                    changed.insert(k.clone(), m);
                    out.push(Value::Object(changed));
                }
            }
            let mut extra = o.clone();
            extra.insert("zz".into(), json!(1));
            out.push(Value::Object(extra));
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                for m in mutations(child) {
                    let mut changed = a.clone();
                    changed[i] = m;
                    out.push(Value::Array(changed));
                }
            }
            out.push(Value::Array(a.iter().chain(a.first()).cloned().collect()));
            out.push(Value::Array(a.iter().skip(1).cloned().collect()));
        }
        _ => {}
    }
    out
}
