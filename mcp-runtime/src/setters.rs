//! `setters!`: the builders' methods that only store their argument.

/// Builder methods that store their argument in a field, one line each:
/// `$(#[doc])* pub fn name(arg: Type) => field.path = expression;`.
macro_rules! setters {
    ($(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $store:expr;
    )*) => {
        $(
            $(#[$attr])*
            $vis fn $name(mut self, $arg: $ty) -> Self {
                self.$($field).+ = $store;
                self
            }
        )*
    };
}
