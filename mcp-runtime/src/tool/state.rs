//! Server state that tools borrow: one value per type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// A set of values keyed by type. A tool parameter `&T` borrows the `T` stored here.
#[derive(Clone, Default)]
pub struct StateMap {
    map: HashMap<
        TypeId,
        (Arc<dyn Any + Send + Sync>, &'static str),
        BuildHasherDefault<TypeIdHasher>,
    >,
}

/// The hasher of a map keyed by `TypeId`, which is a hash already: a `TypeId` hashes itself by
/// writing 64 bits of its own hash, and this passes them through instead of hashing them again
/// with SipHash, about 140 instructions for each state value a call borrows (callgrind). Its keys
/// are the server's types, never a client's input, so there is nothing to defend against.
#[derive(Default)]
struct TypeIdHasher(u64);

impl Hasher for TypeIdHasher {
    /// The one write of a `TypeId`: its 64 bits, kept as they are (mixed with anything written
    /// before, of which a `TypeId` writes nothing).
    fn write_u64(&mut self, n: u64) {
        self.0 = self.0.rotate_left(32) ^ n;
    }

    /// Not how `TypeId` hashes itself today; should that change, every byte still counts.
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
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

/// A state type a tool borrows, checked when the server is built.
#[derive(Debug, Clone, Copy)]
pub struct StateReq {
    /// The type's id.
    pub type_id: TypeId,
    /// The type's name, for the error message.
    pub type_name: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn values_of_many_types_are_each_found_under_their_own() {
        #[derive(Debug, PartialEq)]
        struct A(u8);
        #[derive(Debug, PartialEq)]
        struct B(u8);
        let mut map = StateMap::new();
        map.insert(A(1));
        map.insert(B(2));
        map.insert(3u8);
        map.insert(4u16);
        map.insert(String::from("five"));
        map.insert(A(6));
        assert_eq!(map.get::<A>(), Some(&A(6)));
        assert_eq!(map.get::<B>(), Some(&B(2)));
        assert_eq!(map.get::<u8>(), Some(&3));
        assert_eq!(map.get::<u16>(), Some(&4));
        assert_eq!(map.get::<String>().map(String::as_str), Some("five"));
        assert_eq!(map.get::<u32>(), None);
        assert_eq!(map.type_names().len(), 5);
    }

    /// Distinct types get distinct hashes through the pass-through hasher, and bytes written
    /// the general way all count.
    #[test]
    fn the_hasher_keeps_what_it_is_given() {
        let build = BuildHasherDefault::<TypeIdHasher>::default();
        let ids = [
            TypeId::of::<u8>(),
            TypeId::of::<u16>(),
            TypeId::of::<String>(),
            TypeId::of::<StateMap>(),
        ];
        let hashes: std::collections::HashSet<u64> =
            ids.iter().map(|id| build.hash_one(id)).collect();
        assert_eq!(hashes.len(), ids.len());
        let of = |bytes: &[u8]| build.hash_one(bytes);
        assert_ne!(of(b"ab"), of(b"ba"));
        assert_ne!(of(b"a"), of(b"b"));
    }
}
