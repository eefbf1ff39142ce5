//! An error whose `Display` panics: a tool returning it fails after its body has returned, where
//! the hidden error's chain is logged. The crash-proofing tests use it to panic outside the body.

use std::fmt;

/// Panics when displayed.
#[derive(Debug)]
pub struct Treacherous;

impl fmt::Display for Treacherous {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        panic!("Display of Treacherous exploded")
    }
}

impl std::error::Error for Treacherous {}
