//! The one place where this crate's validator and the `jsonschema` crate define integers
//! differently; shared by the differential test and the differential fuzz target (a separate
//! workspace, which includes this file by path).

use serde_json::Value;

/// Where the two definitions differ: an integral float of magnitude at or beyond 2^53. It may
/// have been rounded from its literal (or be what serde_json makes of a literal beyond 64 bits),
/// so for us it is not an integer; for jsonschema `1e16` is one. Through `not`, `oneOf` and type
/// unions the difference can turn either way, so inputs holding such a float are compared only
/// where the schema cannot tell integers from numbers, and counted apart otherwise.
pub fn holds_inexact_float(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_f64()
                && n.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.abs() >= 9_007_199_254_740_992.0)
        }
        Value::Array(a) => a.iter().any(holds_inexact_float),
        Value::Object(o) => o.values().any(holds_inexact_float),
        _ => false,
    }
}
