//! Compile-time contracts the generated code calls at the user's spans: the argument and state
//! type bounds, the numeric ranges `#[arg]` bounds are checked against, and `default` on an
//! optional argument.

use super::*;

// ---- compile-time contracts: called by the generated code at the user's spans -----------------
//
// Each `assert_*` function does nothing at run time; its bound is the contract. The generated code
// names the argument's type with the span of the type the user wrote, so rustc's caret lands there
// and the `on_unimplemented` text below is what the user reads.

/// An argument type: it is read from JSON and published as a JSON Schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument",
    label = "this argument type is not `serde::de::DeserializeOwned + schemars::JsonSchema`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` for it; to borrow server state or the context, take `&{Self}` instead"
)]
pub trait ArgType: DeserializeOwned + JsonSchema {}
impl<T: DeserializeOwned + JsonSchema> ArgType for T {}

/// An argument type that `pattern`, `min_length` and `max_length` apply to.
#[diagnostic::on_unimplemented(
    message = "`pattern`, `min_length` and `max_length` apply to string arguments, not to `{Self}`",
    label = "not a string type",
    note = "use `String` (or `Option<String>`), or remove the string constraint"
)]
pub trait StrArg {}
impl StrArg for String {}
impl StrArg for Box<str> {}
impl StrArg for Arc<str> {}
impl StrArg for std::rc::Rc<str> {}
impl StrArg for std::borrow::Cow<'static, str> {}
impl StrArg for char {}
impl<T: StrArg> StrArg for Option<T> {}

/// Checks that `T` is a string argument.
pub const fn assert_str_arg<T: StrArg>() {}

/// An argument type that `min_items` and `max_items` apply to.
#[diagnostic::on_unimplemented(
    message = "`min_items` and `max_items` apply to list and set arguments, not to `{Self}`",
    label = "not a list or set type",
    note = "use `Vec<T>`, `VecDeque<T>`, `BTreeSet<T>`, `HashSet<T>` or `[T; N]`, or remove the item constraint"
)]
pub trait ItemsArg {}
impl<T> ItemsArg for Vec<T> {}
impl<T> ItemsArg for Box<[T]> {}
impl<T> ItemsArg for std::collections::VecDeque<T> {}
impl<T> ItemsArg for std::collections::BTreeSet<T> {}
impl<T, S> ItemsArg for std::collections::HashSet<T, S> {}
impl<T, const N: usize> ItemsArg for [T; N] {}
impl<T: ItemsArg> ItemsArg for Option<T> {}

/// Checks that `T` is a list or set argument.
pub const fn assert_items_arg<T: ItemsArg>() {}

/// An argument type that numeric bounds apply to.
#[diagnostic::on_unimplemented(
    message = "`minimum`, `maximum`, `exclusive_minimum` and `exclusive_maximum` apply to number arguments, not to `{Self}`",
    label = "not a number type",
    note = "use an integer type or `f64` (or an `Option` of one), or remove the numeric bound"
)]
pub trait NumArg {
    /// The smallest and largest value of an integer type; `None` for floating-point types.
    const INT_RANGE: Option<(i128, i128)> = None;
}
macro_rules! int_args {
    ($($t:ty),*) => {
        $(impl NumArg for $t {
            // `u128::MAX` saturates: a bound is at most `u64::MAX`, so nothing is lost.
            const INT_RANGE: Option<(i128, i128)> = Some((<$t>::MIN as i128, if <$t>::MAX as u128 > i128::MAX as u128 { i128::MAX } else { <$t>::MAX as i128 }));
        })*
    };
}
int_args!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);
impl NumArg for f32 {}
impl NumArg for f64 {}
impl<T: NumArg> NumArg for Option<T> {
    const INT_RANGE: Option<(i128, i128)> = T::INT_RANGE;
}

/// Checks that `T` is a number argument.
pub const fn assert_num_arg<T: NumArg>() {}

/// Byte-wise string equality usable in constants: `tools![…]` compares published names with it.
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// ---- one checked entry point per type ------------------------------------------------------------
//
// The generated code names each argument, injected and return type once, in a nested fn that
// returns these bundles of fn pointers; everything else calls through them without bounds of its
// own. A type that breaks its contract is then reported once, at the type the user wrote, instead
// of once per place the expansion uses it.

/// The operations on one argument type.
pub struct ArgFns<T> {
    /// Declares the argument into the inputSchema.
    pub declare: fn(&mut InputSchema, ArgSpec),
    /// Takes the argument out of the validated arguments: `None` when absent.
    pub take: fn(&mut CallParts, &str) -> Result<Option<T>, ToolError>,
    /// The value of an absent argument without a default.
    pub absent: fn(&CallParts, &str) -> Result<T, ToolError>,
}

impl OptionArg {
    /// The operations on an `Option<U>` argument: optional, nullable, `None` when absent.
    pub fn fns<U: ArgType>(&self, _: &ArgProbe<Option<U>>) -> ArgFns<Option<U>> {
        ArgFns {
            declare: |b, spec| b.option_arg::<U>(spec),
            take: take_arg::<Option<U>>,
            absent: |_, _| Ok(None),
        }
    }
}

