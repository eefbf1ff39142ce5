//! What a resource *is*: the spec `#[resource]` generates, the table a server serves, URI
//! templates, and what a read returns.
//!
//! | file | what it holds |
//! |---|---|
//! | `spec.rs` | [`ResourceSpec`] (static, from the macro), [`ResourceSet`] (what `resources![…]` lists), annotations |
//! | `table.rs` | [`ResourceTable`]: lookup of a URI, the read, template completion |
//! | `template.rs` | [`UriTemplate`]: RFC 6570 level 1–2 parsing and matching |
//! | `contents.rs` | [`ResourceContents`] on the wire, the return types, [`UriVar`] |
//! | `generated.rs` | what a generated handler calls (through `__private`) |

// The files stay private to the docs: users name the types below, at `resource::`; what only
// generated code names is re-exported by `__private` and hidden here.
pub(crate) mod contents;
pub(crate) mod generated;
pub(crate) mod spec;
pub(crate) mod table;
pub(crate) mod template;

pub use self::contents::{IntoResourceContents, Json, ResourceBody, ResourceContents, UriVar};
#[doc(hidden)]
pub use self::spec::{ResourceAnnotations, ResourceDef, ResourceSet, ResourceSpec};
#[doc(hidden)]
pub use self::table::ReadError;
pub use self::table::{DuplicateResource, ResourceTable};
#[doc(hidden)]
pub use self::template::UriTemplate;
