//! Atrium's bookings behind a small store trait: in memory by default, in Redis with `--redis`
//! (feature `redis`), so that every replica of a fleet books from one calendar. The contract and
//! the messages stay the same; ids are `bk_<n>`, never reused, across replicas too.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

// A booking, as the tools return it. (No doc comment: it would become the schema's
// description, and the contract is the Python reference's.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Booking {
    pub id: String,
    pub room_id: String,
    pub room: String,
    pub day: String,
    pub hour: i64,
}

/// The booking every atrium starts with: Studio B, 2026-09-17 at 09:00.
pub fn first_booking() -> Booking {
    Booking {
        id: "bk_1".into(),
        room_id: "studio-b".into(),
        room: "Studio B".into(),
        day: "2026-09-17".into(),
        hour: 9,
    }
}

/// The store could not be reached (Redis down): the call fails with this, and the next one tries
/// again.
#[derive(Debug)]
pub struct StoreDown(pub String);

impl std::fmt::Display for StoreDown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the booking store is unavailable: {}", self.0)
    }
}

impl std::error::Error for StoreDown {}

/// What a [`BookingStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreDown>> + Send + 'a>>;

/// Where atrium keeps its bookings.
pub trait BookingStore: Send + Sync + 'static {
    /// The hours booked in `room_id` on `day`.
    fn taken_hours<'a>(&'a self, room_id: &'a str, day: &'a str) -> StoreFuture<'a, BTreeSet<i64>>;

    /// Books the slot of `booking` (its `id` is ignored) under the next id; `None` when the slot
    /// is taken.
    fn book(&self, booking: Booking) -> StoreFuture<'_, Option<Booking>>;

    /// Cancels the booking `id`; false when there is none.
    fn cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool>;
}

/// The bookings in this process, in the order they were made, and the next id.
pub struct MemoryBookings(Mutex<(Vec<Booking>, u64)>);

impl Default for MemoryBookings {
    fn default() -> Self {
        MemoryBookings(Mutex::new((vec![first_booking()], 2)))
    }
}

impl BookingStore for MemoryBookings {
    fn taken_hours<'a>(&'a self, room_id: &'a str, day: &'a str) -> StoreFuture<'a, BTreeSet<i64>> {
        let inner = self.0.lock().unwrap();
        let taken = inner
            .0
            .iter()
            .filter(|b| b.room_id == room_id && b.day == day)
            .map(|b| b.hour)
            .collect();
        Box::pin(std::future::ready(Ok(taken)))
    }

    fn book(&self, mut booking: Booking) -> StoreFuture<'_, Option<Booking>> {
        let mut inner = self.0.lock().unwrap();
        let taken = inner.0.iter().any(|b| {
            b.room_id == booking.room_id && b.day == booking.day && b.hour == booking.hour
        });
        let booked = (!taken).then(|| {
            booking.id = format!("bk_{}", inner.1);
            inner.1 += 1;
            inner.0.push(booking.clone());
            booking
        });
        Box::pin(std::future::ready(Ok(booked)))
    }

    fn cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let mut inner = self.0.lock().unwrap();
        let found = inner.0.iter().position(|b| b.id == id);
        if let Some(i) = found {
            inner.0.remove(i);
        }
        Box::pin(std::future::ready(Ok(found.is_some())))
    }
}

#[cfg(feature = "redis")]
pub use on_redis::RedisBookings;

/// The store the command line asks for: Redis with `--redis URL` (feature `redis`), else memory.
pub async fn store_for(
    args: &mcp_runtime::cli::ServeArgs,
) -> Result<Box<dyn BookingStore>, StoreDown> {
    #[cfg(feature = "redis")]
    if let Some(url) = &args.redis {
        // One Redis, or a Redis Cluster (`redis+cluster://host:port,host:port`).
        let conn = mcp_runtime::RedisConnection::connect(url)
            .await
            .map_err(|e| StoreDown(e.to_string()))?;
        return Ok(Box::new(RedisBookings::new(conn).await?));
    }
    let _ = args;
    Ok(Box::new(MemoryBookings::default()))
}

#[cfg(feature = "redis")]
mod on_redis {
    //! Keys under `atrium:`: `next_id` (a counter: ids are `INCR`ed, so never reused),
    //! `bookings` (a hash, id → booking JSON) and `day:{room}:{day}` (a hash, hour → id). Booking
    //! and cancelling are Lua scripts, each atomic: two replicas never book one slot twice. On a
    //! Redis Cluster the prefix is hash-tagged, `{atrium}:`, so each script's keys share a slot.

    use std::collections::BTreeSet;

    use mcp_runtime::{RedisConnection, hash_tag};

    use super::{Booking, BookingStore, StoreDown, StoreFuture, first_booking};

    const PREFIX: &str = "atrium";

    /// Seeds `bk_1` once per Redis (the first replica to start does it).
    const SEED: &str = r"
        if redis.call('SET', KEYS[1], '1', 'NX') then
            redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
            redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
        end
        return 0";

