//! Every path the generated code names, in one table. All of them go through the runtime's hidden
//! `__private` module, whose root `#[tool(crate = …)]` and `tools![crate = …; …]` can replace.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::kind::Kind;

/// The root of the runtime as the generated code names it: `::mcp_runtime` unless overridden.
#[derive(Clone)]
pub struct Paths {
    root: TokenStream,
}

impl Default for Paths {
    fn default() -> Self {
        Paths {
            root: quote!(::mcp_runtime),
        }
    }
}

macro_rules! private_paths {
    ($($(#[$doc:meta])* $fn_name:ident => $($seg:ident)::+;)*) => {
        impl Paths {
            $(
                $(#[$doc])*
                pub fn $fn_name(&self) -> TokenStream {
                    let root = &self.root;
                    quote!(#root::__private$(::$seg)+)
                }
            )*
        }
    };
}

private_paths! {
    tool_def => ToolDef;
    tool_spec => ToolSpec;
    tool_table => ToolTable;
    annotations => Annotations;
    task_support => TaskSupport;
    input_schema => InputSchema;
    arg_spec => ArgSpec;
    constraints => Constraints;
    num => Num;
    output_schema => OutputSchema;
    schema_generator => schemars::SchemaGenerator;
    state_req => StateReq;
    call_parts => CallParts;
    tool_output => ToolOutput;
    tool_error => ToolError;
    box_future => BoxFuture;
    boxed => boxed;
    arg_fns => ArgFns;
    inject_fns => InjectFns;
    flat_fns => FlatFns;
    flat_fns_of => flat_fns;
    flat_keys => FlatKeys;
    once_lock => std::sync::OnceLock;
    inject_fns_of => inject_fns;
    ret_fns => RetFns;
    to_json => to_json;
    arg_probe => ArgProbe;
    option_arg_kind => OptionArgKind;
    plain_arg_kind => PlainArgKind;
    ret_probe => RetProbe;
    result_ret_kind => ResultRetKind;
    plain_ret_kind => PlainRetKind;
    visible_err_kind => VisibleErrKind;
    plain_err_kind => PlainErrKind;
    err_probe => ErrProbe;
    assert_str_arg => assert_str_arg;
    assert_items_arg => assert_items_arg;
    num_range => num_range;
    num_range_ty => NumRange;
    num_bound => NumBound;
    bound_in_range => bound_in_range;
    bound_is_whole => bound_is_whole;
    injected_once => InjectedOnce;
    boxed_send => boxed_send;
    boxed_blocking => boxed_blocking;
    shared_name => shared_name;
    joined => joined;
    joined_len => joined_len;
    joined_text => joined_text;
    tool_set => ToolSet;
    receiver_fns => ReceiverFns;
    receiver_fns_of => receiver_fns;
    prompt_def => PromptDef;
    prompt_spec => PromptSpec;
    prompt_set => PromptSet;
    prompt_table => PromptTable;
    prompt_result => GetPromptResult;
    prompt_ret_fns => PromptRetFns;
    prompt_ret_fns_of => prompt_ret_fns;
    complete_fn => CompleteFn;
    resource_def => ResourceDef;
    resource_spec => ResourceSpec;
    resource_set => ResourceSet;
    resource_table => ResourceTable;
    resource_annotations => ResourceAnnotations;
    resource_contents => ResourceContents;
    var_fns => VarFns;
    var_fns_of => var_fns;
    res_ret_fns => ResRetFns;
    result_res_kind => ResultResKind;
    direct_res_kind => DirectResKind;
    json_res_kind => JsonResKind;
    complete_with => complete_with;
    fixed_candidates => fixed_candidates;
    complete_request => CompleteRequest;
    /// `Option`, named absolutely so that a user type called `Option` cannot capture it.
    option => std::option::Option;
    result => std::result::Result;
    vec => std::vec::Vec;
    default_trait => std::default::Default;
}

impl Paths {
    /// The trait the struct beside a function implements: `ToolDef` or `PromptDef`.
    pub fn def_trait(&self, kind: Kind) -> TokenStream {
        match kind {
            Kind::Tool => self.tool_def(),
            Kind::Prompt => self.prompt_def(),
        }
    }

    /// What that trait's `spec()` returns.
    pub fn spec_ty(&self, kind: Kind) -> TokenStream {
        match kind {
            Kind::Tool => self.tool_spec(),
            Kind::Prompt => self.prompt_spec(),
        }
    }

    /// What `tools![…]` or `prompts![…]` lists.
    pub fn set_trait(&self, kind: Kind) -> TokenStream {
        match kind {
            Kind::Tool => self.tool_set(),
            Kind::Prompt => self.prompt_set(),
        }
    }

    /// What a handler returns on success.
    pub fn handler_output(&self, kind: Kind) -> TokenStream {
        match kind {
            Kind::Tool => self.tool_output(),
            Kind::Prompt => self.prompt_result(),
        }
    }

    /// The paths under a root given with `crate = path`.
    pub fn with_root(root: impl ToTokens) -> Self {
        Paths {
            root: root.into_token_stream(),
        }
    }
}
