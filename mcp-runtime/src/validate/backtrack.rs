//! The patterns of a compiled schema that run by backtracking (what a server's build warns
//! about), and the budget they run under.

use super::Validator;
use super::node::Node;
use super::pattern::{NonLinearPattern, Pattern};

impl Validator {
    /// The patterns of this schema that run by backtracking under their budget (look-around,
    /// backreferences, the multiline modifier); every other pattern runs in linear time.
    pub fn non_linear_patterns(&self) -> Vec<NonLinearPattern> {
        self.patterns()
            .filter_map(|p| {
                Some(NonLinearPattern {
                    why: p.non_linear()?,
                    pattern: p.source.to_string(),
                    at: p.at.to_string(),
                })
            })
            .collect()
    }

    /// Sets the backtracking budget of this schema's non-linear patterns (default
    /// [`DEFAULT_PATTERN_BACKTRACK_LIMIT`](super::DEFAULT_PATTERN_BACKTRACK_LIMIT)).
    pub fn set_pattern_backtrack_limit(&mut self, limit: usize) {
        for node in &mut self.nodes {
            if let Node::Rules(r) = node {
                let props = r.pattern_properties.iter_mut().map(|(p, _)| p);
                r.pattern
                    .iter_mut()
                    .chain(props)
                    .for_each(|p| p.set_backtrack_limit(limit));
            }
        }
    }

    fn patterns(&self) -> impl Iterator<Item = &Pattern> {
        self.nodes.iter().flat_map(|node| {
            let r = match node {
                Node::Rules(r) => Some(r),
                _ => None,
            };
            let props = r
                .into_iter()
                .flat_map(|r| r.pattern_properties.iter().map(|(p, _)| p));
            r.and_then(|r| r.pattern.as_ref()).into_iter().chain(props)
        })
    }
}