    const BOOK: &str = r"
        if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return false end
        local id = 'bk_' .. redis.call('INCR', KEYS[2])
        local booking = cjson.encode({id = id, room_id = ARGV[2], room = ARGV[3],
            day = ARGV[4], hour = tonumber(ARGV[1])})
        redis.call('HSET', KEYS[1], ARGV[1], id)
        redis.call('HSET', KEYS[3], id, booking)
        return booking";

    const CANCEL: &str = r"
        local booking = redis.call('HGET', KEYS[1], ARGV[1])
        if not booking then return 0 end
        local b = cjson.decode(booking)
        redis.call('HDEL', KEYS[1], ARGV[1])
        redis.call('HDEL', ARGV[2] .. ':day:' .. b.room_id .. ':' .. b.day, tostring(b.hour))
        return 1";

    /// Atrium's bookings in Redis, shared by every replica on it.
    pub struct RedisBookings {
        conn: RedisConnection,
        /// [`PREFIX`], hash-tagged on a cluster.
        prefix: String,
    }

    fn down(e: redis::RedisError) -> StoreDown {
        StoreDown(e.to_string())
    }

    impl RedisBookings {
        /// Uses `conn`, seeding `bk_1` if this Redis has no bookings yet.
        pub async fn new(conn: impl Into<RedisConnection>) -> Result<Self, StoreDown> {
            let conn = conn.into();
            let prefix = if conn.is_cluster() {
                hash_tag(PREFIX)
            } else {
                PREFIX.to_owned()
            };
            let store = RedisBookings { conn, prefix };
            let prefix = &store.prefix;
            let first = first_booking();
            let json = serde_json::to_string(&first).expect("a booking is JSON");
            let mut seed = redis::cmd("EVAL");
            seed.arg(SEED).arg(3).arg(format!("{prefix}:next_id"));
            seed.arg(store.day_key(&first.room_id, &first.day));
            seed.arg(format!("{prefix}:bookings"));
            seed.arg(first.hour).arg(&first.id).arg(json);
            store.query::<i64>(&seed).await?;
            Ok(store)
        }

        async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T, StoreDown> {
            cmd.query_async(&mut self.conn.clone()).await.map_err(down)
        }

        fn day_key(&self, room_id: &str, day: &str) -> String {
            format!("{}:day:{room_id}:{day}", self.prefix)
        }
    }

    impl BookingStore for RedisBookings {
        fn taken_hours<'a>(
            &'a self,
            room_id: &'a str,
            day: &'a str,
        ) -> StoreFuture<'a, BTreeSet<i64>> {
            Box::pin(async move {
                let mut cmd = redis::cmd("HKEYS");
                cmd.arg(self.day_key(room_id, day));
                let hours: Vec<i64> = self.query(&cmd).await?;
                Ok(hours.into_iter().collect())
            })
        }

        fn book(&self, booking: Booking) -> StoreFuture<'_, Option<Booking>> {
            Box::pin(async move {
                let mut cmd = redis::cmd("EVAL");
                cmd.arg(BOOK)
                    .arg(3)
                    .arg(self.day_key(&booking.room_id, &booking.day));
                cmd.arg(format!("{}:next_id", self.prefix))
                    .arg(format!("{}:bookings", self.prefix));
                cmd.arg(booking.hour)
                    .arg(&booking.room_id)
                    .arg(&booking.room)
                    .arg(&booking.day);
                let Some(json) = self.query::<Option<String>>(&cmd).await? else {
                    return Ok(None);
                };
                serde_json::from_str(&json)
                    .map(Some)
                    .map_err(|e| StoreDown(format!("a stored booking is malformed: {e}")))
            })
        }

        fn cancel<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
            Box::pin(async move {
                let mut cmd = redis::cmd("EVAL");
                cmd.arg(CANCEL)
                    .arg(1)
                    .arg(format!("{}:bookings", self.prefix));
                cmd.arg(id).arg(&self.prefix);
                Ok(self.query::<i64>(&cmd).await? == 1)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(room_id: &str, hour: i64) -> Booking {
        Booking {
            id: String::new(),
            room_id: room_id.into(),
            room: room_id.into(),
            day: "2026-09-17".into(),
            hour,
        }
    }

    #[tokio::test]
    async fn memory_bookings_take_a_slot_once_and_never_reuse_an_id() {
        let store = MemoryBookings::default();
        let taken = store.taken_hours("studio-b", "2026-09-17").await.unwrap();
        assert_eq!(taken, BTreeSet::from([9]));
        assert_eq!(store.book(slot("studio-b", 9)).await.unwrap(), None);
        let booked = store.book(slot("studio-a", 10)).await.unwrap().unwrap();
        assert_eq!(booked.id, "bk_2");
        assert!(store.cancel("bk_2").await.unwrap());
        assert!(!store.cancel("bk_2").await.unwrap());
        let again = store.book(slot("studio-a", 10)).await.unwrap().unwrap();
        assert_eq!(again.id, "bk_3");
    }
}
