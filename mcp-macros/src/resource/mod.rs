//! `#[resource]` and `resources![…]`: the same attr → model → check → expand pipeline as
//! `#[tool]`, for a function that reads a resource.
//!
//! - `model`: `ResourceFn`, its parameters (template variables and injected borrows) and return type.
//! - `template`: the URI's syntax (a scheme, RFC 6570 level 1–2 expressions) and its variables.
//! - `check`: the rules across keys and signature (each variable a parameter and back, texts).
//! - `expand`: the struct beside the function, its `ResourceDef` and `ResourceSet`; the fallback.

mod check;
mod expand;
mod model;
mod template;

pub use check::check;
pub use expand::{RESOURCES, expand, fallback};
pub use model::ResourceFn;
