//! Scale-out (feature `redis`): what replicas of one server behind a load balancer share.
//! [`RedisEventBus`] carries change events between them (`subscriptions/listen` and legacy
//! sessions on every replica see a change made on any one); `wire.rs` is the format of
//! those messages. [`RedisTaskStore`] keeps the tasks every replica answers for. `streams.rs`: append-only
//! logs in Redis streams, which the Events extension keeps its occurrences in.

mod redis;
#[cfg(feature = "events")]
pub(crate) mod streams;
mod task_store;
mod timing;
mod url;
mod wire;

pub use self::redis::{RedisEventBus, RedisEventBusBuilder};
pub use self::task_store::RedisTaskStore;
