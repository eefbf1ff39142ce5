//! The formats schemars publishes that JSON Schema does not define, rewritten into standard
//! keywords, so that a client can check what the server checks.

use serde_json::{Map, Value, json};

/// The formats schemars publishes that JSON Schema does not define, in a form a client can
/// check: `ip` (`IpAddr`) becomes `anyOf` `ipv4`/`ipv6`; `partial-time` and `partial-date-time`
/// (chrono's and jiff's `NaiveTime`/`Time`, `NaiveDateTime`/`DateTime`: RFC 3339 without an
/// offset) and jiff's `zoned-date-time` (RFC 9557: an offset and a bracketed time zone) become
/// `pattern`s. The type's deserializer still decides what it accepts within the pattern (a
/// 30th of February matches and is refused as invalid arguments).
pub(super) fn standard_format(obj: &mut Map<String, Value>) {
    const TIME: &str = r"([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?";
    const DATE: &str = r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])";
    const OFFSET: &str = r"([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
    let rule = match obj.get("format").and_then(Value::as_str) {
        Some("ip") => ("anyOf", json!([{"format": "ipv4"}, {"format": "ipv6"}])),
        Some("partial-time") => ("pattern", json!(format!("^{TIME}$"))),
        Some("partial-date-time") => ("pattern", json!(format!("^{DATE}T{TIME}$"))),
        Some("zoned-date-time") => (
            "pattern",
            json!(format!(r"^{DATE}T{TIME}{OFFSET}?\[[A-Za-z0-9_/+-]+\]$")),
        ),
        _ => return,
    };
    obj.remove("format");
    let (key, value) = rule;
    if obj.contains_key(key) {
        let all = obj.entry("allOf").or_insert_with(|| json!([]));
        if let Value::Array(all) = all {
            all.push(json!({ key: value }));
        }
    } else {
        obj.insert(key.into(), value);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::validate::Validator;

    fn published(format: &str) -> Value {
        let mut schema = json!({"type": "string", "format": format});
        super::standard_format(schema.as_object_mut().unwrap());
        schema
    }

    #[test]
    fn non_standard_formats_become_checkable_keywords() {
        assert_eq!(
            published("ip"),
            json!({"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]})
        );
        #[rustfmt::skip]
        let rows: &[(&str, &[&str], &[&str])] = &[
            ("partial-time", &["12:30:00", "23:59:60.5", "00:00:00.000000001"], &["12:30", "24:00:00", "12:30:00Z", "1:02:03"]),
            ("partial-date-time", &["2024-02-29T12:00:00", "2024-02-29T12:00:00.25"], &["2024-02-29 12:00:00", "2024-02-29T12:00:00Z", "2024-13-01T00:00:00"]),
            ("zoned-date-time", &["2024-06-19T15:22:45-04:00[America/New_York]", "2024-06-19T15:22:45[UTC]"], &["2024-06-19T15:22:45-04:00", "2024-06-19T15:22:45Z[]"]),
        ];
        for (format, valid, invalid) in rows {
            let schema = published(format);
            assert!(
                schema.get("format").is_none() && schema.get("pattern").is_some(),
                "{schema}"
            );
            let v = Validator::compile(&schema).unwrap();
            for s in *valid {
                assert!(v.validate(&mut json!(s)).is_empty(), "{format}: {s}");
            }
            for s in *invalid {
                assert!(!v.validate(&mut json!(s)).is_empty(), "{format}: {s}");
            }
        }
        // A schema that already has the keyword keeps it, the new rule joins `allOf`.
        let mut both = json!({"type": "string", "format": "partial-time", "pattern": "^1"});
        super::standard_format(both.as_object_mut().unwrap());
        assert_eq!(both["pattern"], "^1");
        assert_eq!(both["allOf"].as_array().unwrap().len(), 1);
    }
}
