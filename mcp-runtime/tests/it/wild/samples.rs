//! The samples of the corpus: for each tool, values that reach the body (and come back as sent,
//! or as serde completed them) and values refused with the pointer and the rule.

use serde_json::json;

use super::Expect::{Echo, Refused, Same, Serde};
use super::Sample;

#[rustfmt::skip]
pub fn samples() -> Vec<Sample> {
    vec![
        // flatten of an internally tagged enum without deny_unknown_fields (with it, serde
        // cannot serve it and the build says so: `wild_types::serde_s_limitation_is_a_build_error`)
        ("draw_open", json!({"v": {"label": "a", "kind": "circle", "r": 1.5}}), Same),
        // Nested objects are closed (strict objects): a key of no variant is refused.
        ("draw_open", json!({"v": {"label": "a", "kind": "square", "side": 2.5, "extra": 1}}), Refused("/v: unknown property \"extra\"")),
        ("draw_open", json!({"v": {"label": "a", "kind": "hexagon", "r": 1}}), Refused("/v/kind: must be one of \"circle\", \"square\" (got \"hexagon\")")),
        // flatten of a struct, without and with deny_unknown_fields
        ("flat_struct", json!({"v": {"name": "n", "a": 7}}), Same),
        ("flat_struct", json!({"v": {"name": "n", "a": 300}}), Refused("/v/a: must be <= 255 (got 300)")),
        ("flat_struct", json!({"v": {"name": "n"}}), Refused("/v: missing required property \"a\"")),
        ("flat_strict", json!({"v": {"name": "n", "a": 7}}), Same),
        ("flat_strict", json!({"v": {"name": "n", "a": 7, "b": 1}}), Refused("/v: unknown property \"b\" (allowed: name, a)")),
        // flatten of a catch-all map: any value, or (with deny_unknown_fields) none at all
        ("catch_all", json!({"v": {"name": "n", "anything": [1, {"b": null}]}}), Same),
        ("catch_all", json!({"v": {"name": 1, "x": 2}}), Refused("/v/name: must be a string (got number)")),
        ("counters", json!({"v": {"total": 3}}), Same),
        ("counters", json!({"v": {"total": 3, "apples": 3}}), Refused("/v: unknown property \"apples\" (allowed: total)")),
        // flatten of an Option<struct>
        ("query", json!({"v": {"q": "x"}}), Same),
        ("query", json!({"v": {"q": "x", "page": 2, "per_page": 10}}), Same),
        ("query", json!({"v": {"q": "x", "page": 2}}), Echo(json!({"q": "x"}))),
        ("query", json!({"v": {"q": "x", "page": -2, "per_page": 10}}), Refused("/v/page: must be >= 0 (got -2)")),
        // internally tagged, without and with deny_unknown_fields
        ("loose", json!({"v": {"type": "Cat", "lives": 9}}), Same),
        ("loose", json!({"v": {"type": "Dog", "bark": true}}), Refused("/v: unknown property \"bark\" (allowed: type) (type = \"Dog\")")),
        ("loose", json!({"v": {"type": "Cow"}}), Refused("/v/type: must be one of \"Cat\", \"Dog\" (got \"Cow\")")),
        ("loose", json!({"v": {"type": "Cat", "lives": -1}}), Refused("/v/lives: must be >= 0 (got -1)")),
        ("strict", json!({"v": {"type": "Dog"}}), Same),
        ("strict", json!({"v": {"type": "Cat", "lives": 3}}), Same),
        ("strict", json!({"v": {"type": "Dog", "bark": true}}), Refused("/v: unknown property \"bark\" (allowed: type) (type = \"Dog\")")),
        // adjacently tagged
        ("adjacent", json!({"v": {"t": "Num", "c": 5}}), Same),
        ("adjacent", json!({"v": {"t": "Pair", "c": ["a", true]}}), Same),
        ("adjacent", json!({"v": {"t": "Nothing"}}), Same),
        ("adjacent", json!({"v": {"t": "Num", "c": "5"}}), Refused("/v/c: must be an integer (got string)")),
        ("adjacent", json!({"v": {"t": "Other", "c": 1}}), Refused("/v/t: must be one of \"Num\", \"Pair\", \"Nothing\" (got \"Other\")")),
        // untagged
        ("untagged", json!({"v": {"x": 1, "y": 2}}), Same),
        ("untagged", json!({"v": "word"}), Same),
        ("untagged", json!({"v": 3}), Refused("/v: must be a string or an object (got number)")),
        // externally tagged: every variant kind
        ("external", json!({"v": "Stop"}), Same),
        ("external", json!({"v": {"Speed": 30}}), Same),
        ("external", json!({"v": {"Move": [-1, 1]}}), Same),
        ("external", json!({"v": {"Goto": {"x": 1, "y": 2}}}), Same),
        ("external", json!({"v": "Go"}), Refused("/v: must be \"Stop\", or an object with one of the keys \"Speed\", \"Move\", \"Goto\" (got \"Go\")")),
        ("external", json!({"v": {"Speed": 30, "Stop": null}}), Refused("/v: unknown property \"Stop\" (allowed: Speed)")),
        ("external", json!({"v": {"Move": [1, 200]}}), Refused("/v/Move/1: must be <= 127 (got 200)")),
        // #[serde(other)]: serde would take any tag; the published contract names the known ones
        ("event", json!({"v": {"event": "click", "x": 3}}), Same),
        ("event", json!({"v": {"event": "key_press", "key": "é"}}), Same),
        ("event", json!({"v": {"event": "unknown"}}), Same),
        ("event", json!({"v": {"event": "scroll"}}), Refused("/v/event: must be one of \"click\", \"key_press\", \"unknown\" (got \"scroll\")")),
        // rename_all, rename_all_fields, rename
        ("command", json!({"v": {"set-limit": {"maxValue": 9}}}), Same),
        ("command", json!({"v": "reset-all"}), Same),
        ("command", json!({"v": "NOOP"}), Same),
        ("command", json!({"v": {"set-limit": {"max_value": 9}}}), Refused("/v/set-limit: missing required property \"maxValue\"; /v/set-limit: unknown property \"max_value\" (allowed: maxValue)")),
        ("command", json!({"v": "ResetAll"}), Refused("/v: must be one of \"reset-all\", \"NOOP\", or an object with one of the keys \"set-limit\" (got \"ResetAll\")")),
        ("level", json!({"v": "ERROR_ONLY"}), Same),
        ("level", json!({"v": "error_only"}), Refused("/v: must be one of \"ERROR_ONLY\", \"ALL\" (got \"error_only\")")),
        // recursion through Box in an enum
        ("expr", json!({"v": {"add": [{"num": 1}, {"neg": {"num": 2}}]}}), Same),
        ("expr", json!({"v": {"add": [{"num": 1}, {"neg": {"num": "2"}}]}}), Refused("/v/add/1/neg/num: must be an integer (got string)")),
        // an internally tagged newtype variant
        ("message", json!({"v": {"type": "text", "a": 1}}), Same),
        ("message", json!({"v": {"type": "ping"}}), Same),
        ("message", json!({"v": {"type": "text"}}), Refused("/v: missing required property \"a\" (type = \"text\")")),
        // untagged and recursive, the first variant that fits wins
        ("scalar", json!({"v": [1, 2.5, true, [false]]}), Same),
        ("scalar", json!({"v": [1, "2"]}), Refused("/v/1: must be a number, a boolean or an array (got string)")),
        // #[serde(default)] on the struct and on fields
        ("defaults", json!({"v": {}}), Echo(json!({"size": 10, "name": "n"}))),
        ("defaults", json!({"v": {"size": 3}}), Echo(json!({"size": 3, "name": "n"}))),
        ("defaults", json!({"v": {"size": -3}}), Refused("/v/size: must be >= 0 (got -3)")),
        ("retry", json!({"v": {}}), Echo(json!({"attempts": 3, "verbose": false}))),
        ("retry", json!({"v": {"attempts": 1, "verbose": true}}), Same),
        ("retry", json!({"v": {"attempts": 1.5}}), Refused("/v/attempts: must be an integer (got 1.5)")),
        // alias is serde-only: the aliased name is an unknown key, and the real one is missing
        ("paint", json!({"v": {"color": "red"}}), Same),
        ("paint", json!({"v": {"colour": "red"}}), Refused("/v: missing required property \"color\"")),
        // skip: not published, filled with the default (and `skip` not echoed), refused when sent
        // (deny_unknown_fields)
        ("cached", json!({"v": {"key": "k"}}), Echo(json!({"key": "k", "derived": false}))),
        ("cached", json!({"v": {"key": "k", "hits": 5}}), Refused("/v: unknown property \"hits\" (allowed: key)")),
        ("cached", json!({"v": {"key": "k", "derived": true}}), Refused("/v: unknown property \"derived\" (allowed: key)")),
        // rename_all = camelCase and a renamed field
        ("renamed", json!({"v": {"firstName": "Ada", "ID": 18446744073709551615u64}}), Same),
        ("renamed", json!({"v": {"firstName": "Ada", "ID": 1, "middleName": null}}), Echo(json!({"firstName": "Ada", "ID": 1}))),
        ("renamed", json!({"v": {"first_name": "Ada", "ID": 1}}), Refused("/v: missing required property \"firstName\"")),
        // Option<Option<T>>: serde reads null and absent alike (None)
        ("patch", json!({"v": {}}), Same),
        ("patch", json!({"v": {"note": null}}), Echo(json!({}))),
        ("patch", json!({"v": {"note": 4}}), Same),
        ("patch", json!({"v": {"note": "4"}}), Refused("/v/note: must be an integer or null (got string)")),
        // recursion through Box in a struct
        ("list", json!({"v": {"v": 1, "next": {"v": 2, "next": null}}}), Same),
        ("list", json!({"v": {"v": 1, "next": {"v": 2, "next": {"v": "3"}}}}), Refused("/v/next/next/v: must be an integer (got string)")),
        // a tuple struct, a transparent newtype, a tuple, a fixed-size array
        ("rgb", json!({"v": [255, 0, 7]}), Same),
        ("rgb", json!({"v": [255, 0, 256]}), Refused("/v/2: must be <= 255 (got 256)")),
        ("user_id", json!({"v": 9}), Same),
        ("user_id", json!({"v": 0}), Refused("/v: must be >= 1 (got 0)")),
        ("tuple", json!({"v": [1, "a", true]}), Same),
        ("tuple", json!({"v": [1, "a"]}), Refused("/v: must have at least 3 items (got 2)")),
        ("tuple", json!({"v": [1, "a", "yes"]}), Refused("/v/2: must be a boolean (got string)")),
        ("triple", json!({"v": [-1, 0, 1]}), Same),
        ("triple", json!({"v": [1, 2, 3, 4]}), Refused("/v: must have at most 3 items (got 4)")),
        ("triple", json!({"v": [1, 2, 40000]}), Refused("/v/2: must be <= 32767 (got 40000)")),
        // char
        ("letter", json!({"v": "é"}), Same),
        ("letter", json!({"v": "ab"}), Refused("/v: must be at most 1 character (got 2)")),
        ("letter", json!({"v": ""}), Refused("/v: must be at least 1 character (got 0)")),
        // NonZero*
        ("nonzero", json!({"v": 1}), Same),
        ("nonzero", json!({"v": 0}), Refused("/v: must be >= 1 (got 0)")),
        ("nonzero", json!({"v": 4294967296u64}), Refused("/v: must be <= 4294967295 (got 4294967296)")),
        ("nonzero_i8", json!({"v": -128}), Same),
        ("nonzero_i8", json!({"v": 0}), Refused("/v: must not match the disallowed shape")),
        ("nonzero_i8", json!({"v": 128}), Refused("/v: must be <= 127 (got 128)")),
        // IpAddr, Ipv6Addr, SocketAddr (no format is published for it: serde is the judge)
        ("ip", json!({"v": "127.0.0.1"}), Same),
        ("ip", json!({"v": "::1"}), Same),
        ("ip", json!({"v": 1}), Refused("/v: must be a string (got number)")),
        ("ip", json!({"v": "localhost"}), Refused("/v: must be a valid ipv4 or ipv6 (got \"localhost\")")),
        ("ipv6", json!({"v": "fe80::1"}), Same),
        ("ipv6", json!({"v": "10.0.0.1"}), Refused("/v: must be a valid ipv6 (got \"10.0.0.1\")")),
        ("socket", json!({"v": "127.0.0.1:8080"}), Same),
        ("socket", json!({"v": "[::1]:443"}), Same),
        ("socket", json!({"v": "127.0.0.1"}), Serde("/v: invalid socket address syntax")),
        // std::time::Duration
        ("duration", json!({"v": {"secs": 1, "nanos": 5}}), Same),
        ("duration", json!({"v": {"secs": -1, "nanos": 5}}), Refused("/v/secs: must be >= 0 (got -1)")),
        ("duration", json!({"v": {"secs": 1}}), Refused("/v: missing required property \"nanos\"")),
        // PathBuf
        ("path", json!({"v": "/tmp/é"}), Same),
        ("path", json!({"v": ["tmp"]}), Refused("/v: must be a string (got array)")),
        // sets and maps
        ("set", json!({"v": ["a", "b"]}), Same),
        ("set", json!({"v": ["a", "a"]}), Refused("/v: must not contain duplicate items")),
        ("scores", json!({"v": {"ada": 3}}), Same),
        ("scores", json!({"v": {"ada": -3}}), Refused("/v/ada: must be >= 0 (got -3)")),
        ("by_id", json!({"v": {"7": "seven", "12": "twelve"}}), Same),
        ("by_id", json!({"v": {"07": "seven"}}), Refused("/v: unknown property \"07\" (allowed: names matching ^(0|[1-9]\\d*)$)")),
        // a key the pattern admits and u16 refuses: serde is the judge (serde_json's text for a
        // key it parses adds the position inside the key)
        ("by_id", json!({"v": {"70000": "big"}}), Serde("/v/70000: invalid value: integer `70000`, expected u16 at line 1 column 5")),
        // serde_json::Value: anything, but present
        ("any", json!({"v": {"deep": [1, null, "x"]}}), Same),
        ("any", json!({"v": null}), Same),
        ("any", json!({}), Refused("/: missing required argument \"v\"")),
        // a generic struct, one tool per instantiation, and both in one tool
        ("page_u8", json!({"v": {"items": [1, 2], "next": "p2"}}), Same),
        ("page_u8", json!({"v": {"items": ["a"], "next": null}}), Refused("/v/items/0: must be an integer (got string)")),
        ("page_text", json!({"v": {"items": ["a"], "next": null}}), Same),
        ("page_text", json!({"v": {"items": [1], "next": null}}), Refused("/v/items/0: must be a string (got number)")),
        ("pages", json!({"a": {"items": [1], "next": null}, "b": {"items": ["x"], "next": null}}), Same),
        ("pages", json!({"a": {"items": ["x"], "next": null}, "b": {"items": ["x"], "next": null}}), Refused("/a/items/0: must be an integer (got string)")),
        ("pages", json!({"a": {"items": [1], "next": null}, "b": {"items": [1], "next": null}}), Refused("/b/items/0: must be a string (got number)")),
        // a recursive generic twice in one tool: two `$defs`
        ("chains", json!({"a": {"value": 1, "rest": {"value": 2, "rest": null}}, "b": {"value": "x", "rest": null}}), Same),
        ("chains", json!({"a": {"value": 1, "rest": {"value": "2", "rest": null}}, "b": {"value": "x", "rest": null}}), Refused("/a/rest/value: must be an integer (got string)")),
        ("chains", json!({"a": {"value": 1, "rest": null}, "b": {"value": "x", "rest": {"value": 2, "rest": null}}}), Refused("/b/rest/value: must be a string (got number)")),
        // the same type twice in one tool: one shared `$defs` entry
        ("route", json!({"from": {"v": 1, "next": null}, "to": {"v": 2, "next": {"v": 3, "next": null}}}), Same),
        ("route", json!({"from": {"v": 1, "next": null}, "to": {"v": 2, "next": {"v": 3.5, "next": null}}}), Refused("/to/next/v: must be an integer (got 3.5)")),
        // schemars length, range, regex
        ("bounded", json!({"v": {"tags": ["a"], "code": "ab", "level": 1, "ratio": -1.5, "slug": "ab-12"}}), Same),
        ("bounded", json!({"v": {"tags": [], "code": "ab", "level": 1, "ratio": 0.5, "slug": "ab-12"}}), Refused("/v/tags: must have at least 1 item (got 0)")),
        ("bounded", json!({"v": {"tags": ["a"], "code": "abcde", "level": 1, "ratio": 0.5, "slug": "ab-12"}}), Refused("/v/code: must be at most 4 characters (got 5)")),
        ("bounded", json!({"v": {"tags": ["a"], "code": "ab", "level": 11, "ratio": 0.5, "slug": "ab-12"}}), Refused("/v/level: must be <= 10 (got 11)")),
        ("bounded", json!({"v": {"tags": ["a"], "code": "ab", "level": 1, "ratio": 1.75, "slug": "ab-12"}}), Refused("/v/ratio: must be <= 1.5 (got 1.75)")),
        ("bounded", json!({"v": {"tags": ["a"], "code": "ab", "level": 1, "ratio": 0.5, "slug": "AB-12"}}), Refused("/v/slug: must match the pattern ^[a-z]+-\\d{2}$")),
        // schemars with: published as a string, parsed by serde, refused at the field
        ("alarm", json!({"v": {"at": "07:30", "label": "up"}}), Same),
        ("alarm", json!({"v": {"at": 730, "label": "up"}}), Refused("/v/at: must be a string (got number)")),
        ("alarm", json!({"v": {"at": "25:00", "label": "up"}}), Serde("/v/at: not a time of day: \"25:00\"")),
        // schemars transform
        ("contact", json!({"v": {"name": "Ada", "email": "a@b", "age": 36}}), Same),
        ("contact", json!({"v": {"name": "", "email": "a@b", "age": 36}}), Refused("/v/name: must be at least 1 character (got 0)")),
        // schemars extend: multipleOf on a field, maxProperties on the struct, x- ignored
        ("stepped", json!({"v": {"step": 15}}), Same),
        ("stepped", json!({"v": {}}), Echo(json!({"step": 0}))),
        ("stepped", json!({"v": {"step": 7}}), Refused("/v/step: must be a multiple of 5 (got 7)")),
        ("stepped", json!({"v": {"step": 5, "x": 1}}), Refused("/v: must have at most 1 property (got 2)")),
    ]
}
