//! Server state that tools borrow: one value per type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::ToolError;
use crate::tool::call::CallParts;
use crate::tool::spec::StateReq;

/// A set of values keyed by type. A tool parameter `&T` borrows the `T` stored here.
#[derive(Clone, Default)]
pub struct StateMap {
    map: HashMap<TypeId, (Arc<dyn Any + Send + Sync>, &'static str)>,
}

impl StateMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, replacing any earlier value of the same type.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.insert_arc(Arc::new(value));
    }

    /// Stores a shared value.
    pub fn insert_arc<T: Any + Send + Sync>(&mut self, value: Arc<T>) {
        self.map
            .insert(TypeId::of::<T>(), (value, std::any::type_name::<T>()));
    }

    /// The stored `T`, if any.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.map
            .get(&TypeId::of::<T>())
            .and_then(|(v, _)| v.downcast_ref::<T>())
    }

    /// A shared handle on the stored `T`, if any.
    pub fn get_arc<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let (v, _) = self.map.get(&TypeId::of::<T>())?;
        Arc::clone(v).downcast::<T>().ok()
    }

    /// True when a value of this type is stored.
    pub fn contains(&self, type_id: TypeId) -> bool {
        self.map.contains_key(&type_id)
    }

    /// The names of the stored types.
    pub fn type_names(&self) -> Vec<&'static str> {
        self.map.values().map(|(_, n)| *n).collect()
    }
}

/// A receiver a `#[toolbox]` method takes by value: `self: Arc<Self>`, a handle on the server's
/// state that the body may keep past the call (to spawn a task, say).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the receiver of a tool method",
    label = "a tool method takes `&self` or `self: Arc<Self>`",
    note = "the server keeps the state and shares it between calls: take `&self`, or `self: Arc<Self>` to keep a handle past the call"
)]
pub trait SharedReceiver: Sized {
    /// The state type the receiver shares.
    type State: Any + Send + Sync;
    /// The receiver for one call.
    fn from_state(state: &StateMap) -> Option<Self>;
}

impl<T: Any + Send + Sync> SharedReceiver for Arc<T> {
    type State = T;
    fn from_state(state: &StateMap) -> Option<Self> {
        state.get_arc::<T>()
    }
}

/// The operations on a receiver taken by value, as the generated handler calls them.
pub struct ReceiverFns<R> {
    /// The state requirement of the receiver's type.
    pub state_req: fn() -> Option<StateReq>,
    /// The receiver for one call.
    pub get: fn(&CallParts) -> Result<R, ToolError>,
}

/// The operations on a `self: R` receiver.
pub fn receiver_fns<R: SharedReceiver>() -> ReceiverFns<R> {
    ReceiverFns {
        state_req: crate::tool::handler::state_req::<R::State>,
        get: |parts| {
            R::from_state(&parts.state).ok_or_else(|| {
                crate::tool::handler::missing_state::<R::State>(parts.ctx.tool_name())
            })
        },
    }
}
