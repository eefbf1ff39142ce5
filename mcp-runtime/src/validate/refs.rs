//! `$ref`: JSON Pointer fragments resolved inside the schema being compiled, each target compiled
//! once, and cycles that never descend into the value refused.

use percent_encoding::percent_decode_str;

use super::Validator;
use super::compile::Compiler;
use super::node::{Node, NodeId};

impl Compiler<'_> {
    /// The node of `reference` (`#`, `#/$defs/Name`, percent-encoded as a URI fragment),
    /// compiling its target the first time it is named.
    pub(super) fn resolve(&mut self, reference: &str, at: &str) -> Result<NodeId, String> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(format!(
                "{at}: `$ref` {reference:?} does not point inside this schema"
            ));
        };
        let pointer = percent_decode_str(fragment)
            .decode_utf8()
            .map_err(|_| format!("bad percent-encoding in `$ref` {fragment:?}"))?;
        if let Some(&id) = self.refs.get(&*pointer) {
            return Ok(id);
        }
        if !pointer.starts_with('/') {
            return Err(format!(
                "{at}: `$ref` {reference:?} is not a JSON Pointer (anchors are not supported)"
            ));
        }
        let target = self
            .root
            .pointer(&pointer)
            .ok_or_else(|| format!("{at}: `$ref` {reference:?} does not resolve"))?;
        // Reserve the slot first: the target may refer back to itself.
        let id = self.push(Node::Any);
        self.refs.insert(pointer.into_owned(), id);
        let node = self.compile(target, &format!("#{fragment}"))?;
        self.nodes[id as usize] = node;
        Ok(id)
    }
}

impl Validator {
    /// A `$ref` (or `allOf`, `anyOf`, …) cycle that returns to a node without moving into the
    /// value would never terminate; refuse it at compile time.
    pub(super) fn check_ref_loops(&self) -> Result<(), String> {
        // 0 = unvisited, 1 = on the stack, 2 = done.
        let mut state = vec![0u8; self.nodes.len()];
        fn visit(v: &Validator, id: NodeId, state: &mut [u8]) -> Result<(), String> {
            match state[id as usize] {
                1 => return Err("a `$ref` cycle never descends into the value".into()),
                2 => return Ok(()),
                _ => {}
            }
            state[id as usize] = 1;
            if let Node::Rules(r) = &v.nodes[id as usize] {
                for n in r.in_place() {
                    visit(v, n, state)?;
                }
            }
            state[id as usize] = 2;
            Ok(())
        }
        for id in 0..self.nodes.len() as NodeId {
            visit(self, id, &mut state)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::validate::Validator;
    use crate::validate::tests::run;
    use serde_json::json;

    #[test]
    fn refs_resolve_and_recurse() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Tree"}, "again": {"$ref": "#"}},
            "$defs": {
                "Tree": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
                    },
                    "required": ["name"]
                }
            }
        });
        let got = run(
            schema,
            json!({"tree": {"name": "a", "children": [{"name": 1}, {}]}, "again": {"again": {"tree": 5}}}),
        );
        assert_eq!(
            got,
            [
                "/tree/children/0/name: must be a string (got number)",
                r#"/tree/children/1: missing required property "name""#,
                "/again/again/tree: must be an object (got number)"
            ]
        );
    }

    #[test]
    fn a_ref_loop_that_descends_into_the_value_compiles() {
        // The loops that do not descend are compile errors (`compile::tests::compile_errors`).
        assert!(Validator::compile(&json!({"items": {"$ref": "#"}})).is_ok());
    }

    #[test]
    fn percent_encoded_fragments() {
        // `%25` is `%` in a `$ref` fragment.
        let v = Validator::compile(
            &json!({"$ref": "#/$defs/a%25b", "$defs": {"a%b": {"type": "string"}}}),
        )
        .unwrap();
        assert_eq!(v.validate(&mut json!(1)).len(), 1);
        // UTF-8 encoded as `%C3%A9` decodes to `é`; the same key written plainly resolves too.
        let schema = json!({
            "properties": {"a": {"$ref": "#/$defs/caf%C3%A9"}, "b": {"$ref": "#/$defs/café"}},
            "$defs": {"café": {"type": "integer"}}
        });
        assert_eq!(
            run(schema, json!({"a": "x", "b": 1.5})),
            [
                "/a: must be an integer (got string)",
                "/b: must be an integer (got 1.5)"
            ]
        );
        // Bytes that are not UTF-8 are refused with the fragment they came from.
        let err = Validator::compile(&json!({"$ref": "#/$defs/%FF"})).unwrap_err();
        assert_eq!(err, r#"bad percent-encoding in `$ref` "/$defs/%FF""#);
        // A `%` not followed by two hex digits is kept as written, not refused.
        let v = Validator::compile(&json!({"$ref": "#/$defs/a%zz", "$defs": {"a%zz": false}}));
        assert_eq!(v.unwrap().validate(&mut json!(1)).len(), 1);
    }
}