impl PlainArg {
    /// The operations on a required argument.
    pub fn fns<T: ArgType>(&self, _: &ArgProbe<T>) -> ArgFns<T> {
        ArgFns {
            declare: |b, spec| b.arg::<T>(spec),
            take: take_arg::<T>,
            absent: |parts, name| PlainArg.absent(&ArgProbe::<T>::new(), parts, name),
        }
    }
}

/// A type a tool can borrow with a `&T` parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be borrowed by a tool",
    label = "a `&T` parameter borrows server state, so `T` must be `Send + Sync + 'static`",
    note = "wrap the non-thread-safe part in a `Mutex` or an atomic, or pass the value as an argument instead of a reference"
)]
pub trait StateType: Any + Send + Sync {}
impl<T: Any + Send + Sync> StateType for T {}

/// The operations on one injected type.
pub struct InjectFns<T: ?Sized + 'static> {
    /// Its state requirement, `None` for the context.
    pub state_req: fn() -> Option<StateReq>,
    /// Borrows it for a call.
    pub get: for<'a> fn(&'a CallParts) -> Result<&'a T, ToolError>,
}

/// The operations on an injected `&T`.
pub fn inject_fns<T: StateType>() -> InjectFns<T> {
    InjectFns {
        state_req: state_req::<T>,
        get: inject::<T>,
    }
}

/// The operations on one return type.
pub struct RetFns<R> {
    /// Its outputSchema.
    pub output_schema: fn(&mut SchemaGenerator) -> Option<OutputSchema>,
    /// Converts a returned value into the call result.
    pub convert: fn(R, bool) -> Result<ToolOutput, ToolError>,
}

impl ResultRet {
    /// The operations on a `Result<T, E>` return type.
    pub fn fns<T: IntoToolOutput, E: IntoToolError>(
        &self,
        _: &RetProbe<Result<T, E>>,
    ) -> RetFns<Result<T, E>> {
        RetFns {
            output_schema: T::output_schema,
            convert: |value, wrapped| ResultRet.convert(value, wrapped),
        }
    }
}

impl PlainRet {
    /// The operations on a plain return type.
    pub fn fns<T: IntoToolOutput>(&self, _: &RetProbe<T>) -> RetFns<T> {
        RetFns {
            output_schema: T::output_schema,
            convert: |value, wrapped| PlainRet.convert(value, wrapped),
        }
    }
}

// ---- bounds against the argument's type: evaluated in constants the generated code declares ------
//
// `#[tool]` knows a bound's literal but not what its argument type holds; the type system does.
// The generated code reads the type's `NumArg::INT_RANGE` once, in a constant spanned at the type
// (so a type that is not a number is reported once, there), and asserts each bound in a constant
// spanned at the bound's literal with a message it wrote itself.

/// The values a number argument holds, as the generated constants read them.
#[derive(Clone, Copy)]
pub struct NumRange {
    int: Option<(i128, i128)>,
}

/// The range of a number argument type; the bound is the "numeric bound on a number" contract.
pub const fn num_range<T: NumArg>() -> NumRange {
    NumRange { int: T::INT_RANGE }
}

/// One numeric bound as written, whole numbers as integers.
#[derive(Clone, Copy)]
pub enum NumBound {
    /// `minimum`.
    Min(i128),
    /// `maximum`.
    Max(i128),
    /// `exclusive_minimum`.
    ExclusiveMin(i128),
    /// `exclusive_maximum`.
    ExclusiveMax(i128),
    /// A bound with a fractional part.
    Fraction,
}

/// False when an integer type has no value the bound can describe: `maximum = 300` on `u8`,
/// `minimum = -1` on `u32`, `exclusive_maximum = 0` on `u8`. Floating-point types hold them all.
pub const fn bound_in_range(range: NumRange, bound: NumBound) -> bool {
    let Some((min, max)) = range.int else {
        return true;
    };
    match bound {
        NumBound::Min(v) | NumBound::Max(v) => min <= v && v <= max,
        NumBound::ExclusiveMin(v) => min.saturating_sub(1) <= v && v < max,
        NumBound::ExclusiveMax(v) => min < v && v <= max.saturating_add(1),
        NumBound::Fraction => true,
    }
}

/// False for a fractional bound on an integer type.
pub const fn bound_is_whole(range: NumRange, bound: NumBound) -> bool {
    !(range.int.is_some() && matches!(bound, NumBound::Fraction))
}

// ---- `default` on an optional argument ----------------------------------------------------------

/// Implemented by no type: `default` is refused on `Option<T>` through this bound.
#[diagnostic::on_unimplemented(
    message = "`default` does not apply to the optional argument type `{Self}`",
    label = "an absent `Option` argument is already `None`",
    note = "to give the argument a default, take the inner type instead of `Option<...>`; to keep it optional, remove `default`"
)]
pub trait DefaultOnOption {}

impl PlainArg {
    /// A required argument may have a default.
    pub const fn check_default<T>(&self, _: &ArgProbe<T>) {}
}

impl OptionArg {
    /// An optional argument may not: its bound holds for no type.
    pub fn check_default<T: DefaultOnOption>(&self, _: &ArgProbe<T>) {}
}
