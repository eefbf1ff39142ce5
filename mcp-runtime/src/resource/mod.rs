//! What a resource *is*: the spec `#[resource]` generates, the table a server serves, URI
//! templates, and what a read returns.
//!
//! | file | what it holds |
//! |---|---|
//! | [`spec`] | [`ResourceSpec`] (static, from the macro), [`ResourceSet`] (what `resources![…]` lists), annotations |
//! | [`table`] | [`ResourceTable`]: lookup of a URI, the read, template completion |
//! | [`template`] | [`UriTemplate`]: RFC 6570 level 1–2 parsing and matching |
//! | [`contents`] | [`ResourceContents`] on the wire, the return types, [`UriVar`] |
//! | [`generated`] | what a generated handler calls (through `__private`) |

pub mod contents;
pub mod generated;
pub mod spec;
pub mod table;
pub mod template;

pub use contents::{IntoResourceContents, Json, ResourceBody, ResourceContents, UriVar};
pub use spec::{ResourceAnnotations, ResourceDef, ResourceSet, ResourceSpec};
pub use table::{DuplicateResource, ReadError, ResourceTable};
pub use template::UriTemplate;
