//! Server state that tools borrow: one value per type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

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

    /// True when a value of this type is stored.
    pub fn contains(&self, type_id: TypeId) -> bool {
        self.map.contains_key(&type_id)
    }

    /// The names of the stored types.
    pub fn type_names(&self) -> Vec<&'static str> {
        self.map.values().map(|(_, n)| *n).collect()
    }
}
